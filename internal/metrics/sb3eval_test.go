package metrics

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// npyFile writes an .npy file as numpy.lib.format.write_array does
// (NEP 1): magic, version, header length, the header dict padded with
// spaces to a multiple of 64 bytes and ended by a newline, then the data.
// values are written in the order given (C order unless fortran).
func npyFile(descr string, fortran bool, shape []int, values any) []byte {
	var data bytes.Buffer
	if err := binary.Write(&data, binary.LittleEndian, values); err != nil {
		panic(err)
	}
	order := "False"
	if fortran {
		order = "True"
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, shapeText(shape))
	pad := 64 - (10+len(h)+1)%64
	h += strings.Repeat(" ", pad%64) + "\n"
	out := []byte("\x93NUMPY\x01\x00")
	out = binary.LittleEndian.AppendUint16(out, uint16(len(h)))
	return append(append(out, h...), data.Bytes()...)
}

// A member is one array of an .npz.
type member struct {
	name string
	data []byte
}

// npzFile zips members as numpy.savez does (stored), or
// savez_compressed (deflated).
func npzFile(deflate bool, members ...member) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	method := zip.Store
	if deflate {
		method = zip.Deflate
	}
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			panic(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// evalNPZ is an EvalCallback evaluations.npz of 3 evaluations of 2
// episodes each.
func evalNPZ(deflate bool) []byte {
	return npzFile(deflate,
		member{"timesteps.npy", npyFile("<i8", false, []int{3}, []int64{1000, 2000, 3000})},
		member{"results.npy", npyFile("<f8", false, []int{3, 2}, []float64{1, 2, 10, 20, 100, math.NaN()})},
		member{"ep_lengths.npy", npyFile("<i8", false, []int{3, 2}, []int64{5, 7, 6, 8, 9, 9})},
	)
}

func TestSB3EvalSeries(t *testing.T) {
	nan := math.NaN()
	want := map[string][][2]float64{
		"eval/mean_reward":     {{1000, 1.5}, {2000, 15}, {3000, nan}},
		"eval/episode_reward":  {{1000, 1}, {1000, 2}, {2000, 10}, {2000, 20}, {3000, 100}, {3000, nan}},
		"eval/mean_ep_length":  {{1000, 6}, {2000, 7}, {3000, 9}},
		"eval/episode_length":  {{1000, 5}, {1000, 7}, {2000, 6}, {2000, 8}, {3000, 9}, {3000, 9}},
		"eval/episodes":        {{1000, 2}, {2000, 2}, {3000, 2}},
		"eval/success_rate":    nil,
		"eval/episode_success": nil,
	}
	for _, deflate := range []bool{false, true} {
		rec, info, err := readRec(t, t.TempDir(), "evaluations.npz", "", evalNPZ(deflate))
		if err != nil {
			t.Fatal(err)
		}
		if info.Format != SB3Eval {
			t.Fatalf("format %q", info.Format)
		}
		got := map[string][][2]float64{}
		for tag := range want {
			got[tag] = rec.series(tag)
		}
		if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
			t.Errorf("deflate %v: series (-want +got):\n%s", deflate, d)
		}
	}
}

