package propose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
)

// brief is a proposal reduced to what the tables compare.
type brief struct {
	ID, Params, Category, WallClock string
	Seeds                           []int
}

func briefs(res Result) []brief {
	var out []brief
	for _, p := range res.Proposals {
		e := p.Experiment
		var ps []string
		for _, it := range e.Params {
			ps = append(ps, fmt.Sprintf("%v=%v", it.Key, it.Value))
		}
		out = append(out, brief{e.ID, strings.Join(ps, " "), e.Category, string(e.WallClock), e.Seeds})
	}
	return out
}

func finished(id, exp string, minutes int) runs.Record {
	zero := 0
	return runs.Record{ID: id, Experiment: exp, GPUs: 1, StartedAt: "2026-11-01T10:00:00Z",
		EndedAt: fmt.Sprintf("2026-11-01T10:%02d:00Z", minutes), Exit: &zero}
}

func TestPropose(t *testing.T) {
	scored := []ledger.Entry{entry(1, "baseline", "baseline", 410, 10, 3), entry(2, "fast", "improved", 480, 10, 3)}
	withBase := func(es ...*experiment.Experiment) *experiment.Set {
		return set(append([]*experiment.Experiment{exp("baseline", experiment.Proposed, "lr=0.01", "gamma=0.99", "episodes=500", "hidden=32")}, es...)...)
	}
	large := cartpole()
	large.maxRuns, large.gpuHours = 100, 10
	minimize := cartpole()
	minimize.goal = "minimize"
	twoChoices := cartpole()
	twoChoices.params = []string{"hidden: {choices: [16, 32]}"}
	flags := cartpole()
	flags.params = []string{"hidden: {choices: [16, 32, 64]}", "use_gae: {type: bool}"}
	reward := cartpole()
	reward.params = []string{"lr: {type: float, min: 1e-4, max: 0.1}", "reward_scale: {type: float, min: 0.5, max: 2, category: reward}"}
	reward.categories = "reward"
	none := cartpole()
	none.params = nil

	tests := []struct {
		name     string
		spec     spec
		in       Input
		strategy string
		want     []brief
		reason   string
	}{
		{
			name: "space-filling on a fresh scope", spec: cartpole(), in: Input{Experiments: set()},
			strategy: SpaceFilling,
			want: []brief{
				{"sf-1", "episodes=1050 gamma=0.933 hidden=32 lr=0.00072", "hyperparameter", "10m", []int{0, 1, 2}},
				{"sf-2", "episodes=575 gamma=0.966 hidden=64 lr=0.0139", "hyperparameter", "10m", []int{0, 1, 2}},
				{"sf-3", "episodes=1525 gamma=0.911 hidden=32 lr=0.0373", "hyperparameter", "10m", []int{0, 1, 2}},
				{"sf-4", "episodes=337 gamma=0.944 hidden=16 lr=0.00518", "hyperparameter", "10m", []int{0, 1, 2}},
			},
		},
		{
			name: "space-filling continues past tried points, with fresh ids", spec: cartpole(),
			in:       Input{Experiments: set(exp("sf-1", experiment.Rejected, "episodes=1050", "gamma=0.933", "hidden=32", "lr=0.00072"), exp("sf-2", experiment.Done, "lr=0.01")), N: 2, Seeds: []int{7}},
			strategy: SpaceFilling,
			want: []brief{
				{"sf-2-2", "episodes=575 gamma=0.966 hidden=64 lr=0.0139", "hyperparameter", "10m", []int{7}},
				{"sf-3", "episodes=1525 gamma=0.911 hidden=32 lr=0.0373", "hyperparameter", "10m", []int{7}},
			},
		},
		{
			name: "local around the best: only known values are stepped", spec: cartpole(),
			in:       Input{Experiments: set(exp("fast", experiment.Done, "lr=0.05")), Ledger: scored},
			strategy: Auto,
			want: []brief{
				{"lr-0.1", "lr=0.1", "hyperparameter", "10m", []int{0, 1, 2}},
				{"lr-0.025", "lr=0.025", "hyperparameter", "10m", []int{0, 1, 2}},
			},
			reason: "only 2 of 4: scope exhausted: every one-factor step around fast was tried",
		},
		{
			name: "local with the baseline's settings: the trend first", spec: large,
			in:       Input{Experiments: withBase(exp("fast", experiment.Done, "lr=0.05")), Ledger: scored, N: 8},
			strategy: Local,
			want: []brief{
				{"lr-0.1", "lr=0.1", "hyperparameter", "10m", []int{0, 1, 2}},
				{"episodes-690", "lr=0.05 episodes=690", "hyperparameter", "10m", []int{0, 1, 2}},
				{"episodes-310", "lr=0.05 episodes=310", "hyperparameter", "10m", []int{0, 1, 2}},
				{"gamma-0.999", "lr=0.05 gamma=0.999", "hyperparameter", "10m", []int{0, 1, 2}},
				{"gamma-0.9801", "lr=0.05 gamma=0.9801", "hyperparameter", "10m", []int{0, 1, 2}},
				{"hidden-64", "lr=0.05 hidden=64", "hyperparameter", "10m", []int{0, 1, 2}},
				{"hidden-16", "lr=0.05 hidden=16", "hyperparameter", "10m", []int{0, 1, 2}},
				{"lr-0.025", "lr=0.025", "hyperparameter", "10m", []int{0, 1, 2}},
			},
		},
		{
			name: "minimize: the baseline stays the best", spec: minimize,
			in:       Input{Experiments: withBase(exp("fast", experiment.Done, "lr=0.05")), Ledger: scored, N: 3},
			strategy: Local,
			want: []brief{
				// lr above the baseline scored worse, so down first.
				{"lr-0.005", "lr=0.005 gamma=0.99 episodes=500 hidden=32", "hyperparameter", "10m", []int{0, 1, 2}},
				{"episodes-690", "lr=0.01 gamma=0.99 episodes=690 hidden=32", "hyperparameter", "10m", []int{0, 1, 2}},
				{"episodes-310", "lr=0.01 gamma=0.99 episodes=310 hidden=32", "hyperparameter", "10m", []int{0, 1, 2}},
			},
		},
		{
			name: "a scored step is halved", spec: cartpole(),
			in: Input{Experiments: set(exp("fast", experiment.Done, "lr=0.05"), exp("faster", experiment.Done, "lr=0.1")),
				Ledger: append(scored, entry(3, "faster", "inconclusive", 450, 20, 3)), N: 2},
			strategy: Local,
			want: []brief{
				// Away from the worse lr=0.1 first, then between.
				{"lr-0.025", "lr=0.025", "hyperparameter", "10m", []int{0, 1, 2}},
				{"lr-0.0707", "lr=0.0707", "hyperparameter", "10m", []int{0, 1, 2}},
			},
		},
		{
			name: "a step awaiting its result stops its direction", spec: cartpole(),
			in:       Input{Experiments: set(exp("fast", experiment.Done, "lr=0.05"), exp("faster", experiment.Approved, "lr=0.1")), Ledger: scored, N: 2},
			strategy: Local,
			want:     []brief{{"lr-0.025", "lr=0.025", "hyperparameter", "10m", []int{0, 1, 2}}},
			reason:   "only 1 of 2: scope exhausted: every one-factor step around fast was tried",
		},
		{
			name: "approved experiments reserve budget", spec: cartpole(),
			in:       Input{Experiments: set(&experiment.Experiment{ID: "big", Status: experiment.Approved, Seeds: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}})},
			strategy: Auto,
			want:     []brief{{"sf-1", "episodes=1050 gamma=0.933 hidden=32 lr=0.00072", "hyperparameter", "10m", []int{0, 1, 2}}},
			reason:   "only 1 of 4: budget exhausted by the proposals above: 0 runs and 0.00 GPU-hours left (of 12 runs and 2.00 GPU-hours; 12 runs and 2.00 GPU-hours spent or reserved), and each proposal needs 3 runs and 0.50 GPU-hours",
		},
		{
			name: "budget exhausted", spec: cartpole(),
			in:       Input{Experiments: set(), Spend: budget.Spend{Runs: 11, GPUHours: 1.8, ByExperiment: map[string]int{"old": 11}}},
			strategy: Auto,
			reason:   "budget exhausted: 1 run and 0.20 GPU-hours left (of 12 runs and 2.00 GPU-hours; 11 runs and 1.80 GPU-hours spent or reserved), and each proposal needs 3 runs and 0.50 GPU-hours",
		},
		{
			name: "scope exhausted", spec: twoChoices,
			in:       Input{Experiments: set(exp("a", experiment.Done, "hidden=16"), exp("b", experiment.Rejected, "hidden=32"))},
			strategy: Auto,
			reason:   "scope exhausted: all 2 settings of the scope were tried",
		},
		{
			name: "auto samples again once every local step was tried", spec: flags,
			in: Input{
				Experiments: set(exp("baseline", experiment.Done, "hidden=32", "use_gae=true"), exp("wide", experiment.Done, "hidden=64"), exp("wide-nogae", experiment.Done, "hidden=64", "use_gae=false")),
				Ledger:      []ledger.Entry{entry(1, "baseline", "baseline", 410, 10, 3), entry(2, "wide", "improved", 480, 10, 3)},
			},
			strategy: Auto,
			want: []brief{
				{"sf-1", "hidden=32 use_gae=false", "hyperparameter", "10m", []int{0, 1, 2}},
				{"sf-2", "hidden=16 use_gae=true", "hyperparameter", "10m", []int{0, 1, 2}},
				{"sf-4", "hidden=16 use_gae=false", "hyperparameter", "10m", []int{0, 1, 2}},
			},
			reason: "only 3 of 4: scope exhausted: all 6 settings of the scope were tried",
		},
		{
			name: "halving on a large budget", spec: large, in: Input{Experiments: set()},
			strategy: Auto,
			want: []brief{
				{"sf-1-r0", "episodes=1050 gamma=0.933 hidden=32 lr=0.00072", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-2-r0", "episodes=575 gamma=0.966 hidden=64 lr=0.0139", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-3-r0", "episodes=1525 gamma=0.911 hidden=32 lr=0.0373", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-4-r0", "episodes=337 gamma=0.944 hidden=16 lr=0.00518", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-5-r0", "episodes=1288 gamma=0.977 hidden=16 lr=0.000268", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-6-r0", "episodes=812 gamma=0.922 hidden=32 lr=0.00193", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-7-r0", "episodes=1763 gamma=0.955 hidden=64 lr=0.000133", "hyperparameter", "2m30s", []int{0, 1, 2}},
				{"sf-8-r0", "episodes=218 gamma=0.988 hidden=64 lr=0.000954", "hyperparameter", "2m30s", []int{0, 1, 2}},
			},
		},
		{
			name: "halving shrinks to the budget", spec: func() spec { s := large; s.maxRuns = 20; return s }(),
			in:       Input{Experiments: set()},
			strategy: Halving,
			want: []brief{
				{"sf-1-r0", "episodes=1050 gamma=0.933 hidden=32 lr=0.00072", "hyperparameter", "5m0s", []int{0, 1, 2}},
				{"sf-2-r0", "episodes=575 gamma=0.966 hidden=64 lr=0.0139", "hyperparameter", "5m0s", []int{0, 1, 2}},
				{"sf-3-r0", "episodes=1525 gamma=0.911 hidden=32 lr=0.0373", "hyperparameter", "5m0s", []int{0, 1, 2}},
			},
		},
		{
			name: "halving that cannot fit", spec: cartpole(), in: Input{Experiments: set(), Spend: budget.Spend{Runs: 6}},
			strategy: Halving,
			reason:   "budget too small for a halving plan: the smallest (2 configurations, 2 rungs) needs 9 runs and 1.00 GPU-hours; 6 runs and 2.00 GPU-hours are left",
		},
		{
			name: "a parameter's category", spec: reward, in: Input{Experiments: set(), N: 2},
			strategy: SpaceFilling,
			want: []brief{
				{"sf-1", "reward_scale=1.25", "reward", "10m", []int{0, 1, 2}},
				// A hundredth of the range, to a power of ten: 0.01.
				{"sf-2", "reward_scale=0.88", "reward", "10m", []int{0, 1, 2}},
			},
		},
		{
			name: "no parameters", spec: none, in: Input{Experiments: set()},
			strategy: Auto,
			reason:   "the scope has no tunable parameters; changes to files are for 'rlxp experiment add'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Contract, in.Strategy = tt.spec.load(t), tt.strategy
			res, err := Propose(in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, briefs(res)); diff != "" {
				t.Errorf("proposals mismatch (-want +got):\n%s", diff)
			}
			if res.Reason != tt.reason {
				t.Errorf("reason:\n got %q\nwant %q", res.Reason, tt.reason)
			}
			for _, p := range res.Proposals {
				if p.Experiment.Status != experiment.Proposed || p.Experiment.Approval != nil {
					t.Errorf("%s: status %s, approval %v; want proposed and unapproved", p.Experiment.ID, p.Experiment.Status, p.Experiment.Approval)
				}
				if p.Experiment.Hypothesis == "" || p.Cost.Basis == "" {
					t.Errorf("%s: no hypothesis or cost basis", p.Experiment.ID)
				}
			}
		})
	}
}

