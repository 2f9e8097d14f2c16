package experiments

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMeanCI checks against Student t table values: t_{0.975, 4} =
// 2.7764451051977987 and t_{0.975, 1} = tan(0.475π) = 12.706204736174696
// (the t distribution with 1 degree of freedom is the Cauchy).
func TestMeanCI(t *testing.T) {
	for _, tc := range []struct {
		xs         []float64
		mean, half float64
	}{
		// s² = 2.5, half = 2.7764451051977987·sqrt(2.5/5).
		{[]float64{1, 2, 3, 4, 5}, 3, 1.963243161477561},
		// s = sqrt(2), half = 12.706204736174696·sqrt(2)/sqrt(2).
		{[]float64{0, 2}, 1, 12.706204736174696},
		{[]float64{7, 7, 7}, 7, 0},
	} {
		m, h := MeanCI(tc.xs, 0.95)
		if math.Abs(m-tc.mean) > 1e-12 || math.Abs(h-tc.half) > 1e-9 {
			t.Errorf("MeanCI(%v) = %v ± %v, want %v ± %v", tc.xs, m, h, tc.mean, tc.half)
		}
	}
	if m, h := MeanCI(nil, 0.95); !math.IsNaN(m) || !math.IsNaN(h) {
		t.Errorf("MeanCI(nil) = %v ± %v, want NaN ± NaN", m, h)
	}
	if m, h := MeanCI([]float64{4}, 0.95); m != 4 || !math.IsNaN(h) {
		t.Errorf("MeanCI([4]) = %v ± %v, want 4 ± NaN", m, h)
	}
}

// TestMeanCICoverage: intervals from n = 10 normal samples cover the true
// mean in 95% of 4000 trials; the binomial standard deviation of the
// observed coverage is sqrt(0.95·0.05/4000) = 0.0034, so [0.93, 0.97] is
// a ±6σ band (fixed seed).
func TestMeanCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const trials = 4000
	covered := 0
	xs := make([]float64, 10)
	for range trials {
		for i := range xs {
			xs[i] = 5 + 2*rng.NormFloat64()
		}
		m, h := MeanCI(xs, 0.95)
		if math.Abs(m-5) <= h {
			covered++
		}
	}
	if c := float64(covered) / trials; c < 0.93 || c > 0.97 {
		t.Errorf("coverage %v, want 0.95 ± 0.02", c)
	}
}

// TestRatioCI: an exactly proportional pair has ratio 2 and no spread; a
// hand-computed case; the special cases return NaN or +Inf as documented.
func TestRatioCI(t *testing.T) {
	r, lo, hi := RatioCI([]float64{2, 4, 6}, []float64{1, 2, 3}, 0.95)
	if r != 2 || lo != 2 || hi != 2 {
		t.Errorf("RatioCI(2x, x) = %v [%v, %v], want 2 [2, 2]", r, lo, hi)
	}
	// Means 3 and 2: ratio 1.5. d = y/3 - x/2 = (1/2, -1/6, -1/3), mean 0,
	// s² = (1/4 + 1/36 + 1/9)/2 = 7/36; SE = sqrt(7/108);
	// t_{0.975,2} = 4.302652729749464.
	r, lo, hi = RatioCI([]float64{3, 1, 5}, []float64{1, 1, 4}, 0.95)
	h := 4.302652729749464 * math.Sqrt(7.0/108)
	if math.Abs(r-1.5) > 1e-15 || math.Abs(lo-1.5*math.Exp(-h)) > 1e-9 || math.Abs(hi-1.5*math.Exp(h)) > 1e-9 {
		t.Errorf("RatioCI = %v [%v, %v], want 1.5 [%v, %v]", r, lo, hi, 1.5*math.Exp(-h), 1.5*math.Exp(h))
	}
	if r, lo, hi := RatioCI([]float64{0, 0}, []float64{0, 0}, 0.95); !math.IsNaN(r) || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("RatioCI(0, 0) = %v [%v, %v], want NaN", r, lo, hi)
	}
	if r, _, _ := RatioCI([]float64{1, 0}, []float64{0, 0}, 0.95); !math.IsInf(r, 1) {
		t.Errorf("RatioCI(y > 0, x = 0) = %v, want +Inf", r)
	}
	if r, lo, _ := RatioCI([]float64{0, 0}, []float64{1, 2}, 0.95); r != 0 || !math.IsNaN(lo) {
		t.Errorf("RatioCI(y = 0, x > 0) = %v, %v, want 0, NaN", r, lo)
	}
}

// TestRatioCIPositive: three noisy pairs where the delta method on the
// ratio itself reaches below zero (R ± t·s_d'/(√n·x̄) with d' = y - R·x:
// R = 2, d' = (9, -3, -6), s_d' = √63, half-width 4.30·√21/2 = 9.86 > 2);
// on the log ratio the interval stays positive and contains R.
func TestRatioCIPositive(t *testing.T) {
	ys, xs := []float64{11, 1, 0}, []float64{1, 2, 3}
	r, lo, hi := RatioCI(ys, xs, 0.95)
	if r != 2 || !(lo > 0) || !(lo < r) || !(hi > r) || math.IsInf(hi, 0) {
		t.Errorf("RatioCI = %v [%v, %v], want 2 within a positive finite interval", r, lo, hi)
	}
}

// TestRatioCICoverage: x_i ~ N(10, 1) and y_i = 1.5·x_i + N(0, 0.5²), so
// the ratio of means is 1.5; n = 20 pairs, 4000 trials. The delta method is
// first-order, so the band is wider below: [0.92, 0.97].
func TestRatioCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const trials = 4000
	covered := 0
	xs, ys := make([]float64, 20), make([]float64, 20)
	for range trials {
		for i := range xs {
			xs[i] = 10 + rng.NormFloat64()
			ys[i] = 1.5*xs[i] + 0.5*rng.NormFloat64()
		}
		_, lo, hi := RatioCI(ys, xs, 0.95)
		if lo <= 1.5 && 1.5 <= hi {
			covered++
		}
	}
	if c := float64(covered) / trials; c < 0.92 || c > 0.97 {
		t.Errorf("coverage %v, want about 0.95", c)
	}
}
