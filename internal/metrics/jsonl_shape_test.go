package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shapeSeeds adds pairs of JSONL rows to the corpus: rows made from the
// real CSV samples (when present), with their numbers as their writers
// spelled them, one row and the next, and rows that differ from the row
// before in a gap, a spelling or their end.
func shapeSeeds(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	for _, name := range []string{"sb3/formalRL/progress.csv", "progress-csv/SIMPLE-baselines-progress.csv", "progress-csv/OptionGAN-rllab-progress.csv"} {
		fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		var head []string
		var prev string
		for n := 0; sc.Scan() && n < 40; n++ {
			cells := strings.Split(sc.Text(), ",")
			if head == nil {
				head = cells
				continue
			}
			var row strings.Builder
			row.WriteString(`{"step": ` + fmt.Sprint(n))
			for i, c := range cells {
				if i < len(head) && c != "" {
					fmt.Fprintf(&row, ", %q: %s", head[i], c)
				}
			}
			row.WriteString("}")
			if prev != "" {
				f.Add([]byte(prev), []byte(row.String()))
			}
			prev = row.String()
		}
		fh.Close()
	}
	const learned = `{"step": 1, "a": 0.5, "b/c": -12.25, "d": 7}`
	for _, row := range []string{
		`{"step": 2, "a": 0.75, "b/c": -1, "d": 70}`,
		`{"step": 3, "a": -0, "b/c": 0.0, "d": 0}`,
		`{"step": 4, "a": 01, "b/c": 1., "d": .5}`,
		`{"step": 5, "a": 1e5, "b/c": -1E-7, "d": 2.5e+10}`,
		`{"step": 6, "a": -, "b/c": --1, "d": 1-}`,
		`{"step": 7, "a": 123456789012345, "b/c": -1234567890123.5, "d": 1234567890123456789}`,
		`{"step": 8, "a": NaN, "b/c": Infinity, "d": "x"}`,
		`{"step": 9, "a": 1, "b/c": 2, "d": 3 }  `,
		`{"step": 10, "a": 1, "b/c": 2, "d": 3, "e": 4}`,
		`{"step": 11, "a": 1, "b/c": 2, "d": 3`,
		`{"step": 12, "a": 1,"b/c": 2, "d": 3}`,
		`{"step": 13.5, "a": 1, "b/c": 2, "d": 3}`,
		`{"step": 14, "a": 1, "b/c": 2, "d": 3}x`,
	} {
		f.Add([]byte(learned), []byte(row))
	}
	f.Add([]byte(`{"x":1,"y":2}`), []byte(`{"x":10.5,"y":-2}`))
	f.Add([]byte(`{"x": 1 , "y": 2 }`), []byte(`{"x": 3 , "y": 4 }`))
}

// FuzzShapeScan checks the shape kernel against its Go version on shapes
// and rows of any bytes, with the row's capacity ending at it and past
// it, and that every number it takes (ended by a byte that can end a
// number, as learnShape's terms are) is one scanPlainNumber and the exact
// scan take, ending where they end. It also reads the second row
// after the first with one parser, as a reader does, against the decoder.
func FuzzShapeScan(f *testing.F) {
	shapeSeeds(f)
	f.Fuzz(func(t *testing.T, learned, row []byte) {
		// A shape made of the first input's bytes: gaps cut at its
		// colons, each number ended by the byte after the next gap's start.
		var sh rowShape
		for _, g := range bytes.SplitAfter(learned, []byte{':'}) {
			if len(sh.offs) >= 64 {
				break
			}
			sh.offs = append(sh.offs, int32(len(sh.gaps)))
			sh.gaps = append(sh.gaps, g...)
			term := byte(',')
			if len(g) > 0 {
				term = g[0]
			}
			sh.terms = append(sh.terms, term)
		}
		sh.offs = append(sh.offs, int32(len(sh.gaps)))
		sh.gaps = append(sh.gaps, make([]byte, 16)...)
		for _, l := range [][]byte{row[:len(row):len(row)], append(row[:len(row):len(row)], make([]byte, 40)...)[:len(row)]} {
			for start := 0; start <= min(len(sh.terms), 2); start++ {
				pos, gpos := make([]int32, 2*len(sh.terms)), make([]int32, 2*len(sh.terms))
				i, k, ok := shapeScan(l, 0, sh.gaps, sh.offs, sh.terms, pos, start)
				gi, gk, gok := shapeScanGeneric(l, 0, sh.gaps, sh.offs, sh.terms, gpos, start)
				if i != gi || k != gk || ok != gok || !cmp.Equal(pos, gpos) {
					t.Fatalf("cap %d, from %d: shapeScan (%d, %d, %v) %v, shapeScanGeneric (%d, %d, %v) %v", cap(l), start, i, k, ok, pos, gi, gk, gok, gpos)
				}
				for x := start; x < k; x++ {
					s, e := int(pos[2*x]), int(pos[2*x+1])
					if e >= len(l) || l[e] != sh.terms[x] {
						t.Fatalf("number %d of %q ends at %d, not at its term %q", x, l, e, sh.terms[x])
					}
					if isRunByte(sh.terms[x]) {
						continue // learnShape keeps no such term
					}
					if got, _ := scanJSONNumber(l, s, false); got != e {
						t.Fatalf("number %q of %q: the kernel ends it at %d, the exact scan at %d", l[s:e], l, e, got)
					}
					if cap(l)-s >= 18 && scanPlainNumber(l, s) != e {
						t.Fatalf("number %q of %q: the kernel ends it at %d, scanPlainNumber at %d", l[s:e], l, e, scanPlainNumber(l, s))
					}
				}
			}
		}
		cfgs := []rowConfig{{stepKey: "step"}, {stepKey: "step", wallKey: "_timestamp"}, {}}
		for i := range cfgs {
			p := newJSONLParser(&cfgs[i], newTagTable(&txtRec{}))
			txtCheckJSONLine(t, p, learned)
			txtCheckJSONLine(t, p, row)
			txtCheckJSONLine(t, p, row)
		}
	})
}

// TestShapeRowsTakeTheKernel pins that rows of one shape are read by the
// shape kernel, and that a row of another shape, or with a number the
// kernel leaves to the full check, still reads as the decoder reads it.
func TestShapeRowsTakeTheKernel(t *testing.T) {
	cfg := &rowConfig{stepKey: "step"}
	p := newJSONLParser(cfg, newTagTable(&txtRec{}))
	rows := []struct {
		line  string
		shape bool
	}{
		{`{"step": 1, "a": 0.5, "b": -2}`, false},
		{`{"step": 2, "a": 0.25, "b": -3.5}`, true},
		{`{"step": 3, "a": 1e-06, "b": 123456789012345}`, true},
		{`{"step": 4, "a": NaN, "b": 1}`, false},
		{`{"step": 5, "b": 1, "a": 2}`, false},
		{`{"step": 6, "b": 7, "a": 8}`, true},
		{`{"step": 7, "b": 7, "a": 8, "c": [1]}`, false},
		{`{"step": 8, "b": 7, "a": 8}`, true},
	}
	for _, r := range rows {
		// Rows lie in a block with room after them for 16-byte loads.
		l := append(make([]byte, 0, len(r.line)+32), r.line...)
		p.beginRow(new(batch))
		if got := p.shapeLine(l); got != r.shape {
			t.Errorf("%s: read by the shape kernel %v, want %v", r.line, got, r.shape)
		}
		txtCheckJSONLine(t, p, l)
	}
}
