package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The text readers cut a file into chunks of lines, parsed by several
// goroutines and delivered in file order. These tests read the same
// bytes with chunk boundaries everywhere, sequentially and in parallel,
// and compare with the sequential read in one chunk: the summaries,
// points, notes and errors (with their line numbers) must be the same.

// sequential reads everything on the calling goroutine, in chunks as
// large as the product's.
var sequential = chunking{size: chunkSize, parallelFrom: 1 << 62, workers: 1}

type chunkedSummary struct {
	*summarySink
	ch chunking
}

func (c chunkedSummary) chunking() chunking { return c.ch }

type chunkedRec struct {
	*txtRec
	ch chunking
}

func (c chunkedRec) chunking() chunking { return c.ch }

// chunkRead reads path both ways: as inspect summarises it and as series
// delivers its points.
type chunkRead struct {
	Summary Summary
	Points  []txtPoint
	Info    Info
	Err     string
}

func readChunked(path string, f Format, ch chunking) chunkRead {
	s := &summarySink{index: map[string]int{}}
	sum, err := s.inspect(path, f, chunkedSummary{s, ch})
	var r chunkRead
	r.Summary = sum
	if err != nil {
		r.Err = "inspect: " + err.Error()
	}
	rec := &txtRec{}
	r.Info, err = Read(path, f, chunkedRec{rec, ch})
	r.Points = rec.pts
	if err != nil {
		r.Err += " read: " + err.Error()
	}
	return r
}

// sameChunked compares a file's sequential read with reads in the given
// chunkings, and, for a file read whole, inspect's summaries with those
// of the points delivered.
func sameChunked(t *testing.T, path string, f Format, chs ...chunking) {
	t.Helper()
	want := readChunked(path, f, sequential)
	if want.Summary.Info.Points != want.Info.Points {
		t.Fatalf("%s: inspect counts %d points, the points read are %d (%s)", path, want.Summary.Info.Points, want.Info.Points, want.Err)
	}
	if want.Err == "" {
		ps := &summarySink{index: map[string]int{}}
		for _, p := range want.Points {
			ps.Point(p.Tag, p.Point)
		}
		sortTags(ps.tags)
		if d := cmp.Diff(ps.tags, want.Summary.Tags, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%s: inspect's summaries differ from the points' (-points +inspect):\n%s", path, d)
		}
	}
	for _, ch := range chs {
		got := readChunked(path, f, ch)
		if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
			t.Fatalf("%s in chunks of %d bytes, %d workers from %d bytes: differs from one sequential read (-want +got):\n%s",
				path, ch.size, ch.workers, ch.parallelFrom, d)
		}
	}
}

func testChunkings(sizes ...int64) []chunking {
	var chs []chunking
	for _, s := range sizes {
		chs = append(chs, chunking{size: s, parallelFrom: 1 << 62, workers: 1}, chunking{size: s, workers: 3})
	}
	return chs
}

func TestChunkedReadsMatchSequentialOnSamples(t *testing.T) {
	dir := txtSamples(t)
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := Detect(p)
		if err != nil || (f != CSV && f != JSONL) {
			return nil
		}
		n++
		sameChunked(t, p, f, testChunkings(1, 2, 5, 64, 1000)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no CSV or JSONL file among the samples in %s", dir)
	}
}

