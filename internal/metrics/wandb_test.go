package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ---- a small .wandb encoder ----

// wbLog frames records as W&B's writer does: the header, then LevelDB log
// chunks in 32 KiB blocks.
func wbLog(records ...[]byte) []byte {
	b := []byte(":W&B\xe1\xbe\x00")
	for _, r := range records {
		b = wbAppend(b, r)
	}
	return b
}

func wbAppend(b, r []byte) []byte {
	first := true
	for {
		left := wandbBlock - len(b)%wandbBlock
		if left < wandbChunkHead {
			b = append(b, make([]byte, left)...)
			continue
		}
		frag := min(left-wandbChunkHead, len(r))
		last := frag == len(r)
		var typ byte
		switch {
		case first && last:
			typ = wandbFull
		case first:
			typ = wandbFirst
		case last:
			typ = wandbLast
		default:
			typ = wandbMiddle
		}
		crc := crc32.Update(crc32.ChecksumIEEE([]byte{typ}), crc32.IEEETable, r[:frag])
		b = append(b, byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24), byte(frag), byte(frag>>8), typ)
		b = append(b, r[:frag]...)
		r, first = r[frag:], false
		if last {
			return b
		}
	}
}

// wbItem is a HistoryItem with a key and JSON value.
func wbItem(key, value string) []byte {
	b := tfBytesField(nil, 1, []byte(key))
	return tfBytesField(b, 16, []byte(value))
}

func wbNestedItem(keys []string, value string) []byte {
	var b []byte
	for _, k := range keys {
		b = tfBytesField(b, 2, []byte(k))
	}
	return tfBytesField(b, 16, []byte(value))
}

// wbHistory is a Record holding a HistoryRecord; stepNum < 0 leaves out
// HistoryRecord.step.
func wbHistory(num uint64, stepNum int64, items ...[]byte) []byte {
	var h []byte
	for _, it := range items {
		h = tfBytesField(h, 1, it)
	}
	if stepNum >= 0 {
		h = tfBytesField(h, 2, tfVarintField(nil, 1, uint64(stepNum)))
	}
	return tfBytesField(tfVarintField(nil, 1, num), 2, h)
}

// wbOther is a Record of another kind (here a summary record).
func wbOther(num uint64) []byte {
	return tfBytesField(tfVarintField(nil, 1, num), 3, tfBytesField(nil, 1, wbItem("loss", "1.5")))
}

func wbFile(t testing.TB, b []byte) string {
	t.Helper()
	return tfWrite(t, "run-test.wandb", b)
}

// ---- the real sample ----

func wbSampleDir(t testing.TB) string {
	return filepath.Join(binSamples(t), "wandb", "ConceptPPO", "run-20230723_093735-mxaehod4")
}

