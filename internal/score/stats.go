package score

import "math"

// Summary is a sample's mean, standard deviation (n-1) and 95% confidence
// interval for the mean from Student's t. With one value the spread is
// unknown: Std and CI are nil.
type Summary struct {
	Mean float64     `json:"mean"`
	Std  *float64    `json:"std"`
	N    int         `json:"n"`
	CI95 *[2]float64 `json:"ci95"`
}

// Summarize describes xs; xs must be non-empty and finite.
func Summarize(xs []float64) Summary {
	n := len(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s := Summary{Mean: sum / float64(n), N: n}
	if n < 2 {
		return s
	}
	sd := math.Sqrt(variance(xs, s.Mean))
	half := tQuantile(0.975, float64(n-1)) * sd / math.Sqrt(float64(n))
	s.Std = &sd
	s.CI95 = &[2]float64{s.Mean - half, s.Mean + half}
	return s
}

func variance(xs []float64, mean float64) float64 {
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return ss / float64(len(xs)-1)
}

// Welch is the result of Welch's unequal-variance t-test.
type Welch struct {
	T      float64 `json:"t"`
	DF     float64 `json:"df"`
	PValue float64 `json:"p_value"` // two-sided
}

// WelchTest compares the means of a and b (each with at least two values).
// When both samples have no spread the test is degenerate: equal means give
// p = 1, different means p = 0 (the difference is exact, as with a
// deterministic evaluation).
func WelchTest(a, b []float64) Welch {
	ma, mb := mean(a), mean(b)
	va, vb := variance(a, ma)/float64(len(a)), variance(b, mb)/float64(len(b))
	se2 := va + vb
	if se2 == 0 {
		if ma == mb {
			return Welch{T: 0, DF: float64(len(a) + len(b) - 2), PValue: 1}
		}
		return Welch{T: math.Copysign(math.Inf(1), ma-mb), DF: float64(len(a) + len(b) - 2), PValue: 0}
	}
	t := (ma - mb) / math.Sqrt(se2)
	df := se2 * se2 / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	return Welch{T: t, DF: df, PValue: tTwoSided(t, df)}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// tTwoSided is P(|T| >= |t|) for Student's t with df degrees of freedom:
// I_{df/(df+t²)}(df/2, 1/2).
func tTwoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}

// tQuantile is the p-quantile (p > 0.5) of Student's t, found by bisection
// on the two-sided tail, which is monotone in t.
func tQuantile(p, df float64) float64 {
	tail := 2 * (1 - p)
	lo, hi := 0.0, 1.0
	for tTwoSided(hi, df) > tail {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if tTwoSided(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularised incomplete beta function I_x(a, b),
// evaluated with the continued fraction of Numerical Recipes §6.4
// (modified Lentz), using the symmetry relation where it converges faster.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}
