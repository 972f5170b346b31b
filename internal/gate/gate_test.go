package gate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

// loadContract returns the fixture contract with the given sections approved.
func loadContract(t *testing.T, approve ...string) *contract.Loaded {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := contract.Parse(validate.Schemas{}, "c.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(approve) == 0 {
		return l
	}
	digests, err := l.Digests(approve)
	if err != nil {
		t.Fatal(err)
	}
	approvals := map[string]contract.Approval{}
	for name, d := range digests {
		approvals[name] = contract.Approval{By: "alice", At: "2026-11-29T00:00:00Z", Digest: d}
	}
	l.UseApprovals(approvals, nil)
	return l
}

func approved(e *experiment.Experiment) *experiment.Experiment {
	e.Status = experiment.Approved
	e.Approval = &contract.Approval{By: "bob", At: "t", Digest: e.Digest()}
	return e
}

func condition(a Answer, check string) Condition {
	for _, c := range a.Conditions {
		if c.Check == check {
			return c
		}
	}
	return Condition{}
}

// TestHeldOutSeeds: the range the contract states, or the evaluation
// seeds' own; the answer names the seeds and the range.
func TestHeldOutSeeds(t *testing.T) {
	l := loadContract(t)
	e := &experiment.Experiment{ID: "a", Seeds: []int{3, 10000, 10002}}
	if got, want := condition(Fit(Input{Contract: l, Experiment: e}), "seeds").Detail, "training seeds 10000, 10002 inside the held-out evaluation seeds 10000..10002"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	l.Contract.Evaluation.HeldOutSeeds = &contract.SeedRange{From: 1000}
	e.Seeds = []int{0, 999, 123456}
	if got, want := condition(Fit(Input{Contract: l, Experiment: e}), "seeds"), (Condition{"seeds", false, "training seed 123456 inside the held-out evaluation seeds 1000 and above"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func unmet(a Answer) []string {
	var out []string
	for _, c := range a.Conditions {
		if !c.OK {
			out = append(out, c.Check)
		}
	}
	return out
}

func TestEvaluate(t *testing.T) {
	all := contract.Sections()
	exp := func(id string, seeds ...int) *experiment.Experiment {
		return &experiment.Experiment{ID: id, Status: experiment.Proposed, Seeds: seeds, Params: yaml.MapSlice{{Key: "lr", Value: 0.01}}}
	}
	tests := []struct {
		name    string
		approve []string
		e       *experiment.Experiment
		others  []*experiment.Experiment
		spend   budget.Spend
		want    []string
	}{
		{"nothing approved, contract only", nil, nil, nil, budget.Spend{},
			[]string{"contract.task", "contract.metrics", "contract.scope", "contract.budget", "contract.hardware", "contract.baseline", "contract.evaluation"}},
		{"all approved, contract only", all, nil, nil, budget.Spend{}, nil},
		{"experiment unapproved", all, exp("a", 0, 1, 2), nil, budget.Spend{}, []string{"experiment"}},
		{"everything approved", all, approved(exp("a", 0, 1, 2)), nil, budget.Spend{}, nil},
		{"two sections missing and experiment unapproved", all[:5], exp("a", 0), nil, budget.Spend{},
			[]string{"contract.baseline", "contract.evaluation", "experiment"}},
		{"rejected", all, func() *experiment.Experiment { e := exp("a", 0); e.Status = experiment.Rejected; return e }(), nil, budget.Spend{}, []string{"experiment"}},
		{"stale experiment", all, func() *experiment.Experiment { e := approved(exp("a", 0)); e.Seeds = []int{0, 1}; return e }(), nil, budget.Spend{}, []string{"experiment"}},
		{"out of scope twice", all, approved(&experiment.Experiment{ID: "a", Seeds: []int{0}, Files: []string{"train.py"},
			Params: yaml.MapSlice{{Key: "lr", Value: 0.5}}}), nil, budget.Spend{}, []string{"scope", "scope"}},
		{"too many runs", all, approved(exp("a", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)), nil, budget.Spend{}, []string{"budget.runs", "budget.gpu_hours"}},
		{"runs spent elsewhere", all, approved(exp("a", 0, 1, 2)), nil, budget.Spend{Runs: 10, ByExperiment: map[string]int{"x": 10}}, []string{"budget.runs"}},
		{"own runs already made are not charged twice", all, approved(exp("a", 0, 1, 2)), nil,
			budget.Spend{Runs: 11, GPUHours: 1.5, ByExperiment: map[string]int{"a": 2, "x": 9}}, nil},
		{"reserved by other approved experiments", all, approved(exp("a", 0, 1, 2)),
			[]*experiment.Experiment{approved(exp("b", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9))}, budget.Spend{}, []string{"budget.runs", "budget.gpu_hours"}},
		{"proposed experiments reserve nothing", all, approved(exp("a", 0, 1, 2)),
			[]*experiment.Experiment{exp("b", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)}, budget.Spend{}, nil},
		{"training seeds inside the held-out evaluation seeds", all, approved(exp("a", 0, 10001, 10002)), nil, budget.Spend{}, []string{"seeds"}},
		{"seeds past the held-out ones are training seeds", all, approved(exp("a", 0, 10003)), nil, budget.Spend{}, nil},
		{"wall clock over the maximum", all, func() *experiment.Experiment { e := exp("a", 0); e.WallClock = "11m"; return approved(e) }(), nil, budget.Spend{}, []string{"budget.wall_clock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Contract: loadContract(t, tt.approve...), Experiment: tt.e, Spend: tt.spend}
			if tt.e != nil {
				in.Experiments = &experiment.Set{Experiments: append([]*experiment.Experiment{tt.e}, tt.others...)}
			}
			a := Evaluate(in)
			if diff := cmp.Diff(tt.want, unmet(a)); diff != "" {
				t.Errorf("unmet conditions mismatch (-want +got):\n%s", diff)
			}
			if a.Open != (len(tt.want) == 0) || a.Unmet != len(tt.want) {
				t.Errorf("open=%v unmet=%d, want open=%v unmet=%d", a.Open, a.Unmet, len(tt.want) == 0, len(tt.want))
			}
		})
	}
}

func TestBudgetArithmetic(t *testing.T) {
	e := approved(&experiment.Experiment{ID: "a", Seeds: []int{0, 1, 2}, WallClock: "6m"})
	other := approved(&experiment.Experiment{ID: "b", Seeds: []int{0, 1}})
	a := Evaluate(Input{
		Contract:    loadContract(t, contract.Sections()...),
		Experiments: &experiment.Set{Experiments: []*experiment.Experiment{e, other}},
		Experiment:  e,
		Spend:       budget.Spend{Runs: 3, GPUHours: 0.25, ByExperiment: map[string]int{"b": 1, "z": 2}},
	})
	want := &Budget{
		MaxRuns: 12, RunsSpent: 3, RunsReserved: 1, RunsNeeded: 3,
		GPUHours: 2, GPUHoursSpent: 0.25, GPUHoursHeld: 10.0 / 60, GPUHoursNeeded: 3 * 6.0 / 60,
	}
	approx := cmpopts.EquateApprox(0, 1e-12)
	if diff := cmp.Diff(want, a.Budget, approx); diff != "" {
		t.Errorf("budget mismatch (-want +got):\n%s", diff)
	}
}

func TestFit(t *testing.T) {
	exp := func(id string, n int) *experiment.Experiment {
		e := &experiment.Experiment{ID: id, Status: experiment.Proposed, Params: yaml.MapSlice{{Key: "lr", Value: 0.01}}}
		for s := range n {
			e.Seeds = append(e.Seeds, s)
		}
		return e
	}
	tests := []struct {
		name    string
		approve []string
		e       *experiment.Experiment
		pending []*experiment.Experiment
		want    []string
	}{
		{"approvals do not matter", nil, exp("a", 3), nil, nil},
		{"pending proposals reserve their runs", contract.Sections(), exp("a", 3), []*experiment.Experiment{exp("p", 6), exp("q", 3)}, nil},
		{"a round over the budget", nil, exp("a", 3), []*experiment.Experiment{exp("p", 6), exp("q", 4)}, []string{"budget.runs", "budget.gpu_hours"}},
		{"out of scope", nil, func() *experiment.Experiment { e := exp("a", 1); e.Params[0].Value = 0.5; return e }(), nil, []string{"scope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Fit(Input{Contract: loadContract(t, tt.approve...), Experiments: &experiment.Set{}, Experiment: tt.e, Pending: tt.pending})
			if diff := cmp.Diff(tt.want, unmet(a)); diff != "" {
				t.Errorf("unmet conditions mismatch (-want +got):\n%s", diff)
			}
			if a.Open != (len(tt.want) == 0) {
				t.Errorf("open = %v with %v unmet", a.Open, tt.want)
			}
		})
	}
	a := Fit(Input{Contract: loadContract(t), Experiments: &experiment.Set{}, Experiment: exp("a", 3), Pending: []*experiment.Experiment{exp("p", 10)}})
	if got, want := condition(a, "budget.runs").Detail, "needs 3 runs; 2 of 12 left (0 spent, 10 reserved by other approved experiments and the proposals made with this one)"; got != want {
		t.Errorf("budget.runs detail:\n got %q\nwant %q", got, want)
	}
}

// TestChangeSet: every changed file outside the scope's file rules is an
// unmet condition naming the file and the rules; a change set that cannot
// be read closes the gate; without a baseline commit it is not checked.
func TestChangeSet(t *testing.T) {
	l := loadContract(t)
	e := &experiment.Experiment{ID: "x", Seeds: []int{0}}
	const base = "0123456789abcdef0123"
	for _, tc := range []struct {
		name string
		cs   *ChangeSet
		want []Condition
	}{
		{"no commit to compare with", &ChangeSet{Why: "not a git repository"},
			[]Condition{{"scope.files", true, "not checked: not a git repository"}}},
		{"unreadable", &ChangeSet{Failed: true, Why: "not a commit of this repository"},
			[]Condition{{"scope.files", false, "cannot read the files changed since the baseline's commit: not a commit of this repository"}}},
		{"inside", &ChangeSet{Base: base, Files: []string{"configs/a.json", "cartpole/reward_v2.py"}},
			[]Condition{{"scope.files", true, "2 files changed since the baseline's commit 0123456789ab, all inside the scope"}}},
		{"nothing changed", &ChangeSet{Base: base},
			[]Condition{{"scope.files", true, "0 files changed since the baseline's commit 0123456789ab, all inside the scope"}}},
		{"outside, each named", &ChangeSet{Base: base, Files: []string{"configs/a.json", "train.py", "configs/sub/b.json"}},
			[]Condition{
				{"scope.files", false, "changed since the baseline's commit 0123456789ab: file train.py is not in the approved scope (allowed: configs/*.json, cartpole/reward*.py)"},
				{"scope.files", false, "changed since the baseline's commit 0123456789ab: file configs/sub/b.json is not in the approved scope (allowed: configs/*.json, cartpole/reward*.py)"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Fit(Input{Contract: l, Experiment: e, Changes: tc.cs})
			var got []Condition
			for _, c := range a.Conditions {
				if c.Check == "scope.files" {
					got = append(got, c)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scope.files (-want +got):\n%s", diff)
			}
		})
	}
	if a := Fit(Input{Contract: l, Experiment: e}); condition(a, "scope.files") != (Condition{}) {
		t.Errorf("a change set not read was judged: %+v", condition(a, "scope.files"))
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		a    Answer
		want string
	}{
		{Answer{Open: true}, "GATE contract: OPEN"},
		{Answer{Experiment: "fast", Unmet: 1}, "GATE fast: CLOSED — 1 unmet condition"},
		{Answer{Experiment: "fast", Unmet: 3}, "GATE fast: CLOSED — 3 unmet conditions"},
	} {
		if got := tc.a.Verdict(); got != tc.want {
			t.Errorf("Verdict = %q, want %q", got, tc.want)
		}
	}
}

// TestCPUOnlyBudget: a contract that gives runs no GPU and budgets no
// GPU-hours says so, rather than a line of zeros that reads like a budget
// spent; one with GPUs keeps the arithmetic.
func TestCPUOnlyBudget(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cpu := bytes.Replace(bytes.Replace(b, []byte("  gpus_per_run: 1\n"), []byte("  gpus_per_run: 0\n"), 1), []byte("  gpu_hours: 2\n"), []byte("  gpu_hours: 0\n"), 1)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"cpu only", cpu, "runs use no GPU and the contract budgets none"},
		{"gpus", b, "needs 0.50 GPU-hours; 2.00 of 2.00 left (0.00 spent, 0.00 reserved)"},
	} {
		l, err := contract.Parse(validate.Schemas{}, "c.yaml", tc.data)
		if err != nil {
			t.Fatal(err)
		}
		e := &experiment.Experiment{ID: "a", Seeds: []int{0, 1, 2}, WallClock: "10m"}
		a := Evaluate(Input{Contract: l, Experiments: &experiment.Set{Experiments: []*experiment.Experiment{e}}, Experiment: e})
		var got string
		for _, c := range a.Conditions {
			if c.Check == "budget.gpu_hours" {
				got = c.Detail
			}
		}
		if got != tc.want {
			t.Errorf("%s: budget.gpu_hours says %q, want %q", tc.name, got, tc.want)
		}
	}
}
