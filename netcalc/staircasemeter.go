package netcalc

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// staircaseMeter measures the exact overshoot of a stream against a
// [Staircase] L·(floor(d/W) + 1) as its instants come (see
// [MeasureOvershoot] for the method), without keeping them.
//
// Memory: the ratio keeps the instants at a gap shorter than W from the
// latest, at most α*(W−) = Ratio·L of them (2L for a stream that keeps
// the staircase), in a ring that at most doubles that. The excess keeps a
// frontier of points (r_i, v_i), r_i the remainder of (t_i − t_0)/W and
// v_i = L·f_i − i (f_i its integer part): for a query r_j the largest v_i
// with r_i > r_j is that of the frontier point with the least r_i > r_j,
// so a point with both r and v at most another's is dropped; and a point
// with v_i < max v − L is dropped too, since the running maximum over every
// i then beats v_i + L forever. The frontier's v are distinct integers in
// [max v − L, max v], so it holds at most L + 1 points (and at most the
// instants so far).
type staircaseMeter struct {
	s      Staircase
	q      int64        // W = p/q s
	mod    exact.Int128 // p·10^9: (t − t0)·q / mod is (t − t0)/W
	t0     engine.Time
	n      int
	ring   []engine.Time // the ratio's window: instants base.. n−1 from ring[head]
	head   int
	base   int
	best   int // the ratio: the most instants at a gap shorter than W
	bFrom  engine.Time
	bTo    engine.Time
	front  []stairPoint // r ascending, v strictly descending
	top    stairPoint   // the largest v so far (the first reaching it)
	bestE  exact.Int128 // the excess
	eFrom  engine.Time
	eTo    engine.Time
	eFromI int
	eToI   int
}

// stairPoint is instant i of a staircase meter.
type stairPoint struct {
	r, v exact.Int128
	i    int
	t    engine.Time
}

func newStaircaseMeter(s Staircase) (*staircaseMeter, error) {
	mod, ok := s.Window.Num().Mul64OK(int64(engine.Second))
	if !ok {
		return nil, fmt.Errorf("netcalc: the overshoot of %v: W·10^9 beyond 127 bits: %w", s, ErrRange)
	}
	return &staircaseMeter{s: s, q: s.Window.Den(), mod: mod}, nil
}

// gapShort reports whether the gap g ns is shorter than W: g·q < p·10^9.
func (m *staircaseMeter) gapShort(g engine.Time) (bool, error) {
	u, ok := exact.I128(int64(g)).Mul64OK(m.q)
	if !ok {
		return false, fmt.Errorf("netcalc: the overshoot of %v at a gap of %v s: %w", m.s, g, ErrRange)
	}
	return u.Less(m.mod), nil
}

func (m *staircaseMeter) add(t engine.Time) error {
	j := m.n
	if j == 0 {
		m.t0 = t
	}
	L := m.s.Jobs
	u, ok := exact.I128(int64(t - m.t0)).Mul64OK(m.q)
	if !ok {
		return fmt.Errorf("netcalc: the overshoot of %v at %v s: %w", m.s, t, ErrRange)
	}
	f, r := u.DivMod(m.mod)
	lf, ok := f.Mul64OK(L)
	if !ok {
		return fmt.Errorf("netcalc: the overshoot of %v at %v s: %w", m.s, t, ErrRange)
	}
	// Ratio: the window of instants at a gap shorter than W ending at t.
	size := j - m.base
	if size == len(m.ring) {
		grown := make([]engine.Time, max(8, 2*len(m.ring)))
		for k := 0; k < size; k++ {
			grown[k] = m.ring[(m.head+k)%len(m.ring)]
		}
		m.ring, m.head = grown, 0
	}
	m.ring[(m.head+size)%len(m.ring)] = t
	for {
		short, err := m.gapShort(t - m.ring[m.head])
		if err != nil {
			return err
		}
		if short {
			break
		}
		m.head = (m.head + 1) % len(m.ring)
		m.base++
	}
	if j-m.base+1 > m.best {
		m.best, m.bFrom, m.bTo = j-m.base+1, m.ring[m.head], t
	}
	// Excess: the best v_i + L over i < j with r_i > r_j, unless the best
	// v_i over every i <= j is larger.
	p := stairPoint{r: r, v: lf.Add64(-int64(j)), i: j, t: t}
	k := sort.Search(len(m.front), func(k int) bool { return r.Less(m.front[k].r) })
	var q stairPoint
	hasQ := k < len(m.front)
	if hasQ {
		q = m.front[k]
		q.v = q.v.Add64(L)
	}
	if j == 0 || m.top.v.Less(p.v) {
		m.top = p
	}
	if !hasQ || q.v.Less(m.top.v) {
		q = m.top
	}
	e := q.v.Add(lf.Neg()).Add64(int64(j) + 1 - L) // j + 1 − L − L·f_j + max
	if j == 0 || m.bestE.Less(e) {
		m.bestE, m.eFrom, m.eTo, m.eFromI, m.eToI = e, q.t, t, q.i, j
	}
	// p joins the frontier unless a point with r and v at least its own is
	// there (the first such is at k' = the first r >= r_j).
	k2 := sort.Search(len(m.front), func(k int) bool { return !m.front[k].r.Less(r) })
	if k2 == len(m.front) || m.front[k2].v.Less(p.v) {
		// Drop the points at k2 and before with v <= v_j (their r <= r_j
		// or equal): a contiguous run ending at k2 (or k2 − 1).
		hi := k2
		if hi < len(m.front) && !m.front[hi].r.Less(r) && !r.Less(m.front[hi].r) {
			hi++ // same r, smaller v
		}
		lo := k2
		for lo > 0 && !p.v.Less(m.front[lo-1].v) {
			lo--
		}
		if lo == hi { // insert at lo
			m.front = append(m.front, stairPoint{})
			copy(m.front[lo+1:], m.front[lo:])
			m.front[lo] = p
		} else { // p replaces front[lo:hi]
			m.front[lo] = p
			m.front = append(m.front[:lo+1], m.front[hi:]...)
		}
	}
	// Points with v < max v − L can never be chosen again.
	floor := m.top.v.Add64(-L)
	for n := len(m.front); n > 0 && m.front[n-1].v.Less(floor); n = len(m.front) {
		m.front = m.front[:n-1]
	}
	m.n++
	return nil
}

func (m *staircaseMeter) result() Overshoot {
	L := m.s.Jobs
	bound0 := big.NewRat(L, 1)
	if m.n == 0 {
		return Overshoot{Excess: new(big.Rat).Neg(bound0), Ratio: new(big.Rat), ExcessAt: Window{Bound: bound0}, RatioAt: Window{Bound: bound0}}
	}
	o := Overshoot{Jobs: m.n}
	o.Ratio = big.NewRat(int64(m.best), L)
	o.RatioAt = Window{From: m.bFrom, To: m.bTo, Jobs: m.best, Bound: bound0}
	o.Excess = new(big.Rat).SetInt(m.bestE.Big())
	o.ExcessAt = Window{From: m.eFrom, To: m.eTo, Jobs: m.eToI - m.eFromI + 1, Bound: m.s.window(nsRat(m.eTo - m.eFrom))}
	return o
}
