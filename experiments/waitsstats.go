package experiments

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/ratesim/ratesim/exact"
)

// WaitRun is a run of positive waits, units of 1/scale ns, monotone in
// the index (rising or falling): the waits Wait(i) for i in [From, To),
// as a token bucket's closed form for evenly spread arrivals gives them
// (buckets.SpreadWaits).
type WaitRun struct {
	From, To int64
	Wait     func(i int64) exact.Int128
}

// waitsStats are the waits WaitsStats summarizes.
type waitsStats struct {
	scale, n, delayed int64
	max               exact.Int128
	runs              []WaitRun
	singles           []exact.Int128
}

// WaitsStats returns the delay statistics of n measured jobs of which
// delayed waited, with sum and max their waits' sum and maximum, units
// of 1/scale ns, and the positive waits given as monotone runs and
// single values: the statistics the per-job path ([DelayStats]) computes
// from the same waits, exact quantiles up to [ExactQuantileJobs] delayed
// jobs, then the same log-linear histogram (each bin's share of a run
// found by a galloping search, O(log) evaluations per bin a run crosses).
// stats returns the statistics as delayStats.stats computes them from the
// same waits (newRunStats: exact quantiles up to ExactQuantileJobs delayed
// jobs, from a logHist of every delay beyond).
func WaitsStats(scale, n, delayed int64, sum *big.Int, max exact.Int128, runs []WaitRun, singles []exact.Int128) Stats {
	c := &waitsStats{scale: scale, n: n, delayed: delayed, max: max, runs: runs, singles: singles}
	st := Stats{Jobs: c.n, Delayed: c.delayed, Quantiles: "exact"}
	var h *logHist
	var listed []exact.Int128
	if c.delayed > ExactQuantileJobs {
		st.Quantiles = fmt.Sprintf("log-linear histogram, relative accuracy %g", histogramAccuracy)
		h = c.hist()
	} else {
		listed = c.list()
	}
	total := new(big.Rat).SetFrac(sum, big.NewInt(c.scale))
	st.Total, _ = new(big.Rat).Quo(total, big.NewRat(1e9, 1)).Float64()
	st.Max = exact.Frac(c.max, c.scale).QuoFloat64(1e9)
	if c.n == 0 {
		return st
	}
	st.Mean, _ = new(big.Rat).Quo(total, new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(1e9), big.NewInt(c.n)))).Float64()
	q := make([]float64, 4)
	zeros := c.n - c.delayed
	for i, pm := range []int64{500, 900, 990, 999} {
		r := rank(pm, c.n)
		if r <= zeros {
			continue
		}
		k := r - zeros - 1
		if h != nil {
			q[i] = math.Min(h.at(k), st.Max)
		} else {
			q[i] = c.seconds(listed[k])
		}
	}
	st.P50, st.P90, st.P99, st.P999 = q[0], q[1], q[2], q[3]
	return st
}

// seconds converts a wait of x units to seconds as delayStats.addUnits
// does (one rounding either way).
func (c *waitsStats) seconds(x exact.Int128) float64 {
	if hi, sc := bits.Mul64(uint64(c.scale), 1e9); hi == 0 && sc <= 1<<53 && x.IsInt64() && x.Int64() <= 1<<53 {
		return float64(x.Int64()) / float64(sc)
	}
	return exact.Frac(x, c.scale).QuoFloat64(1e9)
}

// list returns every measured positive wait, sorted (at most
// ExactQuantileJobs of them).
func (c *waitsStats) list() []exact.Int128 {
	out := make([]exact.Int128, 0, c.delayed)
	for _, r := range c.runs {
		for i := r.From; i < r.To; i++ {
			out = append(out, r.Wait(i))
		}
	}
	out = append(out, c.singles...)
	slices.SortFunc(out, exact.Int128.Cmp)
	return out
}

// hist returns the logHist of every measured positive wait (as seconds),
// the per-job path's histogram: a run's waits are monotone, so their bins
// are too, and each bin's share of a run is found by a galloping search
// for its end, O(log) evaluations per bin a run crosses.
func (c *waitsStats) hist() *logHist {
	h := &logHist{}
	for _, r := range c.runs {
		bin := func(i int64) int {
			return int(math.Float64bits(c.seconds(r.Wait(i))) >> histShift)
		}
		for i := r.From; i < r.To; {
			b := bin(i)
			// The first j > i with bin(j) != b: gallop, then bisect.
			lo, step := i, int64(1) // bin(lo) == b
			for lo+step < r.To && bin(lo+step) == b {
				lo += step
				step *= 2
			}
			hi := min(lo+step, r.To) // bin(hi) != b or hi = to
			for hi-lo > 1 {
				m := lo + (hi-lo)/2
				if bin(m) == b {
					lo = m
				} else {
					hi = m
				}
			}
			h.addCount(b, hi-i)
			i = hi
		}
	}
	for _, x := range c.singles {
		h.add(c.seconds(x))
	}
	return h
}