func TestWandbConceptPPO(t *testing.T) {
	dir := wbSampleDir(t)
	s := newBinSink()
	info, err := readWandb(filepath.Join(dir, "run-mxaehod4.wandb"), s)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != Wandb || len(info.Notes) != 0 {
		t.Errorf("info = %+v", info)
	}
	// 763 history rows, _step 0..762, each with the same 10 metrics plus global_step.
	if len(s.points) != 10 {
		keys := make([]string, 0, len(s.points))
		for k := range s.points {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Errorf("keys %v", keys)
	}
	for tag, pts := range s.points {
		if strings.HasPrefix(tag, "_") {
			t.Errorf("W&B's own key %q delivered", tag)
		}
		if len(pts) != 763 {
			t.Errorf("%s: %d points", tag, len(pts))
			continue
		}
		for i, p := range pts {
			if p.Step != int64(i) {
				t.Fatalf("%s: point %d has step %d", tag, i, p.Step)
			}
		}
	}
	if info.Points != 763*10 {
		t.Errorf("%d points", info.Points)
	}
	s.checkAsked(t)

	// The last row is the summary.
	raw, err := os.ReadFile(filepath.Join(dir, "files", "wandb-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]any
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for k, v := range summary {
		f, ok := v.(float64)
		if !ok || strings.HasPrefix(k, "_") {
			continue
		}
		pts := s.points[k]
		if len(pts) == 0 || pts[len(pts)-1].Value != f {
			t.Errorf("%s: last %v, summary %v", k, pts[len(pts)-1:], f)
		}
		checked++
	}
	if checked != 10 {
		t.Errorf("%d summary keys checked", checked)
	}
	last := s.points["Loss/pi"][762]
	if last.Step != int64(summary["_step"].(float64)) || last.WallTime != summary["_timestamp"].(float64) {
		t.Errorf("last point %+v, summary _step %v _timestamp %v", last, summary["_step"], summary["_timestamp"])
	}
}

// The same run's TensorBoard file, synced by W&B, holds the same values
// (as float32) at env steps; W&B's global_step key gives the env step.
func TestWandbTFEventsTwin(t *testing.T) {
	dir := wbSampleDir(t)
	wb := newBinSink()
	if _, err := readWandb(filepath.Join(dir, "run-mxaehod4.wandb"), wb); err != nil {
		t.Fatal(err)
	}
	tb := newBinSink()
	if _, err := readTFEvents(filepath.Join(dir, "files", "events.out.tfevents.1690076260.autodl-container-71644691e8-32af8c29.1260.0"), tb); err != nil {
		t.Fatal(err)
	}
	row := map[int64]int{} // env step -> history row
	for i, p := range wb.points["global_step"] {
		row[int64(p.Value)] = i
	}
	compared := 0
	for tag, pts := range tb.points {
		for _, p := range pts {
			i, ok := row[p.Step]
			if !ok || i >= len(wb.points[tag]) {
				t.Fatalf("%s at env step %d: no W&B row", tag, p.Step)
			}
			if w := wb.points[tag][i].Value; float64(float32(w)) != p.Value {
				t.Errorf("%s at env step %d: tfevents %v, W&B %v", tag, p.Step, p.Value, w)
			}
			compared++
		}
	}
	if compared != 9*763 {
		t.Errorf("%d values compared", compared)
	}
}

// tbread.py, the reference reader next to the samples, prints the first
// two history rows and the last.
func TestWandbAgainstReferenceReader(t *testing.T) {
	dir := wbSampleDir(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found; skipping the reference-reader cross-check")
	}
	file := filepath.Join(dir, "run-mxaehod4.wandb")
	out, err := exec.Command(py, filepath.Join(binSamples(t), "tools", "tbread.py"), file).Output()
	if err != nil {
		t.Fatalf("tbread.py: %v", err)
	}
	s := newBinSink()
	if _, err := readWandb(file, s); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "  history step") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 3 || !strings.Contains(string(out), "records=2553") {
		t.Fatalf("reference output:\n%s", out)
	}
	item := regexp.MustCompile(`'([^']*)': '([^']*)'`)
	checked := 0
	for r, l := range rows {
		idx := []int{0, 1, 762}[r]
		for _, m := range item.FindAllStringSubmatch(l, -1) {
			if strings.HasPrefix(m[1], "_") {
				continue
			}
			want, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.points[m[1]][idx]; got.Value != want || got.Step != int64(idx) {
				t.Errorf("row %d %s: got %+v, reference %v", idx, m[1], got, want)
			}
			checked++
		}
	}
	if checked < 12 {
		t.Errorf("only %d values checked", checked)
	}
}

// ---- hand-built logs ----

func TestWandbHandBuilt(t *testing.T) {
	big := strings.Repeat("x", 70000) // a row across three blocks
	log := wbLog(
		wbOther(1),
		wbHistory(2, -1,
			wbItem("loss", "0.5"), wbItem("acc", "1"), wbItem("_step", "0"), wbItem("_runtime", "3.2"), wbItem("_timestamp", "1700000000.5"),
			wbItem("nan", "NaN"), wbItem("inf", "Infinity"), wbItem("ninf", "-Infinity"), wbItem("big", "1e400"),
			wbItem("hist", `{"_type": "histogram", "values": [1, 2]}`), wbItem("name", `"run"`), wbItem("flag", "true"),
			wbItem("none", "null"), wbItem("list", "[1, 2]"), wbNestedItem([]string{"eval", "return"}, "-2.5"),
		),
		wbHistory(3, -1, wbItem("loss", "0.25"), wbItem("_step", "1"), wbItem("text", `"`+big+`"`), wbItem("_timestamp", "1700000001")),
		wbHistory(4, 7, wbItem("loss", "0.125")),     // no _step item: HistoryRecord.step
		wbHistory(5, -1, wbItem("loss", " 0.0625 ")), // neither: the row index
	)
	if len(log) < 2*wandbBlock {
		t.Fatalf("log of %d bytes does not span blocks", len(log))
	}
	s := newBinSink()
	s.want = func(tag string) bool { return tag != "acc" }
	info, err := readWandb(wbFile(t, log), s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Point{
		"loss": {
			{Step: 0, WallTime: 1700000000.5, Value: 0.5},
			{Step: 1, WallTime: 1700000001, Value: 0.25},
			{Step: 7, Value: 0.125},
			{Step: 3, Value: 0.0625},
		},
		"nan":         {{Step: 0, WallTime: 1700000000.5, Value: math.NaN()}},
		"inf":         {{Step: 0, WallTime: 1700000000.5, Value: math.Inf(1)}},
		"ninf":        {{Step: 0, WallTime: 1700000000.5, Value: math.Inf(-1)}},
		"big":         {{Step: 0, WallTime: 1700000000.5, Value: math.Inf(1)}},
		"eval/return": {{Step: 0, WallTime: 1700000000.5, Value: -2.5}},
	}
	if diff := cmp.Diff(want, s.points, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"skipped 6 non-numeric history values (arrays: 1, booleans: 1, nulls: 1, objects (histograms, media, tables): 1, strings: 2)",
		"1 history rows had no _step; their row index was used as the step",
	}
	if diff := cmp.Diff(wantNotes, info.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if info.Points != 9 {
		t.Errorf("%d points", info.Points)
	}
	s.checkAsked(t)
	if s.asked["acc"] != 1 || s.asked["_step"] != 0 {
		t.Errorf("asked %v", s.asked)
	}

	// A sink error stops the read and comes back as is.
	s = newBinSink()
	s.failAt, s.failErr = 2, errors.New("enough")
	info, err = readWandb(wbFile(t, log), s)
	if err != s.failErr || info.Points != 1 {
		t.Errorf("err %v, info %+v", err, info)
	}
}

func TestWandbEmptyLog(t *testing.T) {
	info, err := readWandb(wbFile(t, wbLog(wbOther(1))), newBinSink())
	if err != nil || info.Points != 0 || !cmp.Equal(info.Notes, []string{"no history rows"}) {
		t.Errorf("info %+v, err %v", info, err)
	}
}

func TestWandbTruncatedTail(t *testing.T) {
	row := func(i int) []byte {
		return wbHistory(uint64(i), -1, wbItem("x", strconv.Itoa(i)), wbItem("_step", strconv.Itoa(i)))
	}
	good := wbLog(row(0), row(1))
	lastAt := len(good)
	bigRow := wbHistory(9, -1, wbItem("x", "9"), wbItem("s", `"`+strings.Repeat("y", 40000)+`"`))
	full := wbAppend(append([]byte{}, good...), bigRow)
	for _, cut := range []int{lastAt + 3, lastAt + 7, lastAt + 100, wandbBlock + 20, len(full) - 1} {
		s := newBinSink()
		info, err := readWandb(wbFile(t, full[:cut]), s)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		want := []string{fmt.Sprintf("stopped at a truncated record at byte %d (the writer was still running or crashed)", lastAt)}
		if diff := cmp.Diff(want, info.Notes); diff != "" || info.Points != 2 {
			t.Errorf("cut %d: points %d, notes (-want +got):\n%s", cut, info.Points, diff)
		}
	}
	// Zero padding after the last record (a preallocated file) is not a truncation.
	padded := append(append([]byte{}, good...), make([]byte, 100)...)
	info, err := readWandb(wbFile(t, padded), newBinSink())
	if err != nil || len(info.Notes) != 0 || info.Points != 2 {
		t.Errorf("padded: info %+v, err %v", info, err)
	}
}

func TestWandbBadInputs(t *testing.T) {
	r0 := wbHistory(1, -1, wbItem("x", "1"), wbItem("_step", "0"))
	r1 := wbHistory(2, -1, wbItem("x", "2"), wbItem("_step", "1"))
	good := wbLog(r0, r1)
	at1 := int64(len(wbLog(r0)))
	set := func(i int, v byte) []byte {
		b := append([]byte{}, good...)
		b[i] = v
		return b
	}
	flip := func(i int) []byte { return set(i, good[i]^0x20) }
	rec := func(r []byte) []byte { return wbAppend(append([]byte{}, wbLog(r0)...), r) }
	chunk := func(typ byte, data []byte) []byte {
		crc := crc32.Update(crc32.ChecksumIEEE([]byte{typ}), crc32.IEEETable, data)
		h := []byte{byte(crc), byte(crc >> 8), byte(crc >> 16), byte(crc >> 24), byte(len(data)), byte(len(data) >> 8), typ}
		return append(append(append([]byte{}, wbLog(r0)...), h...), data...)
	}
	for _, c := range []struct {
		name  string
		data  []byte
		off   int64
		msg   string
		after int
	}{
		{"empty", nil, 0, "empty file", 0},
		{"not wandb", []byte("Wall time,Step,Value\n1,2,3\n"), 0, "no :W&B header", 0},
		{"short header", []byte(":W&B\xe1"), 0, "truncated header", 0},
		{"bad magic", set(4, 0), 4, "bad .wandb header magic", 0},
		{"bad version", set(6, 1), 6, "unsupported .wandb log version 1", 0},
		{"chunk CRC mismatch", flip(int(at1) + 12), at1, "chunk CRC mismatch", 1},
		{"stored CRC mismatch", flip(int(at1)), at1, "chunk CRC mismatch", 1},
		{"bad chunk type", chunk(7, r1), at1, "bad chunk type 7", 1},
		{"continuation without first", chunk(wandbLast, r1), at1, "without a first chunk", 1},
		{"full inside a record", append(chunk(wandbFirst, r1[:5]), wbLog(r1)[7:]...), at1, "has no last chunk", 1},
		{"chunk past its block", append(set(int(at1)+5, 0x90), make([]byte, wandbBlock)...), at1, "runs past the end of its 32 KiB block", 1},
		{"malformed record", rec([]byte{0x12, 0x50, 0x0a}), at1, "malformed record", 1},
		{"malformed item", rec(tfBytesField(nil, 2, tfBytesField(nil, 1, []byte{0x0a, 0x09}))), at1, "malformed history item", 1},
		{"bad _step", rec(wbHistory(2, -1, wbItem("x", "1"), wbItem("_step", `"one"`))), at1, `history _step "\"one\""`, 1},
		{"bad JSON", rec(wbHistory(2, -1, wbItem("x", "1.2.3"), wbItem("_step", "1"))), at1, `history value of "x" is not JSON`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := wbFile(t, c.data)
			s := newBinSink()
			info, err := readWandb(p, s)
			binCheckError(t, err, p, c.off, c.msg)
			if len(s.order) != c.after || info.Points != int64(c.after) {
				t.Errorf("delivered %d points (info %d), want %d", len(s.order), info.Points, c.after)
			}
		})
	}
}

func TestLooksLikeWandb(t *testing.T) {
	if !looksLikeWandb(wbLog()) || !looksLikeWandb([]byte(":W&B\xe1\xbe\x05")) {
		t.Error("a .wandb header is not recognised")
	}
	for _, b := range [][]byte{nil, []byte(":W&B"), []byte(":W&B\x00\x00\x00"), []byte("{\"_step\": 1}")} {
		if looksLikeWandb(b) {
			t.Errorf("%q recognised", b)
		}
	}
}

// The encoder agrees with the real file's framing.
func TestWandbEncoderMatchesSample(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(wbSampleDir(t), "run-mxaehod4.wandb"))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw[:7]) != string(wbLog()) {
		t.Errorf("header % x, encoder % x", raw[:7], wbLog())
	}
}

// wbExit is a Record holding a RunExitRecord with the exit code.
func wbExit(num uint64, code int32) []byte {
	var e []byte
	if code != 0 {
		e = tfVarintField(e, 1, uint64(int64(code)))
	}
	e = tfVarintField(e, 2, 42) // runtime
	return tfBytesField(tfVarintField(nil, 1, num), 18, e)
}

// A log says whether its run ended: an exit record with code 0 does; no
// exit record (still running, or killed) or a non-zero code does not.
func TestWandbUnfinished(t *testing.T) {
	row := wbHistory(1, -1, wbItem("x", "1"), wbItem("_step", "0"))
	tests := []struct {
		name string
		log  []byte
		want string
	}{
		{"ended", wbLog(row, wbExit(2, 0)), ""},
		{"no exit record", wbLog(row), "the log has no exit record: the run is still running, or its process died before it could end the run"},
		{"failed", wbLog(row, wbExit(2, 1)), "the run's exit record says exit code 1: it failed"},
		{"killed", wbLog(row, wbExit(2, -9)), "the run's exit record says exit code -9: it failed"},
	}
	for _, tt := range tests {
		info, err := readWandb(wbFile(t, tt.log), newBinSink())
		if err != nil || info.Unfinished != tt.want || info.Points != 1 {
			t.Errorf("%s: points %d, unfinished %q, %v; want %q", tt.name, info.Points, info.Unfinished, err, tt.want)
		}
	}
	// The real run, which ended.
	files, _ := filepath.Glob(filepath.Join(wbSampleDir(t), "run-*.wandb"))
	for _, f := range files {
		if info, err := readWandb(f, newBinSink()); err != nil || info.Unfinished != "" {
			t.Errorf("%s: unfinished %q, %v", f, info.Unfinished, err)
		}
	}
	if len(files) == 0 {
		t.Error("no sample run")
	}
}

// TestWandbTagTwiceInARow: a history row whose key and nested key join to
// one name gives that tag two values: refused, naming the record. The
// same tag in two rows is two points.
func TestWandbTagTwiceInARow(t *testing.T) {
	two := wbLog(
		wbHistory(1, 0, wbItem("eval/return", "1"), wbItem("_step", "0")),
		wbHistory(2, 1, wbItem("eval/return", "2"), wbNestedItem([]string{"eval", "return"}, "3"), wbItem("_step", "1")),
	)
	_, err := readWandb(wbFile(t, two), newBinSink())
	if err == nil || !strings.Contains(err.Error(), `the tag "eval/return" has two values in one history row`) {
		t.Errorf("two values in one row: %v", err)
	}
	rows := wbLog(
		wbHistory(1, 0, wbItem("eval/return", "1"), wbItem("_step", "0")),
		wbHistory(2, 1, wbNestedItem([]string{"eval", "return"}, "3"), wbItem("_step", "1")),
	)
	s := newBinSink()
	if _, err := readWandb(wbFile(t, rows), s); err != nil || len(s.points["eval/return"]) != 2 {
		t.Errorf("one value per row: %v %v", err, s.points)
	}
}
