package metrics

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

// binSamples returns the shared real-sample directory. It lives outside
// the repository; without it the test is skipped, except on CI.
func binSamples(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("metric samples missing on CI: %v", err)
		}
		t.Skipf("metric samples not found (%v); they live in ../shared/metrics-samples next to the repository", err)
	}
	return dir
}

// binSink records what a reader delivers.
type binSink struct {
	want    func(tag string) bool
	asked   map[string]int
	points  map[string][]Point
	order   []string // the tag of each point, in delivery order
	failAt  int      // when > 0, Point fails on this point (1-based)
	failErr error
}

func newBinSink() *binSink {
	return &binSink{asked: map[string]int{}, points: map[string][]Point{}}
}

func (s *binSink) Want(tag string) bool {
	s.asked[tag]++
	if s.want == nil {
		return true
	}
	return s.want(tag)
}

func (s *binSink) Point(tag string, p Point) error {
	if s.failAt > 0 && len(s.order)+1 == s.failAt {
		return s.failErr
	}
	s.points[tag] = append(s.points[tag], p)
	s.order = append(s.order, tag)
	return nil
}

// steps and values of one series.
func (s *binSink) series(tag string) (steps []int64, values []float64) {
	for _, p := range s.points[tag] {
		steps = append(steps, p.Step)
		values = append(values, p.Value)
	}
	return steps, values
}

// checkAsked fails unless Want was called at most once per tag.
func (s *binSink) checkAsked(t *testing.T) {
	t.Helper()
	for tag, n := range s.asked {
		if n != 1 {
			t.Errorf("Want(%q) called %d times, want once", tag, n)
		}
	}
}

// ---- a small TFRecord / Event encoder ----

func tfFramed(data []byte) []byte {
	tab := crc32.MakeTable(crc32.Castagnoli)
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, uint64(len(data)))
	b = binary.LittleEndian.AppendUint32(b, tfMask(crc32.Checksum(b, tab)))
	b = append(b, data...)
	return binary.LittleEndian.AppendUint32(b, tfMask(crc32.Checksum(data, tab)))
}

func tfBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func tfVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// tfEvent builds an Event; step 0 is left out as proto3 writers do.
func tfEvent(wall float64, step int64, rest ...[]byte) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(wall))
	if step != 0 {
		b = tfVarintField(b, 2, uint64(step))
	}
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

// tfSummary is the Event.summary field holding values.
func tfSummary(values ...[]byte) []byte {
	var s []byte
	for _, v := range values {
		s = tfBytesField(s, 1, v)
	}
	return tfBytesField(nil, 5, s)
}

func tfFileVersion() []byte { return tfBytesField(nil, 3, []byte("brain.Event:2")) }

func tfSessionLog(status uint64) []byte {
	return tfBytesField(nil, 7, tfVarintField(nil, 1, status))
}

func tfSimpleValue(tag string, v float32) []byte {
	b := tfBytesField(nil, 1, []byte(tag))
	b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, math.Float32bits(v))
}

// tfTensorValue is a Summary.Value holding a tensor, with plugin metadata
// unless plugin is empty.
func tfTensorValue(tag, plugin string, tensor []byte) []byte {
	b := tfBytesField(nil, 1, []byte(tag))
	b = tfBytesField(b, 8, tensor)
	if plugin != "" {
		pd := tfBytesField(nil, 1, []byte(plugin))
		b = tfBytesField(b, 9, tfBytesField(nil, 1, pd))
	}
	return b
}

