package buckets

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// rapidDraw adapts a rapid.T to GenInstance's draw, so rapid shrinks the
// instance's choices towards their lower bounds.
func rapidDraw(t *rapid.T) func(lo, hi int) int {
	return func(lo, hi int) int { return rapid.IntRange(lo, hi).Draw(t, "x") }
}

func ticks(xs ...int64) []Tick {
	out := make([]Tick, len(xs))
	for i, x := range xs {
		out[i] = Tick(x)
	}
	return out
}

// halves is one bucket r = 1 token/tick, b = 2 split into two sub-buckets of
// r = 1/2, b = 1 (quantum 1; periods 1 and 2 ticks).
func halves(times []int64, sub []int) Instance {
	return Instance{
		One:   ExactParams{Quantum: 1, Period: 1, Burst: 2},
		Subs:  []ExactParams{{Quantum: 1, Period: 2, Burst: 1}, {Quantum: 1, Period: 2, Burst: 1}},
		Times: times, Sub: sub,
	}
}

// TestExactHandCases: the hand-computed cases on the exact model.
// Four arrivals at 0, round-robin: one bucket 0, 0, 1, 2 and split 0, 0, 2, 2
// (see TestFourAtZero). Three arrivals at 0 sent to 0, 0, 1: one bucket
// 0, 0, 1; split: job 0 takes sub-bucket 0's token, job 1 waits 2 ticks for
// the next, job 2 takes sub-bucket 1's token: 0, 2, 0. Job 2 is better off
// split, yet the totals are 1 <= 2.
func TestExactHandCases(t *testing.T) {
	for _, tc := range []struct {
		in         Instance
		one, split []Tick
	}{
		{halves([]int64{0, 0, 0, 0}, []int{0, 1, 0, 1}), ticks(0, 0, 1, 2), ticks(0, 0, 2, 2)},
		{halves([]int64{0, 0, 0}, []int{0, 0, 1}), ticks(0, 0, 1), ticks(0, 2, 0)},
	} {
		c, d, err := RunInstance[Tick](tc.in, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.One, tc.one) || !slices.Equal(d.Split, tc.split) {
			t.Errorf("delays one %v split %v, want %v and %v", d.One, d.Split, tc.one, tc.split)
		}
		if c.Check().Violations() != 0 || c.Check().LemmaViolations() != 0 {
			t.Errorf("violations %d, lemma %d", c.Check().Violations(), c.Check().LemmaViolations())
		}
	}
}

// TestExactTheorem2 is the property of the note: for any arrivals (ties,
// bursts, idle gaps), any k in [2, 8], any split of r and b with b_l >= 1
// (fractional b_l included), any dispatch of jobs to sub-buckets and any
// work-conserving service order (FCFS, LIFO, random), S(t) <= S^(k)(t) and
// r·U(t) <= Σ r_l·U_l(t) hold at every event, checked exactly (no
// tolerance) on the integer model.
func TestExactTheorem2(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in := GenInstance(rapidDraw(rt), GenConfig{MaxK: 8, MaxJobs: 40, Orders: Orders})
		c, d, err := RunInstance[Tick](in, 0, false)
		if err != nil {
			rt.Fatal(err)
		}
		chk := c.Check()
		if chk.Violations() != 0 || chk.LemmaViolations() != 0 {
			v, _ := chk.First()
			rt.Fatalf("violation on %+v: %v", in, v)
		}
		var s1, sk Tick
		for i := range d.One {
			s1 += d.One[i]
			sk += d.Split[i]
		}
		if s1 != chk.S() || sk != chk.SSplit() {
			rt.Fatalf("S(∞) = %d, S^(k)(∞) = %d, but the delays add up to %d and %d", chk.S(), chk.SSplit(), s1, sk)
		}
	})
}

