package score

import (
	"fmt"
	"math"
	"strings"

	"github.com/rlxp/rlxp/internal/contract"
)

// Verdicts, from worst news to best.
const (
	Invalid           = "invalid"
	GuardrailViolated = "guardrail_violated"
	Regressed         = "regressed"
	Inconclusive      = "inconclusive"
	Improved          = "improved"
	BaselineVerdict   = "baseline"
)

// Alpha is the significance level of the baseline comparison.
const Alpha = 0.05

// A SeedValue is one seed's aggregate of a metric. Value is nil when the
// seed has none; Error says why (JSON cannot hold NaN, and a missing
// number must never read as zero).
type SeedValue struct {
	Seed  int      `json:"seed"`
	Run   string   `json:"run,omitempty"`
	Value *float64 `json:"value"`
	Error string   `json:"error,omitempty"`
}

// Primary is the primary metric's result.
type Primary struct {
	Name      string      `json:"name"`
	Source    string      `json:"source"`
	Aggregate string      `json:"aggregate"`
	Goal      string      `json:"goal"`
	HeldOut   bool        `json:"held_out"`
	PerSeed   []SeedValue `json:"per_seed"`
	Summary
}

// Comparison is the primary metric against the baseline's ledger entry.
type Comparison struct {
	Experiment    string   `json:"experiment"`
	Seq           int64    `json:"seq"`
	Mean          float64  `json:"mean"`
	N             int      `json:"n"`
	Delta         float64  `json:"delta"`
	RelativeDelta *float64 `json:"relative_delta"`
	Test          string   `json:"test"` // welch_t | too_few_seeds | none
	T             *float64 `json:"t,omitempty"`
	DF            *float64 `json:"df,omitempty"`
	PValue        *float64 `json:"p_value,omitempty"`
}

// GuardrailResult is one guardrail's check. Pass is nil when the bound
// could not be checked (a relative bound with no baseline).
type GuardrailResult struct {
	Name    string      `json:"name"`
	Source  string      `json:"source"`
	Value   *float64    `json:"value"`
	PerSeed []SeedValue `json:"per_seed"`
	Bound   string      `json:"bound"`
	Pass    *bool       `json:"pass,omitempty"`
	Detail  string      `json:"detail,omitempty"`
}

// BaselineRef is what a comparison needs from the baseline's ledger entry.
type BaselineRef struct {
	Experiment string
	Seq        int64
	Metric     string // primary metric name and aggregate it was scored with
	Aggregate  string
	Values     []float64          // per-seed primary values
	Guardrails map[string]float64 // guardrail name → mean
}

// Input is one experiment's per-seed values, ready to judge.
type Input struct {
	Contract   contract.Contract
	Experiment string
	IsBaseline bool
	Primary    []SeedValue
	Guardrails [][]SeedValue // parallel to Contract.Metrics.Guardrails
	Baseline   *BaselineRef  // nil when the baseline has not been scored
}

// Result is the scored experiment: the body of a ledger entry.
type Result struct {
	Experiment string            `json:"experiment"`
	Primary    Primary           `json:"primary"`
	Baseline   *Comparison       `json:"baseline,omitempty"`
	Guardrails []GuardrailResult `json:"guardrails"`
	Verdict    string            `json:"verdict"`
	Reasons    []string          `json:"reasons,omitempty"`
	Warnings   []string          `json:"warnings,omitempty"`
}

// Judge applies the evaluation protocol and decides the verdict.
func Judge(in Input) Result {
	pm := in.Contract.Metrics.Primary
	r := Result{
		Experiment: in.Experiment,
		Primary:    Primary{Name: pm.Name, Source: pm.Source, Aggregate: pm.Aggregate, Goal: pm.Goal, HeldOut: pm.HeldOut, PerSeed: in.Primary},
		Guardrails: []GuardrailResult{},
	}
	if !pm.HeldOut || pm.Source != in.Contract.Evaluation.Source {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the primary metric %s (source %s) is not the held-out evaluation (source %s): a training reward can rise while the policy gets worse", pm.Name, pm.Source, in.Contract.Evaluation.Source))
	}

	values, bad := valid(in.Primary)
	for _, b := range bad {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s, seed %d: %s", pm.Name, b.Seed, b.Error))
	}
	if len(values) > 0 {
		r.Primary.Summary = Summarize(values)
	}

	guardFailed, guardInvalid := false, false
	for i, g := range in.Contract.Metrics.Guardrails {
		gr := judgeGuardrail(g, in.Guardrails[i], in.Baseline)
		failed := gr.Pass != nil && !*gr.Pass
		if failed || gr.Value == nil {
			r.Reasons = append(r.Reasons, fmt.Sprintf("guardrail %s: %s", g.Name, gr.Detail))
		}
		guardFailed = guardFailed || failed
		guardInvalid = guardInvalid || gr.Value == nil
		r.Guardrails = append(r.Guardrails, gr)
	}

	if !in.IsBaseline {
		r.Baseline = compare(pm, values, in.Baseline, &r)
	}

	switch {
	case len(bad) > 0 || len(values) == 0 || guardInvalid:
		r.Verdict = Invalid
	case guardFailed:
		r.Verdict = GuardrailViolated
	case in.IsBaseline:
		r.Verdict = BaselineVerdict
	default:
		r.Verdict = decide(pm, r.Baseline, &r)
	}
	return r
}

func valid(vs []SeedValue) (values []float64, bad []SeedValue) {
	for _, v := range vs {
		if v.Value == nil {
			bad = append(bad, v)
			continue
		}
		values = append(values, *v.Value)
	}
	return values, bad
}