func TestChunkedReadsMatchSequentialOnGenerated(t *testing.T) {
	tmp := t.TempDir()
	js := filepath.Join(tmp, "h.jsonl")
	txtGenJSONL(t, js, 1500, 8, true)
	cs := filepath.Join(tmp, "h.csv")
	txtGenCSV(t, cs, 2000, 8, true)
	chs := testChunkings(97, 4096, 65536)
	sameChunked(t, js, JSONL, chs...)
	sameChunked(t, cs, CSV, chs...)

	// An error late in the file: the same line and the same points
	// before it, however the file is cut.
	for _, c := range []struct {
		path, bad string
		f         Format
	}{
		{js, "{\"step\": 1, \"eval/return\": 1 2}", JSONL},
		{cs, "1,2,3", CSV},
		// Rejected after values before the bad cell were taken.
		{cs, "5,0.5,0.25,\x00,1,1,1,1,1,", CSV},
		{cs, "1.5,0.5,0.25,1,1,1,1,1,1,", CSV},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		lines[len(lines)*3/4] = c.bad + "\n"
		p := c.path + ".bad"
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := readChunked(p, c.f, sequential); r.Err == "" {
			t.Fatalf("%s: no error for the bad line", p)
		}
		sameChunked(t, p, c.f, chs...)
	}
}

// FuzzChunkBoundaries reads random CSV and JSONL files cut into random
// chunks by random numbers of goroutines and compares with one
// sequential read.
func FuzzChunkBoundaries(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	for _, s := range []string{"sb3/formalRL/progress.csv", "progress-csv/SIMPLE-baselines-progress.csv", "progress-csv/OptionGAN-rllab-progress.csv"} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s))); err == nil {
			f.Add(b, true, uint8(7), uint8(2))
		}
	}
	for _, s := range []struct {
		data string
		csv  bool
	}{
		{"step,a,b\n1,0.5,2\n2,0.6,7\n3,,8\n\n4,nan,1e999\n5,1,2", true},
		{"\xef\xbb\xbf#c\r\nr,l,t\r\n1.5,10,0.1\r\n2.5,11,0.2\r\n", true},
		{"step,name,r\n1,\"hopper, v4\",1.5\n2,\"[1 2]\",2\nstep,name,r\n3,x,4\n", true},
		{"a,b\n1,2\n3\n4,5\n", true},
		{"a,b\r1,2\r3,4\r", true},
		{"{\"step\": 1, \"a\": 0.5, \"b\": {\"c\": NaN}}\n{\"step\": 2, \"a\": -Infinity}\n{\"a\": 3}\n", false},
		{"\xef\xbb\xbf{\"epoch\": 0.5, \"iteration\": 3, \"time\": 1700000000}\r\n\r\n{\"iteration\": 4}", false},
		{"{\"step\": 1, \"a\": 1}\n{\"step\": 2, \"a\": 2}\n{\"a\": 1 x}\n{\"step\": 3, \"a\": 3}\n", false},
		{"{\"step\": 1, \"data\": {\"actor/lr\": 1e-06, \"x\": [1]}}\n{\"step\": 2, \"data\": {\"actor/lr\": 2e-06}}\n", false},
		{"{\"step\": 1, \"extra\": [1, 2], \"a\": 0.5}\n{\"step\": 2, \"extra\": [[]], \"a\": 1}\n{\"step\": 3, \"extra\": [1,], \"a\": 2}\n", false},
		{"{\"step\": 1, \"a\": 0.5, \"b\": 2}\n{\"step\": 2, \"a\": 1.5, \"s\": \"q\\\"\", \"b\": 3}\n{\"step\": 3, \"a\": 2.5, \"b\": NaN}\n{\"step\": 4, \"a\": 3, \"a\": 1e999}\n", false},
		{"step,a,b\n1,007,-0\n2,1.5,-2.25\n3,1.2.3,4\n4,-,5\n5," + strings.Repeat("9", 70) + ",0.5\n6,1,2,\n", true},
	} {
		f.Add([]byte(s.data), s.csv, uint8(1), uint8(3))
		f.Add([]byte(s.data), s.csv, uint8(4), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, csv bool, size, workers uint8) {
		name, fm := "f.jsonl", JSONL
		if csv {
			name, fm = "f.csv", CSV
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ch := chunking{size: 1 + int64(size%64), workers: 1 + int(workers%4)}
		if ch.workers == 1 {
			ch.parallelFrom = 1 << 62
		}
		sameChunked(t, p, fm, ch)
	})
}
