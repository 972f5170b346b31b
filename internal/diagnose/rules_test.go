package diagnose

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/metrics"
)

// series builds a source from tag → values, the i-th value at step i+1,
// tags interleaved per step the way a trainer logs them.
func series(t *testing.T, tags map[string][]float64) *Source {
	t.Helper()
	s := NewSource("run.log", Rules())
	n := 0
	for _, v := range tags {
		n = max(n, len(v))
	}
	for i := range n {
		for _, tag := range slices.Sorted(maps.Keys(tags)) {
			if i < len(tags[tag]) {
				if err := s.Point(tag, metrics.Point{Step: int64(i + 1), Value: tags[tag][i]}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return s
}

// rep is n copies of v.
func rep(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func cat(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// wobble is deterministic noise of amplitude a around v: n points.
func wobble(v, a float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v + a*math.Sin(float64(i)*2.3)
	}
	return out
}

// ramp goes from a to b in n points, with deterministic noise of amplitude w.
func ramp(a, b, w float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = a + (b-a)*float64(i)/float64(n-1) + w*math.Sin(float64(i)*2.3)
	}
	return out
}

// precise is a tag with full-precision values, as current verl logs them.
var precise = map[string][]float64{"actor/pg_clipfrac": {0.0021345678}}

func with(base map[string][]float64, more map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func alive(age time.Duration) Facts {
	return Facts{Alive: true, AliveKnown: true, Process: "process group leader pid 4242 is alive", Log: ".rlxp/runs/r1/log",
		LogAge: age, Stale: 30 * time.Minute, LastStep: 12, HasStep: true, LastLine: "(TaskRunner pid=4242) validation: 3/500"}
}

func evalOne(t *testing.T, id string, src *Source, f Facts) Result {
	t.Helper()
	for _, r := range Rules() {
		if r.ID == id {
			return evaluate(r, Input{Sources: []*Source{src}, Facts: f})
		}
	}
	t.Fatalf("no rule %q", id)
	return Result{}
}

func advice(id string) string {
	for _, r := range Rules() {
		if r.ID == id {
			return r.Advice
		}
	}
	return ""
}

func quotes(first int64, vs ...float64) []Quote {
	out := make([]Quote, len(vs))
	for i, v := range vs {
		out[i] = Quote{first + int64(i), Num(v)}
	}
	return out
}

// TestRulesFire gives each rule the evidence it needs and checks the
// claim, quoted evidence and all.
func TestRulesFire(t *testing.T) {
	for _, tc := range []struct {
		rule  string
		tags  map[string][]float64
		facts Facts
		want  []Evidence
	}{
		{
			rule: "r3-misalignment",
			tags: map[string][]float64{"training/rollout_actor_probs_pearson_corr": cat(rep(0.999, 7), []float64{0.95, 0.93, 0.91})},
			want: []Evidence{{Tag: "training/rollout_actor_probs_pearson_corr", Source: "run.log", Points: quotes(8, 0.95, 0.93, 0.91),
				Text: "training/rollout_actor_probs_pearson_corr 0.95, 0.93, 0.91 at steps 8..10: all below 0.99"}},
		},
		{
			rule: "frozen-model",
			tags: with(precise, map[string][]float64{"actor/lr": rep(0, 4)}),
			want: []Evidence{{Tag: "actor/lr", Source: "run.log", Points: quotes(2, 0, 0, 0),
				Text: "actor/lr 0, 0, 0 at steps 2..4: all equal to 0"}},
		},
		{
			rule: "frozen-model",
			tags: with(precise, map[string][]float64{"train/learning_rate": rep(0, 3)}),
			want: []Evidence{{Tag: "train/learning_rate", Source: "run.log", Points: quotes(1, 0, 0, 0),
				Text: "train/learning_rate 0, 0, 0 at steps 1..3: all equal to 0"}},
		},
		{
			rule: "gradient-starvation",
			tags: map[string][]float64{
				"actor/grad_norm":      {0.31, 0.29, 0.3, 0.33, 0.28, 0.3, 0.32, 0.29, 0.31, 0.3, 0.2, 0.03, 0.025, 0.02},
				"response_length/mean": cat(rep(2100, 10), []float64{5000, 8123, 9001, 9433}),
			},
			want: []Evidence{
				{Tag: "actor/grad_norm", Source: "run.log", Points: quotes(12, 0.03, 0.025, 0.02),
					Text: "actor/grad_norm 0.03, 0.025, 0.02 at steps 12..14: median 0.025 ≤ 0.1 × 0.3, the median at steps 1..10"},
				{Tag: "response_length/mean", Source: "run.log", Points: quotes(12, 8123, 9001, 9433),
					Text: "response_length/mean 8123, 9001, 9433 at steps 12..14: median 9001 ≥ 4096"},
			},
		},
		{
			rule: "env-avalanche",
			tags: map[string][]float64{
				"trajectory_filter/reason/env_setup_failed": {0, 0, 0, 0, 0, 1, 4, 9, 15, 24},
				"critic/rewards/mean":                       {0.5, 0.52, 0.49, 0.51, 0.5, 0.45, 0.38, 0.3, 0.2, 0.1},
			},
			want: []Evidence{
				{Tag: "trajectory_filter/reason/env_setup_failed", Source: "run.log", Points: quotes(6, 1, 4, 9, 15, 24),
					Text: "trajectory_filter/reason/env_setup_failed 1, 4, 9, 15, 24 at steps 6..10: rising, slope t = 8.9"},
				{Tag: "critic/rewards/mean", Source: "run.log", Points: quotes(6, 0.45, 0.38, 0.3, 0.2, 0.1),
					Text: "critic/rewards/mean 0.45, 0.38, 0.3, 0.2, 0.1 at steps 6..10: falling, slope t = -22.0"},
			},
		},
		{
			rule: "val-fake-zero",
			tags: map[string][]float64{
				"val-core/swe/acc/mean@1":    {0, 0},
				"val-core/swe/reward/mean@1": {0.25, 0},
				"critic/rewards/mean":        {0.41, 0.38, 0.44, 0.4, 0.39, 0.42},
			},
			want: []Evidence{
				{Tag: "val-core/swe/acc/mean@1", Source: "run.log", Points: quotes(2, 0), Text: "val-core/swe/acc/mean@1 0 at step 2: all equal to 0"},
				{Tag: "val-core/swe/reward/mean@1", Source: "run.log", Points: quotes(2, 0), Text: "val-core/swe/reward/mean@1 0 at step 2: all equal to 0"},
				{Tag: "critic/rewards/mean", Source: "run.log", Points: quotes(2, 0.38, 0.44, 0.4, 0.39, 0.42),
					Text: "critic/rewards/mean 0.38, 0.44, 0.4, 0.39, 0.42 at steps 2..6: mean 0.406 > 0.01"},
			},
		},
		{
			rule: "val-fake-zero",
			tags: map[string][]float64{"val/test_score/countdown": {0}, "critic/score/mean": rep(0.3, 5)},
			want: []Evidence{
				{Tag: "val/test_score/countdown", Source: "run.log", Points: quotes(1, 0), Text: "val/test_score/countdown 0 at step 1: all equal to 0"},
				{Tag: "critic/score/mean", Source: "run.log", Points: quotes(1, 0.3, 0.3, 0.3, 0.3, 0.3),
					Text: "critic/score/mean 0.3, 0.3, 0.3, 0.3, 0.3 at steps 1..5: mean 0.3 > 0.01"},
			},
		},
		{
			rule: "no-tool-call-collapse",
			tags: map[string][]float64{
				"num_turns/mean":                  {20, 21, 19, 20, 20, 12, 6, 3, 1.5, 1.1},
				"critic/rewards/mean":             {0.5, 0.5, 0.5, 0.5, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05},
				"trajectory_filter/invalid_ratio": rep(0.02, 10),
			},
			want: []Evidence{
				{Tag: "num_turns/mean", Source: "run.log", Points: quotes(6, 12, 6, 3, 1.5, 1.1),
					Text: "num_turns/mean 12, 6, 3, 1.5, 1.1 at steps 6..10: falling, slope t = -4.2"},
				{Tag: "num_turns/mean", Source: "run.log", Points: quotes(10, 1.1), Text: "num_turns/mean 1.1 at step 10: 1.1 ≤ 2"},
				{Tag: "critic/rewards/mean", Source: "run.log", Points: quotes(6, 0.4, 0.3, 0.2, 0.1, 0.05),
					Text: "critic/rewards/mean 0.4, 0.3, 0.2, 0.1, 0.05 at steps 6..10: falling, slope t = -15.6"},
			},
		},
		{
			rule:  "deadlock",
			tags:  map[string][]float64{},
			facts: alive(2*time.Hour + 3*time.Minute),
			want: []Evidence{
				{Text: "process group leader pid 4242 is alive"},
				{Source: ".rlxp/runs/r1/log", Text: `.rlxp/runs/r1/log last written 2h3m0s ago (stale after 30m0s); the last step logged is 12; its last line: "(TaskRunner pid=4242) validation: 3/500"`},
			},
		},
		{
			rule: "step-slowdown",
			tags: map[string][]float64{"timing_s/step": {60, 61, 59, 60, 62, 60, 61, 150, 160, 170}},
			want: []Evidence{{Tag: "timing_s/step", Source: "run.log", Points: quotes(8, 150, 160, 170),
				Text: "timing_s/step 150, 160, 170 at steps 8..10: median 160 ≥ 2 × 60, the median at steps 1..5"}},
		},
		{
			rule: "step-slowdown",
			tags: map[string][]float64{"time/fps": {1000, 1010, 990, 1000, 1005, 900, 400, 380, 350}},
			want: []Evidence{{Tag: "time/fps", Source: "run.log", Points: quotes(7, 400, 380, 350),
				Text: "1/time/fps 0.0025, 0.00263158, 0.00285714 at steps 7..9: median 0.00263158 ≥ 2 × 0.001, the median at steps 1..5"}},
		},
		{
			rule: "nan-loss",
			tags: map[string][]float64{"actor/pg_loss": {0.1, 0.2, 0.1, math.NaN(), math.NaN()}, "critic/vf_loss": rep(0.5, 5)},
			want: []Evidence{{Tag: "actor/pg_loss", Source: "run.log", Points: quotes(1, 0.1, 0.2, 0.1, math.NaN(), math.NaN()),
				Text: "actor/pg_loss NaN at step 4"}},
		},
		{
			rule: "nan-loss",
			tags: map[string][]float64{"train/loss": {0.3, 0.2, 0.2, 0.1, math.Inf(1)}},
			want: []Evidence{{Tag: "train/loss", Source: "run.log", Points: quotes(1, 0.3, 0.2, 0.2, 0.1, math.Inf(1)),
				Text: "train/loss +Inf at step 5"}},
		},
		{
			rule: "entropy-collapse",
			tags: map[string][]float64{"actor/entropy": cat(rep(0.6, 10), []float64{0.05, 0.04, 0.03, 0.03, 0.02})},
			want: []Evidence{{Tag: "actor/entropy", Source: "run.log", Points: quotes(11, 0.05, 0.04, 0.03, 0.03, 0.02),
				Text: "actor/entropy 0.05, 0.04, 0.03, 0.03, 0.02 at steps 11..15: median 0.03 ≤ 0.1 × 0.6, the median at steps 1..10"}},
		},
		{
			rule: "entropy-collapse",
			tags: map[string][]float64{"train/entropy_loss": cat(rep(-0.69, 10), rep(-0.01, 5))},
			want: []Evidence{{Tag: "train/entropy_loss", Source: "run.log", Points: quotes(11, -0.01, -0.01, -0.01, -0.01, -0.01),
				Text: "-train/entropy_loss 0.01, 0.01, 0.01, 0.01, 0.01 at steps 11..15: median 0.01 ≤ 0.1 × 0.69, the median at steps 1..10"}},
		},
		{
			rule: "kl-blowup",
			tags: map[string][]float64{"actor/ppo_kl": rep(0, 14), "actor/kl_loss": cat(rep(0.001, 10), []float64{0.05, 0.2, 0.3, 0.5})},
			want: []Evidence{
				{Tag: "actor/kl_loss", Source: "run.log", Points: quotes(12, 0.2, 0.3, 0.5),
					Text: "actor/kl_loss 0.2, 0.3, 0.5 at steps 12..14: median 0.3 ≥ 10 × 0.001, the median at steps 1..10"},
				{Tag: "actor/kl_loss", Source: "run.log", Points: quotes(12, 0.2, 0.3, 0.5),
					Text: "actor/kl_loss 0.2, 0.3, 0.5 at steps 12..14: median 0.3 ≥ 0.1"},
			},
		},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			got := evalOne(t, tc.rule, series(t, tc.tags), tc.facts)
			want := Result{ID: tc.rule, Name: got.Name, Outcome: Matched, Evidence: tc.want, Advice: advice(tc.rule)}
			if d := cmp.Diff(want, got, cmp.Comparer(sameNum)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestPlateauFires: SB3's mean episode return climbs, then holds for 40
// dumps. Twenty noisy points are quoted; the claim's shape is checked.
func TestPlateauFires(t *testing.T) {
	got := evalOne(t, "reward-plateau", series(t, map[string][]float64{"rollout/ep_rew_mean": cat(ramp(20, 180, 3, 20), wobble(200, 4, 40))}), Facts{})
	if got.Outcome != Matched || len(got.Evidence) != 1 || len(got.Evidence[0].Points) != 20 || got.Evidence[0].Points[0].Step != 41 ||
		!strings.HasPrefix(got.Evidence[0].Text, "rollout/ep_rew_mean mean ") || !strings.Contains(got.Evidence[0].Text, " at steps 41..60 vs ") ||
		!strings.HasSuffix(got.Evidence[0].Text, ": flat") {
		t.Errorf("got %+v", got)
	}
}

// sameNum compares quoted values, NaN equal to NaN.
func sameNum(a, b Num) bool {
	return a == b || math.IsNaN(float64(a)) && math.IsNaN(float64(b)) || math.Abs(float64(a-b)) < 1e-6
}

// TestRulesNearMiss gives each rule evidence that falls just short: no
// claim, and the reason says why.
func TestRulesNearMiss(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    string
		tags    map[string][]float64
		facts   Facts
		outcome Outcome
		reason  string
	}{
		{"one dip", "r3-misalignment",
			map[string][]float64{"training/rollout_actor_probs_pearson_corr": {0.999, 0.999, 0.95, 0.999, 0.998}},
			Facts{}, NotMatched, "training/rollout_actor_probs_pearson_corr 0.95, 0.999, 0.998 at steps 3..5: not all below 0.99"},
		{"at the bound", "r3-misalignment",
			map[string][]float64{"training/rollout_actor_probs_pearson_corr": rep(0.99, 4)},
			Facts{}, NotMatched, "training/rollout_actor_probs_pearson_corr 0.99, 0.99, 0.99 at steps 2..4: not all below 0.99"},
		{"two steps", "r3-misalignment",
			map[string][]float64{"training/rollout_actor_probs_pearson_corr": {0.5, 0.5}},
			Facts{}, NotEvaluated, "training/rollout_actor_probs_pearson_corr has 2 points in run.log; this needs 3"},
		{"no pearson", "r3-misalignment",
			map[string][]float64{"actor/entropy": {0.5}},
			Facts{}, NotEvaluated, "no training/rollout_actor_probs_pearson_corr in the run's metrics"},
		{"warmup", "frozen-model",
			with(precise, map[string][]float64{"actor/lr": {0, 0, 1e-7, 2e-7}}),
			Facts{}, NotMatched, "actor/lr 0, 1e-07, 2e-07 at steps 2..4: not all equal to 0"},
		{"three-decimal log", "frozen-model",
			map[string][]float64{"actor/lr": rep(0, 5), "actor/grad_norm": {0.312, 0.298, 0.301, 0.3, 0.29}},
			Facts{}, NotEvaluated, "run.log prints every value with at most three decimals, so a small actor/lr reads as 0"},
		{"no lr", "frozen-model",
			map[string][]float64{"actor/entropy": {0.5}},
			Facts{}, NotEvaluated, "no actor/lr, train/learning_rate, charts/learning_rate, Loss/learning_rate or info/last_lr in the run's metrics"},
		{"short responses", "gradient-starvation",
			map[string][]float64{"actor/grad_norm": cat(rep(0.3, 10), rep(0.02, 3)), "response_length/mean": rep(2100, 13)},
			Facts{}, NotMatched, "response_length/mean 2100, 2100, 2100 at steps 11..13: median 2100 < 4096"},
		{"grad halved", "gradient-starvation",
			map[string][]float64{"actor/grad_norm": cat(rep(0.3, 10), rep(0.15, 3)), "response_length/mean": rep(9000, 13)},
			Facts{}, NotMatched, "actor/grad_norm 0.15, 0.15, 0.15 at steps 11..13: median 0.15 > 0.1 × 0.3, the median at steps 1..10"},
		{"no length", "gradient-starvation",
			map[string][]float64{"actor/grad_norm": cat(rep(0.3, 10), rep(0.02, 3))},
			Facts{}, NotEvaluated, "no response_length/mean in the run's metrics"},
		{"too early", "gradient-starvation",
			map[string][]float64{"actor/grad_norm": rep(0.02, 12), "response_length/mean": rep(9000, 12)},
			Facts{}, NotEvaluated, "actor/grad_norm has 12 points in run.log; this needs 13"},
		{"failures but reward holds", "env-avalanche",
			map[string][]float64{"trajectory_filter/reason/env_setup_failed": {0, 1, 4, 9, 15, 24}, "critic/rewards/mean": {0.5, 0.52, 0.49, 0.51, 0.5, 0.52}},
			Facts{}, NotMatched, "critic/rewards/mean 0.52, 0.49, 0.51, 0.5, 0.52 at steps 2..6: not falling, slope t = 0.2"},
		{"noisy failures", "env-avalanche",
			map[string][]float64{"trajectory_filter/reason/env_setup_failed": {3, 1, 4, 1, 5}, "critic/rewards/mean": {0.5, 0.4, 0.3, 0.2, 0.1}},
			Facts{}, NotMatched, "trajectory_filter/reason/env_setup_failed 3, 1, 4, 1, 5 at steps 1..5: not rising, slope t = 0.7"},
		{"upstream verl", "env-avalanche",
			map[string][]float64{"critic/rewards/mean": {0.5, 0.4, 0.3, 0.2, 0.1}},
			Facts{}, NotEvaluated, "no trajectory_filter/reason/env_setup_failed in the run's metrics"},
		{"one val score non-zero", "val-fake-zero",
			map[string][]float64{"val-core/a/acc/mean@1": {0}, "val-core/b/acc/mean@1": {0.31}, "critic/rewards/mean": rep(0.4, 5)},
			Facts{}, NotMatched, "val-core/b/acc/mean@1 0.31 at step 1: not all equal to 0"},
		{"reward zero too", "val-fake-zero",
			map[string][]float64{"val-core/a/acc/mean@1": {0}, "critic/rewards/mean": rep(0, 5)},
			Facts{}, NotMatched, "critic/rewards/mean 0, 0, 0, 0, 0 at steps 1..5: mean 0 ≤ 0.01"},
		{"val-aux only", "val-fake-zero",
			map[string][]float64{"val-aux/num_turns/mean": {0}, "critic/rewards/mean": rep(0.4, 5)},
			Facts{}, NotEvaluated, "no val-core/* or val/test_score/* in the run's metrics"},
		{"infra drops the batch", "no-tool-call-collapse",
			map[string][]float64{"num_turns/mean": {20, 12, 6, 3, 1.5}, "critic/rewards/mean": {0.5, 0.4, 0.3, 0.2, 0.1}, "trajectory_filter/invalid_ratio": {0.02, 0.1, 0.3, 0.5, 0.6}},
			Facts{}, NotMatched, "ruled out: most of the batch is dropped: infrastructure first (trajectory_filter/invalid_ratio 0.6 at step 5: 0.6 ≥ 0.1)"},
		{"turns fall but stay above 2", "no-tool-call-collapse",
			map[string][]float64{"num_turns/mean": {20, 15, 10, 7, 5}, "critic/rewards/mean": {0.5, 0.4, 0.3, 0.2, 0.1}},
			Facts{}, NotMatched, "num_turns/mean 5 at step 5: 5 > 2"},
		{"reward holds", "no-tool-call-collapse",
			map[string][]float64{"num_turns/mean": {20, 12, 6, 3, 1.5}, "critic/rewards/mean": {0.5, 0.5, 0.5, 0.5, 0.5}},
			Facts{}, NotMatched, "critic/rewards/mean 0.5, 0.5, 0.5, 0.5, 0.5 at steps 1..5: not falling, slope t = 0.0"},
		{"fresh log", "deadlock", nil, alive(5 * time.Minute),
			NotMatched, ".rlxp/runs/r1/log last written 5m0s ago, within --stale 30m0s"},
		{"not alive", "deadlock", nil, Facts{AliveKnown: true, Log: "log", LogAge: time.Hour, Stale: time.Minute},
			NotMatched, "the run is not alive"},
		{"liveness unknown", "deadlock", nil, Facts{Log: "log", LogAge: time.Hour, Stale: time.Minute},
			NotEvaluated, "whether the run is alive is not known"},
		{"no log", "deadlock", nil, Facts{Alive: true, AliveKnown: true, Process: "pid 1 is alive"},
			NotEvaluated, "the run has no log to judge"},
		{"two thirds slower", "step-slowdown",
			map[string][]float64{"timing_s/step": {60, 61, 59, 60, 62, 90, 100, 100}},
			Facts{}, NotMatched, "timing_s/step 90, 100, 100 at steps 6..8: median 100 < 2 × 60, the median at steps 1..5"},
		{"NaN before the window", "nan-loss",
			map[string][]float64{"actor/pg_loss": {0.1, math.NaN(), 0.1, 0.1, 0.1, 0.1, 0.1}},
			Facts{}, NotMatched, "actor/pg_loss 0.1, 0.1, 0.1, 0.1, 0.1 at steps 3..7: all finite"},
		{"healthy decline", "entropy-collapse",
			map[string][]float64{"actor/entropy": cat(rep(0.6, 10), rep(0.2, 5))},
			Facts{}, NotMatched, "actor/entropy 0.2, 0.2, 0.2, 0.2, 0.2 at steps 11..15: median 0.2 > 0.1 × 0.6, the median at steps 1..10"},
		{"differential entropy", "entropy-collapse",
			map[string][]float64{"train/entropy_loss": cat(rep(1.2, 10), rep(3, 5))},
			Facts{}, NotEvaluated, "-train/entropy_loss: median -1.2 at steps 1..10 is not positive, so a fall cannot be measured against it"},
		{"tenfold but small", "kl-blowup",
			map[string][]float64{"actor/kl_loss": cat(rep(0.001, 10), rep(0.02, 3))},
			Facts{}, NotMatched, "actor/kl_loss 0.02, 0.02, 0.02 at steps 11..13: median 0.02 < 0.1"},
		{"high from the start", "kl-blowup",
			map[string][]float64{"train/approx_kl": rep(0.15, 13)},
			Facts{}, NotMatched, "train/approx_kl 0.15, 0.15, 0.15 at steps 11..13: median 0.15 < 10 × 0.15, the median at steps 1..10"},
		{"one spike", "kl-blowup",
			map[string][]float64{"actor/kl_loss": cat(rep(0.001, 10), []float64{0.5, 0.001, 0.001})},
			Facts{}, NotMatched, "actor/kl_loss 0.5, 0.001, 0.001 at steps 11..13: median 0.001 < 10 × 0.001, the median at steps 1..10"},
		{"still rising", "reward-plateau",
			map[string][]float64{"critic/rewards/mean": ramp(0.2, 0.6, 0.02, 45)},
			Facts{}, NotMatched, ""},
		{"too short", "reward-plateau",
			map[string][]float64{"critic/rewards/mean": wobble(0.5, 0.02, 39)},
			Facts{}, NotEvaluated, "critic/rewards/mean has 39 points in run.log; this needs 40"},
	} {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			got := evalOne(t, tc.rule, series(t, tc.tags), tc.facts)
			if tc.reason == "" {
				// Only the outcome is fixed; the reason quotes noisy digits.
				got.Reason = ""
			}
			if d := cmp.Diff(Result{ID: tc.rule, Name: got.Name, Outcome: tc.outcome, Reason: tc.reason}, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestHealthyRun is a verl run with every key the rules read, all healthy:
// every rule is evaluated and none is claimed.
func TestHealthyRun(t *testing.T) {
	const n = 45
	src := series(t, map[string][]float64{
		"training/rollout_actor_probs_pearson_corr": wobble(0.9991, 0.0004, n),
		"actor/lr":             rep(1e-6, n),
		"actor/grad_norm":      wobble(0.31, 0.04, n),
		"response_length/mean": ramp(1800, 2600, 60, n),
		"trajectory_filter/reason/env_setup_failed": rep(0, n),
		"trajectory_filter/invalid_ratio":           wobble(0.03, 0.01, n),
		"critic/rewards/mean":                       ramp(0.2, 0.6, 0.02, n),
		"val-core/swe/acc/mean@1":                   ramp(0.3, 0.45, 0.01, n),
		"num_turns/mean":                            wobble(22, 2, n),
		"timing_s/step":                             wobble(60, 3, n),
		"actor/pg_loss":                             wobble(0.01, 0.02, n),
		"actor/entropy":                             ramp(0.62, 0.41, 0.01, n),
		"actor/ppo_kl":                              wobble(0.0005, 0.0002, n),
		"actor/kl_loss":                             ramp(0.001, 0.004, 0.0002, n),
	})
	got := map[string]Outcome{}
	for _, r := range Evaluate(Rules(), Input{Sources: []*Source{src}, Facts: alive(40 * time.Second)}) {
		got[r.ID] = r.Outcome
	}
	want := map[string]Outcome{}
	for _, r := range Rules() {
		want[r.ID] = NotMatched
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestSourcesOfOneRun: a tag comes from the first source that has it; an
// empty run evaluates nothing and claims nothing.
func TestSourcesOfOneRun(t *testing.T) {
	a := NewSource("progress.csv", Rules())
	b := NewSource("run.log", Rules())
	for i := range 4 {
		a.Point("actor/lr", metrics.Point{Step: int64(i), Value: 1e-6})
		b.Point("actor/lr", metrics.Point{Step: int64(i), Value: 0})
		b.Point("actor/pg_clipfrac", metrics.Point{Step: int64(i), Value: 0.0021345678})
	}
	r := evalOne(t, "frozen-model", a, Facts{})
	if r.Outcome != NotMatched {
		t.Errorf("from a: %+v", r)
	}
	for _, r := range Evaluate(Rules(), Input{Sources: []*Source{a, b}}) {
		if r.ID == "frozen-model" && r.Outcome != NotMatched {
			t.Errorf("a before b: %+v", r)
		}
	}
	for _, r := range Evaluate(Rules(), Input{Sources: []*Source{b, a}}) {
		if r.ID == "frozen-model" && r.Outcome != Matched {
			t.Errorf("b before a: %+v", r)
		}
	}
	for _, r := range Evaluate(Rules(), Input{}) {
		if r.Outcome != NotEvaluated || r.Reason == "" {
			t.Errorf("empty run: %+v", r)
		}
	}
}

// TestRulesWellFormed checks the table: ids unique, every role declared,
// windows within what a Source keeps, tests known.
func TestRulesWellFormed(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range Rules() {
		if r.ID == "" || ids[r.ID] || r.Name == "" || r.Advice == "" || len(r.When) == 0 {
			t.Errorf("%q: missing or repeated id, name, advice or conditions", r.ID)
		}
		ids[r.ID] = true
		roles := map[string]bool{}
		for _, n := range r.Needs {
			if len(n.Tags) == 0 {
				t.Errorf("%s: role %s lists no tags", r.ID, n.Role)
			}
			roles[n.Role] = true
		}
		for _, c := range append(append([]Cond{}, r.When...), r.Unless...) {
			switch c.Test {
			case Alive, LogStale:
				if c.Role != "" {
					t.Errorf("%s: fact %s has a role", r.ID, c.Test)
				}
				continue
			case AllBelow, AllEqual, AtLeast, AtMost, MeanAbove, FellTo, RoseTo, Rising, Falling, NonFinite, Plateau:
			default:
				t.Errorf("%s: unknown test %q", r.ID, c.Test)
			}
			if !roles[c.Role] {
				t.Errorf("%s: condition reads undeclared role %q", r.ID, c.Role)
			}
			recent := c.Window
			if c.Test == Plateau {
				recent *= 2
			}
			if c.Window < 1 || recent > tailLen || c.Earlier > headLen || (c.Test == Rising || c.Test == Falling || c.Test == Plateau) && c.Window < 3 {
				t.Errorf("%s: window %d, earlier %d out of range", r.ID, c.Window, c.Earlier)
			}
		}
		for _, c := range r.Unless {
			if c.Why == "" {
				t.Errorf("%s: unless %s says not why", r.ID, c.Role)
			}
		}
	}
	for _, id := range []string{"r3-misalignment", "frozen-model", "gradient-starvation", "env-avalanche", "val-fake-zero",
		"no-tool-call-collapse", "deadlock", "step-slowdown", "nan-loss", "entropy-collapse", "kl-blowup", "reward-plateau"} {
		if !ids[id] {
			t.Errorf("no rule %s", id)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, tag string
		want         bool
	}{
		{"val-core/*", "val-core/openai/gsm8k/reward/mean@1", true},
		{"val-core/*", "val-core/", true},
		{"val-core/*", "val-aux/x", false},
		{"response_length/mean", "response_length_non_aborted/mean", false},
		{"response_length/mean", "response_length/mean", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"*", "", true},
	} {
		if got := match(tc.pattern, tc.tag); got != tc.want {
			t.Errorf("match(%q, %q) = %v", tc.pattern, tc.tag, got)
		}
	}
}

// TestNotBefore: points stamped before the run started belong to an
// earlier run appending to the same file; they are counted and left out.
func TestNotBefore(t *testing.T) {
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s := NewSource("eval.jsonl", Rules())
	s.NotBefore(start)
	for i, wall := range []float64{0, float64(start.Unix()) - 60, float64(start.Unix()), float64(start.Unix()) + 60} {
		if err := s.Point("charts/episodic_return", metrics.Point{Step: int64(i), WallTime: wall, Value: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Points() != 3 || s.Dropped() != 1 || s.series["charts/episodic_return"].Len() != 3 {
		t.Errorf("kept %d, dropped %d", s.Points(), s.Dropped())
	}
}