func judgeGuardrail(g contract.Guardrail, seeds []SeedValue, base *BaselineRef) GuardrailResult {
	gr := GuardrailResult{Name: g.Name, Source: g.Source, PerSeed: seeds}
	values, bad := valid(seeds)
	if len(bad) > 0 || len(values) == 0 {
		gr.Detail = "no value"
		if len(bad) > 0 {
			gr.Detail = fmt.Sprintf("seed %d: %s", bad[0].Seed, bad[0].Error)
		}
		gr.Bound = describeBound(g, base)
		return gr
	}
	v := mean(values)
	gr.Value = &v
	gr.Bound = describeBound(g, base)
	pass := true
	var why []string
	if g.Min != nil && v < *g.Min {
		pass = false
		why = append(why, fmt.Sprintf("%s is below the minimum %s", num(v), num(*g.Min)))
	}
	if g.Max != nil && v > *g.Max {
		pass = false
		why = append(why, fmt.Sprintf("%s is above the maximum %s", num(v), num(*g.Max)))
	}
	if r := g.MaxRelativeRegression; r != nil {
		b, ok := 0.0, false
		if base != nil {
			b, ok = base.Guardrails[g.Name]
		}
		switch {
		case !ok && g.Min == nil && g.Max == nil:
			gr.Detail = "not checked: the baseline has no value for it yet"
			return gr
		case ok:
			limit := b - *r*math.Abs(b)
			worse := v < limit
			if g.Goal == "minimize" {
				limit = b + *r*math.Abs(b)
				worse = v > limit
			}
			if worse {
				pass = false
				why = append(why, fmt.Sprintf("%s is more than %s%% worse than the baseline's %s", num(v), num(*r*100), num(b)))
			}
		}
	}
	gr.Pass = &pass
	if !pass {
		gr.Detail = joinWhy(why)
	}
	return gr
}

func describeBound(g contract.Guardrail, base *BaselineRef) string {
	var parts []string
	if g.Min != nil {
		parts = append(parts, "≥ "+num(*g.Min))
	}
	if g.Max != nil {
		parts = append(parts, "≤ "+num(*g.Max))
	}
	if r := g.MaxRelativeRegression; r != nil {
		s := fmt.Sprintf("at most %s%% worse than baseline", num(*r*100))
		if base != nil {
			if b, ok := base.Guardrails[g.Name]; ok {
				s += " (" + num(b) + ")"
			}
		}
		parts = append(parts, s)
	}
	return joinWhy(parts)
}

func compare(pm contract.Primary, values []float64, base *BaselineRef, r *Result) *Comparison {
	if base == nil {
		r.Reasons = append(r.Reasons, "no scored baseline in the ledger: score the baseline experiment first")
		return nil
	}
	c := &Comparison{Experiment: base.Experiment, Seq: base.Seq, N: len(base.Values), Test: "none"}
	if base.Metric != pm.Name || base.Aggregate != pm.Aggregate {
		r.Reasons = append(r.Reasons, fmt.Sprintf("the baseline (ledger seq %d) was scored on %s (%s), not %s (%s): score it again", base.Seq, base.Metric, base.Aggregate, pm.Name, pm.Aggregate))
		return c
	}
	if len(base.Values) == 0 || len(values) == 0 {
		return c
	}
	c.Mean = mean(base.Values)
	m := mean(values)
	c.Delta = m - c.Mean
	if c.Mean != 0 {
		rel := c.Delta / math.Abs(c.Mean)
		c.RelativeDelta = &rel
	}
	if len(values) < 2 || len(base.Values) < 2 {
		c.Test = "too_few_seeds"
		r.Reasons = append(r.Reasons, fmt.Sprintf("too few seeds for a test (%d here, %d in the baseline; at least 2 each, 3+ recommended)", len(values), len(base.Values)))
		return c
	}
	w := WelchTest(values, base.Values)
	c.Test = "welch_t"
	c.T, c.DF, c.PValue = &w.T, &w.DF, &w.PValue
	return c
}

func decide(pm contract.Primary, c *Comparison, r *Result) string {
	if c == nil || c.Test != "welch_t" {
		return Inconclusive
	}
	better := c.Delta > 0
	if pm.Goal == "minimize" {
		better = c.Delta < 0
	}
	if *c.PValue >= Alpha {
		r.Reasons = append(r.Reasons, fmt.Sprintf("the difference %s is not significant (Welch p = %.3g ≥ %g)", signed(c.Delta), *c.PValue, Alpha))
		return Inconclusive
	}
	if math.Abs(c.Delta) < pm.MinAbsoluteChange {
		r.Reasons = append(r.Reasons, fmt.Sprintf("the change %s is smaller than min_absolute_change %s", signed(c.Delta), num(pm.MinAbsoluteChange)))
		return Inconclusive
	}
	if pm.MinRelativeChange > 0 && (c.RelativeDelta == nil || math.Abs(*c.RelativeDelta) < pm.MinRelativeChange) {
		r.Reasons = append(r.Reasons, fmt.Sprintf("the relative change is smaller than min_relative_change %s", num(pm.MinRelativeChange)))
		return Inconclusive
	}
	if better {
		return Improved
	}
	r.Reasons = append(r.Reasons, fmt.Sprintf("%s moved %s, against its goal (%s), p = %.3g", pm.Name, signed(c.Delta), pm.Goal, *c.PValue))
	return Regressed
}

func num(f float64) string { return fmt.Sprintf("%.4g", f) }

func signed(f float64) string { return fmt.Sprintf("%+.4g", f) }

func joinWhy(parts []string) string { return strings.Join(parts, "; ") }
