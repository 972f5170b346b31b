package metrics

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestJSONShapes(t *testing.T) {
	for _, c := range []struct {
		name, content string
		want          []txtPoint
		note          string
	}{
		{"one object without a step", `{"accuracy": 0.9, "loss": {"train": 0.1, "val": 0.2}, "model": "resnet"}`,
			[]txtPoint{{"accuracy", Point{Value: 0.9}}, {"loss/train", Point{Value: 0.1}}, {"loss/val", Point{Value: 0.2}}}, "row number"},
		{"one object with a step", "{\n  \"global_step\": 300,\n  \"eval/return\": 1.5\n}\n",
			[]txtPoint{{"eval/return", Point{Step: 300, Value: 1.5}}}, `Steps come from "global_step"`},
		{"array of rows", `[{"step": 1, "r": 1}, {"step": 2, "r": NaN}, {"r": 3}]`,
			[]txtPoint{{"r", Point{Step: 1, Value: 1}}, {"r", Point{Step: 2, Value: math.NaN()}}, {"r", Point{Step: 2, Value: 3}}}, `1 row has no "step"`},
		{"array of verl rows", `[{"step": 1, "data": {"actor/lr": 1e-6}}, {"step": 2, "data": {"actor/lr": 2e-6, "x": Infinity}}]`,
			[]txtPoint{{"actor/lr", Point{Step: 1, Value: 1e-6}}, {"actor/lr", Point{Step: 2, Value: 2e-6}}, {"x", Point{Step: 2, Value: math.Inf(1)}}}, "verl"},
		{"one verl row", `{"step": 7, "data": {"a": 1}}`, []txtPoint{{"a", Point{Step: 7, Value: 1}}}, "verl"},
		{"rows one after another", "{\"step\": 1, \"a\": 1}\n{\"step\": 2, \"a\": 2}\n",
			[]txtPoint{{"a", Point{Step: 1, Value: 1}}, {"a", Point{Step: 2, Value: 2}}}, `Steps come from "step"`},
		{"numbered rows", `[{"a": 1}, {"a": 2}, {"a": 3}]`,
			[]txtPoint{{"a", Point{Step: 0, Value: 1}}, {"a", Point{Step: 1, Value: 2}}, {"a", Point{Step: 2, Value: 3}}}, "row number"},
		{"empty array", `[]`, nil, "empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := txtWrite(t, "m.json", c.content)
			rec, info, err := txtRead(t, p, JSON)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.pts) != len(c.want) {
				t.Fatalf("got %v, want %v", rec.pts, c.want)
			}
			for i, w := range c.want {
				g := rec.pts[i]
				if g.Tag != w.Tag || g.Step != w.Step || g.WallTime != w.WallTime || !txtSame(g.Value, w.Value) {
					t.Fatalf("point %d: got %v, want %v", i, g, w)
				}
			}
			txtHasNote(t, info, c.note)
		})
	}
}

func TestJSONManyRowsFlush(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i%100 == 50 {
			b.WriteString(`{"a": 1, "b": 2, "c": 3}`) // no step: carries across flushes
			continue
		}
		b.WriteString(`{"step": ` + strconv.Itoa(i) + `, "a": 1, "b": 2, "c": 3}`)
	}
	b.WriteString("]")
	p := txtWrite(t, "m.json", b.String())
	rec, _, err := txtRead(t, p, JSON, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.pts) != 3000 {
		t.Fatalf("%d points", len(rec.pts))
	}
	for i, q := range rec.pts {
		want := int64(i)
		if i%100 == 50 {
			want = int64(i - 1)
		}
		if q.Step != want {
			t.Fatalf("row %d: step %d, want %d", i, q.Step, want)
		}
	}
}

func TestJSONErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		line, col     int
		msg           string
	}{
		{"syntax error in a pretty file", "[\n  {\"step\": 1, \"a\": 1},\n  {\"step\": 2, \"a\": x}\n]\n", 3, 20, "invalid character 'x'"},
		{"missing comma between keys", "{\n \"a\": 1\n \"b\": 2\n}", 3, 2, "invalid character '\"' after object key:value pair"},
		{"tensorboard export", "[[1.5, 1, 0.5]]", 1, 2, "--format tb-json"},
		{"array of numbers", "[1, 2]", 1, 2, "the array holds a number"},
		{"top-level string", `"hello"`, 1, 1, "found a string"},
		{"trailing data", "[{\"a\": 1}] x", 1, 12, "invalid character 'x'"},
		{"data after an array", "[{\"a\": 1}] [", 1, 12, "unexpected data after the array"},
		{"truncated", "[{\"a\": 1}, {\"a\":", 1, 17, "unexpected end"},
		{"step not an integer", "[{\"step\": 1}, \n {\"step\": 2.5}]", 2, 2, `the step "step" is "2.5", not an integer`},
		{"binary", "\x00\x00\x00", 1, 0, "binary data at byte 0; not a json file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := txtWrite(t, "m.json", c.content)
			_, _, err := txtRead(t, p, JSON)
			txtWantErr(t, err, c.line, c.col, c.msg)
		})
	}
	for _, c := range []struct{ content, msg string }{{"", "empty file"}, {" \n ", "only white space"}} {
		_, _, err := txtRead(t, txtWrite(t, "e.json", c.content), JSON)
		txtWantErr(t, err, 0, 0, c.msg)
	}
}

// TestNonFiniteReaderMatchesWholeBuffer feeds the stream rewriter one
// byte at a time and in odd chunks: tokens cut by read boundaries must be
// rewritten as if the whole input were one buffer.
func TestNonFiniteReaderMatchesWholeBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	parts := []string{"NaN", "Infinity", "-Infinity", "0e0", "0e000000", "-0e000000", `"NaN"`, `"a\"NaN"`, "12345678901", ",", " ", "[", "]", "{", "}", `"k":`, "NaNa", "Infinityy", "true"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		in := []byte(b.String())
		want := append([]byte(nil), in...)
		new(nonFinite).process(want, true)
		for _, rd := range []io.Reader{iotest.OneByteReader(bytes.NewReader(in)), iotest.HalfReader(bytes.NewReader(in)), bytes.NewReader(in)} {
			got, err := io.ReadAll(newNonFiniteReader(rd))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%q: stream gives %q (%v), whole buffer %q", in, got, err, want)
			}
		}
	}
	// Spot checks of the rewrite itself.
	for in, want := range map[string]string{
		`[NaN, Infinity, -Infinity]`:    `[0e0, 0e000000, -0e000000]`,
		`[0e0, 0e000000, -0e000000]`:    `[0.0, 0.000000, -0.000000]`,
		`{"NaN": "Infinity", "x": NaN}`: `{"NaN": "Infinity", "x": 0e0}`,
		`[NaNa, -Infinityx, 0e00]`:      `[NaNa, -Infinityx, 0e00]`,
	} {
		b := []byte(in)
		new(nonFinite).process(b, true)
		if string(b) != want {
			t.Errorf("%s → %s, want %s", in, b, want)
		}
	}
	if !reflect.DeepEqual(numberLexeme("0e0"), "NaN") {
		t.Error("numberLexeme")
	}
}
