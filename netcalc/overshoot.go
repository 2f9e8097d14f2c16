package netcalc

import (
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// ErrRange is wrapped by the errors of an overshoot measurement whose
// scaled integers do not fit in 127 bits (a rate or burst with a huge
// numerator or denominator, an instant near the clock's end).
var ErrRange = errors.New("netcalc: beyond the exact range")

// Overshoot is how far a job stream exceeds an arrival curve α, exactly,
// over every interval length d >= 0, with α*(d) the most instants of the
// stream in any closed interval [s, s + d] (as
// buckets.MeasureArrivalCurve counts them) and α(d+) the bound on such an
// interval (see the package documentation):
//
//	Excess = sup_d α*(d) − α(d+)   (jobs)
//	Ratio  = sup_d α*(d) / α(d+)
//
// Both suprema are maxima over the pairs of instants t_i <= t_j of the
// stream, d = t_j − t_i and j − i + 1 instants: α* steps only at such
// gaps and α is non-decreasing, so for any d the best pair with gap g <= d
// scores at least as well at d = g. The stream keeps α exactly when Excess
// <= 0, that is when Ratio <= 1.
type Overshoot struct {
	Excess   *big.Rat // jobs; −α(0+) for an empty stream
	ExcessAt Window   // the window where Excess is reached
	Ratio    *big.Rat // 0 for an empty stream
	RatioAt  Window   // the window where Ratio is reached
	Jobs     int      // instants measured
}

// Window is a closed interval [From, To] of a stream: Jobs instants, the
// first at From and the last at To (ns), against Bound = α((To − From)+)
// jobs.
type Window struct {
	From, To engine.Time
	Jobs     int
	Bound    *big.Rat
}

// D returns the window's length To − From, ns.
func (w Window) D() engine.Time { return w.To - w.From }

// ExcessFloat64 and RatioFloat64 return Excess and Ratio rounded to the
// nearest float64.
func (o Overshoot) ExcessFloat64() float64 { f, _ := o.Excess.Float64(); return f }

// RatioFloat64 returns Ratio rounded to the nearest float64.
func (o Overshoot) RatioFloat64() float64 { f, _ := o.Ratio.Float64(); return f }

// Kept reports whether the stream keeps the curve: Excess <= 0.
func (o Overshoot) Kept() bool { return o.Excess.Sign() <= 0 }

// Worse reports whether o's ratio exceeds p's (by which a caller keeps the
// worst of several streams, such as keys).
func (o Overshoot) Worse(p Overshoot) bool { return o.Ratio.Cmp(p.Ratio) > 0 }

// MeasureOvershoot returns the exact [Overshoot] of the stream ts (ns,
// non-decreasing) against a: a [TokenBucket] with Burst > 0, a [Concave]
// of them, or a [Staircase].
//
// Cost: O(n log n) per token bucket (see [OvershootMeter]); for a
// staircase, O(n) for the ratio and O(n log n) for the excess. The
// staircase L·(floor(d/W) + 1) reaches its ratio at a gap shorter than W:
// a closed interval shorter than (k+1)·W splits into k+1 half-open pieces
// of length W, each holding at most α*(W−) instants (the most in a gap
// shorter than W), so α*(d)/α(d+) <= α*(W−)/L. Its excess, max over i <= j
// of j − i + 1 − L·(floor((t_j − t_i)/W) + 1), is found with t/W split into
// an integer part f and a remainder r: floor((t_j − t_i)/W) = f_j − f_i − 1
// when r_j < r_i and f_j − f_i otherwise, so for each j it is the larger of
// max_{i<=j} (L·f_i − i) and max_{i<j, r_i > r_j} (L·f_i − i) + L, the
// second a prefix maximum in a Fenwick tree over the remainders' ranks.
//
// Errors: an invalid curve, a token bucket with Burst 0 (its ratio is
// infinite at d = 0), instants out of order (the error names the index),
// and scaled integers beyond 127 bits (wrapping [ErrRange]).
func MeasureOvershoot(ts []engine.Time, a Arrival) (Overshoot, error) {
	if err := checkArrival(a); err != nil {
		return Overshoot{}, err
	}
	for i := 1; i < len(ts); i++ {
		if ts[i] < ts[i-1] {
			return Overshoot{}, fmt.Errorf("netcalc: instant %d (%v s) is before instant %d (%v s)", i, ts[i], i-1, ts[i-1])
		}
	}
	if s, ok := a.(Staircase); ok {
		return staircaseOvershoot(ts, s)
	}
	m, err := NewOvershootMeter(a)
	if err != nil {
		return Overshoot{}, err
	}
	for _, t := range ts {
		if err := m.Add(t); err != nil {
			return Overshoot{}, err
		}
	}
	return m.Result(), nil
}

// OvershootMeter measures the exact [Overshoot] of a stream against a
// [TokenBucket] or a [Concave] curve as its instants come, in order. Its
// memory is the lower convex hull of the points below (per bucket): at
// most the instants so far, 2 for a periodic stream, O(log n) expected for
// a random walk.
//
// For a bucket γ(r, b) with r = p/q jobs/s and b = u/w jobs, everything is
// scaled to integers by M = w·q·10^9: a pair i <= j scores
//
//	excess·M = (j + 1)·M − p·w·t_j + (p·w·t_i − i·M) − u·q·10^9
//
// so a running maximum of p·w·t_i − i·M gives the excess in O(1) per
// instant; and
//
//	ratio = M·(y_P − y_Q)/(x_P − x_Q),  Q_i = (p·w·t_i, i − 1),  P_j = (p·w·t_j + u·q·10^9, j)
//
// the steepest slope from P_j to a point Q_i with i <= j, all of which lie
// to its left. That slope is reached on the lower convex hull of the Q_i
// (a line through P_j with the best slope has every Q_i on or above it),
// and along that hull the slope to P_j rises while the next edge is less
// steep than the slope to P_j and falls after (each slope is a mediant of
// the previous one and an edge, and edge slopes increase), so a binary
// search finds it: O(log h) per instant for a hull of h points, the hull
// kept by Andrew's monotone chain as the Q_i come in increasing x.
//
// The zero value is not usable; use [NewOvershootMeter].
type OvershootMeter struct {
	bs   []bucketMeter
	n    int
	last engine.Time
	err  error
}

// bucketMeter measures against one token bucket.
type bucketMeter struct {
	tb      TokenBucket
	a, k, m exact.Int128 // p·w, u·q·10^9, M = w·q·10^9
	im      exact.Int128 // i·M for the next instant i
	// excess: the running max of p·w·t_i − i·M, its index and instant,
	// and the best pair.
	maxA   exact.Int128
	maxAt  engine.Time
	maxAi  int
	e      exact.Int128 // best excess·M
	eFrom  engine.Time
	eTo    engine.Time
	eJobs  int
	hasE   bool
	hull   []hullPoint
	rJobs  int64        // best ratio: rJobs·M/rDen
	rDen   exact.Int128 // x_P − x_Q of the best pair
	rFrom  engine.Time
	rTo    engine.Time
	hasR   bool
	rIndex int
}

type hullPoint struct {
	x exact.Int128
	y int64 // i − 1
	t engine.Time
}

// NewOvershootMeter returns a meter of a stream against a, a [TokenBucket]
// with Burst > 0 or a [Concave] of them. Errors: an invalid or
// unsupported curve, and scale factors beyond 127 bits (wrapping
// [ErrRange]).
func NewOvershootMeter(a Arrival) (*OvershootMeter, error) {
	if err := checkArrival(a); err != nil {
		return nil, err
	}
	var tbs []TokenBucket
	switch a := a.(type) {
	case TokenBucket:
		tbs = []TokenBucket{a}
	case Concave:
		tbs = a
	default:
		return nil, fmt.Errorf("netcalc: an overshoot meter takes a token bucket or a concave curve, not %v", a)
	}
	m := &OvershootMeter{}
	for _, tb := range tbs {
		if tb.Burst.Sign() <= 0 {
			return nil, fmt.Errorf("netcalc: the overshoot of %v: a burst of 0 makes the ratio infinite at d = 0; want a burst > 0", tb)
		}
		w, q := tb.Burst.Den(), tb.Rate.Den()
		m1, ok1 := exact.Mul64(w, q).Mul64OK(int64(engine.Second))
		a1, ok2 := tb.Rate.Num().Mul64OK(w)
		k1, ok3 := tb.Burst.Num().Mul64OK(q)
		k1, ok4 := k1.Mul64OK(int64(engine.Second))
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, fmt.Errorf("netcalc: the overshoot of %v: its scale factors do not fit in 127 bits: %w", tb, ErrRange)
		}
		m.bs = append(m.bs, bucketMeter{tb: tb, a: a1, k: k1, m: m1})
	}
	return m, nil
}

