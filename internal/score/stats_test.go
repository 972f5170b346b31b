package score

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Critical values of Student's t from standard tables (two-sided 95%).
func TestTQuantile(t *testing.T) {
	tests := []struct{ df, want float64 }{
		{1, 12.7062}, {2, 4.3027}, {3, 3.1824}, {4, 2.7764}, {9, 2.2622}, {29, 2.0452}, {1000, 1.9623},
	}
	for _, tt := range tests {
		if got := tQuantile(0.975, tt.df); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("t_0.975(df=%v) = %.5f, want %.4f", tt.df, got, tt.want)
		}
	}
}

// Two-sided p-values of Student's t, from the closed forms for df = 1
// (Cauchy: 1 - 2/π·atan|t|) and df = 2 (1 - |t|/√(2+t²)), and table values.
func TestTTwoSided(t *testing.T) {
	tests := []struct{ t, df, want float64 }{
		{1, 1, 1 - 2/math.Pi*math.Atan(1)},
		{3, 1, 1 - 2/math.Pi*math.Atan(3)},
		{0.5, 2, 1 - 0.5/math.Sqrt(2.25)},
		{4, 2, 1 - 4/math.Sqrt(18)},
		{2.2281, 10, 0.05},
		{2.7638, 10, 0.02},
		{0, 5, 1},
	}
	for _, tt := range tests {
		if got := tTwoSided(tt.t, tt.df); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("p(|T|>=%v; df=%v) = %.6f, want %.6f", tt.t, tt.df, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	sd := math.Sqrt(2.5)
	half := 2.7764451 * sd / math.Sqrt(5)
	want := Summary{Mean: 3, Std: &sd, N: 5, CI95: &[2]float64{3 - half, 3 + half}}
	if diff := cmp.Diff(want, Summarize([]float64{1, 2, 3, 4, 5}), cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("Summarize mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Summary{Mean: 7, N: 1}, Summarize([]float64{7})); diff != "" {
		t.Errorf("single value mismatch (-want +got):\n%s", diff)
	}
}

// Welch's test on the worked example 1 of Wikipedia's "Welch's t-test"
// (two samples of 15): t = -2.46, df = 24.98, p = 0.021.
func TestWelchTest(t *testing.T) {
	a := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	b := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	got := WelchTest(a, b)
	want := Welch{T: -2.46, DF: 24.98, PValue: 0.021}
	if math.Abs(got.T-want.T) > 0.01 || math.Abs(got.DF-want.DF) > 0.05 || math.Abs(got.PValue-want.PValue) > 0.001 {
		t.Errorf("WelchTest = %+v, want ≈ %+v", got, want)
	}
	if w := WelchTest([]float64{500, 500, 500}, []float64{500, 500}); w.PValue != 1 {
		t.Errorf("identical constant samples: p = %v, want 1", w.PValue)
	}
	if w := WelchTest([]float64{500, 500}, []float64{480, 480}); w.PValue != 0 || !math.IsInf(w.T, 1) {
		t.Errorf("different constant samples: %+v, want p = 0, t = +Inf", w)
	}
}
