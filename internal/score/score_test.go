package score

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/metrics"
)

func series(vals ...float64) []metrics.Point {
	ps := make([]metrics.Point, len(vals))
	for i, v := range vals {
		ps[i] = metrics.Point{Step: int64(i * 10), Value: v}
	}
	return ps
}

// at makes a series of step, value pairs.
func at(sv ...float64) []metrics.Point {
	var ps []metrics.Point
	for i := 0; i+1 < len(sv); i += 2 {
		ps = append(ps, metrics.Point{Step: int64(sv[i]), Value: sv[i+1]})
	}
	return ps
}

func TestAgg(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		kind string
		n    int
		step int64
		pts  []metrics.Point
		want float64
		err  string
	}{
		{Last, 0, 0, series(1, 5, 3), 3, ""},
		{Max, 0, 0, series(1, 5, 3), 5, ""},
		{Min, 0, 0, series(4, 5, 3), 3, ""},
		{MeanLastN, 2, 0, series(1, 5, 3), 4, ""},
		{MeanLastN, 3, 0, series(10, 1, 2, 3, 4, 5), 4, ""},
		{MeanLastN, 4, 0, series(1, 5, 3), 0, "only 3 points, mean of the last 4 needs 4"},
		{AtStep, 0, 10, series(1, 5, 3), 5, ""},
		{AtStep, 0, 15, series(1, 5, 3), 0, "no point at step 15 (last step 20)"},
		{Last, 0, 0, nil, 0, "no points"},
		{Last, 0, 0, series(1, nan), 0, "value is NaN"},
		{Max, 0, 0, series(1, nan, 3), 0, "value is NaN"},
		{Last, 0, 0, series(1, math.Inf(1)), 0, "value is +Inf"},
		{Last, 0, 0, series(nan, 2), 2, ""},
		// A step counter that restarts: no value, whatever the aggregate.
		{Last, 0, 0, at(0, 1, 10, 2, 20, 3, 10, 9), 0, "step goes back from 20 to 10 at point 4: the step counter restarted (a resumed run, or two runs in one file)"},
		{Max, 0, 0, at(0, 1, 10, 9, 0, 2, 10, 3), 0, "step goes back from 10 to 0 at point 3: the step counter restarted (a resumed run, or two runs in one file)"},
		// Several points at one step (episodes that ended together) count.
		{AtStep, 0, 10, at(0, 1, 10, 2, 10, 3), 2.5, ""},
		{MeanLastN, 2, 0, at(5, 1, 5, 2), 1.5, ""},
		{Last, 0, 0, at(5, 1, 5, 2), 2, ""},
		{Max, 0, 0, at(5, 1, 5, 4, 6, 3), 4, ""},
		{Last, 0, 0, at(-5, 1, 0, 2, 7, 3), 3, ""},
	}
	for _, tt := range tests {
		a := NewAgg(tt.kind, tt.n, tt.step)
		for _, p := range tt.pts {
			a.Add(p)
		}
		got, err := a.Value()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s%v: error %v, want %q", tt.kind, tt.pts, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s%v = %v, %v; want %v", tt.kind, tt.pts, got, err, tt.want)
		}
	}
}

// A collector that rewinds and is given a series again aggregates exactly as
// a fresh one given only that series: a reader that starts a file over
// (a tfevents one-pass read falling back to two passes) leaves no trace.
func TestCollectorRewind(t *testing.T) {
	before := []metrics.Point{{Step: 15, Value: 100}, {Step: 30, Value: math.NaN()}, {Step: 40, Value: -7}, {Step: 50, Value: math.Inf(1)}}
	for _, pts := range [][]metrics.Point{series(1, 5, 3), series(10, 1, 2, 3, 4, 5), series(4), nil} {
		aggs := func() []*Agg {
			return []*Agg{NewAgg(Last, 0, 0), NewAgg(Max, 0, 0), NewAgg(Min, 0, 0), NewAgg(MeanLastN, 2, 0), NewAgg(MeanLastN, 3, 0), NewAgg(AtStep, 0, 10), NewAgg(AtStep, 0, 15)}
		}
		fresh, rewound := aggs(), aggs()
		c := NewCollector()
		for _, a := range rewound {
			c.Track("r", a)
		}
		for _, p := range before {
			if err := c.Point("r", p); err != nil {
				t.Fatal(err)
			}
		}
		c.Rewind()
		for _, p := range pts {
			for _, a := range fresh {
				a.Add(p)
			}
			if err := c.Point("r", p); err != nil {
				t.Fatal(err)
			}
		}
		for i := range fresh {
			want, werr := fresh[i].Value()
			got, gerr := rewound[i].Value()
			if fmt.Sprint(got, gerr) != fmt.Sprint(want, werr) || rewound[i].Points() != fresh[i].Points() {
				t.Errorf("%s after Rewind on %v = %v, %v (%d points); fresh %v, %v (%d points)", fresh[i].Kind, pts, got, gerr, rewound[i].Points(), want, werr, fresh[i].Points())
			}
		}
	}
}

func TestClosest(t *testing.T) {
	c := NewCollector()
	for _, tag := range []string{"eval/mean_return", "eval/mean_length", "train/loss", "eval/std_return"} {
		c.Want(tag)
	}
	// Distances: mean_return 2 (a transposition), mean_length 5, std_return 6.
	if diff := cmp.Diff([]string{"eval/mean_return", "eval/mean_length", "eval/std_return"}, c.Closest("eval/mean_retrun")); diff != "" {
		t.Errorf("Closest mismatch (-want +got):\n%s", diff)
	}
}

func f(v float64) *float64 { return &v }