// Add feeds the next instant t (ns, at or after the previous one).
// Errors: an instant before the previous one, and scaled values beyond
// 127 bits (wrapping [ErrRange]); after an error the meter keeps it and
// ignores further instants.
func (m *OvershootMeter) Add(t engine.Time) error {
	if m.err != nil {
		return m.err
	}
	if m.n > 0 && t < m.last {
		m.err = fmt.Errorf("netcalc: instant %d (%v s) is before instant %d (%v s)", m.n, t, m.n-1, m.last)
		return m.err
	}
	for i := range m.bs {
		if err := m.bs[i].add(m.n, t); err != nil {
			m.err = err
			return err
		}
	}
	m.n++
	m.last = t
	return nil
}

// Err returns the meter's first error, or nil.
func (m *OvershootMeter) Err() error { return m.err }

func (b *bucketMeter) add(j int, t engine.Time) error {
	x, ok := b.a.Mul64OK(int64(t))
	if !ok {
		return fmt.Errorf("netcalc: the overshoot against %v at %v s: %w", b.tb, t, ErrRange)
	}
	// Excess: A_j = x_j − j·M; E = (j + 1)·M − x_j + max A − K.
	aj, ok := addOK(x, b.im.Neg())
	if !ok {
		return fmt.Errorf("netcalc: the overshoot against %v at %v s: %w", b.tb, t, ErrRange)
	}
	if j == 0 || b.maxA.Less(aj) {
		b.maxA, b.maxAi, b.maxAt = aj, j, t
	}
	next, ok := addOK(b.im, b.m)
	if !ok {
		return fmt.Errorf("netcalc: the overshoot against %v after %d instants: %w", b.tb, j, ErrRange)
	}
	b.im = next // (j + 1)·M
	e, ok1 := addOK(next, x.Neg())
	e, ok2 := addOK(e, b.maxA)
	e, ok3 := addOK(e, b.k.Neg())
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("netcalc: the overshoot against %v at %v s: %w", b.tb, t, ErrRange)
	}
	if !b.hasE || b.e.Less(e) {
		b.e, b.eFrom, b.eTo, b.eJobs, b.hasE = e, b.maxAt, t, j-b.maxAi+1, true
	}
	// Ratio: Q_j joins the hull (unless a hull point with its x lies
	// below it), then the steepest slope from P_j.
	q := hullPoint{x: x, y: int64(j) - 1, t: t}
	h := b.hull
	if n := len(h); n == 0 || h[n-1].x.Less(x) {
		for len(h) >= 2 {
			o, p := h[len(h)-2], h[len(h)-1]
			// Pop p unless o, p, q turn left: (x_p − x_o)(y_q − y_o) > (y_p − y_o)(x_q − x_o).
			if cmpMul(q.y-o.y, p.x.Sub(o.x), p.y-o.y, q.x.Sub(o.x)) > 0 {
				break
			}
			h = h[:len(h)-1]
		}
		h = append(h, q)
		b.hull = h
	}
	px, ok := addOK(x, b.k)
	if !ok {
		return fmt.Errorf("netcalc: the overshoot against %v at %v s: %w", b.tb, t, ErrRange)
	}
	py := int64(j)
	// The first k whose edge is at least as steep as the slope to P.
	lo, hi := 0, len(h)-1
	for lo < hi {
		mid := (lo + hi) / 2
		u, v := h[mid], h[mid+1]
		// edge < slope(u, P): (y_v − y_u)(x_P − x_u) < (y_P − y_u)(x_v − x_u)
		if cmpMul(v.y-u.y, px.Sub(u.x), py-u.y, v.x.Sub(u.x)) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	best := h[lo]
	dy, dx := py-best.y, px.Sub(best.x)
	// Better when dy/dx > rJobs/rDen.
	if !b.hasR || cmpMul(dy, b.rDen, b.rJobs, dx) > 0 {
		b.rJobs, b.rDen, b.rFrom, b.rTo, b.rIndex, b.hasR = dy, dx, best.t, t, int(best.y+1), true
	}
	return nil
}

