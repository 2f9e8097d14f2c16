package systems

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/internal/oracle"
)

// TestFirstViolationHand checks the exact first instant after which
// S(t) > S^(k)(t) on two cases worked by hand.
//
// The negative control of docs/commands.md: one bucket (1, 1) against (0.5, 1) +
// (0.5, 1), two jobs at 0 to sub-buckets 0 and 1. The split delays
// neither (each sub-bucket holds a token), so S^(k) = 0; the one bucket
// delays the second job until its token at 1 s, so S(t) = t on [0, 1]:
// D = S^(k) - S = -t < 0 for every t > 0, and the first instant is 0.
// The check finds it at the one bucket's grant, 1 s (S = 1, S^(k) = 0).
//
// A crossing between two events: one bucket (1, 2) against (1, 1) +
// (1, 1) (rates adding up to 2 > 1); jobs A, B at 0 to sub-bucket 0, then
// C, E, F at 0.6 s to sub-bucket 1.
//
//	one bucket: A, B pass (2 tokens); at 0.6 it holds 0.6 tokens, so C,
//	  E, F are granted at 1, 2, 3 s: N = 3 on (0.6, 1), 2 to 2, 1 to 3.
//	split: sub-bucket 0 passes A and grants B at 1 s; sub-bucket 1, full
//	  at 0.6, passes C and grants E, F at 1.6 and 2.6 s: Σ N_l = 1 on
//	  (0, 0.6), 3 to 1, 2 to 1.6, 1 to 2.6, then 0.
//	D has slope Σ N_l - N: +1 on (0, 0.6), D(0.6) = 0.6; 0 to 1.6; -1 to
//	  2, D(2) = 0.2; 0 to 2.6; -1 to 3: D(t) = 0.2 - (t - 2.6), which is 0
//	  at t = 2.8 s, between the sub-bucket's grant at 2.6 and the one
//	  bucket's at 3, where the check evaluates D(3) = -0.2: S(3) = 0.4 +
//	  1.4 + 2.4 = 4.2 s, S^(k)(3) = 1 + 1 + 2 = 4 s, N = Σ N_l = 0.
func TestFirstViolationHand(t *testing.T) {
	for _, tc := range []struct {
		name          string
		in            Instance
		at, checked   *big.Rat
		s, sSplit     *big.Rat
		n, nSplit     int64
		lemmaHoldsToo bool
	}{
		{"negative control", instanceOf(params("1", "1"), []buckets.Params{params("0.5", "1"), params("0.5", "1")}, []string{"0", "0"}, []int{0, 1}),
			big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(1, 1), big.NewRat(0, 1), 0, 0, true},
		{"between events", instanceOf(params("1", "2"), []buckets.Params{params("1", "1"), params("1", "1")}, []string{"0", "0", "0.6", "0.6", "0.6"}, []int{0, 0, 1, 1, 1}),
			big.NewRat(14, 5), big.NewRat(3, 1), big.NewRat(21, 5), big.NewRat(4, 1), 0, 0, false},
	} {
		_, res, err := RunInstance(tc.in, true)
		if err != nil {
			t.Fatal(err)
		}
		v := res.FirstTheorem
		if v == nil || v.Lemma || !v.Crossing {
			t.Fatalf("%s: first Theorem 2 violation %v, want one with its exact crossing", tc.name, v)
		}
		if seconds(v.At).Cmp(tc.at) != 0 || seconds(v.Checked).Cmp(tc.checked) != 0 || seconds(v.S).Cmp(tc.s) != 0 ||
			seconds(v.SSplit).Cmp(tc.sSplit) != 0 || v.N != tc.n || v.NSplit != tc.nSplit {
			t.Errorf("%s: %v (at %v s, checked at %v s, S %v, S^(k) %v); want from %v s, checked at %v s, S = %v, S^(k) = %v",
				tc.name, v, seconds(v.At), seconds(v.Checked), seconds(v.S), seconds(v.SSplit), tc.at, tc.checked, tc.s, tc.sSplit)
		}
		if tc.lemmaHoldsToo && (res.LemmaViolations != 0 || res.First == nil || res.First.Lemma || res.First.At.Cmp(v.At) != 0) {
			t.Errorf("%s: First %v, want the Theorem 2 violation", tc.name, res.First)
		}
	}
}

