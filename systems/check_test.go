package systems

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/oracle"
)

// TestFourAtZeroSplit: the note's setting. Four jobs at t = 0 into (1, 2)
// wait 0, 0, 1, 2 s; split round-robin into (0.5, 1) twice, jobs 0 and 1
// take each sub-bucket's token and jobs 2 and 3 each wait for the next
// token of theirs, 1/0.5 = 2 s later: 0, 0, 2, 2. S(∞) = 3 s <= S^(2)(∞) =
// 4 s, and the check holds.
func TestFourAtZeroSplit(t *testing.T) {
	in := instanceOf(params("1", "2"), []buckets.Params{params("0.5", "1"), params("0.5", "1")},
		[]string{"0", "0", "0", "0"}, []int{0, 1, 0, 1})
	d, res, err := RunInstance(in, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"0", "0", "1", "2"} {
		if seconds(d.One[i]).Cmp(rat(want).Big()) != 0 {
			t.Errorf("one bucket: job %d waits %v s, want %s", i, seconds(d.One[i]), want)
		}
	}
	for i, want := range []string{"0", "0", "2", "2"} {
		if seconds(d.Split[i]).Cmp(rat(want).Big()) != 0 {
			t.Errorf("split: job %d waits %v s, want %s", i, seconds(d.Split[i]), want)
		}
	}
	if !res.Held() || seconds(res.S).Cmp(big.NewRat(3, 1)) != 0 || seconds(res.SSplit).Cmp(big.NewRat(4, 1)) != 0 {
		t.Errorf("check %+v, want held with S = 3 s, S^(k) = 4 s", res)
	}
}

// TestNegativeControl: one bucket (1, 1) against (0.5, 1) + (0.5, 1) (the
// bursts add up to 2 > 1), two jobs at 0 to different sub-buckets. The
// split delays neither; the one bucket delays the second by 1 s, so
// S(t) = t > S^(k)(t) = 0 on (0, 1]: the first minimum of S^(k) - S the
// check visits is the one bucket's grant at 1 s, with S = 1 s, S^(k) = 0,
// and the exact first instant after which S > S^(k) is 0 (D(t) = -t
// crosses 0 there): At = 0, Checked = 1 s.
func TestNegativeControl(t *testing.T) {
	in := instanceOf(params("1", "1"), []buckets.Params{params("0.5", "1"), params("0.5", "1")},
		[]string{"0", "0"}, []int{0, 1})
	_, res, err := RunInstance(in, true)
	if err != nil {
		t.Fatal(err)
	}
	v := res.First
	if res.Violations == 0 || v == nil || v.Lemma || !v.Crossing || v.At.Sign() != 0 || seconds(v.Checked).Cmp(big.NewRat(1, 1)) != 0 ||
		seconds(v.S).Cmp(big.NewRat(1, 1)) != 0 || v.SSplit.Sign() != 0 || v.N != 0 || v.NSplit != 0 {
		t.Fatalf("negative control: %+v, first %v; want a Theorem 2 violation at 1 s with S = 1 s, S^(k) = 0", res, v)
	}
	if _, _, err := RunInstance(in, false); err == nil {
		t.Error("unequal bursts without allowUnequal: want an error")
	}
}

