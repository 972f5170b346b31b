package propose

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

// randomSpec is a contract with a random scope and budget: float ranges on
// linear and log scales, integer ranges, numeric and string choices,
// booleans, some of them reward parameters.
func randomSpec(r *rand.Rand) spec {
	s := spec{
		goal:       []string{"maximize", "minimize"}[r.IntN(2)],
		categories: "hyperparameter, reward",
		gpuHours:   float64(r.IntN(400)) / 10,
		wall:       []string{"90s", "10m", "1h", "3h"}[r.IntN(4)],
		maxRuns:    1 + r.IntN(40),
		gpus:       r.IntN(3),
	}
	seed := r.IntN(3)
	for range 1 + r.IntN(4) {
		s.seeds = append(s.seeds, seed)
		seed += 1 + r.IntN(3)
	}
	for i := range r.IntN(6) {
		var p string
		switch r.IntN(7) {
		case 0:
			lo := float64(r.IntN(20) - 10)
			p = fmt.Sprintf("{type: float, min: %g, max: %g}", lo, lo+[]float64{0.001, 0.1, 1, 37, 1000}[r.IntN(5)])
		case 1:
			lo := r.IntN(4) + 1
			p = fmt.Sprintf("{type: float, min: 1e-%d, max: 1e-%d}", lo+2+r.IntN(3), lo)
		case 2:
			lo := r.IntN(100) - 50
			p = fmt.Sprintf("{type: int, min: %d, max: %d}", lo, lo+r.IntN(12))
		case 3:
			p = "{type: int, min: 1, max: 4096}"
		case 4:
			cs := []string{"16", "32", "64", "128"}[:1+r.IntN(4)]
			p = "{choices: [" + strings.Join(cs, ", ") + "]}"
		case 5:
			cs := []string{"adam", "sgd", "rmsprop"}[:1+r.IntN(3)]
			p = "{type: string, choices: [" + strings.Join(cs, ", ") + "]}"
		default:
			p = "{type: bool}"
		}
		if r.IntN(4) == 0 {
			p = strings.TrimSuffix(p, "}") + ", category: reward}"
		}
		s.params = append(s.params, fmt.Sprintf("p%d: %s", i, p))
	}
	return s
}

// randomInput is a random history over the contract: experiments of every
// status with settings from the scope, scores for some, runs spent.
func randomInput(r *rand.Rand, l *contract.Loaded) Input {
	ds, _ := dims(l.Contract.Scope)
	randomParams := func() yaml.MapSlice {
		var ps yaml.MapSlice
		for _, d := range ds {
			if r.IntN(3) > 0 {
				ps = append(ps, yaml.MapItem{Key: d.name, Value: d.fromUnit(r.Float64())})
			}
		}
		return ps
	}
	in := Input{Experiments: set(), Spend: budget.Spend{ByExperiment: map[string]int{}}}
	statuses := []string{experiment.Proposed, experiment.Approved, experiment.Rejected, experiment.Running, experiment.Done, experiment.Failed}
	for i := range r.IntN(7) {
		e := &experiment.Experiment{ID: fmt.Sprintf("e%d", i), Status: statuses[r.IntN(len(statuses))], Params: randomParams(), Seeds: []int{0}}
		for s := 1; s < 1+r.IntN(4); s++ {
			e.Seeds = append(e.Seeds, s)
		}
		if i == 0 && r.IntN(2) == 0 {
			e.ID = "baseline"
		}
		in.Experiments.Experiments = append(in.Experiments.Experiments, e)
	}
	verdicts := []string{score.Improved, score.Inconclusive, score.Regressed, score.Invalid, score.GuardrailViolated}
	ids := []string{"baseline"}
	for _, e := range in.Experiments.Experiments {
		ids = append(ids, e.ID)
	}
	for seq := int64(1); seq <= int64(r.IntN(6)); seq++ {
		id := ids[r.IntN(len(ids))]
		v := verdicts[r.IntN(len(verdicts))]
		if id == "baseline" {
			v = score.BaselineVerdict
		}
		in.Ledger = append(in.Ledger, entry(seq, id, v, float64(r.IntN(500)), float64(r.IntN(30)), 1+r.IntN(5)))
	}
	for range r.IntN(l.Contract.Budget.MaxRuns/2 + 2) {
		id := ids[r.IntN(len(ids))]
		in.Spend.Runs++
		in.Spend.ByExperiment[id]++
		in.Spend.GPUHours += float64(r.IntN(10)) / 20
	}
	in.Strategy = Strategies()[r.IntN(4)]
	in.N = r.IntN(7)
	return in
}