func TestHypotheses(t *testing.T) {
	s := cartpole()
	s.maxRuns, s.gpuHours = 100, 10
	l := s.load(t)
	base := exp("baseline", experiment.Done, "lr=0.01", "gamma=0.99", "episodes=500", "hidden=32")
	in := Input{
		Contract:    l,
		Experiments: set(base, exp("fast", experiment.Done, "lr=0.05"), exp("faster", experiment.Done, "lr=0.2")),
		Ledger: []ledger.Entry{entry(1, "baseline", "baseline", 410, 10, 3), entry(2, "fast", "improved", 480, 12, 3),
			entry(3, "faster", "invalid", 0, 0, 3)},
		Strategy: Local, N: 1,
	}
	res, err := Propose(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "lr 0.05→0.1 (×2, log scale): the best so far (fast, eval/mean_return 480±12, n=3) improved on the baseline; lr=0.01 scored no better (eval/mean_return 410±10, n=3), so a larger value may help further"
	if got := res.Proposals[0].Experiment.Hypothesis; got != want {
		t.Errorf("hypothesis:\n got %q\nwant %q", got, want)
	}
	if res.Best == nil || res.Best.Experiment != "fast" {
		t.Errorf("best = %+v, want fast", res.Best)
	}

	// A neighbour beyond the step: the next value lies in between, and
	// ranks after untested directions.
	in.Ledger[2] = entry(3, "faster", "inconclusive", 450, 20, 3)
	in.Experiments.Experiments[2] = exp("faster", experiment.Done, "lr=0.1")
	in.N = 8
	res, err = Propose(in)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range res.Proposals {
		ids = append(ids, p.Experiment.ID)
	}
	wantIDs := []string{"episodes-690", "episodes-310", "gamma-0.999", "gamma-0.9801", "hidden-64", "hidden-16", "lr-0.0707", "lr-0.025"}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
	want = "lr 0.05→0.0707 (×1.414, log scale): the best so far (fast, eval/mean_return 480±12, n=3) improved on the baseline; lr=0.1 scored no better (eval/mean_return 450±20, n=3), so this tries a value in between"
	if got := res.Proposals[6].Experiment.Hypothesis; got != want {
		t.Errorf("hypothesis:\n got %q\nwant %q", got, want)
	}
}

func TestCost(t *testing.T) {
	in := Input{
		Contract:    cartpole().load(t),
		Experiments: set(exp("fast", experiment.Done, "lr=0.05"), exp("slow", experiment.Done, "lr=0.0001", "hidden=16")),
		Ledger:      []ledger.Entry{entry(1, "baseline", "baseline", 410, 10, 3), entry(2, "fast", "improved", 480, 10, 3)},
		Runs: []runs.Record{
			finished("fast-0", "fast", 4), finished("fast-1", "fast", 6), finished("slow-0", "slow", 12),
			// An early failure and a run in flight say nothing about duration.
			func() runs.Record { r := finished("fast-2", "fast", 1); one := 1; r.Exit = &one; return r }(),
			{ID: "fast-3", Experiment: "fast", GPUs: 1, StartedAt: "2026-11-01T10:00:00Z"},
		},
		Strategy: Local, N: 1,
	}
	res, err := Propose(in)
	if err != nil {
		t.Fatal(err)
	}
	want := Cost{Runs: 3, RunWallClock: "5m0s", Elapsed: "10m0s", GPUHours: 0.25, ReservedGPUHours: 0.5, Basis: "mean of 2 finished runs of fast (5m0s)"}
	if diff := cmp.Diff(want, res.Proposals[0].Cost); diff != "" {
		t.Errorf("cost mismatch (-want +got):\n%s", diff)
	}

	// Closest to slow, whose mean is over the allowance.
	in.Strategy, in.Experiments = SpaceFilling, set(exp("slow", experiment.Done, "lr=0.0001", "hidden=16", "gamma=0.9", "episodes=300"))
	res, err = Propose(in)
	if err != nil {
		t.Fatal(err)
	}
	want = Cost{Runs: 3, RunWallClock: "10m0s", Elapsed: "20m0s", GPUHours: 0.5, ReservedGPUHours: 0.5, Basis: "mean of 1 finished run of slow (12m0s), capped at the 10m0s allowance"}
	if diff := cmp.Diff(want, res.Proposals[0].Cost); diff != "" {
		t.Errorf("cost mismatch (-want +got):\n%s", diff)
	}
}

func TestPlan(t *testing.T) {
	s := cartpole()
	s.maxRuns, s.gpuHours = 100, 10
	res, err := Propose(Input{Contract: s.load(t), Experiments: set(), Strategy: Halving})
	if err != nil {
		t.Fatal(err)
	}
	want := &Plan{Metric: "eval/mean_return", Runs: 42, GPUHours: 3, Rungs: []Rung{
		{Configs: 8, WallClock: "2m30s", Runs: 24, GPUHours: 1},
		{Configs: 4, WallClock: "5m0s", Runs: 12, GPUHours: 1},
		{Configs: 2, WallClock: "10m0s", Runs: 6, GPUHours: 1},
	}}
	if diff := cmp.Diff(want, res.Plan); diff != "" {
		t.Errorf("plan mismatch (-want +got):\n%s", diff)
	}
	if got := res.Proposals[0].Experiment.Hypothesis; !strings.HasSuffix(got, "Rung 0 of a 3-rung successive-halving plan: a 2m30s screening run of the 10m0s allowed; the best 4 of 8 by eval/mean_return continue at 5m0s") {
		t.Errorf("hypothesis %q does not describe the plan", got)
	}
	if got, want := res.Budget, (Room{RunsLeft: 100, GPUHoursLeft: 10, RunsProposed: 24, GPUHoursProposed: 1}); got != want {
		t.Errorf("budget = %+v, want %+v", got, want)
	}
}

func TestProposeErrors(t *testing.T) {
	l := cartpole().load(t)
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"unknown strategy", Input{Contract: l, Experiments: set(), Strategy: "grid"}, `unknown strategy "grid"`},
		{"negative n", Input{Contract: l, Experiments: set(), N: -1}, "cannot make -1 proposals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Propose(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
