package arrivals

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ratesim/ratesim/engine"
)

// Helpers shared by the statistical tests of the generators.

// drawTimes returns the times of the first n arrivals of p, in float64
// seconds, for the statistical tests, after checking that they never go
// back in time (in exact nanoseconds).
func drawTimes(tb testing.TB, p Process, n int) []float64 {
	tb.Helper()
	ts := make([]float64, n)
	prev := engine.Time(math.MinInt64)
	for i := range ts {
		a, err := p.Next()
		if err != nil {
			tb.Fatalf("Next %d: %v", i, err)
		}
		if a.T < prev {
			tb.Fatalf("arrival %d at %v s is before the previous one at %v s", i, a.T, prev)
		}
		ts[i], prev = a.T.Seconds(), a.T
	}
	return ts
}

// gapsOf returns the gaps between consecutive times.
func gapsOf(ts []float64) []float64 {
	g := make([]float64, len(ts)-1)
	for i := range g {
		g[i] = ts[i+1] - ts[i]
	}
	return g
}

// ksCritical001 is the critical value of sqrt(n)·D at level 0.001 for the
// Kolmogorov distribution (P(K > 1.9495) = 0.001).
const ksCritical001 = 1.9495

// checkKS runs a Kolmogorov-Smirnov test of sample against the
// distribution with quantile function q, using gonum's two-sample
// stat.KolmogorovSmirnov against the quantile grid q((j+½)/m),
// j = 0..m-1, m = 20000, whose empirical CDF is within 1/(2m) of the
// distribution's CDF everywhere: D(sample, grid) is within 1/(2m) of the
// one-sample statistic sup|F_n - F|. (The grid is sorted, as gonum's
// numerical gamma quantile can be off by an ulp.) The test fails when
// sqrt(n)·D > 1.9495 + sqrt(n)/(2m), which a sample from q does with
// probability about 0.001 (the seeds are fixed, so the outcome is
// reproducible).
func checkKS(t *testing.T, name string, sample []float64, q func(p float64) float64) {
	t.Helper()
	n := float64(len(sample))
	if got, lim := ksStatistic(sample, q), ksCritical001+math.Sqrt(n)/(2*ksGrid); got > lim {
		t.Errorf("%s: KS sqrt(n)·D = %.4f over n = %d, want <= %.4f (level 0.001)", name, got, len(sample), lim)
	}
}

// ksGrid is the size of the quantile grid of checkKS.
const ksGrid = 20_000

// ksStatistic returns sqrt(n)·D for checkKS.
func ksStatistic(sample []float64, q func(p float64) float64) float64 {
	x := slices.Clone(sample)
	slices.Sort(x)
	grid := make([]float64, ksGrid)
	for j := range grid {
		grid[j] = q((float64(j) + 0.5) / ksGrid)
	}
	slices.Sort(grid)
	return math.Sqrt(float64(len(x))) * stat.KolmogorovSmirnov(x, nil, grid, nil)
}

// scvSE returns the standard error of the SCV estimate b/a² - 1 from n
// independent draws (a, b the sample means of X and X²), by the delta
// method from the raw moments m1..m4 of X:
//
//	Var ≈ gᵀΣg/n,  g = (-2·m2/m1³, 1/m1²),
//	Σ = [[m2 - m1², m3 - m1·m2], [m3 - m1·m2, m4 - m2²]].
func scvSE(m [5]float64, n int) float64 {
	g0, g1 := -2*m[2]/(m[1]*m[1]*m[1]), 1/(m[1]*m[1])
	s00, s01, s11 := m[2]-m[1]*m[1], m[3]-m[1]*m[2], m[4]-m[2]*m[2]
	return math.Sqrt((g0*g0*s00 + 2*g0*g1*s01 + g1*g1*s11) / float64(n))
}

// sampleSCV returns the SCV of xs with the sample variance (n-1).
func sampleSCV(xs []float64) float64 {
	m, v := stat.MeanVariance(xs, nil)
	return v / (m * m)
}

// batchMeansSE splits xs into k batches of consecutive values, applies f
// to each, and returns the mean of the k values and its standard error,
// sd/sqrt(k): the batch-means estimate of a correlated sequence's
// statistic (batches much longer than the correlation are nearly
// independent).
func batchMeansSE(xs []float64, k int, f func([]float64) float64) (mean, se float64) {
	vals := make([]float64, k)
	size := len(xs) / k
	for i := range vals {
		vals[i] = f(xs[i*size : (i+1)*size])
	}
	m, v := stat.MeanVariance(vals, nil)
	return m, math.Sqrt(v / float64(k))
}

// t999With19 is the 0.9995 quantile of Student's t with 19 degrees of
// freedom: a two-sided 99.9% interval for 20 batch means.
const t999With19 = 3.883

// rateCounts returns the arrival rate in each of k equal time blocks of
// [0, ts[last]].
func rateCounts(ts []float64, k int) []float64 {
	end := ts[len(ts)-1]
	counts := make([]float64, k)
	for _, x := range ts {
		i := min(int(x/end*float64(k)), k-1)
		counts[i]++
	}
	for i := range counts {
		counts[i] /= end / float64(k)
	}
	return counts
}

// mapMoments returns the stationary distribution π of the generator q,
// by power iteration of the uniformized chain P = I + Q/Λ (an independent
// method from NewMMPP's linear solve), and the mean rate πλ, mean gap and
// gap SCV of the MMPP with arrival rates lambda, from the Markovian
// arrival process formulas (M. Neuts, Structured Stochastic Matrices of
// M/G/1 Type, 1989): with D0 = Q - diag(λ), D1 = diag(λ) and
// φ = πD1/(πλ) the phase at an arrival,
//
//	E[X] = φ(-D0)⁻¹1,   E[X²] = 2φ(-D0)⁻²1.
func mapMoments(lambda []float64, q [][]float64) (pi []float64, rate, mean, scv float64) {
	n := len(lambda)
	out := make([]float64, n)
	big := 0.0
	for i := range n {
		for j := range n {
			if j != i {
				out[i] += q[i][j]
			}
		}
		big = max(big, out[i])
	}
	big *= 1.1
	pi = make([]float64, n)
	for i := range pi {
		pi[i] = 1 / float64(n)
	}
	next := make([]float64, n)
	for range 200_000 {
		for j := range n {
			next[j] = pi[j] * (1 - out[j]/big)
			for i := range n {
				if i != j {
					next[j] += pi[i] * q[i][j] / big
				}
			}
		}
		pi, next = next, pi
	}
	for i := range n {
		rate += pi[i] * lambda[i]
	}
	d0 := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			if i == j {
				d0.Set(i, j, out[i]+lambda[i]) // -D0
			} else {
				d0.Set(i, j, -q[i][j])
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(d0); err != nil {
		panic(err)
	}
	phi := mat.NewDense(1, n, nil)
	for i := range n {
		phi.Set(0, i, pi[i]*lambda[i]/rate)
	}
	ones := mat.NewDense(n, 1, nil)
	for i := range n {
		ones.Set(i, 0, 1)
	}
	var a, b, c mat.Dense
	a.Mul(phi, &inv)
	b.Mul(&a, ones)
	mean = b.At(0, 0)
	c.Mul(&a, &inv)
	b.Mul(&c, ones)
	m2 := 2 * b.At(0, 0)
	return pi, rate, mean, m2/(mean*mean) - 1
}