// TestViolationAtEpochScale is the case that a float64 tolerance
// growing with absolute time hides: 1 job at 0 and 100 jobs at 1e9 s,
// one bucket (1, 2) against one sub-bucket (1.000000001, 2). At 1e9 s
// both buckets are full: two jobs pass and the others wait i/r for
// i = 1..98, so S = Σ i = 4851 s and S^(k) = 4851/1.000000001 s, and
// S - S^(k) = 4851·1e-9/1.000000001 s ≈ 4.85e-6 s > 0: a violation
// (the sub-bucket is faster: the hypotheses are broken on purpose).
func TestViolationAtEpochScale(t *testing.T) {
	times := []string{"0"}
	for range 100 {
		times = append(times, "1000000000")
	}
	in := instanceOf(params("1", "2"), []buckets.Params{params("1.000000001", "2")}, times, make([]int, len(times)))
	_, res, err := RunInstance(in, true)
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Rat).Sub(big.NewRat(4851, 1), new(big.Rat).Quo(big.NewRat(4851, 1), rat("1.000000001").Big()))
	got := new(big.Rat).Sub(seconds(res.S), seconds(res.SSplit))
	if res.Violations == 0 || got.Cmp(want) != 0 {
		t.Fatalf("S - S^(k) = %v s (violations %d), want %v s > 0 and a violation", got.FloatString(12), res.Violations, want.FloatString(12))
	}
	if f, _ := got.Float64(); f < 4.85e-6 || f > 4.86e-6 {
		t.Errorf("S - S^(k) = %v s, want about 4.85e-6 s", f)
	}
}