// tfTensor builds a TensorProto; dims nil is a scalar.
func tfTensor(dtype uint64, dims []int64, rest ...[]byte) []byte {
	b := tfVarintField(nil, 1, dtype)
	var shape []byte
	for _, d := range dims {
		shape = tfBytesField(shape, 2, tfVarintField(nil, 1, uint64(d)))
	}
	b = tfBytesField(b, 2, shape)
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

func tfContent(raw []byte) []byte { return tfBytesField(nil, 4, raw) }

func tfFile(t testing.TB, name string, records ...[]byte) string {
	t.Helper()
	var b []byte
	for _, r := range records {
		b = append(b, tfFramed(r)...)
	}
	return tfWrite(t, name, b)
}

func tfWrite(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ---- real samples ----

func TestTFEventsTensorboaRS(t *testing.T) {
	dir := binSamples(t)
	s := newBinSink()
	info, err := readTFEvents(filepath.Join(dir, "tfevents", "tensorboa.rs", "events.out.tfevents.1661684667.applepie4"), s)
	if err != nil {
		t.Fatal(err)
	}
	steps, values := s.series("tag")
	if diff := cmp.Diff([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if info.Points != 10 || len(s.points) != 1 || len(info.Notes) != 0 || info.Format != TFEvents {
		t.Errorf("info = %+v, tags %d", info, len(s.points))
	}
	for _, p := range s.points["tag"] {
		if p.WallTime < 1661684667 || p.WallTime > 1661684668 {
			t.Errorf("wall time %v", p.WallTime)
		}
	}
	s.checkAsked(t)
}

func TestTFEventsTorchWriter(t *testing.T) {
	dir := binSamples(t)
	for _, c := range []struct{ dir, file string }{
		{"old_simple_value", "events.out.tfevents.1795952470.vm.415.0"},
		{"new_style_float", "events.out.tfevents.1795952470.vm.415.1"},
		{"new_style_double", "events.out.tfevents.1795952470.vm.415.2"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			s := newBinSink()
			info, err := readTFEvents(filepath.Join(dir, "tfevents", "torch-writer", c.dir, c.file), s)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]float64{
				"train/reward": {0, 0.5, 1, 1.5},
				"eval/success": {0, .25, .5, .75},
			}
			for tag, wv := range want {
				steps, values := s.series(tag)
				if diff := cmp.Diff([]int64{0, 1, 2, 3}, steps); diff != "" {
					t.Errorf("%s steps (-want +got):\n%s", tag, diff)
				}
				if diff := cmp.Diff(wv, values); diff != "" {
					t.Errorf("%s values (-want +got):\n%s", tag, diff)
				}
			}
			if info.Points != 8 || len(s.points) != 2 || len(info.Notes) != 0 {
				t.Errorf("info = %+v", info)
			}
			s.checkAsked(t)
		})
	}
}

// The SB3 sample holds one run written both as tfevents and as progress.csv.
func TestTFEventsSB3Twin(t *testing.T) {
	dir := filepath.Join(binSamples(t), "sb3", "formalRL")
	s := newBinSink()
	if _, err := readTFEvents(filepath.Join(dir, "events.out.tfevents.1693326834.harryting-OMEN.273496.0"), s); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "progress.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	stepCol, ok := col["time/total_timesteps"]
	if !ok {
		t.Fatal("progress.csv has no time/total_timesteps column")
	}
	byStep := map[int64][]string{}
	for _, r := range rows[1:] {
		st, err := strconv.ParseInt(r[stepCol], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		byStep[st] = r
	}
	matched := 0
	for tag, pts := range s.points {
		c, ok := col[tag]
		if !ok {
			t.Errorf("tfevents tag %q is not a CSV column", tag)
			continue
		}
		for _, p := range pts {
			r, ok := byStep[p.Step]
			if !ok || r[c] == "" {
				t.Errorf("%s at step %d: no CSV value", tag, p.Step)
				continue
			}
			want, err := strconv.ParseFloat(r[c], 64)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(p.Value-want) > 1e-6*math.Abs(want) {
				t.Errorf("%s at step %d: tfevents %v, CSV %v", tag, p.Step, p.Value, want)
			}
			matched++
		}
	}
	if matched != 291 {
		t.Errorf("%d values matched, want 291", matched)
	}
	for _, only := range []string{"time/iterations", "time/time_elapsed", "time/total_timesteps", "train/n_updates"} {
		if _, ok := s.points[only]; ok {
			t.Errorf("%s is in the tfevents file; the sample README says it is CSV-only", only)
		}
	}
}

// tbread.py, the stdlib-only reference reader next to the samples, is an
// independent decoder: its per-tag count, first and last points must agree.
func TestTFEventsAgainstReferenceReader(t *testing.T) {
	dir := binSamples(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found; skipping the reference-reader cross-check")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*", "events.out.tfevents.*"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "events.out.tfevents.*"))
	more2, _ := filepath.Glob(filepath.Join(dir, "wandb", "*", "*", "files", "events.out.tfevents.*"))
	files = append(append(files, more...), more2...)
	if len(files) < 5 {
		t.Fatalf("found only %d event files", len(files))
	}
	line := regexp.MustCompile(`^  (\S+): n=(\d+) first=\((-?\d+), (.+)\) last=\((-?\d+), (.+)\)$`)
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			out, err := exec.Command(py, filepath.Join(dir, "tools", "tbread.py"), file).Output()
			if err != nil {
				t.Fatalf("tbread.py: %v", err)
			}
			s := newBinSink()
			if _, err := readTFEvents(file, s); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, l := range strings.Split(string(out), "\n") {
				m := line.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				pts := s.points[m[1]]
				n, _ := strconv.Atoi(m[2])
				if len(pts) != n {
					t.Errorf("%s: %d points, reference %d", m[1], len(pts), n)
					continue
				}
				for _, c := range []struct {
					p           Point
					step, value string
				}{{pts[0], m[3], m[4]}, {pts[n-1], m[5], m[6]}} {
					step, _ := strconv.ParseInt(c.step, 10, 64)
					want, err := tfTbreadValue(c.value)
					if err != nil {
						t.Fatal(err)
					}
					if c.p.Step != step || c.p.Value != want {
						t.Errorf("%s: got (%d, %v), reference (%d, %v)", m[1], c.p.Step, c.p.Value, step, want)
					}
				}
				checked++
			}
			if checked == 0 {
				t.Errorf("no series in the reference output:\n%s", out)
			}
		})
	}
}

