package arrivals

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
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
// # Exactness
//
// The rates are exact rationals r = p/q and the arrivals integer
// nanoseconds, so X is computed exactly: with D = q·10^9, the integer
// Y = D·X follows Y_{i+1} = max(0, Y_i + D - p·(a_{i+1} - a_i)) in 128-bit
// arithmetic, and every comparison (X > 0, the largest X) is exact. b(r)
// is rounded to float64 once, when reported: a trace that conforms to
// (r, 1) gives exactly 1, and b(r) is the smallest bucket up to that one
// rounding.
//
// Note that a periodic trace at rate r conforms to (r, 1) only when 1/r is
// a whole number of nanoseconds. [Periodic] at rate 3 puts arrival n at
// ceil(n/3 s) on the nanosecond clock: 0, 333333334, 666666667 and
// 1000000000 ns, so the last two are 333333333 ns apart, closer than
// 1/3 s, and b(3) = 1 + 3·(2/3 ns) = 1 + 2·10^-9 tokens exactly (in
// general 1 + r·max(e_i - e_j) < 1 + r·(1 ns), e_n = T_n - n/r the
// rounding of arrival n).
//
// [Network Calculus]: https://leboudec.github.io/netcal/
type BurstCurve struct {
	rates []burstRate
	keep  int            // largest Y values kept per rate
	next  []exact.Int128 // scratch: the new Y of each rate
	n     int64
	last  engine.Time
}

// burstRate is the state of one rate p/q tokens/s.
type burstRate struct {
	r    exact.Rat
	p    exact.Int128   // numerator of the rate, > 0
	d    exact.Int128   // D = q·1e9, the scale of Y
	y    exact.Int128   // Y of the last arrival: D·X
	maxY exact.Int128   // the largest Y
	tops []exact.Int128 // min-heap of the keep largest Y
}

// NewBurstCurve returns an empty curve for the given rates (tokens/s,
// exact, > 0; [exact.FromFloat64] maps a float64 rate to the decimal it
// was written as). keep >= 0 is how many of the largest X values to keep
// per rate, for [BurstCurve.BurstAllowing]: keep = m+1 answers "at most m
// jobs wait" exactly, in memory O(keep) per rate.
func NewBurstCurve(rates []exact.Rat, keep int) (*BurstCurve, error) {
	c := &BurstCurve{keep: keep}
	for _, r := range rates {
		if r.Sign() <= 0 {
			return nil, fmt.Errorf("arrivals: burstiness rate %s tokens/s is invalid: want > 0", r)
		}
		r = r.Reduce()
		c.rates = append(c.rates, burstRate{r: r, p: r.Num(), d: exact.Mul64(r.Den(), 1e9)})
	}
	if keep < 0 {
		return nil, fmt.Errorf("arrivals: burstiness keep %d is invalid: want >= 0", keep)
	}
	return c, nil
}

// Add adds an arrival at t, not earlier than the previous one. Otherwise,
// or if a rate's exact state would leave 128 bits (about 10^38/(q·10^9)
// jobs queued at a rate p/q), it returns an error and changes nothing.
func (c *BurstCurve) Add(t engine.Time) error {
	if c.n > 0 && t < c.last {
		return fmt.Errorf("arrivals: burstiness: arrival %d at %v s is earlier than the previous one at %v s", c.n, t, c.last)
	}
	g, ok := subTime(int64(t), int64(c.last))
	if c.n > 0 && !ok {
		return fmt.Errorf("arrivals: burstiness: arrival %d at %v s is more than 292 years after the previous one", c.n, t)
	}
	if len(c.next) != len(c.rates) {
		c.next = make([]exact.Int128, len(c.rates))
	}
	for k := range c.rates {
		c.next[k] = exact.Int128{} // X_1 = 0
		if c.n == 0 {
			continue
		}
		y, ok := c.rates[k].next(int64(g))
		if !ok {
			return fmt.Errorf("arrivals: burstiness: at rate %s tokens/s the queue before arrival %d exceeds exact 128-bit arithmetic", c.rates[k].r, c.n)
		}
		c.next[k] = y
	}
	for k := range c.rates {
		b := &c.rates[k]
		b.y = c.next[k]
		if b.maxY.Less(b.y) {
			b.maxY = b.y
		}
		if c.keep > 0 {
			b.tops = pushTop(b.tops, b.y, c.keep)
		}
	}
	c.n++
	c.last = t
	return nil
}

