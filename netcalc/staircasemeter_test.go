package netcalc

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// TestStaircaseMeter feeds 3000 random streams (the oracle test's shapes,
// longer) one instant at a time to the streaming meter and compares with
// staircaseOvershoot's Fenwick tree (MeasureOvershoot's method before the
// meter, checked against the all-pairs oracle): the same excess, ratio and ratio window; an excess window that
// scores the excess (ties may name another pair); and the memory bounds:
// at most α*(W−) = best instants in the ratio's ring and L + 1 frontier
// points.
func TestStaircaseMeter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	curves := []Staircase{
		{Jobs: 1, Window: exact.MustParse("0.1")},
		{Jobs: 3, Window: exact.MustParse("1/3")},
		{Jobs: 2, Window: exact.MustParse("0.25")},
		{Jobs: 5, Window: exact.MustParse("1")},
	}
	sameWindow := 0
	for n := range 3000 {
		s := curves[n%len(curves)]
		k := rng.IntN(200)
		ts := make([]engine.Time, k)
		var x engine.Time
		step := engine.Time(1 + rng.IntN(3)*int(engine.Second)/48)
		for i := range ts {
			if rng.IntN(4) > 0 {
				x += step * engine.Time(rng.IntN(12))
			}
			ts[i] = x
		}
		want, err := staircaseOvershoot(ts, s)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewOvershootMeter(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ts {
			if err := m.Add(x); err != nil {
				t.Fatal(err)
			}
			if len(m.sc.front) > int(s.Jobs)+1 {
				t.Fatalf("%v on %v: a frontier of %d points, more than L + 1", s, ts, len(m.sc.front))
			}
			if kept := m.sc.n - m.sc.base; kept > m.sc.best {
				t.Fatalf("%v on %v: the ratio keeps %d instants, more than α*(W−) = %d", s, ts, kept, m.sc.best)
			}
		}
		got := m.Result()
		if got.Jobs != want.Jobs || got.Excess.Cmp(want.Excess) != 0 || got.Ratio.Cmp(want.Ratio) != 0 ||
			got.RatioAt.From != want.RatioAt.From || got.RatioAt.To != want.RatioAt.To || got.RatioAt.Jobs != want.RatioAt.Jobs || got.RatioAt.Bound.Cmp(want.RatioAt.Bound) != 0 {
			t.Fatalf("%v on %v: meter %+v, MeasureOvershoot %+v", s, ts, got, want)
		}
		if k == 0 {
			continue
		}
		w := got.ExcessAt
		c := 0
		for _, x := range ts {
			if x >= w.From && x <= w.To {
				c++
			}
		}
		score := new(big.Rat).Sub(big.NewRat(int64(w.Jobs), 1), w.Bound)
		if c < w.Jobs || w.Bound.Cmp(s.window(nsRat(w.D()))) != 0 || score.Cmp(got.Excess) != 0 {
			t.Fatalf("%v on %v: excess window %+v holds %d instants and scores %v, not %v", s, ts, w, c, score, got.Excess)
		}
		if w.From == want.ExcessAt.From && w.To == want.ExcessAt.To {
			sameWindow++
		}
	}
	t.Logf("the excess window equals the Fenwick tree's in %d of 3000 streams", sameWindow)
}

// staircaseOvershoot measures ts (sorted) against s with a Fenwick tree
// over the remainders' ranks (the method MeasureOvershoot used before the
// streaming meter): the meter's cross-check.
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