// naiveExact is an independent FCFS reference in exact rational arithmetic:
// an explicit token count refilled at rate r (tokens per tick), one job at a
// time.
func naiveExact(e ExactParams, times []int64) []*big.Rat {
	r := big.NewRat(1, e.Quantum*e.Period)
	b := big.NewRat(e.Burst, e.Quantum)
	one := big.NewRat(1, 1)
	tok, last, prev := new(big.Rat).Set(b), new(big.Rat), new(big.Rat)
	out := make([]*big.Rat, len(times))
	for i, at := range times {
		a := new(big.Rat).SetInt64(at)
		t0 := a
		if prev.Cmp(a) > 0 {
			t0 = new(big.Rat).Set(prev)
		}
		// tok = min(b, tok + r·(t0 - last))
		tok.Add(tok, new(big.Rat).Mul(r, new(big.Rat).Sub(t0, last)))
		if tok.Cmp(b) > 0 {
			tok.Set(b)
		}
		last.Set(t0)
		if tok.Cmp(one) >= 0 {
			tok.Sub(tok, one)
			prev.Set(t0)
		} else {
			// wait (1 - tok)/r
			w := new(big.Rat).Quo(new(big.Rat).Sub(one, tok), r)
			prev.Add(t0, w)
			tok.SetInt64(0)
			last.Set(prev)
		}
		out[i] = new(big.Rat).Sub(prev, a)
	}
	return out
}

// TestExactEq1 checks, for FCFS, that each job's delay equals eq. (1)
// evaluated before its arrival, max(0, U(a-) + (1 - b)/r), exactly, and
// equals the naive rational token-count reference.
func TestExactEq1(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in := GenInstance(rapidDraw(rt), GenConfig{MaxK: 2, MaxJobs: 60})
		tb, err := NewExactBucket(in.One)
		if err != nil {
			rt.Fatal(err)
		}
		got := make([]Tick, len(in.Times))
		eq1 := make([]Tick, len(in.Times))
		for i, a := range in.Times {
			at := Tick(a)
			for tb.NextGrant() <= at {
				id, _, d := tb.Grant()
				got[id] = d
			}
			eq1[i] = tb.Delay(at)
			tb.Arrive(at, int64(i))
		}
		for tb.Waiting() > 0 {
			id, _, d := tb.Grant()
			got[id] = d
		}
		want := naiveExact(in.One, in.Times)
		for i := range got {
			if got[i] != eq1[i] || want[i].Cmp(big.NewRat(int64(got[i]), 1)) != 0 {
				rt.Fatalf("job %d of %+v: delay %d, eq. (1) %d, naive %v", i, in, got[i], eq1[i], want[i].RatString())
			}
		}
	})
}

// TestExactStaged checks the note's recursive extension to k > 2: split the
// one bucket in two groups, then each group into its sub-buckets, with every
// job going to the group that holds its sub-bucket. Each stage is a split
// satisfying the hypotheses, so at every event S <= S^(2) (one vs the two
// groups) and S_A <= S_A^(k_A), S_B <= S_B^(k_B) (each group vs its
// sub-buckets); hence S(∞) <= S^(2)(∞) <= S^(k)(∞).
func TestExactStaged(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		draw := rapidDraw(rt)
		k := draw(3, 6)
		q := int64(1 + draw(0, 1))
		w := make([]int64, k)
		for l := range w {
			w[l] = int64(draw(1, 4))
		}
		cut := draw(1, k-1) // group A = sub-buckets [0, cut)
		var W, WA int64
		for l, x := range w {
			W += x
			if l < cut {
				WA += x
			}
		}
		// A common period P of the one bucket that makes P·W/x whole for
		// every weight and group weight x.
		P := int64(1)
		for _, x := range append(slices.Clone(w), WA, W-WA) {
			P = P / gcd(P, x) * x
		}
		subs := make([]ExactParams, k)
		var BA, BB int64
		for l := range subs {
			subs[l] = ExactParams{Quantum: q, Period: P * W / w[l], Burst: q + int64(draw(0, int(2*q)))}
			if l < cut {
				BA += subs[l].Burst
			} else {
				BB += subs[l].Burst
			}
		}
		groupA := ExactParams{Quantum: q, Period: P * W / WA, Burst: BA}
		groupB := ExactParams{Quantum: q, Period: P * W / (W - WA), Burst: BB}
		one := ExactParams{Quantum: q, Period: P, Burst: BA + BB}
		n := draw(1, 40)
		var times, tA, tB []int64
		var sub, group, subA, subB []int
		at := int64(0)
		for range n {
			at += int64(draw(0, int(3*q*P)))
			l := draw(0, k-1)
			times, sub = append(times, at), append(sub, l)
			if l < cut {
				group = append(group, 0)
				tA, subA = append(tA, at), append(subA, l)
			} else {
				group = append(group, 1)
				tB, subB = append(tB, at), append(subB, l-cut)
			}
		}
		run := func(in Instance) *Checker[Tick] {
			c, _, err := RunInstance[Tick](in, 0, false)
			if err != nil {
				rt.Fatal(err)
			}
			if c.Check().Violations() != 0 || c.Check().LemmaViolations() != 0 {
				v, _ := c.Check().First()
				rt.Fatalf("violation in stage %+v: %v", in, v)
			}
			return c.Check()
		}
		full := run(Instance{One: one, Subs: subs, Times: times, Sub: sub})
		two := run(Instance{One: one, Subs: []ExactParams{groupA, groupB}, Times: times, Sub: group})
		var sk Tick
		if len(tA) > 0 {
			a := run(Instance{One: groupA, Subs: subs[:cut], Times: tA, Sub: subA})
			sk += a.SSplit()
			if a.S() > a.SSplit() {
				rt.Fatalf("group A: %d > %d", a.S(), a.SSplit())
			}
		}
		if len(tB) > 0 {
			b := run(Instance{One: groupB, Subs: subs[cut:], Times: tB, Sub: subB})
			sk += b.SSplit()
		}
		if !(full.S() <= two.SSplit() && two.SSplit() <= full.SSplit() && sk == full.SSplit()) {
			rt.Fatalf("S = %d, S^(2) = %d, S^(k) = %d (staged %d)", full.S(), two.SSplit(), full.SSplit(), sk)
		}
	})
}

