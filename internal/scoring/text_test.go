package scoring

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
)

func TestText(t *testing.T) {
	v, std, g := 1.5, 0.25, 0.125
	pass := false
	b := Body{Result: score.Result{
		Experiment: "fast",
		Primary: score.Primary{Name: "eval/return", Aggregate: "last", Goal: "maximize", HeldOut: true,
			PerSeed: []score.SeedValue{{Seed: 0, Run: "r0", Value: &v}, {Seed: 1, Run: "r1", Error: "value is NaN"}},
			Summary: score.Summary{Mean: 1.5, Std: &std, N: 2, CI95: &[2]float64{1, 2}}},
		Guardrails: []score.GuardrailResult{{Name: "len", Bound: "<= 0.1", Value: &g, Pass: &pass}},
		Verdict:    score.Invalid,
		Reasons:    []string{"seed 1: value is NaN"},
	}, SeedRuns: []SeedRun{{Seed: 0, RunDir: "runs/0", Ended: NotLaunched}, {Seed: 1, Run: "r1", Ended: "stopped", Detail: "by hand"}}}
	var out strings.Builder
	var table [][]string
	Text{
		Table: func(h []string, rows [][]string) { table = append([][]string{h}, rows...) },
		Paint: func(sense, word string) string { return "<" + sense + ">" + word },
	}.Write(&out, b, &ledger.Entry{Seq: 4, Hash: "sha256:0123456789abcdef0123"})
	want := `experiment fast: eval/return (last, maximize, held-out)
seed 0: runs/0 has no rlxp run record: its sources are marked not launched
seed 1: run r1 stopped (by hand): not complete
mean 1.5 ± 0.25 (std, n=2), 95% CI [1, 2]
guardrail len <= 0.1: 0.125 <bad>FAIL
  because: seed 1: value is NaN
VERDICT: <bad>invalid
ledger: appended #4 (sha256:0123456789ab…)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"SEED", "RUN", "VALUE", "PROBLEM"}, {"0", "r0", "1.5", ""}, {"1", "r1", "—", "value is NaN"}}, table); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestNegativeAndSources(t *testing.T) {
	for verdict, want := range map[string]bool{score.BaselineVerdict: false, score.Improved: false, score.Inconclusive: false,
		score.Regressed: true, score.GuardrailViolated: true, score.Invalid: true} {
		if got := (Body{Result: score.Result{Verdict: verdict}}).Negative(); got != want {
			t.Errorf("%s: negative %v", verdict, got)
		}
	}
	got, err := parseSources([]string{"eval=runs/{seed}/e.jsonl", "train=a=b"})
	if diff := cmp.Diff(map[string]string{"eval": "runs/{seed}/e.jsonl", "train": "a=b"}, got); diff != "" || err != nil {
		t.Errorf("sources %v (-want +got):\n%s", err, diff)
	}
	for _, bad := range []string{"nonsense", "=x", "eval="} {
		if _, err := parseSources([]string{bad}); err == nil || !strings.Contains(err.Error(), "want NAME=TEMPLATE") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