func TestSB3EvalForms(t *testing.T) {
	// The same evaluations in Fortran order, int32 steps (numpy's default
	// integer on Windows before 2.0), float32 returns, .npy version 2,
	// and successes: one series.
	f32 := npyFile("<f4", true, []int{3, 2}, []float32{1, 10, 100, 2, 20, 200})
	v2 := npyFile("<i4", false, []int{3}, []int32{1000, 2000, 3000})
	// Version 2.0: a 4-byte header length.
	h := v2[10 : bytes.IndexByte(v2, '\n')+1]
	v2 = append(append(append([]byte("\x93NUMPY\x02\x00"), binary.LittleEndian.AppendUint32(nil, uint32(len(h)))...), h...), v2[10+len(h):]...)
	data := npzFile(false,
		member{"timesteps.npy", v2},
		member{"results.npy", f32},
		member{"successes.npy", npyFile("|b1", false, []int{3, 2}, []uint8{1, 0, 1, 1, 0, 0})},
		member{"extra.npy", npyFile("<f8", false, []int{1}, []float64{7})},
	)
	rec, info, err := readRec(t, t.TempDir(), "evaluations.npz", SB3Eval, data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][][2]float64{"r": rec.series("eval/mean_reward"), "s": rec.series("eval/success_rate"), "e": rec.series("eval/episode_success")}
	want := map[string][][2]float64{
		"r": {{1000, 1.5}, {2000, 15}, {3000, 150}},
		"s": {{1000, 0.5}, {2000, 1}, {3000, 0}},
		"e": {{1000, 1}, {1000, 0}, {2000, 1}, {2000, 1}, {3000, 0}, {3000, 0}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
	if !strings.Contains(strings.Join(info.Notes, " "), "Skipped the arrays extra") {
		t.Errorf("notes %q do not say extra was skipped", info.Notes)
	}
}

func TestSB3EvalRefusals(t *testing.T) {
	ts := npyFile("<i8", false, []int{2}, []int64{10, 20})
	res := npyFile("<f8", false, []int{2, 1}, []float64{1, 2})
	// The offset of results.npy's data in a stored archive of ts then it.
	resAt := func(data []byte) int64 {
		zr, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		off, _ := zr.File[1].DataOffset()
		return off
	}
	with := func(r []byte) []byte { return npzFile(false, member{"timesteps.npy", ts}, member{"results.npy", r}) }
	full := with(res)
	for _, tc := range []struct {
		name string
		data []byte
		want func(data []byte) string
	}{
		{"big-endian", with(bytes.Replace(res, []byte("'<f8'"), []byte("'>f8'"), 1)),
			func(d []byte) string {
				return fmt.Sprintf(": byte %d: results.npy: dtype \">f8\" is big-endian", resAt(d)+int64(10+len("{'descr': ")))
			}},
		{"an object array", with(bytes.Replace(res, []byte("'<f8'"), []byte("'|O' "), 1)),
			func(d []byte) string {
				return fmt.Sprintf(": byte %d: results.npy: dtype \"|O\" is an object array, stored as a pickle: rlxp never unpickles", resAt(d)+int64(10+len("{'descr': ")))
			}},
		{"a structured dtype", with(bytes.Replace(res, []byte("'<f8'"), []byte("[('a', '<f8')]"), 1)),
			func(d []byte) string { return "results.npy: a structured dtype" }},
		{"cut-off data", with(res[:len(res)-3]),
			func(d []byte) string {
				return fmt.Sprintf(": byte %d: results.npy: the shape (2, 1) of <f8 needs 16 bytes of data, the member holds 13 bytes", resAt(d)+int64(bytes.IndexByte(res, '\n')+1))
			}},
		{"cut-off data, deflated", npzFile(true, member{"timesteps.npy", ts}, member{"results.npy", res[:len(res)-3]}),
			func([]byte) string {
				return fmt.Sprintf(": results.npy, byte %d of the array: the shape (2, 1)", bytes.IndexByte(res, '\n')+1)
			}},
		{"no magic", with([]byte("PK\x03\x04 a pickle")), func([]byte) string { return "results.npy: no .npy magic" }},
		{"version 4", with(append([]byte("\x93NUMPY\x04"), res[7:]...)), func([]byte) string { return "results.npy: .npy format version 4.0" }},
		{"an unknown header key", with(bytes.Replace(res, []byte("'shape'"), []byte("'shapx'"), 1)), func([]byte) string { return `an unknown header key "shapx"` }},
		{"a torn archive", full[:len(full)-10], func([]byte) string { return ": not a complete .npz (zip) archive" }},
		{"a bad CRC", bytes.Replace(full, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x40}, 1),
			func([]byte) string {
				return fmt.Sprintf(": byte %d: results.npy: its CRC does not match its bytes", resAt(full))
			}},
		// Bytes the archive does not account for are not read, so they
		// would be hashed into the entry unscored: an older archive in
		// front, junk around or between the arrays.
		{"two archives in one file", append(npzFile(false, member{"timesteps.npy", npyFile("<i8", false, []int{1}, []int64{5})}, member{"results.npy", res}), full...),
			func([]byte) string { return ": bytes the .npz archive does not account for" }},
		{"junk in front", append([]byte("junk"), full...), func([]byte) string {
			return ": bytes the .npz archive does not account for: around its central directory"
		}},
		{"junk after", append(append([]byte{}, full...), "junk"...), func([]byte) string { return ": bytes the .npz archive does not account for" }},
		{"junk between", junkBetween(full), func([]byte) string { return ": bytes the .npz archive does not account for: before results.npy" }},
		{"two arrays named results", npzFile(false, member{"timesteps.npy", ts}, member{"results.npy", res}, member{"results.npy", res}),
			func([]byte) string { return `member "results.npy" appears twice` }},
		{"no timesteps", npzFile(false, member{"results.npy", res}), func([]byte) string { return "no timesteps array" }},
		{"rows unlike timesteps", with(npyFile("<f8", false, []int{1, 2}, []float64{1, 2})),
			func([]byte) string { return "results has shape (1, 2): with 2 timesteps" }},
		{"float timesteps", npzFile(false, member{"timesteps.npy", npyFile("<f8", false, []int{2}, []float64{1, 2})}, member{"results.npy", res}),
			func([]byte) string { return "timesteps are <f8, not integers" }},
		{"a member that is no array", npzFile(false, member{"timesteps.npy", ts}, member{"results.pkl", res}),
			func([]byte) string { return `member "results.pkl" is no .npy array` }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, _, err := readRec(t, dir, "evaluations.npz", SB3Eval, tc.data)
			want := tc.want(tc.data)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v\nwant %q", err, want)
			}
		})
	}
}

