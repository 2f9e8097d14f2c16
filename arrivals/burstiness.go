package arrivals

import (
	"fmt"
	"math"
	"slices"
)

// BurstCurve computes a trace's burstiness curve b(r) of network calculus
// in one pass per rate: for each token rate r (tokens/s), the smallest
// bucket size b (tokens) such that no job of the trace waits in a token
// bucket (r, b) that starts full, and optionally the smallest b such that
// at most a given number of jobs wait.
//
// Derivation. A token bucket (r, b) that starts full is the G/D/1 queue
// with service time 1/r of R. Guérin, "When Two is Worse Than One" (2019),
// eq. (1): job i, arriving at a_i, waits
//
//	d_i = max(0, U(a_i-) + (1 - b)/r),
//
// where U(a_i-) is the queue's unfinished work just before a_i (jobs at
// the same instant in trace order). U does not depend on b, so job i
// waits exactly when X_i + 1 > b, with X_i = r·U(a_i-) in tokens, and
//
//	b(r) = 1 + max_i X_i.
//
// X follows Lindley's recursion X_1 = 0, X_{i+1} = max(0, X_i + 1 -
// r(a_{i+1} - a_i)); equivalently, b(r) = max_{i<=j} (j - i + 1 - r(a_j -
// a_i)), the most jobs in any interval [a_i, a_j] beyond what rate r
// serves: the smallest (r, b) arrival curve of the trace (J.-Y. Le Boudec
// and P. Thiran, [Network Calculus], 2001, Section 1.4). Likewise at most
// m jobs wait in (r, b) if and only if b >= 1 + X_(m+1), the (m+1)-th
// largest X_i (or 1 when there are at most m jobs).
//
// As in package buckets, X is computed from the start B of the current
// busy period and the number m of jobs that arrived in it,
// X = max(0, m - r(a - B)), one rounding of a product and two of sums per
// arrival, so errors do not accumulate over a long busy period.
//
// [Network Calculus]: https://leboudec.github.io/netcal/
type BurstCurve struct {
	rates []float64
	start []float64 // B per rate, seconds
	jobs  []float64 // m per rate
	maxX  []float64
	keep  int         // largest X values kept per rate
	tops  [][]float64 // per rate: min-heap of the keep largest X
	n     int64
	last  float64
}

// NewBurstCurve returns an empty curve for the given rates (tokens/s,
// finite and > 0). keep >= 0 is how many of the largest X values to keep
// per rate, for [BurstCurve.BurstAllowing]: keep = m+1 answers "at most m
// jobs wait" exactly, in memory O(keep) per rate.
func NewBurstCurve(rates []float64, keep int) (*BurstCurve, error) {
	for _, r := range rates {
		if !(r > 0) || math.IsInf(r, 1) {
			return nil, fmt.Errorf("arrivals: burstiness rate %g tokens/s is invalid: want finite and > 0", r)
		}
	}
	if keep < 0 {
		return nil, fmt.Errorf("arrivals: burstiness keep %d is invalid: want >= 0", keep)
	}
	n := len(rates)
	c := &BurstCurve{rates: append([]float64(nil), rates...), start: make([]float64, n), jobs: make([]float64, n),
		maxX: make([]float64, n), keep: keep}
	if keep > 0 {
		c.tops = make([][]float64, n)
	}
	return c, nil
}

// Add adds an arrival at t seconds, not earlier than the previous one
// (otherwise it returns an error and changes nothing).
func (c *BurstCurve) Add(t float64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) || c.n > 0 && t < c.last {
		return fmt.Errorf("arrivals: burstiness: arrival %d at %g s is not finite or earlier than the previous one at %g s", c.n, t, c.last)
	}
	for k, r := range c.rates {
		x := c.jobs[k] - r*(t-c.start[k])
		if c.n == 0 || x <= 0 {
			x = 0
			c.start[k], c.jobs[k] = t, 0 // a new busy period
		}
		c.jobs[k]++
		c.maxX[k] = max(c.maxX[k], x)
		if c.keep > 0 {
			c.tops[k] = pushTop(c.tops[k], x, c.keep)
		}
	}
	c.n++
	c.last = t
	return nil
}

// Jobs returns the number of arrivals added.
func (c *BurstCurve) Jobs() int64 { return c.n }

// Burst returns b(r) = 1 + max_i X_i for each rate, in tokens: the
// smallest bucket in which no job waits (1 for an empty trace).
func (c *BurstCurve) Burst() []float64 {
	b := make([]float64, len(c.rates))
	for k := range b {
		b[k] = 1 + c.maxX[k]
	}
	return b
}

// BurstAllowing returns, for each rate, the smallest bucket size in which
// at most m jobs wait: 1 + the (m+1)-th largest X_i, or 1 when there are at
// most m jobs. It needs keep >= m+1; otherwise it returns an error.
func (c *BurstCurve) BurstAllowing(m int64) ([]float64, error) {
	if m < 0 {
		return nil, fmt.Errorf("arrivals: burstiness: %d delayed jobs allowed: want >= 0", m)
	}
	b := make([]float64, len(c.rates))
	if m >= c.n {
		for k := range b {
			b[k] = 1
		}
		return b, nil
	}
	if int64(c.keep) < m+1 {
		return nil, fmt.Errorf("arrivals: burstiness: allowing %d delayed jobs needs the %d largest values per rate, but %d are kept", m, m+1, c.keep)
	}
	for k := range b {
		// The heap holds the min(keep, n) largest values; its minimum is
		// the (m+1)-th largest when exactly m+1 are kept.
		h := c.tops[k]
		b[k] = 1 + kthLargest(h, int(m+1))
	}
	return b, nil
}

// pushTop adds x to the min-heap h of the keep largest values.
func pushTop(h []float64, x float64, keep int) []float64 {
	if len(h) < keep {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p] <= h[i] {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		return h
	}
	if x <= h[0] {
		return h
	}
	h[0] = x
	for i, n := 0, len(h); ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return h
}

// kthLargest returns the k-th largest value of the heap h (k <= len(h)),
// without changing h.
func kthLargest(h []float64, k int) float64 {
	if k == len(h) {
		return h[0]
	}
	// Keep larger than needed: select from a sorted copy.
	s := slices.Clone(h)
	slices.Sort(s)
	return s[len(s)-k]
}