// TestLemmaBetweenArrivals is the Lemma 1 case, a violation
// between two events: jobs at 0 to sub-buckets 0 and 1 (0.5, 1) and
// (0.6, 1), against (1, 2). r·U(t) = 2 - t; the sub-buckets' work is
// 0.5·(2 - t) + 0.6·(5/3 - t) = 2 - 1.1t until sub-bucket 1 empties at
// 5/3 s, then 1 - t/2. r·U - Σ r_l·U_l is 0.1t before 5/3 s and
// 1 - t/2 after: largest, 1/6 token, at t = 5/3 s, where r·U = 1/3 and
// Σ r_l·U_l = 1/6, and first positive just after 0.
func TestLemmaBetweenArrivals(t *testing.T) {
	in := instanceOf(params("1", "2"), []buckets.Params{params("0.5", "1"), params("0.6", "1")},
		[]string{"0", "0"}, []int{0, 1})
	_, res, err := RunInstance(in, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.LemmaViolations == 0 || res.First == nil || !res.First.Lemma {
		t.Fatalf("check %+v, first %v; want a Lemma 1 violation", res, res.First)
	}
	v := res.First
	if seconds(v.At).Cmp(big.NewRat(5, 3)) != 0 || v.Work.Cmp(exact.NewRat(1, 3)) != 0 || v.WorkSplit.Cmp(exact.NewRat(1, 6)) != 0 {
		t.Errorf("first violation %v (at %v s, %v vs %v tokens), want at 5/3 s with 1/3 > 1/6", v, seconds(v.At), v.Work, v.WorkSplit)
	}
}

// brute is the check recomputed by definition on an instance: the waits
// from the explicit-token oracle, S and S^(k) summed job by job, and the
// unfinished work r·U from the tokens, at every arrival and every grant
// of either system and every instant a sub-bucket empties.
type brute struct {
	violS, violL bool
	// firstCandidate is the earliest arrival or one-bucket grant at which
	// S^(k) - S < 0, the instants the check looks at for Theorem 2.
	firstCandidate *big.Rat
	minSlack       *big.Rat // smallest S^(k) - S at any event where S > 0 or a job waits in the one bucket
}

// waitingAt counts the jobs arrived by x (inclusive) and not yet granted
// at x.
func waitingAt(x *big.Rat, arrivals, waits map[int64]*big.Rat) int {
	n := 0
	for id, a := range arrivals {
		if a.Cmp(x) <= 0 && new(big.Rat).Add(a, waits[id]).Cmp(x) > 0 {
			n++
		}
	}
	return n
}

func bruteCheck(in Instance) brute {
	one := oracle.NewBucket(in.One.Rate.Big(), in.One.Burst.Big(), -1, false)
	subs := make([]*oracle.Bucket, len(in.Subs))
	for l, p := range in.Subs {
		subs[l] = oracle.NewBucket(p.Rate.Big(), p.Burst.Big(), -1, false)
	}
	arr := map[int64]*big.Rat{}
	arrSub := make([]map[int64]*big.Rat, len(subs))
	for l := range arrSub {
		arrSub[l] = map[int64]*big.Rat{}
	}
	for i, x := range in.Times {
		a := big.NewRat(int64(x), 1e9)
		one.Offer(a, int64(i))
		subs[in.Sub[i]].Offer(a, int64(i))
		arr[int64(i)] = a
		arrSub[in.Sub[i]][int64(i)] = a
	}
	one.Drain()
	var cands, events []*big.Rat
	for _, x := range in.Times {
		cands = append(cands, big.NewRat(int64(x), 1e9))
	}
	cands = append(cands, one.Grants...)
	events = append(events, cands...)
	splitWaits := map[int64]*big.Rat{}
	for l, s := range subs {
		s.Drain()
		events = append(events, s.Grants...)
		for id, w := range s.Waits {
			splitWaits[id] = w
		}
		// The instants the sub-bucket's G/D/1 queue empties: each job's
		// grant (or arrival, if it passed at once) plus b_l/r_l... the
		// unfinished work is b/r - tokens/r + waiting/r; it empties
		// when the tokens are back to b: check at each arrival plus
		// (b - tokens after it)/r, approximated by evaluating at the
		// grant instants and at a_i + k/r_l below.
		_ = l
	}
	var b brute
	for _, x := range events {
		s0 := oracle.Accrued(x, arr, one.Waits)
		sk := oracle.Accrued(x, arr, splitWaits)
		if s0.Sign() == 0 && waitingAt(x, arr, one.Waits) == 0 {
			continue
		}
		d := new(big.Rat).Sub(sk, s0)
		if b.minSlack == nil || d.Cmp(b.minSlack) < 0 {
			b.minSlack = d
		}
		if d.Sign() < 0 {
			b.violS = true
		}
	}
	for _, x := range cands {
		s0 := oracle.Accrued(x, arr, one.Waits)
		sk := oracle.Accrued(x, arr, splitWaits)
		if new(big.Rat).Sub(sk, s0).Sign() < 0 && (b.firstCandidate == nil || x.Cmp(b.firstCandidate) < 0) {
			b.firstCandidate = x
		}
	}
	return b
}

// TestCheckAgainstBrute compares the check with the definition on random
// instances of every order, including negative controls: the same
// verdict, the same smallest slack, the same first violation.
func TestCheckAgainstBrute(t *testing.T) {
	src := rand.New(rand.NewPCG(21, 1))
	draw := func(lo, hi int) int { return lo + src.IntN(hi-lo+1) }
	for n := range 2000 {
		cfg := GenConfig{MaxK: 4, MaxJobs: 25, Orders: buckets.Orders, InflateBurst: n%5 == 3, InflateRate: n%5 == 4}
		in := GenInstance(draw, cfg)
		_, res, err := RunInstance(in, true)
		if err != nil {
			t.Fatal(err)
		}
		b := bruteCheck(in)
		if (res.Violations > 0) != b.violS {
			t.Fatalf("instance %d %+v: check finds %d Theorem 2 violations, definition %v", n, in, res.Violations, b.violS)
		}
		if res.HasSlack != (b.minSlack != nil) || res.HasSlack && seconds(res.MinSlack).Cmp(b.minSlack) != 0 {
			t.Fatalf("instance %d: min slack %v s (has %v), definition %v s", n, seconds(res.MinSlack), res.HasSlack, b.minSlack)
		}
		if b.firstCandidate != nil {
			if res.First == nil {
				t.Fatalf("instance %d: no violation reported, definition at %v s", n, b.firstCandidate)
			}
			if res.FirstTheorem == nil || seconds(res.FirstTheorem.Checked).Cmp(b.firstCandidate) != 0 {
				t.Fatalf("instance %d: first Theorem 2 violation checked at %v, definition %v s", n, res.FirstTheorem, b.firstCandidate)
			}
		}
		if !cfg.InflateBurst && !cfg.InflateRate && !res.Held() {
			t.Fatalf("instance %d satisfies the hypotheses but the check failed: %v", n, res.First)
		}
	}
}

// TestCertificateSkips: at the default setting most intervals are
// certified, so the check evaluates far fewer instants than there are
// events.
func TestCertificateSkips(t *testing.T) {
	src := rand.New(rand.NewPCG(21, 2))
	in := Instance{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}}
	x := engine.Time(0)
	for i := range 20000 {
		x += engine.Time(src.ExpFloat64() / 0.9 * 1e9)
		in.Times = append(in.Times, x)
		in.Sub = append(in.Sub, i%2)
	}
	_, res, err := RunInstance(in, false)
	if err != nil || !res.Held() {
		t.Fatalf("%v %+v", err, res)
	}
	if res.Evaluated > uint64(len(in.Times))*3 {
		t.Errorf("evaluated %d instants for %d arrivals", res.Evaluated, len(in.Times))
	}
}