// Result returns the overshoot of the instants fed so far.
func (m *OvershootMeter) Result() Overshoot {
	o := Overshoot{Jobs: m.n}
	for i := range m.bs {
		r := m.bs[i].result(m.n)
		if i == 0 || r.Excess.Cmp(o.Excess) > 0 {
			o.Excess, o.ExcessAt = r.Excess, r.ExcessAt
		}
		if i == 0 || r.Ratio.Cmp(o.Ratio) > 0 {
			o.Ratio, o.RatioAt = r.Ratio, r.RatioAt
		}
	}
	if len(m.bs) > 1 { // the bound of a concave curve is the least bucket's
		c := Concave{}
		for _, b := range m.bs {
			c = append(c, b.tb)
		}
		o.ExcessAt.Bound = c.window(nsRat(o.ExcessAt.D()))
		o.RatioAt.Bound = c.window(nsRat(o.RatioAt.D()))
	}
	return o
}

func (b *bucketMeter) result(n int) Overshoot {
	if n == 0 {
		bound := b.tb.Burst.Big()
		return Overshoot{Excess: new(big.Rat).Neg(bound), Ratio: new(big.Rat), ExcessAt: Window{Bound: bound}, RatioAt: Window{Bound: bound}}
	}
	o := Overshoot{Jobs: n}
	o.Excess = new(big.Rat).SetFrac(b.e.Big(), b.m.Big())
	o.ExcessAt = Window{From: b.eFrom, To: b.eTo, Jobs: b.eJobs, Bound: b.tb.window(nsRat(b.eTo - b.eFrom))}
	o.Ratio = new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(b.rJobs), b.m.Big()), b.rDen.Big())
	o.RatioAt = Window{From: b.rFrom, To: b.rTo, Jobs: int(b.rJobs), Bound: b.tb.window(nsRat(b.rTo - b.rFrom))}
	return o
}

