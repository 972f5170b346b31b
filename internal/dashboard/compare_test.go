package dashboard

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
)

// entries writes a ledger: a scored baseline, an experiment scored against
// it, and one scored against nothing.
func entries(t *testing.T) []ledger.Entry {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	perSeed := func(vs ...float64) []score.SeedValue {
		out := []score.SeedValue{}
		for i := range vs {
			out = append(out, score.SeedValue{Seed: i, Value: &vs[i]})
		}
		return out
	}
	primary := func(vs ...float64) score.Primary {
		var xs []float64
		for _, v := range perSeed(vs...) {
			xs = append(xs, *v.Value)
		}
		return score.Primary{Name: "r", PerSeed: perSeed(vs...), Summary: score.Summarize(xs)}
	}
	base := primary(400, 410, 420)
	fast := primary(450, 470, 490)
	w := score.WelchTest([]float64{450, 470, 490}, []float64{400, 410, 420})
	p, rel := w.PValue, 60.0/410
	for _, body := range []score.Result{
		{Experiment: "base", Primary: base, Verdict: "baseline"},
		{Experiment: "fast", Primary: fast, Verdict: "improved", Baseline: &score.Comparison{Experiment: "base", Seq: 1, Mean: 410, N: 3, Delta: 60, RelativeDelta: &rel, Test: "welch_t", PValue: &p}},
		{Experiment: "slow", Primary: primary(380, 400), Verdict: "inconclusive"},
	} {
		if _, err := ledger.Append(path, body, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	es, check := ledger.Load(path, data)
	if check.Problem != nil {
		t.Fatal(check.Problem)
	}
	return es
}

func TestCompare(t *testing.T) {
	es := entries(t)
	// Scored against each other: the ledger's own numbers, either way round.
	c, err := Compare(es, "fast", "base")
	if err != nil {
		t.Fatal(err)
	}
	want := score.WelchTest([]float64{450, 470, 490}, []float64{400, 410, 420}).PValue
	if c.From != "ledger" || *c.Delta != 60 || *c.PValue != want || c.Test != "welch_t" {
		t.Errorf("fast vs base: %+v", c)
	}
	if d := cmp.Diff([]float64{450, 470, 490}, c.A.Values); d != "" || c.B.N != 3 || c.A.CI95 == nil {
		t.Errorf("sides: %s %+v", d, c.B)
	}
	r, err := Compare(es, "base", "fast")
	if err != nil || *r.Delta != -60 || *r.PValue != want || r.From != "ledger" {
		t.Errorf("base vs fast: %+v %v", r, err)
	}
	// Never scored against each other: score's Welch test on the
	// ledger's per-seed values.
	s, err := Compare(es, "fast", "slow")
	if err != nil {
		t.Fatal(err)
	}
	ws := score.WelchTest([]float64{450, 470, 490}, []float64{380, 400})
	if *s.Delta != 470-390 || *s.PValue != ws.PValue || s.From == "ledger" {
		t.Errorf("fast vs slow: %+v", s)
	}
	if _, err := Compare(es, "fast", "nosuch"); err == nil {
		t.Error("an unscored experiment compared")
	}
}
