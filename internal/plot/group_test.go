package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/score"
)

func pts(xy ...float64) []metrics.Point {
	var out []metrics.Point
	for i := 0; i+1 < len(xy); i += 2 {
		out = append(out, metrics.Point{Step: int64(xy[i]), Value: xy[i+1]})
	}
	return out
}

// TestBandIsScoreCI: at every step the band is score's mean and 95% CI of
// the seeds' values there; seeds logged at other steps are interpolated,
// and steps outside the range all seeds cover are left out.
func TestBandIsScoreCI(t *testing.T) {
	g := []Group{{Experiment: "e", Seeds: []Seed{
		{Run: "a", Points: pts(0, 1, 10, 2, 20, 4, 30, 8)},
		{Run: "b", Points: pts(0, 3, 20, 6)},  // 4.5 at step 10
		{Run: "c", Points: pts(10, 0, 20, 1)}, // starts at 10
	}}}
	Aggregate(g)
	b := g[0].Band
	if d := cmp.Diff([]int64{10, 20}, b.Steps); d != "" {
		t.Fatalf("grid (-want +got):\n%s", d)
	}
	for i, vs := range [][]float64{{2, 4.5, 0}, {4, 6, 1}} {
		want := score.Summarize(vs)
		if b.Mean[i] != want.Mean || b.Lo[i] != want.CI95[0] || b.Hi[i] != want.CI95[1] {
			t.Errorf("step %d: mean %v [%v, %v], want %v %v", b.Steps[i], b.Mean[i], b.Lo[i], b.Hi[i], want.Mean, *want.CI95)
		}
	}
	if d := cmp.Diff([]GridSeed{{"a", []float64{2, 4}}, {"b", []float64{4.5, 6}}, {"c", []float64{0, 1}}}, b.Seeds); d != "" {
		t.Errorf("seeds on the grid (-want +got):\n%s", d)
	}
	if b.N != 3 || g[0].Dots != nil || b.Wall != nil {
		t.Errorf("band: %+v", b)
	}
}

func TestBandOneSeedHasNoInterval(t *testing.T) {
	g := []Group{{Experiment: "e", Seeds: []Seed{{Run: "a", Points: pts(0, 1, 10, 2)}}}}
	Aggregate(g)
	if b := g[0].Band; b.Lo != nil || b.Hi != nil || !cmp.Equal(b.Mean, []float64{1, 2}) {
		t.Errorf("one seed: %+v", b)
	}
}

func TestBandThinsTheGrid(t *testing.T) {
	var a, b []metrics.Point
	for s := range 1000 {
		a = append(a, metrics.Point{Step: int64(s), Value: float64(s)})
		b = append(b, metrics.Point{Step: int64(s), Value: float64(2 * s)})
	}
	g := []Group{{Seeds: []Seed{{Points: a}, {Points: b}}}}
	Aggregate(g)
	st := g[0].Band.Steps
	if len(st) != GridPoints || st[0] != 0 || st[len(st)-1] != 999 {
		t.Errorf("grid of %d steps from %d to %d", len(st), st[0], st[len(st)-1])
	}
}

// TestDots: a metric logged once per run is summarised per experiment as
// score summarises it.
func TestDots(t *testing.T) {
	g := []Group{
		{Experiment: "base", Baseline: true, Seeds: []Seed{{Run: "a", Points: pts(500, 400)}, {Run: "b", Points: pts(500, 410)}, {Run: "c", Points: pts(500, 430)}}},
		{Experiment: "new", Seeds: []Seed{{Run: "d", Points: pts(500, 480)}, {Run: "e"}}},
	}
	if !Once(g) {
		t.Fatal("not seen as logged once per run")
	}
	Aggregate(g)
	if d := cmp.Diff(score.Summarize([]float64{400, 410, 430}), *g[0].Dots); d != "" {
		t.Errorf("baseline dots (-want +got):\n%s", d)
	}
	if g[1].Dots == nil || g[1].Dots.N != 1 || g[1].Dots.CI95 != nil {
		t.Errorf("one value: %+v", g[1].Dots)
	}
	svg := SVG(Chart{Tag: "eval", Groups: g})
	if !bytes.Contains(svg, []byte(`class="dots" data-experiment="base" data-n="3"`)) {
		t.Errorf("no dots drawn:\n%s", svg)
	}
	golden := filepath.Join("testdata", "dots.svg")
	if *update {
		if err := os.WriteFile(golden, svg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(svg, want) {
		t.Errorf("SVG differs from %s (go test -update to accept):\n%s", golden, svg)
	}
}