// tfTbreadValue parses tbread's printing of a value: a float, or a tensor
// tuple (dtype, value, 'field').
func tfTbreadValue(s string) (float64, error) {
	if strings.HasPrefix(s, "(") {
		parts := strings.Split(strings.Trim(s, "()"), ", ")
		if len(parts) != 3 {
			return 0, fmt.Errorf("tensor tuple %q", s)
		}
		s = parts[1]
	}
	return strconv.ParseFloat(s, 64)
}

// ---- hand-built files ----

func TestTFEventsScalarShapes(t *testing.T) {
	le32 := binary.LittleEndian.AppendUint32
	le64 := binary.LittleEndian.AppendUint64
	unpacked := func(vals ...float32) []byte {
		var b []byte
		for _, v := range vals {
			b = protowire.AppendTag(b, 5, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, math.Float32bits(v))
		}
		return b
	}
	packedDouble := func(v float64) []byte {
		return tfBytesField(nil, 6, le64(nil, math.Float64bits(v)))
	}
	p := tfFile(t, "events.out.tfevents.1.shapes",
		tfEvent(1, 0, tfFileVersion()),
		// TF2: tensor_content of 0-d tensors.
		tfEvent(2, 5, tfSummary(
			tfTensorValue("tf2/f32", "scalars", tfTensor(tfDTFloat, nil, tfContent(le32(nil, math.Float32bits(1.5))))),
			tfTensorValue("tf2/f64", "scalars", tfTensor(tfDTDouble, nil, tfContent(le64(nil, math.Float64bits(-2.25))))),
			tfTensorValue("tf2/i64", "scalars", tfTensor(tfDTInt64, nil, tfContent(le64(nil, uint64(1<<40))))),
			tfTensorValue("tf2/i32", "scalars", tfTensor(tfDTInt32, nil, tfContent(le32(nil, uint32(0xFFFFFFFF))))),
			tfTensorValue("tf2/half", "scalars", tfTensor(tfDTHalf, nil, tfContent([]byte{0x00, 0x3e}))), // 1.5
		)),
		// Unpacked float_val; a rank-1 tensor of one element.
		tfEvent(3, 6, tfSummary(tfTensorValue("torch/unpacked", "scalars", tfTensor(tfDTFloat, []int64{1}, unpacked(0.25))))),
		// Packed double_val; the plugin came with the first value only.
		tfEvent(4, 7, tfSummary(tfTensorValue("torch/double", "scalars", tfTensor(tfDTDouble, nil, packedDouble(0.5))))),
		tfEvent(5, 8, tfSummary(tfTensorValue("torch/double", "", tfTensor(tfDTDouble, nil, packedDouble(0.75))))),
		// int64_val and int_val (negative: a 10-byte varint).
		tfEvent(6, 9, tfSummary(
			tfTensorValue("ints/64", "scalars", tfTensor(tfDTInt64, nil, tfVarintField(nil, 10, uint64(7)))),
			tfTensorValue("ints/32", "scalars", tfTensor(tfDTInt32, nil, tfVarintField(nil, 7, uint64(math.MaxUint64)))),
		)),
		// Missing step is step 0; negative steps survive.
		tfEvent(7, 0, tfSummary(tfSimpleValue("simple", 3))),
		tfEvent(8, -4, tfSummary(tfSimpleValue("simple", 4))),
	)
	s := newBinSink()
	info, err := readTFEvents(p, s)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]Point{}
	for k, v := range s.points {
		got[k] = v
	}
	want := map[string][]Point{
		"tf2/f32":        {{Step: 5, WallTime: 2, Value: 1.5}},
		"tf2/f64":        {{Step: 5, WallTime: 2, Value: -2.25}},
		"tf2/i64":        {{Step: 5, WallTime: 2, Value: 1 << 40}},
		"tf2/i32":        {{Step: 5, WallTime: 2, Value: -1}},
		"tf2/half":       {{Step: 5, WallTime: 2, Value: 1.5}},
		"torch/unpacked": {{Step: 6, WallTime: 3, Value: 0.25}},
		"torch/double":   {{Step: 7, WallTime: 4, Value: 0.5}, {Step: 8, WallTime: 5, Value: 0.75}},
		"ints/64":        {{Step: 9, WallTime: 6, Value: 7}},
		"ints/32":        {{Step: 9, WallTime: 6, Value: -1}},
		"simple":         {{Step: 0, WallTime: 7, Value: 3}, {Step: -4, WallTime: 8, Value: 4}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	if info.Points != 12 || len(info.Notes) != 0 {
		t.Errorf("info = %+v", info)
	}
	s.checkAsked(t)
}

func TestTFEventsSkipsNonScalars(t *testing.T) {
	image := tfBytesField(tfBytesField(nil, 1, []byte("img")), 4, []byte{8, 1, 16, 1})
	histo := tfBytesField(tfBytesField(nil, 1, []byte("hist")), 5, []byte{9, 0, 0, 0, 0, 0, 0, 0, 0})
	vec := tfTensor(tfDTFloat, []int64{3}, tfBytesField(nil, 5, make([]byte, 12)))
	p := tfFile(t, "events.out.tfevents.2.nonscalar",
		tfEvent(1, 1, tfSummary(image, tfSimpleValue("loss", 1), histo)),
		tfEvent(2, 2, tfSummary(tfTensorValue("imgs", "images", tfTensor(7, []int64{3}, tfBytesField(nil, 8, []byte("png")))))),
		tfEvent(3, 3, tfSummary(tfTensorValue("vec", "scalars", vec))),
		tfEvent(4, 4, tfSummary(tfTensorValue("text", "text", tfTensor(7, nil, tfBytesField(nil, 8, []byte("hi")))))),
		tfEvent(5, 5, tfSummary(tfTensorValue("nometa", "", tfTensor(tfDTFloat, nil, tfContent(make([]byte, 4)))))),
		tfEvent(6, 6, tfSummary(tfSimpleValue("loss", 2))),
	)
	s := newBinSink()
	info, err := readTFEvents(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]Point{"loss": {{Step: 1, WallTime: 1, Value: 1}, {Step: 6, WallTime: 6, Value: 2}}}, s.points); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	wantNotes := []string{"skipped 6 non-scalar summary values (histograms: 1, images: 2, scalars-plugin tensors with more than one element: 1, tensors without a plugin: 1, text: 1)"}
	if diff := cmp.Diff(wantNotes, info.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestTFEventsRestart(t *testing.T) {
	v := func(step int64, val float32) []byte {
		return tfEvent(float64(100+step), step, tfSummary(tfSimpleValue("a", val), tfSimpleValue("b", -val)))
	}
	p := tfFile(t, "events.out.tfevents.3.restart",
		tfEvent(1, 0, tfFileVersion()),
		tfEvent(1, 0, tfSessionLog(1)), // a START before any point discards nothing
		v(0, 0), v(1, 1), v(2, 2), v(3, 3), v(4, 4), v(5, 5),
		tfEvent(2, 3, tfSessionLog(1)), // the run restarts from step 3: the old 3, 4, 5 are orphaned
		v(3, 30), v(4, 40),
		tfEvent(3, 2, tfSessionLog(2)),  // STOP: not a restart
		tfEvent(3, 99, tfSessionLog(1)), // a START beyond every step discards nothing
		v(5, 50), v(6, 60), v(7, 70),
		tfEvent(4, 6, tfSessionLog(1)), // another restart: the 6 and 7 just written go
		v(6, 600),
	)
	s := newBinSink()
	info, err := readTFEvents(p, s)
	if err != nil {
		t.Fatal(err)
	}
	steps, values := s.series("a")
	if diff := cmp.Diff([]int64{0, 1, 2, 3, 4, 5, 6}, steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 1, 2, 30, 40, 50, 600}, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if _, bv := s.series("b"); len(bv) != 7 || bv[3] != -30 {
		t.Errorf("b = %v", bv)
	}
	wantNotes := []string{"dropped 10 points written before a restart (SessionLog START) with a step at or after the restart's step, as TensorBoard does"}
	if diff := cmp.Diff(wantNotes, info.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if info.Points != 14 {
		t.Errorf("points = %d", info.Points)
	}
}

func TestTFEventsWant(t *testing.T) {
	var recs [][]byte
	for i := range 50 {
		recs = append(recs, tfEvent(float64(i), int64(i), tfSummary(tfSimpleValue("keep", float32(i)), tfSimpleValue("drop", 1))))
	}
	s := newBinSink()
	s.want = func(tag string) bool { return tag == "keep" }
	info, err := readTFEvents(tfFile(t, "events.out.tfevents.4.want", recs...), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.points["keep"]) != 50 || len(s.points["drop"]) != 0 || info.Points != 50 {
		t.Errorf("keep %d, drop %d, info %+v", len(s.points["keep"]), len(s.points["drop"]), info)
	}
	s.checkAsked(t)

	// An error from the sink stops the read and comes back as is.
	s = newBinSink()
	s.failAt, s.failErr = 3, errors.New("enough")
	info, err = readTFEvents(tfFile(t, "events.out.tfevents.4.stop", recs...), s)
	if err != s.failErr || len(s.order) != 2 || info.Points != 2 {
		t.Errorf("err %v, delivered %d, info %+v", err, len(s.order), info)
	}
}

// Records larger than the read window: a non-summary one is streamed past,
// a summary one is decoded.
func TestTFEventsLargeRecords(t *testing.T) {
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	image := tfBytesField(tfBytesField(nil, 1, []byte("img")), 4, big)
	p := tfFile(t, "events.out.tfevents.5.large",
		tfEvent(1, 0, tfFileVersion()),
		tfEvent(1, 0, tfBytesField(nil, 4, big)), // graph_def
		tfEvent(2, 1, tfSummary(tfSimpleValue("x", 1))),
		tfEvent(3, 2, tfSummary(image, tfSimpleValue("x", 2))),
		tfEvent(4, 3, tfSummary(tfSimpleValue("x", 3))),
	)
	s := newBinSink()
	info, err := readTFEvents(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, vals := s.series("x"); !cmp.Equal(vals, []float64{1, 2, 3}) {
		t.Errorf("x = %v", vals)
	}
	if diff := cmp.Diff([]string{"skipped 1 non-scalar summary values (images: 1)"}, info.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	// A corrupt byte in a large record is found by the streamed checksum.
	b, _ := os.ReadFile(p)
	b[len(b)/3] ^= 1
	s = newBinSink()
	_, err = readTFEvents(tfWrite(t, "events.out.tfevents.5.bad", b), s)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "data CRC mismatch") || len(s.order) != 0 {
		t.Errorf("err = %v, delivered %d", err, len(s.order))
	}
}

func TestTFEventsTruncatedTail(t *testing.T) {
	var b []byte
	for i := range 5 {
		b = append(b, tfFramed(tfEvent(float64(i), int64(i), tfSummary(tfSimpleValue("x", float32(i)))))...)
	}
	whole := len(b)
	last := tfFramed(tfEvent(9, 9, tfSummary(tfSimpleValue("x", 9))))
	for _, cut := range []int{12, 13, len(last) - 4, len(last) - 1} {
		p := tfWrite(t, "events.out.tfevents.6.trunc", append(append([]byte{}, b...), last[:cut]...))
		s := newBinSink()
		info, err := readTFEvents(p, s)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		want := []string{fmt.Sprintf("stopped at a truncated record at byte %d (the writer was still running or crashed)", whole)}
		if diff := cmp.Diff(want, info.Notes); diff != "" || info.Points != 5 {
			t.Errorf("cut %d: points %d, notes (-want +got):\n%s", cut, info.Points, diff)
		}
	}
}

// A file of many chunks decodes in parallel; what the sink sees must not
// show it.
func TestTFEventsManyChunks(t *testing.T) {
	const (
		records   = 240000
		restartAt = 180000 // this record is a START at step restartTo
		restartTo = 150000
		orphans   = restartAt - restartTo // per tag
		shift     = restartAt - restartTo + 1
	)
	var b []byte
	var offs []int
	b = append(b, tfFramed(tfEvent(1, 0, tfFileVersion()))...)
	le32 := binary.LittleEndian.AppendUint32
	for i := range records {
		offs = append(offs, len(b))
		plugin := ""
		if i == 0 {
			plugin = "scalars" // the plugin comes with the first tensor value only
		}
		step := int64(i)
		if i > restartAt {
			step -= shift
		}
		ev := tfEvent(float64(i), step, tfSummary(tfSimpleValue("a", float32(i)),
			tfTensorValue("t", plugin, tfTensor(tfDTFloat, nil, tfContent(le32(nil, math.Float32bits(float32(i))))))))
		if i == restartAt {
			ev = tfEvent(float64(i), restartTo, tfSessionLog(1))
		}
		b = append(b, tfFramed(ev)...)
	}
	if len(b) < 3*tfChunkSize {
		t.Fatalf("only %d bytes", len(b))
	}
	p := tfWrite(t, "events.out.tfevents.8.chunks", b)
	perTag := records - 1 - orphans
	for range 3 {
		s := newBinSink()
		info, err := readTFEvents(p, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range []string{"a", "t"} {
			steps, values := s.series(tag)
			if len(steps) != perTag {
				t.Fatalf("%s: %d points, want %d", tag, len(steps), perTag)
			}
			for i, st := range steps {
				want := float64(i)
				if i >= restartTo {
					want += shift
				}
				if st != int64(i) || values[i] != want {
					t.Fatalf("%s: point %d is (%d, %v), want (%d, %v)", tag, i, st, values[i], i, want)
				}
			}
		}
		if info.Points != 2*int64(perTag) || len(info.Notes) != 1 || !strings.Contains(info.Notes[0], fmt.Sprintf("dropped %d points", 2*orphans)) {
			t.Errorf("info = %+v", info)
		}
		s.checkAsked(t)
	}

	// Corruption in a later chunk: the points before it are delivered, none after.
	bad := append([]byte{}, b...)
	at := offs[200000]
	bad[at+20] ^= 1
	s := newBinSink()
	_, err := readTFEvents(tfWrite(t, "events.out.tfevents.8.bad", bad), s)
	var e *Error
	if !errors.As(err, &e) || e.Offset != int64(at) || !strings.Contains(e.Msg, "data CRC") {
		t.Fatalf("err = %v, want a data CRC error at %d", err, at)
	}
	if n := len(s.points["a"]); n != 200000-1-orphans {
		t.Errorf("%d points of a before the error", n)
	}
	if pts := s.points["t"]; len(pts) == 0 || pts[len(pts)-1].Value != 199999 {
		t.Errorf("the last point before the error is not the one before the bad record")
	}

	// A corrupt length derails the framing; the error still names it.
	bad = append([]byte{}, b...)
	at = offs[100000]
	bad[at+1] ^= 0x10
	s = newBinSink()
	_, err = readTFEvents(tfWrite(t, "events.out.tfevents.8.len", bad), s)
	if !errors.As(err, &e) || e.Offset != int64(at) || !strings.Contains(e.Msg, "length CRC") {
		t.Fatalf("err = %v, want a length CRC error at %d", err, at)
	}

	// A sink that stops the read early.
	s = newBinSink()
	s.failAt, s.failErr = 50001, errors.New("enough")
	info, err := readTFEvents(p, s)
	if err != s.failErr || info.Points != 50000 {
		t.Errorf("err %v, points %d", err, info.Points)
	}
}

// tfReadWith reads path with a given scan, as readTFEvents would after
// its scan pass.
func tfReadWith(t *testing.T, path string, scan func(st *tfReadState) (tfScan, bool)) (*binSink, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st := &tfReadState{path: path, r: bytes.NewReader(b), size: int64(len(b)), win: tfWindowSize(int64(len(b))),
		crc8: newTFCRC8(), tab: crc32.MakeTable(crc32.Castagnoli)}
	sc, ok := scan(st)
	if !ok {
		return nil, false
	}
	s := newBinSink()
	if err := st.decodePass(sc, &tfRegistry{tags: map[string]*tfTag{}}, newTFDelivery(s, path)); err != nil {
		t.Fatal(err)
	}
	return s, true
}

// Scanning a file in parallel parts finds what a sequential scan finds.
func TestTFEventsScanParts(t *testing.T) {
	var recs [][]byte
	recs = append(recs, tfEvent(1, 0, tfFileVersion()))
	for i := range 100000 {
		step := int64(i)
		if i%23000 == 22999 {
			// Restarts all over the file, some across part boundaries.
			recs = append(recs, tfEvent(float64(i), step-500, tfSessionLog(1)))
		}
		if i == 12345 {
			recs = append(recs, tfEvent(float64(i), 0, tfBytesField(nil, 4, make([]byte, 1200<<10)))) // a large record
		}
		recs = append(recs, tfEvent(float64(i), step, tfSummary(tfSimpleValue("x", float32(i)), tfSimpleValue("y", float32(-i)))))
	}
	p := tfFile(t, "events.out.tfevents.9.parts", recs...)
	want, _ := tfReadWith(t, p, func(st *tfReadState) (tfScan, bool) {
		src := tfReadAhead(st.path, st.r, 0, st.size, st.windows(tfWindows))
		c := &tfCursor{src: src}
		defer c.close()
		sc, err := st.frameAll(c, 0, math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		sc.restarts = tfEffectiveRestarts([]tfScan{sc})
		if len(sc.restarts) != 4 {
			t.Fatalf("%d restarts", len(sc.restarts))
		}
		return sc, true
	})
	if len(want.points["x"]) < 90000 {
		t.Fatalf("only %d points", len(want.points["x"]))
	}
	joined := 0
	for parts := 2; parts <= 9; parts++ {
		got, ok := tfReadWith(t, p, func(st *tfReadState) (tfScan, bool) {
			sc, ok := st.scanParts(parts)
			if ok {
				for i, c := range sc.chunks {
					if i > 0 && c.off != sc.chunks[i-1].end || c.end <= c.off {
						t.Fatalf("%d parts: chunks %v", parts, sc.chunks[max(0, i-1):i+1])
					}
				}
			}
			return sc, ok
		})
		if !ok {
			continue // one part starts inside the large record
		}
		joined++
		if diff := cmp.Diff(want.points, got.points); diff != "" {
			t.Fatalf("%d parts: points (-sequential +parallel):\n%s", parts, diff)
		}
	}
	if joined < 4 {
		t.Errorf("the parts joined up only %d times of 8", joined)
	}
}

// A part that starts at something that looks like a record header, but is
// not one, does not join up; the read falls back to a sequential scan.
func TestTFEventsScanPartsFalseStart(t *testing.T) {
	tagLen := 300
	build := func(tag []byte) []byte {
		var b []byte
		for i := range 2000 {
			b = append(b, tfFramed(tfEvent(float64(i), int64(i), tfSummary(tfSimpleValue("x", float32(i)))))...)
		}
		b = append(b, tfFramed(tfEvent(1, 2000, tfSummary(tfSimpleValue(string(tag), 1))))...)
		for i := range 2000 {
			b = append(b, tfFramed(tfEvent(float64(i), int64(2001+i), tfSummary(tfSimpleValue("x", float32(i)))))...)
		}
		return b
	}
	tag := bytes.Repeat([]byte("t"), tagLen)
	b := build(tag)
	half := len(b) / 2
	tagAt := bytes.Index(b, tag)
	if half < tagAt || half+12 > tagAt+tagLen {
		t.Fatalf("the middle (%d) is not in the tag (%d..%d)", half, tagAt, tagAt+tagLen)
	}
	// A header of a 5-byte record, with its CRC, right where part 2 starts.
	fake := tfFramed([]byte("12345"))[:tfHeaderLen]
	copy(tag[half-tagAt:], fake)
	b = build(tag)
	p := tfWrite(t, "events.out.tfevents.10.fake", b)
	st := &tfReadState{path: p, r: bytes.NewReader(b), size: int64(len(b)), win: tfWindowSize(int64(len(b))),
		crc8: newTFCRC8(), tab: crc32.MakeTable(crc32.Castagnoli)}
	if _, ok := st.scanParts(2); ok {
		t.Fatal("the parts joined up across a false start")
	}
	s := newBinSink()
	if _, err := readTFEvents(p, s); err != nil {
		t.Fatal(err)
	}
	if len(s.points["x"]) != 4000 || len(s.points[string(tag)]) != 1 {
		t.Errorf("x %d, tag %d", len(s.points["x"]), len(s.points[string(tag)]))
	}
}

// binCheckError checks a reader's failure: one *Error naming the path and
// the byte offset, on one line, with at most delivered points before it.
func binCheckError(t *testing.T, err error, path string, off int64, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	if e.Path != path || e.Offset != off || !strings.Contains(e.Msg, msg) {
		t.Errorf("err = %q (offset %d), want offset %d and %q", e.Error(), e.Offset, off, msg)
	}
	s := e.Error()
	if strings.Contains(s, "\n") || !strings.HasPrefix(s, path+": byte "+strconv.FormatInt(off, 10)+": ") {
		t.Errorf("err = %q: not one line naming the path and offset", s)
	}
}

func TestTFEventsBadInputs(t *testing.T) {
	r0 := tfFramed(tfEvent(1, 0, tfFileVersion()))
	r1 := tfFramed(tfEvent(2, 1, tfSummary(tfSimpleValue("x", 1))))
	r2 := tfFramed(tfEvent(3, 2, tfSummary(tfSimpleValue("x", 2))))
	good := binConcat(r0, r1, r2)
	at1 := int64(len(r0))
	flip := func(i int) []byte {
		b := append([]byte{}, good...)
		b[i] ^= 0x40
		return b
	}
	junk := make([]byte, 300)
	for i := range junk {
		junk[i] = byte(i*131 + 7)
	}
	for _, c := range []struct {
		name  string
		data  []byte
		off   int64
		msg   string
		after int // points delivered before the error
	}{
		{"empty", nil, 0, "empty file", 0},
		{"bad length CRC", flip(len(r0) + 9), at1, "length CRC mismatch", 0},
		{"bad length", flip(len(r0) + 1), at1, "length CRC mismatch", 0},
		{"bad data CRC", flip(len(r0) + 14), at1, "data CRC mismatch", 0},
		{"bad stored data CRC", flip(len(r0) + len(r1) - 2), at1, "data CRC mismatch", 0},
		{"junk", junk, 0, "length CRC mismatch", 0},
		{"text", []byte("step,value\n1,2\n3,4\n"), 0, "length CRC mismatch", 0},
		{"malformed summary", binConcat(r0, r1, tfFramed(tfEvent(4, 3, tfBytesField(nil, 5, []byte{0x0a, 0x7f, 1}))), r2), int64(len(r0) + len(r1)), "malformed summary", 1},
		{"malformed event", binConcat(r0, r1, tfFramed([]byte{0x08}), r2), int64(len(r0) + len(r1)), "malformed event", 1},
		{"bad data CRC after points", binConcat(r0, r1, flip(len(r0) + len(r1) + 14)[len(r0)+len(r1):], r1), int64(len(r0) + len(r1)), "data CRC mismatch", 1},
		{"scalar tensor without value", binConcat(r1, tfFramed(tfEvent(4, 3, tfSummary(tfTensorValue("t", "scalars", tfTensor(tfDTFloat, nil))))), r2), int64(len(r1)), "no value", 1},
		{"bad tensor content", binConcat(r1, tfFramed(tfEvent(4, 3, tfSummary(tfTensorValue("t", "scalars", tfTensor(tfDTFloat, nil, tfContent([]byte{1, 2, 3})))))), r2), int64(len(r1)), "3 content bytes", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := tfWrite(t, "events.out.tfevents.7.bad", c.data)
			s := newBinSink()
			info, err := readTFEvents(p, s)
			binCheckError(t, err, p, c.off, c.msg)
			if len(s.order) != c.after || info.Points != int64(c.after) {
				t.Errorf("delivered %d points (info %d), want %d", len(s.order), info.Points, c.after)
			}
		})
	}

	// A record still being written, even the first, is a tail to skip.
	for _, c := range []struct {
		name   string
		data   []byte
		points int
		at     int64
	}{
		{"truncated header", append(append([]byte{}, good...), 1, 2, 3, 4, 5), 2, int64(len(good))},
		{"header only", good[:7], 0, 0},
		{"truncated first record", r0[:len(r0)-3], 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := tfWrite(t, "events.out.tfevents.7.tail", c.data)
			s := newBinSink()
			info, err := readTFEvents(p, s)
			if err != nil || info.TruncatedAt != c.at || len(s.order) != c.points {
				t.Errorf("err %v, truncated at %d, %d points; want no error, %d, %d", err, info.TruncatedAt, len(s.order), c.at, c.points)
			}
		})
	}

	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := readTFEvents(dir, newBinSink())
		var e *Error
		if !errors.As(err, &e) || e.Offset != -1 || strings.Contains(e.Error(), "\n") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "nope")
		_, err := readTFEvents(p, newBinSink())
		var e *Error
		if !errors.As(err, &e) || e.Path != p || strings.Count(e.Error(), p) != 1 {
			t.Errorf("err = %v", err)
		}
	})
}

func binConcat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestLooksLikeTFRecord(t *testing.T) {
	r := tfFramed(tfEvent(1, 0, tfFileVersion()))
	if !looksLikeTFRecord(r[:12]) || !looksLikeTFRecord(r) {
		t.Error("a TFRecord header is not recognised")
	}
	if looksLikeTFRecord(r[:11]) {
		t.Error("11 bytes recognised")
	}
	bad := append([]byte{}, r[:12]...)
	bad[9] ^= 1
	if looksLikeTFRecord(bad) || looksLikeTFRecord([]byte("Wall time,Step,Value\n")) || looksLikeTFRecord(nil) {
		t.Error("junk recognised")
	}
	// The worked example of the format notes.
	ex := []byte{0x22, 0, 0, 0, 0, 0, 0, 0, 0x78, 0x11, 0x3d, 0xfd}
	if !looksLikeTFRecord(ex) {
		t.Error("the documented example is not recognised")
	}
}

func TestTFVarint(t *testing.T) {
	vals := []uint64{0, 1, 127, 128, 300, 1<<14 - 1, 1 << 14, 1<<21 + 5, 1 << 28, 1<<35 - 1, 1 << 42, 1<<49 + 3, 1<<56 - 1, 1 << 56, 1<<63 + 7, math.MaxUint64}
	for _, v := range vals {
		for _, pad := range [][]byte{nil, {0x2a}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
			b := append(protowire.AppendVarint(nil, v), pad...)
			got, n := tfVarint(b)
			if want, wn := protowire.ConsumeVarint(b); got != want || n != wn {
				t.Errorf("tfVarint(% x) = %d, %d; want %d, %d", b, got, n, want, wn)
			}
		}
	}
	for _, b := range [][]byte{nil, {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, bytes.Repeat([]byte{0x80}, 11)} {
		if _, n := tfVarint(b); n > 0 {
			t.Errorf("tfVarint(% x) = n %d, want none", b, n)
		}
	}
}

func TestTFHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		bits uint16
		want float64
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x7bff, 65504},
		{0x0001, math.Ldexp(1, -24)}, {0x0000, 0}, {0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)},
	} {
		if got := tfHalfToFloat(c.bits); got != c.want {
			t.Errorf("tfHalfToFloat(%#04x) = %v, want %v", c.bits, got, c.want)
		}
	}
	if !math.IsNaN(tfHalfToFloat(0x7e00)) {
		t.Error("NaN")
	}
}