// nsRat returns d ns in seconds.
func nsRat(d engine.Time) *big.Rat { return big.NewRat(int64(d), int64(engine.Second)) }

// addOK returns x + y and whether it fits.
func addOK(x, y exact.Int128) (exact.Int128, bool) { return x.AddOK(y) }

// cmpMul compares a·x with b·y for a, b >= 0 and x, y >= 0: in 127 bits
// when both products fit, through math/big otherwise.
func cmpMul(a int64, x exact.Int128, b int64, y exact.Int128) int {
	p, ok1 := x.Mul64OK(a)
	q, ok2 := y.Mul64OK(b)
	if ok1 && ok2 {
		return p.Cmp(q)
	}
	l := new(big.Int).Mul(big.NewInt(a), x.Big())
	return l.Cmp(new(big.Int).Mul(big.NewInt(b), y.Big()))
}

// staircaseOvershoot measures ts (sorted) against s (see MeasureOvershoot).
func staircaseOvershoot(ts []engine.Time, s Staircase) (Overshoot, error) {
	L := s.Jobs
	bound0 := big.NewRat(L, 1)
	if len(ts) == 0 {
		return Overshoot{Excess: new(big.Rat).Neg(bound0), Ratio: new(big.Rat), ExcessAt: Window{Bound: bound0}, RatioAt: Window{Bound: bound0}}, nil
	}
	// W = p/q s; a gap g ns is shorter than W when g·q < p·10^9.
	q := s.Window.Den()
	mod, ok := s.Window.Num().Mul64OK(int64(engine.Second))
	if !ok {
		return Overshoot{}, fmt.Errorf("netcalc: the overshoot of %v: W·10^9 beyond 127 bits: %w", s, ErrRange)
	}
	t0 := ts[0]
	us := make([]exact.Int128, len(ts))
	for i, t := range ts {
		u, ok := exact.I128(int64(t - t0)).Mul64OK(q)
		if !ok {
			return Overshoot{}, fmt.Errorf("netcalc: the overshoot of %v at %v s: %w", s, t, ErrRange)
		}
		us[i] = u
	}
	o := Overshoot{Jobs: len(ts)}
	// Ratio: the most instants at a gap shorter than W, over L.
	best, bi, bj := 0, 0, 0
	i := 0
	for j := range us {
		for !us[j].Sub(us[i]).Less(mod) {
			i++
		}
		if j-i+1 > best {
			best, bi, bj = j-i+1, i, j
		}
	}
	o.Ratio = big.NewRat(int64(best), L)
	o.RatioAt = Window{From: ts[bi], To: ts[bj], Jobs: best, Bound: bound0}
	// Excess: integer parts f, remainders r, ranks of r descending.
	fs := make([]exact.Int128, len(us))
	rs := make([]exact.Int128, len(us))
	for i, u := range us {
		fs[i], rs[i] = u.DivMod(mod)
	}
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b exact.Int128) int { return b.Cmp(a) })
	sorted = slices.CompactFunc(sorted, func(a, b exact.Int128) bool { return a.Cmp(b) == 0 })
	rank := func(r exact.Int128) int { // 1-based, larger r first
		k, _ := slices.BinarySearchFunc(sorted, r, func(a, b exact.Int128) int { return b.Cmp(a) })
		return k + 1
	}
	type entry struct {
		v  exact.Int128
		i  int
		ok bool
	}
	tree := make([]entry, len(sorted)+1) // Fenwick tree of prefix maxima
	better := func(a, b entry) bool { return a.ok && (!b.ok || b.v.Less(a.v)) }
	var top entry // max over every i <= j
	var bestE exact.Int128
	var eFrom, eTo int
	for j := range us {
		lf, ok := fs[j].Mul64OK(L)
		if !ok {
			return Overshoot{}, fmt.Errorf("netcalc: the overshoot of %v at %v s: %w", s, ts[j], ErrRange)
		}
		v := entry{v: lf.Add64(-int64(j)), i: j, ok: true}
		// i < j with r_i > r_j: ranks before r_j's.
		var q entry
		for k := rank(rs[j]) - 1; k > 0; k -= k & -k {
			if better(tree[k], q) {
				q = tree[k]
			}
		}
		if q.ok {
			q.v = q.v.Add64(L)
		}
		if better(v, top) {
			top = v
		}
		if better(top, q) {
			q = top
		}
		e := q.v.Add(lf.Neg()).Add64(int64(j) + 1 - L) // j + 1 − L − L·f_j + max
		if j == 0 || bestE.Less(e) {
			bestE, eFrom, eTo = e, q.i, j
		}
		for k := rank(rs[j]); k < len(tree); k += k & -k {
			if better(v, tree[k]) {
				tree[k] = v
			}
		}
	}
	o.Excess = new(big.Rat).SetInt(bestE.Big())
	o.ExcessAt = Window{From: ts[eFrom], To: ts[eTo], Jobs: eTo - eFrom + 1, Bound: s.window(nsRat(ts[eTo] - ts[eFrom]))}
	return o, nil
}