func seeds(vals ...float64) []SeedValue {
	out := make([]SeedValue, len(vals))
	for i, v := range vals {
		if math.IsNaN(v) {
			out[i] = SeedValue{Seed: i, Error: "value is NaN"}
			continue
		}
		out[i] = SeedValue{Seed: i, Value: f(v)}
	}
	return out
}

func testContract() contract.Contract {
	var c contract.Contract
	c.Metrics.Primary = contract.Primary{Metric: contract.Metric{Name: "eval/return", Source: "eval", Aggregate: Last, Goal: "maximize"}, HeldOut: true, MinAbsoluteChange: 5}
	c.Metrics.Guardrails = []contract.Guardrail{
		{Metric: contract.Metric{Name: "eval/length", Source: "eval", Aggregate: Last, Goal: "maximize"}, Min: f(100)},
		{Metric: contract.Metric{Name: "train/kl", Source: "train", Aggregate: Max, Goal: "minimize"}, MaxRelativeRegression: f(0.5)},
	}
	c.Evaluation.Source = "eval"
	return c
}

func TestJudge(t *testing.T) {
	base := &BaselineRef{Experiment: "baseline", Seq: 1, Metric: "eval/return", Aggregate: Last,
		Values: []float64{100, 110, 105}, Guardrails: map[string]float64{"eval/length": 300, "train/kl": 0.02}}
	ok := [][]SeedValue{seeds(300, 310, 290), seeds(0.02, 0.021, 0.019)}
	tests := []struct {
		name       string
		isBaseline bool
		primary    []SeedValue
		guards     [][]SeedValue
		base       *BaselineRef
		verdict    string
		reason     string
	}{
		{"baseline", true, seeds(100, 110, 105), ok, nil, BaselineVerdict, ""},
		{"improved", false, seeds(150, 160, 155), ok, base, Improved, ""},
		{"regressed", false, seeds(50, 55, 52), ok, base, Regressed, "against its goal"},
		{"not significant", false, seeds(90, 130, 110), ok, base, Inconclusive, "not significant"},
		{"significant but below min change", false, seeds(103, 103.5, 104), ok,
			&BaselineRef{Experiment: "baseline", Seq: 1, Metric: "eval/return", Aggregate: Last, Values: []float64{100, 100.5, 101}, Guardrails: base.Guardrails},
			Inconclusive, "smaller than min_absolute_change 5"},
		{"too few seeds", false, seeds(150), ok, base, Inconclusive, "too few seeds"},
		{"no baseline", false, seeds(150, 160, 155), ok, nil, Inconclusive, "no scored baseline"},
		{"NaN seed", false, seeds(150, math.NaN(), 155), ok, base, Invalid, "eval/return, seed 1: value is NaN"},
		{"absolute guardrail", false, seeds(150, 160, 155), [][]SeedValue{seeds(50, 60, 70), ok[1]}, base, GuardrailViolated, "guardrail eval/length: 60 is below the minimum 100"},
		{"relative guardrail", false, seeds(150, 160, 155), [][]SeedValue{ok[0], seeds(0.05, 0.06, 0.04)}, base, GuardrailViolated, "more than 50% worse than the baseline's 0.02"},
		{"guardrail without value", false, seeds(150, 160, 155), [][]SeedValue{ok[0], seeds(math.NaN(), 1, 1)}, base, Invalid, "guardrail train/kl: seed 0"},
		{"baseline on another metric", false, seeds(150, 160, 155), ok, &BaselineRef{Experiment: "baseline", Seq: 1, Metric: "eval/other", Aggregate: Last, Values: []float64{1, 2}}, Inconclusive, "was scored on eval/other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Judge(Input{Contract: testContract(), Experiment: "x", IsBaseline: tt.isBaseline, Primary: tt.primary, Guardrails: tt.guards, Baseline: tt.base})
			if r.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s (reasons %q)", r.Verdict, tt.verdict, r.Reasons)
			}
			if tt.reason != "" && !strings.Contains(strings.Join(r.Reasons, "\n"), tt.reason) {
				t.Errorf("reasons %q lack %q", r.Reasons, tt.reason)
			}
		})
	}
}

func TestJudgeComparisonNumbers(t *testing.T) {
	base := &BaselineRef{Experiment: "baseline", Seq: 4, Metric: "eval/return", Aggregate: Last, Values: []float64{100, 110, 105}}
	c := testContract()
	c.Metrics.Guardrails = nil
	r := Judge(Input{Contract: c, Experiment: "x", Primary: seeds(150, 160, 155), Guardrails: [][]SeedValue{}, Baseline: base})
	w := WelchTest([]float64{150, 160, 155}, []float64{100, 110, 105})
	want := &Comparison{Experiment: "baseline", Seq: 4, Mean: 105, N: 3, Delta: 50, RelativeDelta: f(50.0 / 105), Test: "welch_t", T: &w.T, DF: &w.DF, PValue: &w.PValue}
	if diff := cmp.Diff(want, r.Baseline); diff != "" {
		t.Errorf("comparison mismatch (-want +got):\n%s", diff)
	}
	if r.Primary.Mean != 155 || r.Primary.N != 3 || *r.Primary.Std != 5 {
		t.Errorf("primary summary = %+v", r.Primary.Summary)
	}
}

func TestJudgeWarnsOnTrainingReward(t *testing.T) {
	c := testContract()
	c.Metrics.Primary.HeldOut = false
	c.Metrics.Guardrails = nil
	r := Judge(Input{Contract: c, Experiment: "b", IsBaseline: true, Primary: seeds(1, 2), Guardrails: [][]SeedValue{}})
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "not the held-out evaluation") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}
