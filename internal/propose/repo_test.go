package propose

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

func TestReady(t *testing.T) {
	full := cartpole().load(t)
	if err := Ready(full, nil); err != nil {
		t.Errorf("a complete contract: %v", err)
	}
	s := cartpole()
	text := fmt.Sprintf(contractText, s.goal, "    "+strings.Join(s.params, "\n    "), s.categories, "2", s.wall, s.maxRuns, s.gpus, "")
	l, err := contract.Parse("contract.yaml", []byte(text))
	if err != nil || l.Complete("baseline") {
		t.Fatalf("a contract without baseline seeds: %v", err)
	}
	if err := Ready(l, []int{0}); err != nil {
		t.Errorf("seeds given, no baseline seeds: %v", err)
	}
	if err := Ready(l, nil); err == nil || !strings.HasPrefix(err.Error(), "no --seeds given, and the baseline seeds cannot be used: contract section baseline is incomplete") {
		t.Errorf("no seeds anywhere: %v", err)
	}
}

func TestInRepo(t *testing.T) {
	r := repotest.Repo(t, nil)
	in := Input{Contract: cartpole().load(t), Experiments: set(exp("baseline", "done")), Strategy: Local, N: 2}
	// No ledger yet: nothing scored, so the local strategy has no best.
	res, err := InRepo(r, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best != nil {
		t.Errorf("best without a ledger: %+v", res.Best)
	}
	body := map[string]any{"experiment": "baseline", "verdict": "baseline",
		"primary": map[string]any{"name": "eval/mean_return", "mean": 400, "std": 10, "n": 3}}
	if _, err := ledger.Append(r.Path(state.Ledger), body, time.Now()); err != nil {
		t.Fatal(err)
	}
	in.Runs = []runs.Record{{ID: "r", Experiment: "baseline", StartedAt: "2026-01-01T00:00:00Z", EndedAt: "2026-01-01T00:05:00Z", WallClock: "10m", GPUs: 1}}
	if res, err = InRepo(r, in); err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || res.Best.Experiment != "baseline" {
		t.Errorf("best: %+v", res.Best)
	}
	if res.Budget.RunsLeft != 11 {
		t.Errorf("runs left = %d, want 11 (one of 12 spent)", res.Budget.RunsLeft)
	}
}