// TestFirstViolationOracle compares the exact first instant after which
// S(t) > S^(k)(t) with the definition on random negative controls (bursts
// or rates inflated): the explicit-token oracle gives every job's wait in
// each system; S and S^(k) are summed job by job (oracle.Accrued) at every
// arrival and grant of either system, between which both are linear; the
// first event with D = S^(k) - S < 0 and the one before it bound the
// crossing, found by linear interpolation. The test also requires that
// some crossings fall strictly between events (not at an instant the
// check evaluates), so that it tests the interpolation.
func TestFirstViolationOracle(t *testing.T) {
	src := rand.New(rand.NewPCG(23, 1))
	draw := func(lo, hi int) int { return lo + src.IntN(hi-lo+1) }
	compared, between := 0, 0
	for n := range 3000 {
		cfg := GenConfig{MaxK: 4, MaxJobs: 25, Orders: buckets.Orders, InflateBurst: n%2 == 0, InflateRate: n%2 == 1}
		in := GenInstance(draw, cfg)
		_, res, err := RunInstance(in, true)
		if err != nil {
			t.Fatal(err)
		}
		want, atEvent := oracleCrossing(in)
		got := res.FirstTheorem
		if (want == nil) != (got == nil) {
			t.Fatalf("instance %d %+v: check %v, definition %v", n, in, got, want)
		}
		if want == nil {
			continue
		}
		if !got.Crossing || seconds(got.At).Cmp(want) != 0 {
			t.Fatalf("instance %d %+v: first violation from %v s (exact %v), definition %v s", n, in, seconds(got.At), got.Crossing, want)
		}
		compared++
		if !atEvent {
			between++
		}
	}
	t.Logf("%d crossings compared, %d strictly between events", compared, between)
	// Seed 23 gives 192 crossings, 44 of them between events.
	if compared < 150 || between < 30 {
		t.Errorf("%d crossings compared, %d between events; want at least 150 and 30", compared, between)
	}
}

// oracleCrossing returns the first instant, seconds, after which
// S(t) > S^(k)(t) by the definition, and whether it is an event (an
// arrival or a grant of either system); nil if S <= S^(k) throughout.
func oracleCrossing(in Instance) (*big.Rat, bool) {
	one := oracle.NewBucket(in.One.Rate.Big(), in.One.Burst.Big(), -1, false)
	subs := make([]*oracle.Bucket, len(in.Subs))
	for l, p := range in.Subs {
		subs[l] = oracle.NewBucket(p.Rate.Big(), p.Burst.Big(), -1, false)
	}
	arr := map[int64]*big.Rat{}
	var events []*big.Rat
	for i, x := range in.Times {
		a := big.NewRat(int64(x), 1e9)
		one.Offer(a, int64(i))
		subs[in.Sub[i]].Offer(a, int64(i))
		arr[int64(i)] = a
		events = append(events, a)
	}
	one.Drain()
	events = append(events, one.Grants...)
	split := map[int64]*big.Rat{}
	for _, s := range subs {
		s.Drain()
		events = append(events, s.Grants...)
		for id, w := range s.Waits {
			split[id] = w
		}
	}
	slices.SortFunc(events, (*big.Rat).Cmp)
	d := func(x *big.Rat) *big.Rat {
		return new(big.Rat).Sub(oracle.Accrued(x, arr, split), oracle.Accrued(x, arr, one.Waits))
	}
	prev, dPrev := events[0], d(events[0]) // 0: nothing accrued at the first arrival
	for _, e := range events[1:] {
		de := d(e)
		if de.Sign() < 0 {
			// D linear on [prev, e], D(prev) >= 0 > D(e).
			frac := new(big.Rat).Quo(dPrev, new(big.Rat).Sub(dPrev, de))
			x := new(big.Rat).Add(prev, frac.Mul(frac, new(big.Rat).Sub(e, prev)))
			return x, dPrev.Sign() == 0
		}
		prev, dPrev = e, de
	}
	return nil, false
}
