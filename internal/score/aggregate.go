// Package score turns metric series into the numbers a contract's
// evaluation protocol asks for: one aggregate per seed, a summary across
// seeds, a comparison with the baseline, guardrails, and a verdict.
package score

import (
	"fmt"
	"math"
	"sort"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/suggest"
)

// Aggregates a metric may use, as the contract names them.
const (
	Last      = "last"
	Max       = "max"
	Min       = "min"
	MeanLastN = "mean_last_n"
	AtStep    = "at_step"
)

// An Agg reduces one series to one number in constant memory.
type Agg struct {
	Kind string
	N    int   // for mean_last_n
	Step int64 // for at_step

	count     int64
	last      float64
	lastStep  int64
	max, min  float64
	ring      []float64
	atStepSum float64
	atStepN   int64
	// back is the first point whose step is before the one before it.
	back *StepError
}

// A StepError is a series whose step goes back: a resumed run that logged
// its replayed steps again, or two runs' logs in one file. Which of the
// points count cannot be told, so the series has no value. Several points
// at one step are not an error: a vectorised trainer logs every episode
// that ended at that step (CleanRL's charts/episodic_return does).
type StepError struct {
	Point      int64 // 1-based, in file order among the tag's points
	Step, Prev int64
}

func (e *StepError) Error() string {
	return fmt.Sprintf("step goes back from %d to %d at point %d: the step counter restarted (a resumed run, or two runs in one file)", e.Prev, e.Step, e.Point)
}

// NewAgg returns an aggregator for kind (one of the constants above).
func NewAgg(kind string, n int, step int64) *Agg {
	a := &Agg{Kind: kind, N: n, Step: step, max: math.Inf(-1), min: math.Inf(1)}
	if kind == MeanLastN {
		a.ring = make([]float64, 0, n)
	}
	return a
}

// reset forgets every point, leaving the aggregator as NewAgg made it.
func (a *Agg) reset() {
	ring := a.ring[:0]
	*a = Agg{Kind: a.Kind, N: a.N, Step: a.Step, max: math.Inf(-1), min: math.Inf(1), ring: ring}
}

// Add takes the next point of the series, in file order.
func (a *Agg) Add(p metrics.Point) {
	v := p.Value
	if a.count > 0 && p.Step < a.lastStep && a.back == nil {
		a.back = &StepError{Point: a.count + 1, Step: p.Step, Prev: a.lastStep}
	}
	a.count++
	a.last, a.lastStep = v, p.Step
	// NaN poisons max and min: a series that diverged has no honest extreme.
	if math.IsNaN(v) || v > a.max {
		a.max = v
	}
	if math.IsNaN(v) || v < a.min {
		a.min = v
	}
	if a.Kind == MeanLastN {
		if len(a.ring) < a.N {
			a.ring = append(a.ring, v)
		} else {
			a.ring[(a.count-1)%int64(a.N)] = v // overwrite the oldest
		}
	}
	if a.Kind == AtStep && p.Step == a.Step {
		a.atStepSum += v
		a.atStepN++
	}
}

// Points is how many points were added.
func (a *Agg) Points() int64 { return a.count }

// LastStep is the step of the last point added: the furthest the series
// reached when its steps never go back.
func (a *Agg) LastStep() int64 { return a.lastStep }

// Value is the aggregate. It fails when the series cannot give one: no
// points, no point at the requested step, fewer than n points, or a
// non-finite result.
func (a *Agg) Value() (float64, error) {
	if a.count == 0 {
		return 0, fmt.Errorf("no points")
	}
	if a.back != nil {
		return 0, a.back
	}
	var v float64
	switch a.Kind {
	case Last:
		v = a.last
	case Max:
		v = a.max
	case Min:
		v = a.min
	case MeanLastN:
		if len(a.ring) < a.N {
			return 0, fmt.Errorf("only %d points, mean of the last %d needs %d", a.count, a.N, a.N)
		}
		var s float64
		for _, x := range a.ring {
			s += x
		}
		v = s / float64(a.N)
	case AtStep:
		if a.atStepN == 0 {
			return 0, fmt.Errorf("no point at step %d (last step %d)", a.Step, a.lastStep)
		}
		// Every episode that ended at the step counts alike.
		v = a.atStepSum / float64(a.atStepN)
	default:
		return 0, fmt.Errorf("unknown aggregate %q", a.Kind)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v, fmt.Errorf("value is %v", v)
	}
	return v, nil
}

// A Collector is a metrics.Sink that feeds the aggregators of the tags it
// wants and remembers every tag it saw, for suggestions.
type Collector struct {
	aggs map[string][]*Agg
	seen map[string]bool
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{aggs: map[string][]*Agg{}, seen: map[string]bool{}}
}

// Track adds an aggregator for tag.
func (c *Collector) Track(tag string, a *Agg) { c.aggs[tag] = append(c.aggs[tag], a) }

// Want implements metrics.Sink.
func (c *Collector) Want(tag string) bool {
	c.seen[tag] = true
	return c.aggs[tag] != nil
}

// Point implements metrics.Sink.
func (c *Collector) Point(tag string, p metrics.Point) error {
	for _, a := range c.aggs[tag] {
		a.Add(p)
	}
	return nil
}

// Rewind implements metrics.Rewinder: every aggregate forgets its points,
// so that a reader may start the file over. The tags seen stay seen: the
// file has them either way.
func (c *Collector) Rewind() {
	for _, as := range c.aggs {
		for _, a := range as {
			a.reset()
		}
	}
}

// Seen reports whether the file had the tag at all.
func (c *Collector) Seen(tag string) bool { return c.seen[tag] }

// Closest returns up to three tags of the file most like tag.
func (c *Collector) Closest(tag string) []string {
	type cand struct {
		tag  string
		dist int
	}
	var cs []cand
	for t := range c.seen {
		cs = append(cs, cand{t, suggest.Distance(tag, t)})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].tag < cs[j].tag
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].tag)
	}
	return out
}