// ---- benchmark ----

// tfWriteBench writes an event file shaped like a long RL run: one Event
// per tag per step, as torch's SummaryWriter writes them.
func tfWriteBench(t testing.TB, path string, steps, tags int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	names := make([]string, tags)
	for i := range names {
		names[i] = fmt.Sprintf("group%d/metric_%02d", i%4, i)
	}
	w.Write(tfFramed(tfEvent(1.7e9, 0, tfFileVersion())))
	var rec []byte
	for s := range steps {
		for i, name := range names {
			ev := tfEvent(1.7e9+float64(s)*0.01, int64(s)*2048, tfSummary(tfSimpleValue(name, float32(s%1000)*0.5+float32(i))))
			rec = append(rec[:0], tfFramed(ev)...)
			w.Write(rec)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return st.Size()
}

type tfBenchSink struct {
	n   int64
	sum float64
}

func (s *tfBenchSink) Want(string) bool { return true }
func (s *tfBenchSink) Point(tag string, p Point) error {
	s.n++
	s.sum += p.Value
	return nil
}

// BenchmarkReadTFEvents reads a generated file, point by point and as
// inspect does; RLXP_BENCH_TFEVENTS names an existing event file to read
// instead.
func BenchmarkReadTFEvents(b *testing.B) {
	path := os.Getenv("RLXP_BENCH_TFEVENTS")
	var size int64
	if path == "" {
		path = filepath.Join(b.TempDir(), "events.out.tfevents.bench")
		size = tfWriteBench(b, path, 20000, 24)
	} else {
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = st.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	// A sink that takes points one by one is read in two passes; inspect's
	// summaries, in one.
	b.Run("points", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			var s tfBenchSink
			if _, err := readTFEvents(path, &s); err != nil {
				b.Fatal(err)
			}
			if s.n == 0 {
				b.Fatal("no points")
			}
		}
	})
	// As inspect does, from memory and on one worker: the decoding alone,
	// without the system calls that copy the file.
	b.Run("decode", func(b *testing.B) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			s := &summarySink{index: map[string]int{}}
			st := newTFReadState(path, bytes.NewReader(data), size)
			if _, err := st.read(s, Info{Format: TFEvents}); err != nil {
				b.Fatal(err)
			}
			if len(s.tags) == 0 {
				b.Fatal("no tags")
			}
		}
	})
	b.Run("inspect", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			s, err := Inspect(path, TFEvents, nil)
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Tags) == 0 {
				b.Fatal("no tags")
			}
		}
	})
}
