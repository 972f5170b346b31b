package plot

import (
	"math"
	"sort"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/score"
)

// GridPoints bounds the shared grid a group's seeds are aligned on.
const GridPoints = 200

// A Seed is one run's curve of a tag: one seed of an experiment.
type Seed struct {
	Run    string          `json:"run"`
	Seed   *int            `json:"seed"`
	Label  string          `json:"label"`
	Points []metrics.Point `json:"-"`
}

// A Group is one experiment's seeds of a tag and their aggregate.
type Group struct {
	Experiment string `json:"experiment"`
	Baseline   bool   `json:"baseline"`
	Seeds      []Seed `json:"seeds"`
	Band       Band   `json:"band"`
	// Dots is the per-run values' summary when every run logged the tag
	// at most once (a metric evaluated at the end of a run).
	Dots *score.Summary `json:"dots,omitempty"`
}

// Band is the mean across seeds at each step of a shared grid, with the
// 95% confidence interval of the mean (Student's t, as score computes it)
// where at least two seeds cover the step.
//
// The grid is the steps any seed logged inside the range every seed
// covers (from the latest first step to the earliest last step), thinned
// to at most GridPoints evenly spread steps, both ends kept. A seed's
// value at a grid step is interpolated linearly between its two logged
// points around it; nothing is extrapolated. Seeds logged at the same
// steps are therefore averaged as logged.
type Band struct {
	Steps []int64   `json:"steps"`
	Mean  []float64 `json:"mean"`
	Lo    []float64 `json:"lo,omitempty"` // nil with fewer than two seeds
	Hi    []float64 `json:"hi,omitempty"`
	N     int       `json:"n"`
	// Wall is the mean time since each seed's first point, in seconds, at
	// each grid step; nil unless every point has a wall time.
	Wall []float64 `json:"wall,omitempty"`
	// Seeds are the seeds' values at the grid steps: smoothing them there
	// keeps the seeds and their mean on the same points.
	Seeds []GridSeed `json:"seeds,omitempty"`
}

// GridSeed is one seed's values interpolated at a band's grid steps.
type GridSeed struct {
	Run    string    `json:"run"`
	Values []float64 `json:"values"`
}

// Once says whether every seed logged at most one point: such a metric
// is drawn as dots per experiment, not as curves.
func Once(groups []Group) bool {
	some := false
	for _, g := range groups {
		for _, s := range g.Seeds {
			if len(s.Points) > 1 {
				return false
			}
			some = some || len(s.Points) == 1
		}
	}
	return some
}

// Aggregate fills in each group's band, or, when the tag was logged once
// per run, its dots' summary.
func Aggregate(groups []Group) {
	once := Once(groups)
	for i := range groups {
		g := &groups[i]
		if once {
			var vs []float64
			for _, s := range g.Seeds {
				if len(s.Points) == 1 {
					vs = append(vs, s.Points[0].Value)
				}
			}
			if len(vs) > 0 {
				sum := score.Summarize(vs)
				g.Dots = &sum
			}
			continue
		}
		g.Band = band(g.Seeds)
	}
}

func band(seeds []Seed) Band {
	var curves [][]metrics.Point
	var runs []string
	for _, s := range seeds {
		if len(s.Points) > 0 {
			curves = append(curves, s.Points)
			runs = append(runs, s.Run)
		}
	}
	b := Band{Steps: []int64{}, Mean: []float64{}, N: len(curves)}
	if len(curves) == 0 {
		return b
	}
	lo, hi := curves[0][0].Step, curves[0][len(curves[0])-1].Step
	wall := true
	for _, c := range curves {
		lo, hi = max(lo, c[0].Step), min(hi, c[len(c)-1].Step)
		for _, p := range c {
			wall = wall && p.WallTime > 0
		}
	}
	if lo > hi {
		return b // the seeds share no step range
	}
	b.Steps = grid(curves, lo, hi)
	if len(curves) > 1 {
		b.Lo, b.Hi = []float64{}, []float64{}
	}
	if wall {
		b.Wall = []float64{}
	}
	b.Seeds = make([]GridSeed, len(curves))
	for i, run := range runs {
		b.Seeds[i] = GridSeed{Run: run, Values: make([]float64, 0, len(b.Steps))}
	}
	at := make([]int, len(curves)) // each curve's cursor: steps rise
	vs := make([]float64, len(curves))
	ws := make([]float64, len(curves))
	for _, step := range b.Steps {
		for i, c := range curves {
			p := interpolate(c, &at[i], step)
			vs[i], ws[i] = p.Value, p.WallTime-c[0].WallTime
			b.Seeds[i].Values = append(b.Seeds[i].Values, p.Value)
		}
		s := score.Summarize(vs)
		b.Mean = append(b.Mean, s.Mean)
		if s.CI95 != nil {
			b.Lo, b.Hi = append(b.Lo, s.CI95[0]), append(b.Hi, s.CI95[1])
		}
		if wall {
			b.Wall = append(b.Wall, score.Summarize(ws).Mean)
		}
	}
	return b
}

// grid is the steps any curve logged within [lo, hi], thinned to at most
// GridPoints.
func grid(curves [][]metrics.Point, lo, hi int64) []int64 {
	set := map[int64]bool{}
	for _, c := range curves {
		for _, p := range c {
			if p.Step >= lo && p.Step <= hi {
				set[p.Step] = true
			}
		}
	}
	steps := make([]int64, 0, len(set))
	for s := range set {
		steps = append(steps, s)
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i] < steps[j] })
	if len(steps) <= GridPoints {
		return steps
	}
	out := make([]int64, 0, GridPoints)
	for i := range GridPoints {
		s := steps[int(math.Round(float64(i)*float64(len(steps)-1)/float64(GridPoints-1)))]
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// interpolate is a curve's value (and wall time) at step, linear between
// the logged points around it. *at is where the search starts: grid steps
// rise, so each curve is walked once. A step logged twice (a restart)
// takes its last value.
func interpolate(c []metrics.Point, at *int, step int64) metrics.Point {
	i := *at
	for i+1 < len(c) && c[i+1].Step <= step {
		i++
	}
	*at = i
	p := c[i]
	if p.Step == step || i+1 == len(c) {
		return p
	}
	q := c[i+1]
	f := float64(step-p.Step) / float64(q.Step-p.Step)
	return metrics.Point{Step: step, Value: p.Value + f*(q.Value-p.Value), WallTime: p.WallTime + f*(q.WallTime-p.WallTime)}
}
