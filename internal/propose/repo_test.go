package propose

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

func TestReady(t *testing.T) {
	full := cartpole().load(t)
	if err := Ready(full, nil); err != nil {
		t.Errorf("a complete contract: %v", err)
	}
	s := cartpole()
	text := fmt.Sprintf(contractText, s.goal, "    "+strings.Join(s.params, "\n    "), s.categories, "2", s.wall, s.maxRuns, s.gpus, "")
	l, err := contract.Parse(validate.Schemas{}, "contract.yaml", []byte(text))
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

// lab is a repository with the fixture contract, no experiment yet, and
// one finished run of the baseline.
func lab(t *testing.T) *state.Repo {
	r := repotest.Repo(t, map[string]string{
		".rlxp/contract.yaml":    string(repotest.Contract(t)),
		".rlxp/experiments.yaml": "schema: rlxp.experiments/v1\nexperiments: []\n",
		".rlxp/runs/r0/run.json": repotest.Record(t, runs.Record{ID: "r0", Experiment: "baseline", Backend: runs.Local,
			StartedAt: "2026-01-01T00:00:00Z", EndedAt: "2026-01-01T00:05:00Z", WallClock: "10m", GPUs: 1, Exit: new(int)}),
	})
	return r
}

func TestRound(t *testing.T) {
	r := lab(t)
	before, _ := os.ReadFile(r.Path(state.Experiments))
	req := Request{Strategy: SpaceFilling, N: 2, DryRun: true, CreatedAt: "2026-01-02T00:00:00Z"}
	out, err := Round(t.Context(), r, req)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(r.Path(state.Experiments))
	if len(out.Result.Proposals) != 2 || out.Written || !out.DryRun || string(after) != string(before) {
		t.Fatalf("dry run: %d proposals, written %t, file changed %t", len(out.Result.Proposals), out.Written, string(after) != string(before))
	}
	if out.Budget.RunsLeft != 11 || out.Best != nil || out.File != ".rlxp/experiments.yaml" || out.Schema != Schema {
		t.Errorf("dry run: %+v", out)
	}

	req.DryRun = false
	if out, err = Round(t.Context(), r, req); err != nil {
		t.Fatal(err)
	}
	set, err := workspace.Experiments(r)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Written || len(set.Experiments) != 2 {
		t.Fatalf("written %t, experiments.yaml holds %d", out.Written, len(set.Experiments))
	}
	for _, e := range set.Experiments {
		if e.Status != experiment.Proposed || e.CreatedAt != req.CreatedAt {
			t.Errorf("written: %+v", e)
		}
	}
	// Scored: the ledger's entries are read.
	body := map[string]any{"experiment": "baseline", "verdict": "baseline",
		"primary": map[string]any{"name": "eval/mean_return", "mean": 400, "std": 10, "n": 3}}
	if _, err := ledger.Append(r.Path(state.Ledger), body, time.Now()); err != nil {
		t.Fatal(err)
	}
	req.DryRun, req.Strategy = true, Local
	if out, err = Round(t.Context(), r, req); err != nil || out.Best == nil || out.Best.Experiment != "baseline" {
		t.Errorf("best: %+v, %v", out.Best, err)
	}
}

func TestAdd(t *testing.T) {
	tests := []struct {
		name string
		d    experiment.Draft
		err  string // a prefix; "" adds
	}{
		{"in scope", experiment.Draft{ID: "lr", Params: []string{"lr=0.01"}, Category: "hyperparameter", CreatedAt: "t"}, ""},
		{"out of scope", experiment.Draft{ID: "lr", Params: []string{"lr=1"}}, "parameter lr=1 is outside the approved range"},
		{"a held-out seed", experiment.Draft{ID: "lr", Seeds: []int{10000}}, "training seed 10000 inside the held-out evaluation seeds"},
		{"over the budget", experiment.Draft{ID: "lr", Seeds: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12}}, "experiment lr does not fit the budget left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := lab(t)
			e, err := Add(t.Context(), r, tt.d)
			set, serr := workspace.Experiments(r)
			if serr != nil {
				t.Fatal(serr)
			}
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want a prefix %q", err, tt.err)
				}
				if len(set.Experiments) != 0 {
					t.Errorf("a refused experiment was written")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Experiments) != 1 || set.Experiments[0].ID != e.ID || e.Status != experiment.Proposed || len(e.Seeds) != 3 {
				t.Errorf("added %+v; file holds %v", e, set.Experiments)
			}
		})
	}
}
