package experiments

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ConfidenceLevel is the level of every confidence interval ratesim
// reports.
const ConfidenceLevel = 0.95

// tQuantile returns the two-sided Student t critical value t_{(1+level)/2, n-1}
// for n observations (n >= 2), from gonum's distuv.StudentsT.
func tQuantile(level float64, n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	return t.Quantile((1 + level) / 2)
}

// MeanCI returns the sample mean of the independent observations xs and
// the half-width of its two-sided confidence interval at the given level
// (e.g. 0.95):
//
//	x̄ ± t_{(1+level)/2, n-1} · s / √n
//
// with s the sample standard deviation (Student t; the replication means of
// a sweep are independent and, for long replications, nearly normal).
//
// Special cases:
//
//	n = 0        NaN, NaN
//	n = 1        x_0, NaN (no spread to estimate)
//	s = 0        x̄, 0
func MeanCI(xs []float64, level float64) (mean, half float64) {
	switch len(xs) {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return xs[0], math.NaN()
	}
	m, v := stat.MeanVariance(xs, nil)
	return m, tQuantile(level, len(xs)) * math.Sqrt(v/float64(len(xs)))
}

// RatioCI returns the ratio of means R = ȳ/x̄ of the paired observations
// (x_i, y_i) and its two-sided confidence interval [lo, hi] at the given
// level, by the delta method on the log of the ratio:
//
//	d_i = y_i/ȳ - x_i/x̄,   SE(log R) = s_d / √n,   [R·e^{-t·SE}, R·e^{+t·SE}]
//
// with t = t_{(1+level)/2, n-1}. The interval is positive, as the ratio of
// two positive means is, and asymmetric about R; the delta method on R
// itself gives R ± t·s_d'/(√n·x̄) with d'_i = y_i - R·x_i, which can reach
// below zero when the replications are few and noisy.
//
// Pairing matters: when x_i and y_i come from the same random numbers
// (common random numbers), s_d is much smaller than the spread of the y_i
// alone. Reference: A. M. Law, Simulation Modeling and Analysis, 5th ed.
// (2015), Section 9.4 (ratio of means, delta method); the log transform is
// the standard one for ratio estimands, e.g. D. W. Hosmer et al., Applied
// Survival Analysis, 2nd ed. (2008), Section 4.3 on log hazard ratios.
//
// Special cases:
//
//	len(xs) != len(ys)    panics
//	n = 0                 NaN, NaN, NaN
//	x̄ = 0, ȳ = 0          NaN, NaN, NaN (neither system delays: no ratio)
//	x̄ = 0, ȳ > 0          +Inf, NaN, NaN
//	ȳ = 0, x̄ > 0          0, NaN, NaN (no log)
//	n = 1                 R, NaN, NaN
func RatioCI(ys, xs []float64, level float64) (ratio, lo, hi float64) {
	if len(xs) != len(ys) {
		panic("experiments: RatioCI needs paired observations")
	}
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mx, my := stat.Mean(xs, nil), stat.Mean(ys, nil)
	if mx == 0 {
		if my == 0 {
			return math.NaN(), math.NaN(), math.NaN()
		}
		return math.Inf(1), math.NaN(), math.NaN()
	}
	r := my / mx
	if n == 1 || my == 0 {
		return r, math.NaN(), math.NaN()
	}
	// The delta method on log(Ȳ/X̄): Var ≈ Var(Y)/(n·Ȳ²) + Var(X)/(n·X̄²)
	// - 2·Cov(X, Y)/(n·X̄·Ȳ), that is the variance of d_i = y_i/Ȳ - x_i/X̄
	// over n; the interval exp(log r ± t·se) is positive, as the ratio of
	// two positive means is.
	d := make([]float64, n)
	for i := range d {
		d[i] = ys[i]/my - xs[i]/mx
	}
	_, v := stat.MeanVariance(d, nil)
	se := math.Sqrt(v / float64(n))
	h := tQuantile(level, n) * se
	return r, r * math.Exp(-h), r * math.Exp(h)
}