// TestFloatToleranceAgainstExact validates the float64 check's documented
// rounding bound against the exact model: on random instances run on both
// (ticks of 1 ms), the float64 path reports no violation (its excess
// S - S^(k) never exceeds the bound at any event), and its final S and
// S^(k) differ from the exact ones by no more than the bound.
func TestFloatToleranceAgainstExact(t *testing.T) {
	const tick = 1e-3
	rapid.Check(t, func(rt *rapid.T) {
		in := GenInstance(rapidDraw(rt), GenConfig{MaxK: 8, MaxJobs: 60, Orders: Orders})
		ce, _, err := RunInstance[Tick](in, 0, false)
		if err != nil {
			rt.Fatal(err)
		}
		cf, _, err := RunInstance[engine.Time](in, tick, false)
		if err != nil {
			rt.Fatal(err)
		}
		ef, ff := ce.Check(), cf.Check()
		if ff.Violations() != 0 || ff.LemmaViolations() != 0 {
			v, _ := ff.First()
			rt.Fatalf("float64 path reports a violation the exact path does not: %v", v)
		}
		errS := math.Abs(float64(ff.S()) - float64(ef.S())*tick)
		errK := math.Abs(float64(ff.SSplit()) - float64(ef.SSplit())*tick)
		if errS+errK > ff.Tolerance() {
			rt.Fatalf("float64 error %g + %g exceeds the stated bound %g", errS, errK, ff.Tolerance())
		}
	})
}

// TestNegativeControlsFound: with the hypotheses broken (Σ b_l > b, or
// Σ r_l > r), random instances must turn up a violation of Theorem 2 within
// a small budget: the check can fail.
func TestNegativeControlsFound(t *testing.T) {
	for _, cfg := range []GenConfig{
		{MaxK: 4, MaxJobs: 20, InflateBurst: true},
		{MaxK: 4, MaxJobs: 20, InflateRate: true},
	} {
		rng := newTestRand(7)
		found := 0
		for range 2000 {
			in := GenInstance(func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }, cfg)
			c, _, err := RunInstance[Tick](in, 0, true)
			if err != nil {
				t.Fatal(err)
			}
			if c.Check().Violations() > 0 {
				found++
			}
		}
		if found == 0 {
			t.Errorf("%+v: no violation in 2000 instances", cfg)
		}
		t.Logf("%+v: violations found in %d of 2000 instances", cfg, found)
	}
}
