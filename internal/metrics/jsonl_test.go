package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestJSONLFlatRows(t *testing.T) {
	p := txtWrite(t, "progress.json", `{"step": 10, "loss": 0.5, "time/fps": 120, "_timestamp": 1700000000.25}
{"step": 20, "loss": -1.5e-3, "time/fps": 121, "_timestamp": 1700000001.5}

{"step": 30, "loss": 2, "time/fps": 122}
`)
	rec, info, err := txtRead(t, p, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []txtPoint{
		{"loss", Point{10, 1700000000.25, 0.5}}, {"time/fps", Point{10, 1700000000.25, 120}},
		{"loss", Point{20, 1700000001.5, -1.5e-3}}, {"time/fps", Point{20, 1700000001.5, 121}},
		{"loss", Point{30, 0, 2}}, {"time/fps", Point{30, 0, 122}},
	}
	if !reflect.DeepEqual(rec.pts, want) {
		t.Fatalf("got %v\nwant %v", rec.pts, want)
	}
	txtHasNote(t, info, `Steps come from "step"`)
	txtHasNote(t, info, `Wall times come from "_timestamp"`)
}

func TestJSONLVerlFileLogger(t *testing.T) {
	p := txtWrite(t, "exp.jsonl", `{"step": 1, "data": {"actor/lr": 1e-06, "critic/score/mean": 0.25, "val-core/openai/gsm8k/reward/mean@1": 0.5, "training/global_step": 1}}
{"step": 2, "data": {"actor/lr": 1e-06, "critic/score/mean": 0.3, "num_turns": {"mean": 12.5}, "note": "text"}}
`)
	rec, info, err := txtRead(t, p, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []txtPoint{
		{"actor/lr", Point{Step: 1, Value: 1e-06}}, {"critic/score/mean", Point{Step: 1, Value: 0.25}},
		{"val-core/openai/gsm8k/reward/mean@1", Point{Step: 1, Value: 0.5}}, {"training/global_step", Point{Step: 1, Value: 1}},
		{"actor/lr", Point{Step: 2, Value: 1e-06}}, {"critic/score/mean", Point{Step: 2, Value: 0.3}},
		{"num_turns/mean", Point{Step: 2, Value: 12.5}},
	}
	if !reflect.DeepEqual(rec.pts, want) {
		t.Fatalf("got %v\nwant %v", rec.pts, want)
	}
	txtHasNote(t, info, "verl")
	txtHasNote(t, info, `Skipped 1 non-numeric value (first "note" on line 2)`)
}

func TestJSONLStepChoice(t *testing.T) {
	for _, c := range []struct {
		name, first string
		key         string
	}{
		{"step first", `{"epoch": 3, "_step": 5, "step": 7, "x": 1}`, "step"},
		{"_step before global_step", `{"global_step": 9, "_step": 5, "x": 1}`, "_step"},
		{"sb3 json", `{"time/total_timesteps": 2048, "time/iterations": 1, "x": 1}`, "time/total_timesteps"},
		{"fractional epoch is not a step", `{"epoch": 0.5, "iteration": 4, "x": 1}`, "iteration"},
		{"nested name", `{"time": {"total_timesteps": 64}, "x": 1}`, "time/total_timesteps"},
		{"none", `{"x": 1, "y": 2}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var scratch []byte
			leaves, e := decodeLine([]byte(c.first), false, &scratch, nil)
			if e != nil {
				t.Fatal(e)
			}
			cfg, err := configFromRow(leaves, func(bool) ([]leaf, error) { return leaves, nil })
			if err != nil || cfg.stepKey != c.key {
				t.Fatalf("step key %q (%v), want %q", cfg.stepKey, err, c.key)
			}
		})
	}
}

func TestJSONLMissingAndNumberedSteps(t *testing.T) {
	p := txtWrite(t, "a.jsonl", "{\"step\": 5, \"a\": 1}\n{\"a\": 2}\n{\"step\": 9, \"a\": 3}\n{\"a\": 4}\n")
	rec, info, err := txtRead(t, p, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	var steps []int64
	for _, q := range rec.series("a") {
		steps = append(steps, q.Step)
	}
	if !reflect.DeepEqual(steps, []int64{5, 5, 9, 9}) {
		t.Fatalf("steps %v", steps)
	}
	txtHasNote(t, info, `2 rows have no "step" (first on line 2)`)

	p = txtWrite(t, "b.jsonl", "{\"a\": 1}\n\n{\"a\": 2, \"b\": 7}\n{\"a\": 3}\n")
	rec, info, err = txtRead(t, p, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.series("a"); len(got) != 3 || got[0].Step != 0 || got[1].Step != 1 || got[2].Step != 2 {
		t.Fatalf("numbered steps: %v", got)
	}
	txtHasNote(t, info, "the step is the row number, from 0")
}

func TestJSONLNonFiniteAndOddNumbers(t *testing.T) {
	p := txtWrite(t, "a.jsonl", `{"step": 1, "a": NaN, "b": Infinity, "c": -Infinity, "d": 0e0, "e": 0e000000, "f": -0e000000, "g": 1e400, "h": -0.0, "i": "NaN", "j": "NaN!"}
`)
	rec, info, err := txtRead(t, p, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, q := range rec.pts {
		got[q.Tag] = q.Value
	}
	if !math.IsNaN(got["a"]) || !math.IsInf(got["b"], 1) || !math.IsInf(got["c"], -1) || !math.IsInf(got["g"], 1) || !math.IsNaN(got["i"]) {
		t.Fatalf("non-finite values: %v", got)
	}
	for _, k := range []string{"d", "e", "f", "h"} {
		if v, ok := got[k]; !ok || v != 0 {
			t.Fatalf("%s = %v, %v; want 0", k, v, ok)
		}
	}
	if math.Signbit(got["d"]) || !math.Signbit(got["f"]) || !math.Signbit(got["h"]) {
		t.Fatalf("signs of zeros: %v", got)
	}
	txtHasNote(t, info, `Skipped 1 non-numeric value (first "j"`)
}

func TestJSONLSkipsWithNotes(t *testing.T) {
	p := txtWrite(t, "wandb-history.jsonl", `{"_step": 0, "loss": 1, "env": "Hopper", "done": false, "lr": null, "hist": [1, 2], "img": {"_type": "image-file", "path": "a.png", "width": 64}, "n": {"a": {"b": 2}}}
{"_step": 1, "loss": 0.5, "img": {"width": 32, "_type": "image-file"}}
`)
	rec, info, err := txtRead(t, p, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []txtPoint{{"loss", Point{Step: 0, Value: 1}}, {"n/a/b", Point{Step: 0, Value: 2}}, {"loss", Point{Step: 1, Value: 0.5}}}
	if !reflect.DeepEqual(rec.pts, want) {
		t.Fatalf("got %v\nwant %v", rec.pts, want)
	}
	for _, n := range []string{`1 non-numeric value (first "env" on line 1)`, `1 boolean value (first "done"`, `1 null value (first "lr"`,
		`1 list value (first "hist"`, `2 W&B media or table objects (first "img" on line 1)`} {
		txtHasNote(t, info, n)
	}
}

func TestJSONLErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		line, col     int
		msg           string
	}{
		{"broken line", "{\"step\": 1, \"a\": 1}\n{\"step\": 2, \"a\": 1 x}\n", 2, 20, "invalid character 'x'"},
		{"truncated line", "{\"step\": 1, \"a\": 1}\n{\"step\": 2, \"a\": \n{\"step\": 3}\n", 2, 18, "unexpected end of line"},
		{"broken first line", "{\"a\" 1}\n", 1, 6, "invalid character '1'"},
		{"not an object", "{\"a\": 1}\n[1, 2]\n", 2, 1, "expected a JSON object, found an array"},
		{"trailing data", "{\"a\": 1} {\"a\": 2}\n", 1, 10, "after top-level value"},
		{"step not an integer", "{\"step\": 1, \"a\": 1}\n{\"step\": 1.5, \"a\": 1}\n", 2, 0, `the step "step" is "1.5", not an integer`},
		{"binary junk mid-file", "{\"a\": 1}\n{\"a\": \x00\x01\x02}\n", 2, 0, "binary data at byte 15; not a jsonl file"},
		{"binary head", "\x00\x01\x02\x03{\"a\": 1}\n", 1, 0, "binary data at byte 0"},
		{"invalid utf-8", "{\"a\": 1}\n{\"\xff\": 1}\n", 2, 0, "binary data at byte 11"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := txtWrite(t, "x.jsonl", c.content)
			_, _, err := txtRead(t, p, JSONL)
			txtWantErr(t, err, c.line, c.col, c.msg)
			if !strings.HasPrefix(err.Error(), p+":") {
				t.Errorf("error does not start with the path: %q", err)
			}
		})
	}
	for _, c := range []struct{ content, msg string }{{"", "empty file"}, {"\n  \n\n", "only blank lines"}} {
		p := txtWrite(t, "e.jsonl", c.content)
		_, _, err := txtRead(t, p, JSONL)
		txtWantErr(t, err, 0, 0, c.msg)
	}
}

func TestJSONLErrorStopsDelivery(t *testing.T) {
	p := txtWrite(t, "a.jsonl", "{\"step\": 1, \"a\": 1}\n{\"step\": 2, \"a\": 2, \"b\": x}\n{\"step\": 3, \"a\": 3}\n")
	rec, _, err := txtRead(t, p, JSONL)
	if err == nil || len(rec.pts) != 1 || rec.pts[0].Step != 1 {
		t.Fatalf("err %v, points %v: want one point, from line 1", err, rec.pts)
	}
}

func TestJSONLWant(t *testing.T) {
	p := txtWrite(t, "a.jsonl", "{\"step\": 1, \"a\": 1, \"b\": 2, \"c\": {\"d\": 3}}\n{\"step\": 2, \"a\": 4, \"b\": 5, \"c\": {\"d\": 6}}\n")
	rec, _, err := txtRead(t, p, JSONL, "c/d")
	if err != nil {
		t.Fatal(err)
	}
	want := []txtPoint{{"c/d", Point{Step: 1, Value: 3}}, {"c/d", Point{Step: 2, Value: 6}}}
	if !reflect.DeepEqual(rec.pts, want) {
		t.Fatalf("got %v", rec.pts)
	}
	if len(rec.asked) != 3 {
		t.Fatalf("asked about %v, want a, b and c/d", rec.asked)
	}
}

func TestJSONLCRLFAndBOM(t *testing.T) {
	p := txtWrite(t, "a.jsonl", "\xef\xbb\xbf{\"step\": 1, \"a\": 1}\r\n{\"step\": 2, \"a\": 2}\r\n")
	rec, _, err := txtRead(t, p, JSONL)
	if err != nil || len(rec.pts) != 2 || rec.pts[1].Step != 2 {
		t.Fatalf("%v %v", err, rec.pts)
	}
}

// txtJSONLineGen makes rows of the shapes seen in real files and odd ones
// besides: escapes, nesting, media objects, lists, non-finite numbers and
// number spellings encoding/json rejects.
type txtJSONLineGen struct{ r *rand.Rand }

func (g txtJSONLineGen) key() string {
	keys := []string{"step", "_step", "_timestamp", "data", "loss", "a/b", "eval/return", "_type", "x\\u0041", "é", "", "k\\\"q", "epoch", "time"}
	if g.r.IntN(3) == 0 {
		return fmt.Sprintf("t%d", g.r.IntN(50))
	}
	return keys[g.r.IntN(len(keys))]
}

func (g txtJSONLineGen) number() string {
	switch g.r.IntN(12) {
	case 0:
		return []string{"NaN", "Infinity", "-Infinity", "0e0", "0e000000", "-0e000000", "-0", "1e400", "-1e-400"}[g.r.IntN(9)]
	case 1:
		return []string{"01", ".5", "1.", "+1", "1e", "0x10", "1_0", "--1", "Inf", "nan", "-NaN"}[g.r.IntN(11)]
	case 2:
		return strconv.Itoa(g.r.IntN(1_000_000))
	case 3:
		return strconv.FormatFloat(g.r.NormFloat64(), 'g', 8, 64)
	case 4:
		return strconv.FormatFloat(g.r.Float64()*math.Pow(10, float64(g.r.IntN(60)-30)), 'g', -1, 64)
	case 5:
		return strconv.FormatFloat(float64(g.r.IntN(100))/4, 'f', 1, 64)
	case 6:
		return "123456789012345678901234567890"
	}
	return strconv.FormatFloat(g.r.Float64()*100, 'g', -1, 64)
}

func (g txtJSONLineGen) value(depth int) string {
	switch g.r.IntN(14) {
	case 0:
		return `"text"`
	case 1:
		return `"esc\"aped\u00e9"`
	case 2:
		return []string{"true", "false", "null"}[g.r.IntN(3)]
	case 3:
		return g.list(depth)
	case 4, 5:
		if depth < 3 {
			return g.object(depth + 1)
		}
	}
	return g.number()
}

// list makes a list of the values rows hold (W&B and verl log lists of
// numbers), nested, empty, spaced or not, at times with an object.
func (g txtJSONLineGen) list(depth int) string {
	var b strings.Builder
	b.WriteString([]string{"[", "[ ", "[\t"}[g.r.IntN(3)])
	for i := range g.r.IntN(5) {
		if i > 0 {
			b.WriteString([]string{",", ", ", " , "}[g.r.IntN(3)])
		}
		switch g.r.IntN(8) {
		case 0:
			if depth < 40 {
				b.WriteString(g.list(depth + 1))
				continue
			}
		case 1:
			b.WriteString(`{"a": 3}`)
			continue
		case 2:
			b.WriteString(g.value(3))
			continue
		}
		b.WriteString(g.number())
	}
	b.WriteString([]string{"]", " ]"}[g.r.IntN(2)])
	return b.String()
}

func (g txtJSONLineGen) object(depth int) string {
	var b strings.Builder
	b.WriteString("{")
	n := g.r.IntN(7)
	for i := range n {
		if i > 0 {
			b.WriteString([]string{",", ", ", " ,\t"}[g.r.IntN(3)])
		}
		b.WriteString(`"` + g.key() + `"`)
		b.WriteString([]string{":", ": ", " : "}[g.r.IntN(3)])
		b.WriteString(g.value(depth))
	}
	b.WriteString("}")
	return b.String()
}

func (g txtJSONLineGen) line() []byte {
	l := []byte(g.object(0))
	if g.r.IntN(4) == 0 { // mutate a byte
		i := g.r.IntN(len(l))
		switch g.r.IntN(3) {
		case 0:
			l = append(l[:i], l[i+1:]...)
		case 1:
			const subst = "{}[]\":,0-eE.N \x00\xff\\"
			l[i] = subst[g.r.IntN(len(subst))]
		default:
			const ins = "{}\":,1 \\"
			l = append(l[:i], append([]byte{ins[g.r.IntN(len(ins))]}, l[i:]...)...)
		}
	}
	if g.r.IntN(8) == 0 {
		l = append([]byte("  "), l...)
	}
	return l
}

// txtCheckJSONLine parses one line with the fast path and with the
// decoder and fails when they disagree: the fast path may decline a line,
// but what it accepts must give the decoder's points and notes. A fast
// parser kept across lines carries its caches from row to row.
func txtCheckJSONLine(t testing.TB, fast *jsonlParser, line []byte) {
	t.Helper()
	slow := newJSONLParser(fast.cfg, fast.tt)
	var bf, bs batch
	ok := fast.fastLine(line, &bf)
	if ok {
		fast.endRow(&bf, 1)
	}
	e := slow.slowLine(line, 1, 0, &bs)
	if e == nil {
		slow.endRow(&bs, 1)
	}
	if !ok {
		if len(bf.vals) != 0 {
			t.Fatalf("%q: the fast path declined but left values", line)
		}
		return
	}
	if e != nil {
		t.Fatalf("fast path accepted %q, the decoder says %v", line, e)
	}
	if len(bf.vals) != len(bs.vals) || !txtSameRows(bf.rowm, bs.rowm) || bf.notes != bs.notes {
		t.Fatalf("%q:\nfast %v %v %v\nslow %v %v %v", line, bf.vals, bf.rowm, bf.notes, bs.vals, bs.rowm, bs.notes)
	}
	for i := range bf.vals {
		if bf.vals[i].id != bs.vals[i].id || !txtSame(bf.vals[i].v, bs.vals[i].v) {
			t.Fatalf("%q: value %d: fast %v, slow %v", line, i, bf.vals[i], bs.vals[i])
		}
	}
}

func txtSameRows(a, b []rowMeta) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.end != y.end || x.kind != y.kind || x.step != y.step || !txtSame(x.wall, y.wall) {
			return false
		}
	}
	return true
}

func TestJSONLFastPathMatchesDecoder(t *testing.T) {
	g := txtJSONLineGen{rand.New(rand.NewPCG(5, 6))}
	cfgs := []rowConfig{{stepKey: "step", wallKey: "_timestamp"}, {stepKey: "step", verl: true}, {}, {stepKey: "_step", wallKey: "time"}}
	accepted, n := 0, 200_000
	if testing.Short() {
		n = 20_000
	}
	for i := range n {
		cfg := &cfgs[i%len(cfgs)]
		line := g.line()
		txtCheckJSONLine(t, newJSONLParser(cfg, newTagTable(&txtRec{})), line)
		if newJSONLParser(cfg, newTagTable(&txtRec{})).fastLine(line, new(batch)) {
			accepted++
		}
	}
	if accepted < n/10 {
		t.Fatalf("the fast path took only %d lines; the generator no longer exercises it", accepted)
	}
}

// TestJSONLFastPathAcrossRows runs one fast parser over runs of similar
// rows, so that its per-position caches of keys and the bytes between
// values are used, and rows that differ from the row before in small ways
// (a value's type, spacing, a key, a broken byte) must still come out as
// the decoder reads them.
func TestJSONLFastPathAcrossRows(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	g := txtJSONLineGen{r}
	cfgs := []rowConfig{{stepKey: "step", wallKey: "_timestamp"}, {stepKey: "step", verl: true}, {}}
	runs := 3000
	if testing.Short() {
		runs = 300
	}
	for run := range runs {
		cfg := &cfgs[run%len(cfgs)]
		fast := newJSONLParser(cfg, newTagTable(&txtRec{only: map[string]bool{"a": true, "t1": true, "x/y": true, "data": true}}))
		keys := []string{"step", "a", "t1", "_timestamp", "b", "x", "data", "t2"}[:2+r.IntN(7)]
		seps := [2]string{": ", ", "}
		for range 40 {
			var b strings.Builder
			b.WriteString("{")
			for k, key := range keys {
				if r.IntN(30) == 0 {
					continue // a key left out
				}
				if k > 0 {
					b.WriteString(seps[1])
				}
				if r.IntN(40) == 0 {
					key = g.key() // another key at this position
				}
				b.WriteString(`"` + key + `"` + seps[0])
				switch {
				case key == "data" || key == "x":
					b.WriteString(`{"y": ` + g.number() + `, "z": ` + g.value(2) + `}`)
				case r.IntN(15) == 0:
					b.WriteString(g.value(1))
				default:
					b.WriteString(g.number())
				}
			}
			b.WriteString("}")
			line := []byte(b.String())
			if r.IntN(10) == 0 {
				i := r.IntN(len(line))
				const subst = "{}\":, 0-.eNa\x00\\"
				line[i] = subst[r.IntN(len(subst))]
			}
			if r.IntN(20) == 0 {
				seps = [2]string{[]string{":", ": ", " :"}[r.IntN(3)], []string{",", ", ", " ,"}[r.IntN(3)]}
			}
			txtCheckJSONLine(t, fast, line)
		}
	}
}

// txtGenJSONL writes a file like the benchmark's: steps of 1000, tags
// eval/return and train/metric_NN, eight significant digits.
func txtGenJSONL(t testing.TB, path string, steps, tags int, odd bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(7, 8))
	for s := range steps {
		if odd && s%997 == 5 {
			fmt.Fprintf(w, "{\"note\": \"checkpoint\\n\", \"eval/return\": %d, \"img\": {\"_type\": \"x\"}}\n", s)
			continue
		}
		fmt.Fprintf(w, `{"step": %d`, s*1000)
		for i := range tags {
			name := "eval/return"
			if i > 0 {
				name = fmt.Sprintf("train/metric_%02d", i)
			}
			fmt.Fprintf(w, `, "%s": %s`, name, strconv.FormatFloat(math.Sin(float64(s)/1000+float64(i))+r.Float64()*0.01, 'g', 8, 64))
		}
		w.WriteString("}\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestJSONLParallelMatchesSequential(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB file")
	}
	p := filepath.Join(t.TempDir(), "big.jsonl")
	txtGenJSONL(t, p, 30_000, 30, true)
	if st, _ := os.Stat(p); st.Size() < 2*parallelBytes {
		t.Fatalf("file too small to be read in parallel: %d", st.Size())
	}
	old := runtime.GOMAXPROCS(1)
	seq, seqInfo, err := txtRead(t, p, JSONL)
	runtime.GOMAXPROCS(max(old, 4))
	par, parInfo, err2 := txtRead(t, p, JSONL)
	runtime.GOMAXPROCS(old)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !reflect.DeepEqual(seq.pts, par.pts) || !reflect.DeepEqual(seqInfo, parInfo) {
		t.Fatalf("parallel read differs: %d vs %d points, notes %q vs %q", len(seq.pts), len(par.pts), seqInfo.Notes, parInfo.Notes)
	}
	txtHasNote(t, parInfo, `rows have no "step" (first on line 6)`)

	// An error late in a big file: the same line, and the same points
	// before it, either way.
	b, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(b), "\n")
	lines[25_000] = "{\"step\": 1, \"eval/return\": 1 2}\n"
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644)
	runtime.GOMAXPROCS(1)
	seq, _, err = txtRead(t, bad, JSONL)
	runtime.GOMAXPROCS(max(old, 4))
	par, _, err2 = txtRead(t, bad, JSONL)
	runtime.GOMAXPROCS(old)
	txtWantErr(t, err, 25_001, 30, "invalid character '2'")
	txtWantErr(t, err2, 25_001, 30, "invalid character '2'")
	if !reflect.DeepEqual(seq.pts, par.pts) {
		t.Fatalf("points before the error differ: %d vs %d", len(seq.pts), len(par.pts))
	}
}

type txtCountSink struct {
	want string
	n    int64
	sum  float64
}

func (s *txtCountSink) Want(tag string) bool { return s.want == "" || tag == s.want }
func (s *txtCountSink) Point(tag string, p Point) error {
	s.n++
	s.sum += p.Value
	return nil
}

// txtBench reads a generated file repeatedly, for all tags and for the one
// tag a score needs, and logs how long wc -l takes on the same file.
func txtBench(b *testing.B, path string, f Format) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, want := range []string{"", "eval/return"} {
		name := "all-tags"
		if want != "" {
			name = "one-tag"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(st.Size())
			for b.Loop() {
				s := &txtCountSink{want: want}
				if _, err := Read(path, f, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	if wc, err := exec.LookPath("wc"); err == nil {
		t0 := time.Now()
		const n = 5
		for range n {
			if err := exec.Command(wc, "-l", path).Run(); err != nil {
				b.Fatal(err)
			}
		}
		d := time.Since(t0) / n
		b.Logf("wc -l on the same %d MB file: %v (%.0f MB/s)", st.Size()>>20, d, float64(st.Size())/d.Seconds()/1e6)
	}
}

func BenchmarkReadJSONL(b *testing.B) {
	p := filepath.Join(b.TempDir(), "bench.jsonl")
	txtGenJSONL(b, p, 50_000, 40, false) // about 50 MB
	txtBench(b, p, JSONL)
}

// TestJSONLListsTakeFastPath pins that rows holding lists are read by the
// byte scanner, not the decoder, and as the decoder reads them.
func TestJSONLListsTakeFastPath(t *testing.T) {
	cfg := &rowConfig{stepKey: "step"}
	for _, line := range []string{
		`{"step": 1, "extra": [1, 2], "a": 0.5}`,
		`{"step": 2, "extra": [], "a": {"h": [[1.5, -2e-3], [NaN, Infinity, -Infinity]], "b": 3}}`,
		`{"step": 3, "extra": ["x", true, false, null, [ ] ,[[]]], "a": 1}`,
	} {
		p := newJSONLParser(cfg, newTagTable(&txtRec{}))
		if !p.fastLine([]byte(line), new(batch)) {
			t.Errorf("%s: read by the decoder", line)
		}
		txtCheckJSONLine(t, newJSONLParser(cfg, newTagTable(&txtRec{})), []byte(line))
	}
	for _, line := range []string{`{"a": [1, {"b": 2}]}`, `{"a": ["x\"y"]}`, `{"a": [1 2]}`, `{"a": [1,]}`, `{"a": [01]}`, `{"a": [1}`, `{"a": [truex]}`} {
		if newJSONLParser(cfg, newTagTable(&txtRec{})).fastLine([]byte(line), new(batch)) {
			t.Errorf("%s: taken by the byte scanner", line)
		}
	}
}

// BenchmarkInspectJSONLLists summarises rows with and without a list of
// numbers among the metrics.
func BenchmarkInspectJSONLLists(b *testing.B) {
	for _, c := range []struct{ name, extra string }{{"plain", ""}, {"list", `, "extra": [1, 2]`}} {
		extra := c.extra
		var buf bytes.Buffer
		for s := range 20_000 {
			fmt.Fprintf(&buf, `{"step": %d%s`, s, extra)
			for i := range 40 {
				fmt.Fprintf(&buf, `, "train/metric_%02d": %.8f`, i, math.Sin(float64(s+i)))
			}
			buf.WriteString("}\n")
		}
		path := filepath.Join(b.TempDir(), "lists.jsonl")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				s, err := Inspect(path, JSONL, nil)
				if err != nil || len(s.Tags) != 40 {
					b.Fatalf("%v, %d tags", err, len(s.Tags))
				}
			}
		})
	}
}

// TestJSONLTagTwiceInARow: a row that gives a tag two values, by a key
// repeated or by keys that flatten to one name, is refused at its line,
// through the byte scanner and the decoder alike, in JSONL and JSON, as
// inspect reads them too. Two
// rows at one step (episodes that ended together) are no such row.
func TestJSONLTagTwiceInARow(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		format     Format
		want       string // "" when the file reads
	}{
		{"repeated", "{\"step\": 1, \"x\": 1}\n{\"step\": 2, \"x\": 1, \"x\": 2}\n", JSONL, ":2: the tag \"x\" has two values in one row"},
		{"flattened", "{\"step\": 1, \"eval\": {\"return\": 1}, \"eval/return\": 2}\n", JSONL, ":1: the tag \"eval/return\" has two values in one row"},
		{"decoder", "{\"step\": 1, \"x\\u0041\": [\"a\\\"\"], \"xA\": 1, \"x\": 3}\n{\"step\": 2, \"x\\u0041\": 1, \"xA\": 2}\n", JSONL, ":2: the tag \"xA\" has two values in one row"},
		{"verl", "{\"step\": 1, \"data\": {\"x\": 1}, \"x\": 2}\n", JSONL, ":1: the tag \"x\" has two values in one row"},
		{"json", "[{\"step\": 1, \"x\": 1},\n {\"step\": 2, \"a\": {\"b\": 1}, \"a/b\": 2}]\n", JSON, ":2:2: the tag \"a/b\" has two values in one row"},
		{"step twice", "{\"step\": 1, \"step\": 5, \"x\": 1}\n{\"step\": 2, \"x\": 1}\n", JSONL, ":1: the step key \"step\" has two values in one row"},
		{"step twice after a row of the same shape", "{\"step\": 1, \"x\": 1}\n{\"step\": 2, \"x\": 1}\n{\"step\": 3, \"x\": 2, \"step\": 9}\n", JSONL, ":3: the step key \"step\" has two values in one row"},
		{"step twice, json", "[{\"step\": 1, \"step\": 5, \"x\": 1}]\n", JSON, ":1:2: the step key \"step\" has two values in one row"},
		{"queued, then plain", "{\"step\": 1, \"x\": 2}\n{\"step\": 2, \"x\": NaN, \"x\": 1}\n", JSONL, ":2: the tag \"x\" has two values in one row"},
		{"plain, then queued", "{\"step\": 1, \"x\": 2}\n{\"step\": 2, \"x\": 1, \"x\": 1e999}\n", JSONL, ":2: the tag \"x\" has two values in one row"},
		{"repeated, then bad", "{\"step\": 1, \"x\": 1, \"x\": 2, \"y\" 3}\n", JSONL, ":1:33: invalid character '3' after object key"},
		{"one step, two rows", "{\"step\": 5, \"x\": 1}\n{\"step\": 5, \"x\": 2}\n", JSONL, ""},
		{"one step, unwanted twice", "{\"step\": 5, \"x\": 1, \"y\": 1, \"y\": 2}\n", JSONL, ""},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+"."+string(tc.format))
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		only := []string{"x", "eval/return", "xA", "a/b"}
		if tc.format == JSONL && !strings.Contains(tc.name, "unwanted") {
			// inspect, which wants every tag, folds plain numbers as it
			// reads them: the same refusal.
			_, err := Inspect(p, JSONL, nil)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), p+tc.want)) {
				t.Errorf("%s: inspect: %v, want %s%s", tc.name, err, p, tc.want)
			}
		}
		rec, _, err := txtRead(t, p, tc.format, only...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && len(rec.pts) != 2 && len(rec.pts) != 1:
			t.Errorf("%s: points %v", tc.name, rec.pts)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), p+tc.want)):
			t.Errorf("%s: error %v, want %s%s", tc.name, err, p, tc.want)
		}
	}
}

// TestJSONLNonFiniteStrings: a number JSON cannot hold, spelled as a
// string by a strict writer, is that number in JSONL and JSON; other
// strings stay skipped.
func TestJSONLNonFiniteStrings(t *testing.T) {
	dir := t.TempDir()
	text := "{\"step\": 1, \"x\": 1, \"s\": \"a\"}\n{\"step\": 2, \"x\": \"NaN\", \"s\": \"nan1\"}\n{\"step\": 3, \"x\": \"-inf\"}\n{\"step\": 4, \"x\": \"Infinity\"}\n{\"step\": 5, \"x\": \"+INF\", \"s\": \"-nan\"}\n"
	want := []float64{1, math.NaN(), math.Inf(-1), math.Inf(1), math.Inf(1)}
	for _, f := range []Format{JSONL, JSON} {
		body := text
		if f == JSON {
			body = "[" + strings.ReplaceAll(strings.TrimSpace(text), "\n", ",\n") + "]\n"
		}
		p := filepath.Join(dir, "n."+string(f))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		rec, _, err := txtRead(t, p, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var got []float64
		for _, pt := range rec.pts {
			if pt.Tag == "s" {
				t.Errorf("%s: text read as a value: %v", f, pt)
			}
			if pt.Tag == "x" {
				got = append(got, pt.Value)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: x = %v, want %v", f, got, want)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Errorf("%s: point %d = %v, want %v", f, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkJSONLBlock parses one block of rows of one shape as inspect
// does (plain numbers checked, folded into summaries), on one goroutine
// and without reading the file, so that the parser's own cost shows.
func BenchmarkJSONLBlock(b *testing.B) {
	path := filepath.Join(b.TempDir(), "block.jsonl")
	txtGenJSONL(b, path, 1000, 40, false) // about 1 MiB, a chunk
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg := &rowConfig{stepKey: "step"}
	p := newJSONLParser(cfg, newTagTable(&txtRec{}))
	var bt batch
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		bt.reset()
		parseChunk(p, data, 0, false, true, &bt)
		if bt.err != nil || bt.rows != 1000 || len(bt.touched) != 40 {
			b.Fatalf("%v, %d rows, %d tags", bt.err, bt.rows, len(bt.touched))
		}
	}
}
