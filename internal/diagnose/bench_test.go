package diagnose

import (
	"fmt"
	"testing"

	"github.com/rlxp/rlxp/internal/metrics"
)

// BenchmarkSource feeds a long verl-like run through a Source and
// evaluates every rule: 2000 steps of 120 tags, a fifth of them read by
// rules. Memory per tag is bounded; time is per point.
func BenchmarkSource(b *testing.B) {
	var tags []string
	for _, r := range Rules() {
		for _, n := range r.Needs {
			for _, t := range n.Tags {
				if len(tags) < 24 {
					tags = append(tags, t.Name)
				}
			}
		}
	}
	for i := len(tags); i < 120; i++ {
		tags = append(tags, fmt.Sprintf("timing_per_token_ms/section%d", i))
	}
	const steps = 2000
	b.ReportAllocs()
	for b.Loop() {
		s := NewSource("run.log", Rules())
		for step := int64(1); step <= steps; step++ {
			for i, tag := range tags {
				if err := s.Point(tag, metrics.Point{Step: step, Value: float64(i) + float64(step%7)/10}); err != nil {
					b.Fatal(err)
				}
			}
		}
		Evaluate(Rules(), Input{Sources: []*Source{s}})
	}
	b.ReportMetric(float64(steps*len(tags)), "points/op")
}
