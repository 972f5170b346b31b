package dashboard

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
)

// Side is one experiment's latest ledger entry in a comparison.
type Side struct {
	Experiment string      `json:"experiment"`
	Seq        int64       `json:"seq"`
	Mean       *float64    `json:"mean"`
	CI95       *[2]float64 `json:"ci95"`
	N          int         `json:"n"`
	Values     []float64   `json:"values"` // per-seed primary values
}

// Comparison is experiment A against experiment B on the primary metric.
type Comparison struct {
	Schema        string   `json:"schema"`
	A             Side     `json:"a"`
	B             Side     `json:"b"`
	Delta         *float64 `json:"delta"` // mean of A minus mean of B
	RelativeDelta *float64 `json:"relative_delta"`
	Test          string   `json:"test"` // welch_t | too_few_seeds | none
	PValue        *float64 `json:"p_value"`
	// From says where Δ and p come from: "ledger" when one entry was
	// scored against the other, else "welch_t on the ledger's per-seed
	// values", score's own test on the numbers the ledger holds.
	From string `json:"from"`
}

// ErrNotScored is what Compare returns for an experiment with no ledger
// entry.
var ErrNotScored = fmt.Errorf("no ledger entry")

// Compare compares the latest ledger entries of experiments a and b. When
// one was scored against the other (b is the baseline a was judged
// against), Δ and p are the ledger's own; otherwise they are computed from
// the per-seed values the ledger holds, with score's statistics.
func Compare(entries []ledger.Entry, a, b string) (Comparison, error) {
	c := Comparison{Schema: "rlxp.compare/v1", Test: "none"}
	ea, ok := latestEntry(entries, a)
	if !ok {
		return c, fmt.Errorf("%w of experiment %q", ErrNotScored, a)
	}
	eb, ok := latestEntry(entries, b)
	if !ok {
		return c, fmt.Errorf("%w of experiment %q", ErrNotScored, b)
	}
	c.A, c.B = side(ea), side(eb)
	if scoredAgainst(ea, eb) {
		c.Delta, c.RelativeDelta, c.PValue = num(ea, "baseline", "delta"), num(ea, "baseline", "relative_delta"), num(ea, "baseline", "p_value")
		c.Test, c.From = ea.String("baseline", "test"), "ledger"
		return c, nil
	}
	if scoredAgainst(eb, ea) {
		if d := num(eb, "baseline", "delta"); d != nil {
			neg := -*d
			c.Delta = &neg
			if c.A.Mean != nil && *c.A.Mean != 0 {
				rel := neg / math.Abs(*c.A.Mean)
				c.RelativeDelta = &rel
			}
		}
		// Welch's test is symmetric: the same p either way round.
		c.PValue, c.Test, c.From = num(eb, "baseline", "p_value"), eb.String("baseline", "test"), "ledger"
		return c, nil
	}
	c.From = "welch_t on the ledger's per-seed values"
	if len(c.A.Values) == 0 || len(c.B.Values) == 0 {
		return c, nil
	}
	ma, mb := score.Summarize(c.A.Values).Mean, score.Summarize(c.B.Values).Mean
	d := ma - mb
	c.Delta = &d
	if mb != 0 {
		rel := d / math.Abs(mb)
		c.RelativeDelta = &rel
	}
	if len(c.A.Values) < 2 || len(c.B.Values) < 2 {
		c.Test = "too_few_seeds"
		return c, nil
	}
	w := score.WelchTest(c.A.Values, c.B.Values)
	c.Test, c.PValue = "welch_t", &w.PValue
	return c, nil
}

// scoredAgainst says whether entry a was judged against entry b.
func scoredAgainst(a, b ledger.Entry) bool {
	seq := num(a, "baseline", "seq")
	return a.String("baseline", "experiment") == b.String("experiment") && seq != nil && int64(*seq) == b.Seq
}

func latestEntry(entries []ledger.Entry, id string) (ledger.Entry, bool) {
	var out ledger.Entry
	found := false
	for _, e := range entries {
		if e.String("experiment") == id {
			out, found = e, true
		}
	}
	return out, found
}

func side(e ledger.Entry) Side {
	s := Side{Experiment: e.String("experiment"), Seq: e.Seq, Mean: num(e, "primary", "mean"), Values: []float64{}}
	if v, ok := e.Lookup("primary", "ci95"); ok {
		if a, ok := v.([]any); ok && len(a) == 2 {
			lo, ok1 := float(a[0])
			hi, ok2 := float(a[1])
			if ok1 && ok2 {
				s.CI95 = &[2]float64{lo, hi}
			}
		}
	}
	per, _ := e.Lookup("primary", "per_seed")
	list, _ := per.([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		if f, ok := float(m["value"]); ok {
			s.Values = append(s.Values, f)
		}
	}
	s.N = len(s.Values)
	return s
}

func num(e ledger.Entry, path ...string) *float64 {
	v, ok := e.Lookup(path...)
	if !ok {
		return nil
	}
	f, ok := float(v)
	if !ok {
		return nil
	}
	return &f
}

func float(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}
