package diagnose

import (
	"math"
	"time"

	"github.com/rlxp/rlxp/internal/metrics"
)

// How much of each series a Source keeps: the first points stand for "the
// run's own earlier steps", the last for "recent". Rules may look no
// further; memory stays bounded whatever the file's size.
const (
	headLen = 20
	tailLen = 60
)

// A Series is a bounded view of one tag's points, in file order.
type Series struct {
	n    int
	head []metrics.Point
	tail []metrics.Point // a ring once full; next is its oldest
	next int
}

func (s *Series) add(p metrics.Point) {
	s.n++
	if len(s.head) < headLen {
		s.head = append(s.head, p)
	}
	if len(s.tail) < tailLen {
		s.tail = append(s.tail, p)
		return
	}
	s.tail[s.next] = p
	s.next = (s.next + 1) % tailLen
}

// Len is the number of points the tag had.
func (s *Series) Len() int { return s.n }

// first returns the first k points; k must be at most headLen and Len.
func (s *Series) first(k int) []metrics.Point { return s.head[:k] }

// last returns the last k points in order; k must be at most tailLen and Len.
func (s *Series) last(k int) []metrics.Point {
	out := make([]metrics.Point, 0, k)
	for i := len(s.tail) - k; i < len(s.tail); i++ {
		out = append(out, s.tail[(s.next+i)%len(s.tail)])
	}
	return out
}

// A stepMark is where a source first reached a step.
type stepMark struct {
	step int64
	wall float64
}

// rateMarks is how many recent steps the wall-time rate spans.
const rateMarks = 21

// A Source collects what one metric file of one run says: the series the
// rules need, and how far the run got. It is a metrics.Sink.
type Source struct {
	Path string // as shown to the user
	keep func(tag string) bool

	series map[string]*Series
	skip   map[string]bool // tags no rule reads
	points int64
	// Points stamped before notBefore (Unix seconds) belong to an earlier
	// run that wrote the same file; they are counted, not kept.
	notBefore float64
	dropped   int64
	// fine is set by a value with more than three decimals: the file does
	// not print values rounded to 0.001 (older verl console logs do).
	fine bool

	hasStep   bool
	firstStep int64
	lastStep  int64
	inc       int64 // the first step increment seen
	marks     []stepMark
	allWall   bool
}

// NewSource returns an empty source that keeps the series rules need.
func NewSource(path string, rules []Rule) *Source {
	return &Source{Path: path, keep: wanted(rules), series: map[string]*Series{}, skip: map[string]bool{}, allWall: true}
}

// Want is true for every tag: each point marks progress, even of tags no
// rule reads.
func (s *Source) Want(string) bool { return true }

// NotBefore leaves out points stamped before t, the run's start: a file
// that several runs append to must not mix them.
func (s *Source) NotBefore(t time.Time) { s.notBefore = float64(t.Unix()) }

// Dropped is how many points NotBefore left out.
func (s *Source) Dropped() int64 { return s.dropped }

// Point records one point.
func (s *Source) Point(tag string, p metrics.Point) error {
	if p.WallTime > 0 && p.WallTime < s.notBefore {
		s.dropped++
		return nil
	}
	s.points++
	if !s.fine && !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) && !thousandths(p.Value) {
		s.fine = true
	}
	sr := s.series[tag]
	if sr == nil && !s.skip[tag] {
		if s.keep(tag) {
			sr = &Series{}
			s.series[tag] = sr
		} else {
			s.skip[tag] = true
		}
	}
	if sr != nil {
		sr.add(p)
	}
	if s.hasStep && p.Step <= s.lastStep {
		return nil
	}
	if !s.hasStep {
		s.firstStep = p.Step
	} else if s.inc == 0 {
		s.inc = p.Step - s.lastStep
	}
	s.hasStep, s.lastStep = true, p.Step
	s.allWall = s.allWall && p.WallTime > 0
	if len(s.marks) == rateMarks {
		s.marks = append(s.marks[:0], s.marks[1:]...)
	}
	s.marks = append(s.marks, stepMark{p.Step, p.WallTime})
	return nil
}

// thousandths says whether v is a whole number of thousandths, as every
// value of a log printed with "%.3f" is.
func thousandths(v float64) bool {
	r := v * 1000
	return math.Abs(r-math.Round(r)) <= 1e-6*math.Max(1, math.Abs(r))
}

// Points is how many points the source kept.
func (s *Source) Points() int64 { return s.points }

// coarse says whether every value had at most three decimals, so that a
// printed 0 may be anything below 0.0005.
func (s *Source) coarse() bool { return s.points > 0 && !s.fine }

// Progress is how far a run got according to one source.
type Progress struct {
	Source   string  `json:"source"`
	LastStep int64   `json:"last_step"`
	PerMin   float64 `json:"steps_per_min,omitempty"` // 0 when unknown
	Basis    string  `json:"basis,omitempty"`         // how PerMin was measured
}

// Rate bases.
const (
	BasisWall    = "point wall times"
	BasisElapsed = "steps logged over the run's elapsed time"
)

// Progress is the source's last step and step rate: from the wall times of
// its recent steps when it has them, else the steps it logged over
// elapsed, the run's running time. ok is false when it logged no step.
func (s *Source) Progress(elapsed time.Duration) (Progress, bool) {
	if !s.hasStep {
		return Progress{}, false
	}
	p := Progress{Source: s.Path, LastStep: s.lastStep}
	first, last := s.marks[0], s.marks[len(s.marks)-1]
	switch {
	case s.allWall && len(s.marks) > 1 && last.wall-first.wall >= 1:
		// Under a second of wall times gives a rate that says nothing
		// (a stand-in or a replay writing every point at once).
		p.PerMin = float64(last.step-first.step) / (last.wall - first.wall) * 60
		p.Basis = BasisWall
	case elapsed > 0:
		// The steps done since the run started: a step N line closes
		// step N, so the first one logged counts too (one increment),
		// unless it is step 0, logged before any training.
		done := s.lastStep - s.firstStep
		if s.firstStep != 0 {
			done += max(s.inc, 1)
		}
		if done > 0 {
			p.PerMin = float64(done) / elapsed.Minutes()
			p.Basis = BasisElapsed
		}
	}
	return p, true
}

// PickProgress chooses the source that says how far a run got: the run's
// log when it has step lines, else the declared source with the most
// points. Sources of one run only: steps of two runs never mix.
func PickProgress(log *Source, declared []*Source) *Source {
	if log != nil && log.hasStep {
		return log
	}
	var best *Source
	for _, s := range declared {
		if s.hasStep && (best == nil || s.points > best.points) {
			best = s
		}
	}
	return best
}
