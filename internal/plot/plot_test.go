package plot

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlxp/rlxp/internal/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// pointsOf is a ReadFunc over fixed points of one tag.
func pointsOf(tag string, pts []metrics.Point) ReadFunc {
	return func(s metrics.Sink) error {
		if !s.Want(tag) {
			return nil
		}
		for _, p := range pts {
			if err := s.Point(tag, p); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestDownsample(t *testing.T) {
	var pts []metrics.Point
	for i := 0; i < 10000; i++ {
		pts = append(pts, metrics.Point{Step: int64(i), Value: float64(i % 100)})
	}
	pts = append(pts, metrics.Point{Step: 5000, Value: math.NaN()}, metrics.Point{Step: 5001, Value: math.Inf(1)})
	got, err := Downsample(pointsOf("r", pts), "r", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 100 {
		t.Fatalf("%d points, want 100", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Step < got[i-1].Step {
			t.Fatalf("points out of step order at %d", i)
		}
	}
	all, _ := Downsample(pointsOf("r", pts[:50]), "r", 100)
	if len(all) != 50 {
		t.Errorf("%d points, want all 50", len(all))
	}
	if _, err := Downsample(pointsOf("r", pts), "r", 1); err == nil {
		t.Error("max 1 accepted")
	}
}

func TestSVGGolden(t *testing.T) {
	groups := []Group{
		{Experiment: "baseline", Baseline: true, Seeds: []Seed{
			{Run: "base-0", Points: []metrics.Point{{Step: 0, Value: 1}, {Step: 10, Value: 3}, {Step: 20, Value: 2}}},
			{Run: "base-1", Points: []metrics.Point{{Step: 0, Value: 2}, {Step: 10, Value: 2}, {Step: 20, Value: 3}}},
		}},
		{Experiment: "fast", Seeds: []Seed{
			{Run: "fast-0", Points: []metrics.Point{{Step: 0, Value: 1.5}, {Step: 20, Value: 4.25}}},
			{Run: "fast-1", Points: []metrics.Point{{Step: 0, Value: 1}, {Step: 10, Value: 2}, {Step: 20, Value: 4}}},
		}},
		{Experiment: "slow", Seeds: []Seed{{Run: "slow-0"}}},
	}
	Aggregate(groups)
	c := Chart{Title: "primary: reward <mean>", Tag: "reward", Groups: groups}
	got := SVG(c)
	if !bytes.Equal(got, SVG(c)) {
		t.Fatal("SVG differs between two calls")
	}
	golden := filepath.Join("testdata", "chart.svg")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("SVG differs from %s (go test -update to accept):\n%s", golden, got)
	}
	empty := SVG(Chart{Title: "t", Tag: "t"})
	if !bytes.Contains(empty, []byte("no points logged")) {
		t.Error("an empty chart does not say so")
	}
}

func FuzzDownsample(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, 4)
	f.Add([]byte{}, 2)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		var pts []metrics.Point
		for i := 0; i+1 < len(data); i += 2 {
			pts = append(pts, metrics.Point{Step: int64(int8(data[i])), Value: float64(data[i+1])})
		}
		got, err := Downsample(pointsOf("t", pts), "t", max)
		if err != nil {
			if max >= 2 && max <= MaxPoints {
				t.Fatalf("max %d refused: %v", max, err)
			}
			return
		}
		if len(got) > max || len(got) > len(pts) {
			t.Fatalf("%d points from %d, max %d", len(got), len(pts), max)
		}
		if len(pts) > 0 && len(got) == 0 {
			t.Fatal("no points kept")
		}
		g := []Group{{Experiment: "e", Seeds: []Seed{{Run: "r", Points: got}, {Run: "s", Points: pts}}}}
		Aggregate(g)
		SVG(Chart{Tag: "t", Groups: g})
	})
}