// TestSB3EvalNumpy reads files numpy itself wrote, under the Debian
// interpreter (python3-numpy, which CI installs): the fixtures above follow
// NEP 1, this checks the reader against the writer.
func TestSB3EvalNumpy(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s cannot import numpy (Debian package python3-numpy): %v", py, err)
	}
	dir := t.TempDir()
	script := `import numpy as np, sys
np.savez(sys.argv[1] + "/evaluations.npz", timesteps=np.array([500, 1000]), results=np.array([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]]), ep_lengths=np.array([[3, 4, 5], [6, 7, 8]]))
np.savez_compressed(sys.argv[1] + "/fortran.npz", timesteps=np.array([500, 1000], dtype="<i4"), results=np.asfortranarray(np.array([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]], dtype="<f4")))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	for _, name := range []string{"evaluations.npz", "fortran.npz"} {
		rec := &recSink{}
		if _, err := Read(filepath.Join(dir, name), "", rec); err != nil {
			t.Fatal(err)
		}
		want := [][2]float64{{500, 7.0 / 3}, {1000, 56.0 / 3}}
		if d := cmp.Diff(want, rec.series("eval/mean_reward"), cmpopts.EquateApprox(0, 1e-12)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func FuzzSB3Eval(f *testing.F) {
	f.Add(evalNPZ(false))
	f.Add(evalNPZ(true))
	f.Add(npzFile(false, member{"timesteps.npy", npyFile("<i4", true, []int{1}, []int32{1})},
		member{"results.npy", npyFile("<f2", true, []int{1, 2}, []uint16{0x3c00, 0x7c00})},
		member{"successes.npy", npyFile("|u1", false, []int{1, 1}, []uint8{1})}))
	f.Fuzz(func(t *testing.T, data []byte) {
		// In memory, so that the fuzzer spends its time in the parser.
		rec := &recSink{}
		info, err := readNPZ("e.npz", bytes.NewReader(data), int64(len(data)), rec)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || strings.ContainsAny(err.Error(), "\n\r") || !strings.HasPrefix(err.Error(), "e.npz") {
				t.Fatalf("error %v: not a one-line *Error naming the file", err)
			}
		}
		if info.Points != int64(len(rec.pts)) {
			t.Fatalf("Info.Points = %d, delivered %d", info.Points, len(rec.pts))
		}
	})
}

// FuzzNPY checks the array decoder alone, where most of its input is
// reached without a zip around it: no panic, and what it accepts has as
// many values as its shape says.
func FuzzNPY(f *testing.F) {
	f.Add(npyFile("<f8", false, []int{2, 2}, []float64{1, 2, 3, 4}))
	f.Add(npyFile("<i8", true, []int{2, 3}, []int64{1, 2, 3, 4, 5, 6}))
	f.Add(npyFile("<u8", false, []int{}, []uint64{1 << 63}))
	f.Add(npyFile("|b1", false, []int{0, 4}, []uint8{}))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseNPY(data)
		if err != nil {
			if err.off < 0 || err.off > int64(len(data)) || strings.ContainsAny(err.msg, "\n\r") {
				t.Fatalf("error %v: offset outside the input or message on several lines", err)
			}
			return
		}
		n := 1
		for _, d := range a.shape {
			n *= d
		}
		if len(a.vals) != n || (a.ints != nil && len(a.ints) != n) {
			t.Fatalf("shape %v, %d values", a.shape, len(a.vals))
		}
	})
}

// junkBetween puts 8 bytes between a stored archive's two arrays, moving
// the central directory's offsets to match, as a writer that left bytes
// there would.
func junkBetween(npz []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(npz), int64(len(npz)))
	if err != nil {
		panic(err)
	}
	second, _ := zr.File[1].DataOffset()
	at := int(second) - 30 - len(zr.File[1].Name)
	out := append(append(append([]byte{}, npz[:at]...), "JUNKJUNK"...), npz[at:]...)
	// The central directory's entry for the second array, and the end record.
	cd := bytes.LastIndex(out, []byte("PK\x01\x02"))
	binary.LittleEndian.PutUint32(out[cd+42:], binary.LittleEndian.Uint32(out[cd+42:])+8)
	end := bytes.LastIndex(out, []byte("PK\x05\x06"))
	binary.LittleEndian.PutUint32(out[end+16:], binary.LittleEndian.Uint32(out[end+16:])+8)
	return out
}
