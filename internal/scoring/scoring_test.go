package scoring

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/score"
)

func TestSharedSources(t *testing.T) {
	a, b := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	for _, tc := range []struct {
		name  string
		files []SourceFile
		want  []string
	}{
		{"distinct", []SourceFile{{Seed: 0, Source: "eval", Path: "r/0/e", SHA256: a}, {Seed: 1, Source: "eval", Path: "r/1/e", SHA256: b}}, nil},
		{"one file", []SourceFile{{Seed: 0, Source: "eval", Path: "r/e", SHA256: a}, {Seed: 1, Source: "eval", Path: "r/e", SHA256: a}},
			[]string{"seeds share one source: seeds 0 and 1 both read eval from r/e"}},
		{"a copy", []SourceFile{{Seed: 0, Source: "eval", Path: "r/0/e", SHA256: a}, {Seed: 1, Source: "eval", Path: "r/1/e", SHA256: a}},
			[]string{"seeds share one source: seeds 0 and 1 read eval from files of the same content (sha256:aaaaaaaaaaaa…): r/0/e and r/1/e"}},
		{"two sources of one seed may agree", []SourceFile{{Seed: 0, Source: "eval", Path: "r/0/e", SHA256: a}, {Seed: 0, Source: "train", Path: "r/0/e", SHA256: a}}, nil},
	} {
		if d := cmp.Diff(tc.want, sharedSources(tc.files)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestCompleteness(t *testing.T) {
	v := 1.0
	seeds := func(ended ...string) []SeedRun {
		var out []SeedRun
		for i, e := range ended {
			out = append(out, SeedRun{Seed: i, Run: "r" + string(rune('0'+i)), Ended: e})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		runs        []SeedRun
		partial     bool
		wantVerdict string
		wantPartial bool
	}{
		{"finished", seeds("finished", "finished"), false, score.BaselineVerdict, false},
		{"not launched is not incomplete", seeds("finished", NotLaunched), false, score.BaselineVerdict, false},
		{"stopped", seeds("finished", "stopped"), false, score.Invalid, false},
		{"running", seeds("running", "finished"), false, score.Invalid, false},
		{"stopped, partial", seeds("finished", "stopped"), true, score.BaselineVerdict, true},
		{"partial asked, nothing partial", seeds("finished", "finished"), true, score.BaselineVerdict, false},
	} {
		sc := &Scored{in: score.Input{Experiment: "b", IsBaseline: true,
			Primary: []score.SeedValue{{Seed: 0, Value: &v}, {Seed: 1, Value: &v}}}}
		sc.in.Contract.Metrics.Primary.HeldOut = true
		sc.body = Body{SeedRuns: tc.runs, Partial: tc.partial}
		got := sc.Judge(nil)
		if got.Verdict != tc.wantVerdict || got.Partial != tc.wantPartial {
			t.Errorf("%s: verdict %s partial %v (reasons %q), want %s partial %v", tc.name, got.Verdict, got.Partial, got.Reasons, tc.wantVerdict, tc.wantPartial)
		}
	}
}

func TestRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "eval.jsonl")
	os.WriteFile(file, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "urandom")
	os.Symlink("/dev/urandom", link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		file: "", dir: "", filepath.Join(dir, "missing"): "",
		link: "urandom: a device, not a regular file", fifo: "fifo: a named pipe (FIFO), not a regular file",
	} {
		err := regular(path, filepath.Base(path))
		if (want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("regular(%s) = %v, want %q", path, err, want)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		dir, path string
		want      bool
	}{
		{"runs/a/seed0", "runs/a/seed0/eval.jsonl", true},
		{"runs/a/seed0", "runs/a/seed0/../seed1/eval.jsonl", false},
		{"runs/a/seed0", "runs/a/seed01/eval.jsonl", false},
		{"runs/a/seed0", "/repo/runs/a/seed0/x", true},
		{"runs/a/seed0", "/elsewhere/x", false},
	} {
		if got := within("/repo", tc.dir, tc.path); got != tc.want {
			t.Errorf("within(%s, %s) = %v", tc.dir, tc.path, got)
		}
	}
}

func TestEvidence(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"mlruns/1/a", "mlruns/1/b", "runs/fast/seed0", "runs/fast/seed1"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seed := func(n int) *int { return &n }
	recs := []runs.Record{
		{ID: "f0", Experiment: "fast", Seed: seed(0), RunDir: "runs/fast/seed0", StartedAt: "2026-11-29T09:00:00Z"},
		{ID: "f1", Experiment: "fast", Seed: seed(1), RunDir: "runs/fast/seed1", StartedAt: "2026-11-29T09:00:00Z"},
	}
	for _, tc := range []struct {
		name   string
		seeds  []SeedRun
		files  []SourceFile
		want   []string
		wantNo []string
	}{
		{"own runs", []SeedRun{{Seed: 0, Run: "f0", RunDir: "runs/fast/seed0"}, {Seed: 1, Run: "f1", RunDir: "runs/fast/seed1"}},
			[]SourceFile{{Seed: 0, Source: "eval", Path: "runs/fast/seed0", Launched: true}, {Seed: 1, Source: "eval", Path: "runs/fast/seed1", Launched: true}}, nil, nil},
		{"a directory above another seed's", []SeedRun{{Seed: 0, RunDir: "x"}, {Seed: 1, RunDir: "y"}},
			[]SourceFile{{Seed: 0, Source: "eval", Path: "mlruns/1"}, {Seed: 1, Source: "eval", Path: "mlruns/1/b"}},
			[]string{"seeds share one source: seed 0's eval (mlruns/1) holds seed 1's eval (mlruns/1/b)"}, nil},
		{"another run's directory", []SeedRun{{Seed: 0, RunDir: "x"}},
			[]SourceFile{{Seed: 0, Source: "eval", Path: "runs/fast/seed1"}},
			[]string{"seed 0: source eval (runs/fast/seed1) lies in the directory of run f1 (experiment fast, seed 1): another run's output"}, nil},
		{"outside its run", []SeedRun{{Seed: 0, Run: "f0", RunDir: "runs/fast/seed0"}},
			[]SourceFile{{Seed: 0, Source: "eval", Path: "mlruns/1/a"}},
			nil, []string{"seed 0: source eval (mlruns/1/a) lies outside run f0's directory runs/fast/seed0: nothing ties it to that run"}},
	} {
		problems, notes := evidence(root, tc.seeds, tc.files, recs)
		if d := cmp.Diff(tc.want, problems); d != "" {
			t.Errorf("%s: problems (-want +got):\n%s", tc.name, d)
		}
		if d := cmp.Diff(tc.wantNo, notes); d != "" {
			t.Errorf("%s: notes (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestReused(t *testing.T) {
	a, b := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	entries := []ledger.Entry{{Seq: 1, Fields: map[string]any{"experiment": "baseline", "sources": []any{
		map[string]any{"seed": json.Number("0"), "path": "base/0/e", "sha256": a},
	}}}}
	for _, tc := range []struct {
		name, experiment string
		files            []SourceFile
		want             []string
	}{
		{"new bytes", "fast", []SourceFile{{Seed: 0, Source: "eval", Path: "f/0/e", SHA256: b}}, nil},
		{"a re-score", "baseline", []SourceFile{{Seed: 0, Source: "eval", Path: "base/0/e", SHA256: a}}, nil},
		{"another experiment", "fast", []SourceFile{{Seed: 0, Source: "eval", Path: "f/0/e", SHA256: a}},
			[]string{"seed 0: source eval (f/0/e) has the bytes that ledger entry #1 scored for baseline seed 0 (base/0/e): one run's output counted twice"}},
		{"another seed", "baseline", []SourceFile{{Seed: 1, Source: "eval", Path: "base/1/e", SHA256: a}},
			[]string{"seed 1: source eval (base/1/e) has the bytes that ledger entry #1 scored for baseline seed 0 (base/0/e): one run's output counted twice"}},
	} {
		if d := cmp.Diff(tc.want, reused(entries, tc.experiment, tc.files)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}
