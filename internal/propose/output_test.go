package propose

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func round() Result {
	e := exp("lr-up", "proposed", "lr=0.02")
	e.Category, e.Hypothesis, e.WallClock = "hyperparameter", "faster", "10m"
	return Result{
		Strategy: Local, Why: "a best so far",
		Best:      &Scored{Experiment: "baseline", Verdict: "baseline", Metric: "m", Mean: 480, Std: 12, N: 3},
		Proposals: []Proposal{{Experiment: e, Cost: Cost{Runs: 3, GPUHours: 0.25, Elapsed: "20m0s", ReservedGPUHours: 0.5, Basis: "2 finished runs of baseline"}}},
		Budget:    Room{RunsLeft: 9, GPUHoursLeft: 1.5, RunsProposed: 3, GPUHoursProposed: 0.5},
		Notes:     []string{"a note"},
	}
}

func TestWriteText(t *testing.T) {
	plan := round()
	plan.Plan = &Plan{Metric: "m", Rungs: []Rung{{Configs: 2, WallClock: "5m", Runs: 6, GPUHours: 0.5}, {Configs: 1, WallClock: "10m", Runs: 3, GPUHours: 0.5}}, Runs: 9, GPUHours: 1}
	cpu := round()
	cpu.Budget = Room{RunsLeft: 9, RunsProposed: 3, CPUOnly: true}
	cpu.Proposals[0].Cost = Cost{Runs: 3, Elapsed: "20m0s", Basis: "2 finished runs of baseline"}
	empty := Result{Strategy: SpaceFilling, Why: "nothing scored", Proposals: []Proposal{}, Reason: "the budget is spent"}
	tests := []struct {
		name   string
		res    Result
		dryRun bool
		want   string
		rows   [][]string
	}{{
		name: "written",
		res:  round(),
		want: `strategy: local (a best so far)
best so far: baseline (m 480±12, n=3, baseline)
budget: 9 runs and 1.50 GPU-hours left; these proposals reserve 3 runs and 0.50 GPU-hours once approved

lr-up (proposed)
  params      lr=0.02
  seeds       0,1,2, wall-clock 10m per run
  category    hyperparameter
  hypothesis  faster
  cost        3 runs, ~0.25 GPU-hours, ~20m0s elapsed (0.50 GPU-hours reserved)
  basis       2 finished runs of baseline

note: a note

wrote 1 proposed experiment to E; none is approved
next: a human reviews each with 'rlxp experiment show ID'
      and approves it with 'rlxp experiment approve ID' (or rejects it with 'rlxp experiment reject ID')
`,
	}, {
		name: "a contract with no GPUs speaks of runs alone",
		res:  cpu,
		want: `strategy: local (a best so far)
best so far: baseline (m 480±12, n=3, baseline)
budget: 9 runs left, on CPU; these proposals reserve 3 runs once approved

lr-up (proposed)
  params      lr=0.02
  seeds       0,1,2, wall-clock 10m per run
  category    hyperparameter
  hypothesis  faster
  cost        3 runs, ~20m0s elapsed
  basis       2 finished runs of baseline

note: a note

wrote 1 proposed experiment to E; none is approved
next: a human reviews each with 'rlxp experiment show ID'
      and approves it with 'rlxp experiment approve ID' (or rejects it with 'rlxp experiment reject ID')
`,
	}, {
		name: "nothing fits",
		res:  empty,
		want: "strategy: space-filling (nothing scored)\nbudget: 0 runs and 0.00 GPU-hours left\n\nNOTHING FITS: the budget is spent\n",
	}, {
		name:   "a plan, dry run",
		res:    plan,
		dryRun: true,
		rows: [][]string{
			{"rung 0", "2 configs", "5m", "6 runs", "0.50 GPU-hours", "proposed now"},
			{"rung 1", "1 config", "10m", "3 runs", "0.50 GPU-hours", "promote the best by hand once the rung before is scored"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			var rows [][]string
			tt.res.WriteText(&b, "E", tt.dryRun, func(_ []string, r [][]string) { rows = r })
			if tt.want != "" {
				if d := cmp.Diff(tt.want, b.String()); d != "" {
					t.Errorf("text (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(tt.rows, rows); d != "" {
				t.Errorf("plan rows (-want +got):\n%s", d)
			}
			if tt.dryRun && !strings.Contains(b.String(), "dry run: nothing written to E\n") {
				t.Errorf("a dry run does not say so:\n%s", b.String())
			}
		})
	}
}

func TestOutputAndRecord(t *testing.T) {
	res := round()
	out, err := json.Marshal(res.Output("E", false, true))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema    string           `json:"schema"`
		Written   bool             `json:"written"`
		Strategy  string           `json:"strategy"`
		Proposals []map[string]any `json:"proposals"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != Schema || !got.Written || got.Strategy != Local || len(got.Proposals) != 1 {
		t.Fatalf("output: %s", out)
	}
	p := got.Proposals[0]
	if _, ok := p["schema"]; ok || p["id"] != "lr-up" || p["cost"] == nil || p["approval_state"] != "unapproved" {
		t.Errorf("proposal: %v", p)
	}

	s := set()
	if err := res.Record(s, cartpole().load(t).Contract.Scope, "2026-01-01T00:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if len(s.Experiments) != 1 || s.Experiments[0].CreatedAt != "2026-01-01T00:00:00Z" {
		t.Errorf("recorded: %+v", s.Experiments)
	}
	out1 := round()
	out1.Proposals[0].Experiment.Params[0].Value = 0.5
	if err := out1.Record(set(), cartpole().load(t).Contract.Scope, "t"); err == nil || !strings.HasPrefix(err.Error(), "proposal lr-up: ") {
		t.Errorf("a proposal out of scope: %v", err)
	}
}
