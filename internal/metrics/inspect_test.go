package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestInspectSummaries(t *testing.T) {
	path := txtWrite(t, "eval.jsonl", "{\"step\": 1, \"r\": 1.5, \"l\": 3}\n{\"step\": 2, \"r\": NaN}\n{\"step\": 5, \"l\": 4, \"r\": 2.5}\n")
	s, err := Inspect(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []TagSummary{
		{Tag: "l", Points: 2, FirstStep: 1, LastStep: 5, Last: 4},
		{Tag: "r", Points: 3, FirstStep: 1, LastStep: 5, Last: 2.5, NonFinite: 1},
	}
	if diff := cmp.Diff(want, s.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if s.Format != JSONL || s.Points != 5 {
		t.Errorf("format %q points %d", s.Format, s.Points)
	}
}

// TestInspectNoScalars checks that a file with no values says so: a
// TensorBoard event file with only its header record.
func TestInspectNoScalars(t *testing.T) {
	path := tfFile(t, "events.out.tfevents.1.host", tfEvent(1.7e9, 0, tfFileVersion()))
	s, err := Inspect(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tags) != 0 {
		t.Fatalf("tags %v", s.Tags)
	}
	txtHasNote(t, s.Info, "no scalar values")
}

func TestFindSources(t *testing.T) {
	samples := txtSamples(t)
	root := t.TempDir()
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(samples, from))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, to)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("sb3/formalRL/progress.csv", "seed0/progress.csv")
	copyFile("sb3/formalRL/events.out.tfevents.1693326834.harryting-OMEN.273496.0", "seed0/tb/PPO_1/events.out.tfevents.1693326834.harryting-OMEN.273496.0")
	copyFile("wandb/ConceptPPO/run-20230723_093735-mxaehod4/run-mxaehod4.wandb", "seed1/wandb/run-x/run-mxaehod4.wandb")
	copyFile("wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-metadata.json", "seed1/wandb/run-x/files/wandb-metadata.json")
	copyFile("wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-summary.json", "seed1/wandb/run-x/files/wandb-summary.json")
	copyFile("wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/config.yaml", "seed1/wandb/run-x/files/config.yaml")
	run := "mlflow/Iris_MLFlow/mlruns/853099972095872099/425b6205924e4d7ebf10791f8edd827d"
	for _, f := range []string{"meta.yaml", "metrics/metric_0", "metrics/metric_1"} {
		copyFile(run+"/"+f, "seed2/mlruns/1/abc/"+f)
	}
	for name, content := range map[string]string{
		"seed0/train.log":       strings.Repeat("loading model ...\n", 400) + "step:1 - critic/score/mean:0.5\n",
		"seed0/stdout.txt":      "hello\n",
		"seed0/config.json":     "{\"lr\": 0.1}\n",
		".rlxp/progress.csv":    "step,r\n1,2\n",
		"seed0/empty.jsonl":     "",
		"seed0/export-tag.json": "[[1.7e9, 1, 0.5]]",
	} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FindSources(root)
	if err != nil {
		t.Fatal(err)
	}
	type found struct {
		Path   string
		Format Format
		Err    bool
	}
	var have []found
	for _, s := range got {
		rel, _ := filepath.Rel(root, s.Path)
		have = append(have, found{rel, s.Format, s.Err != nil})
	}
	want := []found{
		{"seed0/empty.jsonl", "", true},
		{"seed0/export-tag.json", TBJSON, false},
		{"seed0/progress.csv", CSV, false},
		{"seed0/tb/PPO_1/events.out.tfevents.1693326834.harryting-OMEN.273496.0", TFEvents, false},
		{"seed0/train.log", VerlLog, false},
		{"seed1/wandb/run-x/files/wandb-summary.json", WandbSummary, false},
		{"seed1/wandb/run-x/run-mxaehod4.wandb", Wandb, false},
		{"seed2/mlruns/1/abc", MLflow, false},
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestInspectWhileWriting appends JSONL, CSV and TensorBoard records to
// three files, cut at random byte offsets, while 30 inspections read them:
// no inspection may fail on the unfinished tail, and every value read
// must be in the finished file, in order.
func TestInspectWhileWriting(t *testing.T) {
	const rounds, steps = 30, 3000
	r := rand.New(rand.NewPCG(3, 4))
	var jsonl, csv strings.Builder
	var tf []byte
	csv.WriteString("step,eval/return,train/loss\n")
	tf = append(tf, tfFramed(tfEvent(1.7e9, 0, tfFileVersion()))...)
	for s := range steps {
		ret, loss := float64(s)/3, 1/float64(s+7)
		fmt.Fprintf(&jsonl, "{\"step\": %d, \"eval/return\": %v, \"train/loss\": %v}\n", s, ret, loss)
		fmt.Fprintf(&csv, "%d,%v,%v\n", s, ret, loss)
		tf = append(tf, tfFramed(tfEvent(1.7e9+float64(s), int64(s), tfSummary(tfSimpleValue("eval/return", float32(ret)), tfSimpleValue("train/loss", float32(loss)))))...)
	}
	dir := t.TempDir()
	files := []struct {
		path    string
		content []byte
	}{
		{filepath.Join(dir, "eval.jsonl"), []byte(jsonl.String())},
		{filepath.Join(dir, "progress.csv"), []byte(csv.String())},
		{filepath.Join(dir, "events.out.tfevents.1.host"), tf},
	}
	// What each finished file holds: every read must be a prefix of it.
	final := make([][]txtPoint, len(files))
	for i, f := range files {
		p := filepath.Join(t.TempDir(), filepath.Base(f.path))
		if err := os.WriteFile(p, f.content, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, _, err := txtRead(t, p, "")
		if err != nil {
			t.Fatal(err)
		}
		final[i] = rec.pts
	}
	// Round k ends at a random offset: cuts fall inside records.
	cuts := make([][]int, len(files))
	for i, f := range files {
		for k := range rounds {
			lo, hi := len(f.content)*k/rounds, len(f.content)*(k+1)/rounds
			cuts[i] = append(cuts[i], lo+1+r.IntN(hi-lo))
		}
		cuts[i][rounds-1] = len(f.content)
	}

	ready := make(chan int)
	writeErr := make(chan error, 1)
	go func() {
		defer close(ready)
		handles := make([]*os.File, len(files))
		for i, f := range files {
			h, err := os.Create(f.path)
			if err != nil {
				writeErr <- err
				return
			}
			defer h.Close()
			handles[i] = h
		}
		done := make([]int, len(files))
		for k := range rounds {
			for i, f := range files {
				// Several writes per round, as a buffered logger flushes.
				for done[i] < cuts[i][k] {
					n := min(1+r.IntN(4096), cuts[i][k]-done[i])
					if _, err := handles[i].Write(f.content[done[i] : done[i]+n]); err != nil {
						writeErr <- err
						return
					}
					done[i] += n
				}
			}
			// The inspection of round k runs while round k+1 is written.
			ready <- k
		}
		writeErr <- nil
	}()

	inspections := 0
	for k := range ready {
		for i, f := range files {
			rec, info, err := txtRead(t, f.path, "")
			if err != nil {
				t.Fatalf("round %d: %v", k, err)
			}
			got := rec.pts
			if len(got) > len(final[i]) {
				t.Fatalf("round %d: %s: %d points, the finished file has %d", k, f.path, len(got), len(final[i]))
			}
			if diff := cmp.Diff(final[i][:len(got)], got, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("round %d: %s: a value not in the finished file (-finished +read):\n%s", k, f.path, diff)
			}
			if k == rounds-1 && (len(got) != len(final[i]) || info.TruncatedAt != 0) {
				t.Fatalf("finished %s: %d of %d points, truncated at %d", f.path, len(got), len(final[i]), info.TruncatedAt)
			}
		}
		inspections++
	}
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	if inspections != rounds {
		t.Fatalf("%d inspections, want %d", inspections, rounds)
	}
}

// BenchmarkInspect summarises a generated JSONL file as `metrics inspect`
// does; RLXP_BENCH_INSPECT names an existing file to read instead.
func BenchmarkInspect(b *testing.B) {
	path := os.Getenv("RLXP_BENCH_INSPECT")
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.jsonl")
		txtGenJSONL(b, path, 20_000, 40, false)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		s, err := Inspect(path, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Tags) == 0 {
			b.Fatal("no tags")
		}
	}
}

// TestInspectMatchesPoints checks the summaries the parsing goroutines
// make per block against summaries of the delivered points, on files
// large enough to be parsed in parallel, with rows that carry the step
// before them and files numbered by row.
func TestInspectMatchesPoints(t *testing.T) {
	dir := t.TempDir()
	var jsonl, csv strings.Builder
	csv.WriteString("a,b,c,d\n")
	for s := range 250_000 {
		if s%7 == 3 {
			fmt.Fprintf(&jsonl, "{\"loss\": %d.25, \"r\": NaN}\n", s) // no step: carries the last
		} else {
			fmt.Fprintf(&jsonl, "{\"step\": %d, \"loss\": %d.5, \"eval/return\": 1e%d}\n", s*10, s, s%400)
		}
		fmt.Fprintf(&csv, "%d,%d.5,%s,%d.123456789012345\n", s, s*3, map[bool]string{true: "", false: "7"}[s%5 == 0], s*s)
	}
	for _, f := range []struct{ name, content string }{{"big.jsonl", jsonl.String()}, {"big.csv", csv.String()}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if len(f.content) < parallelBytes {
			t.Fatalf("%s: %d bytes, too small to be parsed in parallel", f.name, len(f.content))
		}
		got, err := Inspect(path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		rec, info, err := txtRead(t, path, "")
		if err != nil {
			t.Fatal(err)
		}
		ps := &summarySink{index: map[string]int{}}
		for _, p := range rec.pts {
			ps.Point(p.Tag, p.Point)
		}
		want := ps.tags
		sortTags(want)
		if diff := cmp.Diff(want, got.Tags, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("%s: summaries (-points +blocks):\n%s", f.name, diff)
		}
		if got.Points != info.Points {
			t.Errorf("%s: %d points, read %d", f.name, got.Points, info.Points)
		}
	}
}

// TestInspectMatchesPointsTFEvents checks the summaries tfevents workers
// make per chunk against summaries of the delivered points: simple values
// with NaNs, a restart that orphans points across chunks, and a stretch of
// tensor values whose chunks are delivered point by point.
func TestInspectMatchesPointsTFEvents(t *testing.T) {
	var b []byte
	b = append(b, tfFramed(tfEvent(1, 0, tfFileVersion()))...)
	le32 := binary.LittleEndian.AppendUint32
	const records, restartAt, restartTo = 120_000, 90_000, 60_000
	for i := range records {
		step := int64(i)
		if i > restartAt {
			step -= restartAt - restartTo + 1
		}
		v := float32(i) / 7
		if i%1000 == 500 {
			v = float32(math.NaN())
		}
		values := [][]byte{tfSimpleValue("a", v), tfSimpleValue("b", -v)}
		if i >= 30_000 && i < 40_000 {
			plugin := ""
			if i == 30_000 {
				plugin = "scalars"
			}
			values = append(values, tfTensorValue("t", plugin, tfTensor(tfDTFloat, nil, tfContent(le32(nil, math.Float32bits(v))))))
		}
		ev := tfEvent(float64(i), step, tfSummary(values...))
		if i == restartAt {
			ev = tfEvent(float64(i), restartTo, tfSessionLog(1))
		}
		b = append(b, tfFramed(ev)...)
	}
	if len(b) < 8*tfChunkSize {
		t.Fatalf("%d bytes: too few chunks", len(b))
	}
	path := tfWrite(t, "events.out.tfevents.1.inspect", b)
	got, err := Inspect(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := &summarySink{index: map[string]int{}}
	info, err := readTFEvents(path, pointsOnly{ps})
	if err != nil {
		t.Fatal(err)
	}
	want := ps.tags
	sortTags(want)
	if diff := cmp.Diff(want, got.Tags, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("summaries (-points +chunks):\n%s", diff)
	}
	if diff := cmp.Diff(info.Notes, got.Notes); got.Points != info.Points || diff != "" {
		t.Errorf("%d points, read %d; notes (-points +chunks):\n%s", got.Points, info.Points, diff)
	}
	if len(want) != 3 || want[0].NonFinite == 0 {
		t.Errorf("the file's tags: %+v", want)
	}
}

// pointsOnly hides that a summarySink takes summaries: readers give it
// every point.
type pointsOnly struct{ s *summarySink }

func (p pointsOnly) Want(tag string) bool             { return p.s.Want(tag) }
func (p pointsOnly) Point(tag string, pt Point) error { return p.s.Point(tag, pt) }