// next returns Y after a gap of g >= 0 ns: max(0, Y + D - p·g), and
// whether Y + D fits in 128 bits.
func (b *burstRate) next(g int64) (exact.Int128, bool) {
	up, ok := b.y.AddOK(b.d)
	if !ok {
		return exact.Int128{}, false
	}
	served, ok := b.p.Mul64OK(g)
	if !ok || !served.Less(up) {
		return exact.Int128{}, true // p·g >= Y + D (or beyond 2^127 > Y + D): the queue empties
	}
	return up.Sub(served), true
}

// Jobs returns the number of arrivals added.
func (c *BurstCurve) Jobs() int64 { return c.n }

// Burst returns b(r) = 1 + max_i X_i for each rate, in tokens, rounded
// once to float64: the smallest bucket in which no job waits (1 for an
// empty trace).
func (c *BurstCurve) Burst() []float64 {
	b := make([]float64, len(c.rates))
	for k := range b {
		b[k] = c.rates[k].tokens(c.rates[k].maxY)
	}
	return b
}

// tokens returns 1 + y/D as the nearest float64.
func (b *burstRate) tokens(y exact.Int128) float64 {
	d := b.d.Big()
	f, _ := new(big.Rat).SetFrac(new(big.Int).Add(y.Big(), d), d).Float64()
	return f
}

// burstExact returns 1 + y/D for rate k exactly, for tests.
func (c *BurstCurve) burstExact(k int, y exact.Int128) *big.Rat {
	d := c.rates[k].d.Big()
	return new(big.Rat).SetFrac(new(big.Int).Add(y.Big(), d), d)
}

// BurstAllowing returns, for each rate, the smallest bucket size in which
// at most m jobs wait: 1 + the (m+1)-th largest X_i, or 1 when there are at
// most m jobs, rounded once to float64. It needs keep >= m+1; otherwise it
// returns an error.
func (c *BurstCurve) BurstAllowing(m int64) ([]float64, error) {
	ys, err := c.allowing(m)
	if err != nil {
		return nil, err
	}
	b := make([]float64, len(c.rates))
	for k := range b {
		b[k] = c.rates[k].tokens(ys[k])
	}
	return b, nil
}

// allowing returns the (m+1)-th largest Y of each rate (0 when there are
// at most m jobs).
func (c *BurstCurve) allowing(m int64) ([]exact.Int128, error) {
	if m < 0 {
		return nil, fmt.Errorf("arrivals: burstiness: %d delayed jobs allowed: want >= 0", m)
	}
	ys := make([]exact.Int128, len(c.rates))
	if m >= c.n {
		return ys, nil
	}
	if int64(c.keep) < m+1 {
		return nil, fmt.Errorf("arrivals: burstiness: allowing %d delayed jobs needs the %d largest values per rate, but %d are kept", m, m+1, c.keep)
	}
	for k := range ys {
		// The heap holds the min(keep, n) largest values; its minimum is
		// the (m+1)-th largest when exactly m+1 are kept.
		ys[k] = kthLargest(c.rates[k].tops, int(m+1))
	}
	return ys, nil
}

// pushTop adds x to the min-heap h of the keep largest values.
func pushTop(h []exact.Int128, x exact.Int128, keep int) []exact.Int128 {
	if len(h) < keep {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h[i].Less(h[p]) {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		return h
	}
	if !h[0].Less(x) {
		return h
	}
	h[0] = x
	for i, n := 0, len(h); ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].Less(h[l]) {
			m = r
		}
		if !h[m].Less(h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return h
}

// kthLargest returns the k-th largest value of the heap h (k <= len(h)),
// without changing h.
func kthLargest(h []exact.Int128, k int) exact.Int128 {
	if k == len(h) {
		return h[0]
	}
	// Keep larger than needed: select from a sorted copy.
	s := slices.Clone(h)
	slices.SortFunc(s, func(a, b exact.Int128) int { return a.Cmp(b) })
	return s[len(s)-k]
}