// setting renders an experiment's effective settings (the baseline's under
// its own) in one canonical string, independently of the package's own.
func setting(base, own yaml.MapSlice) string {
	m := map[string]string{}
	for _, ps := range []yaml.MapSlice{base, own} {
		for _, it := range ps {
			v := fmt.Sprint(it.Value)
			switch x := it.Value.(type) {
			case float64:
				v = strconv.FormatFloat(x, 'g', -1, 64)
			case int64:
				v = strconv.FormatFloat(float64(x), 'g', -1, 64)
			}
			m[fmt.Sprint(it.Key)] = v
		}
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// TestProperties checks, over random scopes, histories and budgets, that
// every proposal is inside the scope, that the round fits the budget as
// the gate counts it, that proposals repeat neither each other nor what
// was tried, and that the same input gives the same output.
func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		s := randomSpec(r)
		l := s.load(t)
		in := randomInput(r, l)
		in.Contract = l
		name := fmt.Sprintf("case %d (%s, n=%d)", i, in.Strategy, in.N)
		res, err := Propose(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := Propose(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(res, again); diff != "" {
			t.Fatalf("%s: not deterministic (-first +second):\n%s", name, diff)
		}
		if len(res.Proposals) == 0 && res.Reason == "" {
			t.Errorf("%s: no proposals and no reason", name)
		}
		var base yaml.MapSlice
		tried := map[string]bool{}
		ids := map[string]bool{}
		for _, e := range in.Experiments.Experiments {
			if e.ID == l.Contract.Baseline.Experiment {
				base = e.Params
			}
			ids[e.ID] = true
		}
		for _, e := range in.Experiments.Experiments {
			tried[setting(base, e.Params)] = true
		}
		var all []*experiment.Experiment
		for _, p := range res.Proposals {
			all = append(all, p.Experiment)
		}
		for j, e := range all {
			if errs := e.ScopeErrors(l.Contract.Scope); len(errs) > 0 {
				t.Errorf("%s: %s is outside the scope: %v", name, e.ID, errs)
			}
			others := append(append([]*experiment.Experiment{}, all[:j]...), all[j+1:]...)
			a := gate.Fit(gate.Input{Contract: l, Experiments: in.Experiments, Experiment: e, Spend: in.Spend, Pending: others})
			if !a.Open {
				t.Errorf("%s: %s does not fit with the rest of its round: %+v", name, e.ID, a.Conditions)
			}
			key := setting(base, e.Params)
			if tried[key] {
				t.Errorf("%s: %s repeats a tried or proposed setting %s", name, e.ID, key)
			}
			tried[key] = true
			if ids[e.ID] || state.ValidID(e.ID) != nil {
				t.Errorf("%s: id %q is taken or invalid", name, e.ID)
			}
			ids[e.ID] = true
			if e.Status != experiment.Proposed || e.Approval != nil || e.WallClock.Value() > l.Contract.Budget.MaxRunWallClock.Value() || e.WallClock.Value() <= 0 {
				t.Errorf("%s: %s: status %s, approval %v, wall-clock %s", name, e.ID, e.Status, e.Approval, e.WallClock)
			}
		}
		if n := max(in.N, 1); in.Strategy != Halving && in.N > 0 && len(all) > n {
			t.Errorf("%s: %d proposals, at most %d asked for", name, len(all), n)
		}
		if pl := res.Plan; pl != nil && (pl.Runs > res.Budget.RunsLeft || pl.GPUHours > res.Budget.GPUHoursLeft+1e-3) {
			t.Errorf("%s: plan %+v exceeds the budget %+v", name, pl, res.Budget)
		}
	}
}

// TestLedgerOrder: the last usable entry of an experiment counts, and a
// later invalid one withdraws it.
func TestLedgerOrder(t *testing.T) {
	got := scored([]ledger.Entry{
		entry(1, "a", score.Improved, 1, 0, 3), entry(2, "a", score.Inconclusive, 2, 0, 3),
		entry(3, "b", score.Improved, 5, 0, 3), entry(4, "b", score.Invalid, 0, 0, 3),
	}, "eval/mean_return")
	want := map[string]Scored{"a": {Experiment: "a", Seq: 2, Verdict: score.Inconclusive, Metric: "eval/mean_return", Mean: 2, N: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scored mismatch (-want +got):\n%s", diff)
	}
}
