// Package plot turns metric series into learning-curve charts: it
// downsamples a series while it streams, so that memory stays bounded by the
// number of points drawn rather than by the size of the file, and draws
// charts as deterministic SVG for the dashboard and the report.
package plot

import (
	"fmt"
	"math"
	"sort"

	"github.com/rlxp/rlxp/internal/metrics"
)

// MaxPoints bounds what a caller may ask for, so that a request cannot make
// the bucket array large.
const MaxPoints = 10000

// ReadFunc streams the points of every file of one run into sink.
type ReadFunc func(sink metrics.Sink) error

// Downsample reads the points of tag through read, twice: a first pass
// finds how many finite points there are and their step range, a second
// keeps at most max of them. When there are more than max, the step range
// is cut into max/2 buckets and each keeps its lowest and highest value, so
// spikes survive. Memory is O(max) whatever the file's size. The points
// come back in step order.
func Downsample(read ReadFunc, tag string, max int) ([]metrics.Point, error) {
	if max < 2 || max > MaxPoints {
		return nil, fmt.Errorf("max points %d out of range 2..%d", max, MaxPoints)
	}
	r := &rangeSink{tag: tag}
	if err := read(r); err != nil {
		return nil, err
	}
	if r.n == 0 {
		return []metrics.Point{}, nil
	}
	var b sink
	if r.n <= int64(max) {
		b = &allSink{tag: tag, max: max, pts: make([]metrics.Point, 0, r.n)}
	} else {
		b = newBuckets(tag, max/2, r.lo, r.hi)
	}
	if err := read(b); err != nil {
		return nil, err
	}
	pts := b.points()
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Step < pts[j].Step })
	return pts, nil
}

type sink interface {
	metrics.Sink
	points() []metrics.Point
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// rangeSink counts a tag's finite points and their step range.
type rangeSink struct {
	tag    string
	n      int64
	lo, hi int64
}

func (s *rangeSink) Want(tag string) bool { return tag == s.tag }

func (s *rangeSink) Point(tag string, p metrics.Point) error {
	if tag != s.tag || !finite(p.Value) {
		return nil
	}
	if s.n == 0 || p.Step < s.lo {
		s.lo = p.Step
	}
	if s.n == 0 || p.Step > s.hi {
		s.hi = p.Step
	}
	s.n++
	return nil
}

// allSink keeps every point, up to max: a file still being written may have
// grown since the first pass.
type allSink struct {
	tag string
	max int
	pts []metrics.Point
}

func (s *allSink) Want(tag string) bool { return tag == s.tag }

func (s *allSink) Point(tag string, p metrics.Point) error {
	if tag == s.tag && finite(p.Value) && len(s.pts) < s.max {
		s.pts = append(s.pts, p)
	}
	return nil
}

func (s *allSink) points() []metrics.Point { return s.pts }

// bucket holds the lowest and highest point of a step interval.
type bucket struct {
	set      bool
	min, max metrics.Point
}

type buckets struct {
	tag    string
	lo, hi int64
	b      []bucket
}

func newBuckets(tag string, n int, lo, hi int64) *buckets {
	return &buckets{tag: tag, lo: lo, hi: hi, b: make([]bucket, n)}
}

func (s *buckets) Want(tag string) bool { return tag == s.tag }

func (s *buckets) Point(tag string, p metrics.Point) error {
	if tag != s.tag || !finite(p.Value) {
		return nil
	}
	i := 0
	if span := float64(s.hi - s.lo); span > 0 {
		// Points outside the first pass's range (a growing file) go to
		// the edge buckets.
		i = int(float64(p.Step-s.lo) / span * float64(len(s.b)))
		i = min(max(i, 0), len(s.b)-1)
	}
	b := &s.b[i]
	switch {
	case !b.set:
		b.set, b.min, b.max = true, p, p
	case p.Value < b.min.Value:
		b.min = p
	case p.Value > b.max.Value:
		b.max = p
	}
	return nil
}

func (s *buckets) points() []metrics.Point {
	pts := make([]metrics.Point, 0, 2*len(s.b))
	for _, b := range s.b {
		if !b.set {
			continue
		}
		pts = append(pts, b.min)
		if b.max != b.min {
			pts = append(pts, b.max)
		}
	}
	return pts
}