// TestCheckAdd: a check whose sub-buckets are added as jobs first reach
// them (Check.Add) gives the result of the check built with all of them,
// on random FCFS instances, negative controls included.
func TestCheckAdd(t *testing.T) {
	src := rand.New(rand.NewPCG(21, 3))
	draw := func(lo, hi int) int { return lo + src.IntN(hi-lo+1) }
	for n := range 500 {
		cfg := GenConfig{MaxK: 4, MaxJobs: 25, Orders: []buckets.Order{buckets.FCFS}, InflateBurst: n%5 == 3, InflateRate: n%5 == 4}
		in := GenInstance(draw, cfg)
		_, want, err := RunInstance(in, true)
		if err != nil {
			t.Fatal(err)
		}
		scale := must(buckets.CommonScale(append([]buckets.Params{in.One}, in.Subs...)...))
		one := must(buckets.NewTokenBucket(in.One, buckets.WithScale(scale)))
		subs := make([]*buckets.TokenBucket, len(in.Subs))
		for l, p := range in.Subs {
			subs[l] = must(buckets.NewTokenBucket(p, buckets.WithScale(scale)))
		}
		// Built with sub-bucket Sub[0] alone; the others join at their first job.
		c := must(NewCheck(one, []*buckets.TokenBucket{subs[in.Sub[0]]}))
		added := map[int]bool{in.Sub[0]: true}
		for i, at := range in.Times {
			c.Advance(at)
			if l := in.Sub[i]; !added[l] {
				if err := c.Add(subs[l]); err != nil {
					t.Fatal(err)
				}
				added[l] = true
			}
			ts := exact.Mul64(int64(at), scale)
			one.AdmitFCFS(at, ts)
			subs[in.Sub[i]].AdmitFCFS(at, ts)
			c.Arrived()
		}
		c.Finish()
		got := c.Result()
		if got.Violations != want.Violations || got.LemmaViolations != want.LemmaViolations || got.HasSlack != want.HasSlack ||
			got.MinSlack.Cmp(want.MinSlack) != 0 || got.S.Cmp(want.S) != 0 || got.SSplit.Cmp(want.SSplit) != 0 ||
			(got.First == nil) != (want.First == nil) || got.First != nil && got.First.At.Cmp(want.First.At) != 0 {
			t.Fatalf("instance %d %+v: with Add %+v, built whole %+v", n, in, got, want)
		}
	}
	c := must(NewCheck(must(buckets.NewTokenBucket(params("1", "2"))), []*buckets.TokenBucket{must(buckets.NewTokenBucket(params("0.5", "1")))}))
	busy := must(buckets.NewTokenBucket(params("0.5", "1")))
	busy.AdmitFCFS(0, exact.I128(0))
	if err := c.Add(busy); err == nil {
		t.Error("Add of a sub-bucket that has had a job: want an error")
	}
	if err := c.Add(must(buckets.NewTokenBucket(params("1/3", "1"), buckets.WithScale(3)))); err == nil {
		t.Error("Add of a sub-bucket in another scale: want an error")
	}
}
