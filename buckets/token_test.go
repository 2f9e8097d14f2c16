package buckets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestFourAtZero is the hand-computed case. One bucket r = 1, b = 2,
// four arrivals at t = 0: the first two take the two tokens (delay 0), the
// third waits for the token at t = 1, the fourth for the one at t = 2.
// Split into (0.5, 1) and (0.5, 1) round-robin: jobs 0 and 2 go to
// sub-bucket 0, jobs 1 and 3 to sub-bucket 1; in each, the first job takes
// the one token and the second waits 1/0.5 = 2 s for the next.
func TestFourAtZero(t *testing.T) {
	rec, c := compareRun(t, Params{1, 2}, []Params{{0.5, 1}, {0.5, 1}}, "rr", []float64{0, 0, 0, 0}, nil, false)
	equalDelays(t, "one bucket", rec.one, []float64{0, 0, 1, 2})
	equalDelays(t, "split", rec.split, []float64{0, 0, 2, 2})
	chk := c.Check()
	// S(∞) = 0+0+1+2 = 3 <= S^(2)(∞) = 4.
	if chk.S() != 3 || chk.SSplit() != 4 {
		t.Errorf("S = %v, S^(2) = %v, want 3 and 4", chk.S(), chk.SSplit())
	}
	// Events: 4 arrivals, 2 grants in the one bucket (t = 1, 2), one grant
	// per sub-bucket (t = 2).
	if chk.Events() != 8 || chk.Violations() != 0 || chk.LemmaViolations() != 0 {
		t.Errorf("events %d, violations %d, lemma %d; want 8, 0, 0", chk.Events(), chk.Violations(), chk.LemmaViolations())
	}
}

// TestThreeAtZeroColumn: r = 1, b = 2, three arrivals at 0 sent to
// sub-buckets 0, 0, 1 of (0.5, 1) + (0.5, 1). One bucket: 0, 0, 1. Split:
// job 0 takes sub-bucket 0's token, job 1 waits 2 s for the next, job 2 takes
// sub-bucket 1's token. Job 2 does better split, yet 1 <= 2 in total.
func TestThreeAtZeroColumn(t *testing.T) {
	rec, c := compareRun(t, Params{1, 2}, []Params{{0.5, 1}, {0.5, 1}}, "column", []float64{0, 0, 0}, []int{0, 0, 1}, false)
	equalDelays(t, "one bucket", rec.one, []float64{0, 0, 1})
	equalDelays(t, "split", rec.split, []float64{0, 2, 0})
	if c.Check().Violations() != 0 {
		t.Errorf("violations = %d, want 0", c.Check().Violations())
	}
}

// TestNegativeControl: one bucket (1, 1) against (0.5, 1) + (0.5, 1), whose
// bursts add to 2 > 1. Two arrivals at 0 to different sub-buckets: the one
// bucket delays the second job 1 s (S = 1), the split system delays none
// (S^(2) = 0), so the check must fail, first at the grant at t = 1.
func TestNegativeControl(t *testing.T) {
	_, c := compareRun(t, Params{1, 1}, []Params{{0.5, 1}, {0.5, 1}}, "column", []float64{0, 0}, []int{0, 1}, true)
	chk := c.Check()
	if chk.Violations() == 0 {
		t.Fatal("no violation reported for S = 1 > S^(2) = 0")
	}
	v, ok := chk.First()
	if !ok || v.Lemma || v.At != 1 || v.S != 1 || v.SSplit != 0 || v.N != 0 || v.NSplit != 0 {
		t.Errorf("first violation = %+v, want Theorem 2 at t = 1 with S = 1, S^(2) = 0, N = 0, ΣN = 0", v)
	}
	if ex, at := chk.MaxExcess(); ex != 1 || at != 1 {
		t.Errorf("max excess = %v at %v, want 1 at 1", ex, at)
	}
	// Without allowUnequal the same split is refused.
	ob, _ := NewTokenBucket(Params{1, 1})
	s0, _ := NewTokenBucket(Params{0.5, 1})
	s1, _ := NewTokenBucket(Params{0.5, 1})
	if _, err := NewCompare(ob, []*TokenBucket{s0, s1}, &roundRobin[engine.Time]{}, nil, false); !errors.Is(err, ErrParam) {
		t.Errorf("NewCompare with Σ b_l = 2 != 1: err = %v, want ErrParam", err)
	}
}

// TestOddRate: rate 10/13 tokens/s, burst 1, one arrival at 0: the bucket
// starts full, so the delay is 0.
func TestOddRate(t *testing.T) {
	rec, _ := compareRun(t, Params{10.0 / 13, 1}, []Params{{10.0 / 13, 1}}, "rr", []float64{0}, nil, false)
	equalDelays(t, "one bucket", rec.one, []float64{0})
}

// TestTinyRate: rate 1e-10 tokens/s, burst 1, arrivals at 0 and 1. The first
// job takes the only token; the next token accrues 1/1e-10 = 1e10 s after 0,
// so the second job waits 1e10 - 1 s. float64 seconds hold 1e10 exactly.
func TestTinyRate(t *testing.T) {
	rec, _ := compareRun(t, Params{1e-10, 1}, []Params{{1e-10, 1}}, "rr", []float64{0, 1}, nil, false)
	equalDelays(t, "one bucket", rec.one, []float64{0, 1e10 - 1})
}

// TestInitialTokens: r = 2, b = 3 starting with 1 token; arrivals at 0, 0, 0.
// Job 0 takes the token; the bucket holds 0 then, so job 1 waits for the
// token at 0.5 and job 2 for the one at 1.0.
func TestInitialTokens(t *testing.T) {
	rec, _ := compareRun(t, Params{2, 3}, []Params{{2, 3}}, "rr", []float64{0, 0, 0}, nil, false, WithInitialTokens(1))
	equalDelays(t, "one bucket", rec.one, []float64{0, 0.5, 1})
}

func TestParamErrors(t *testing.T) {
	for _, p := range []Params{
		{0, 1}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1},
		{1, 0}, {1, 0.5}, {1, math.NaN()}, {1, math.Inf(1)}, {1, -2},
	} {
		if _, err := NewTokenBucket(p); !errors.Is(err, ErrParam) {
			t.Errorf("NewTokenBucket(%+v): err = %v, want ErrParam", p, err)
		}
	}
	if _, err := EqualSplit(Params{1, 10}, 0); err == nil {
		t.Error("EqualSplit k = 0: no error")
	}
	if _, err := EqualSplit(Params{1, 10}, 11); err == nil {
		t.Error("EqualSplit k = 11 of burst 10: no error (sub-bucket burst < 1)")
	}
	if _, err := NewTokenBucket(Params{1, 2}, WithInitialTokens(3)); err == nil {
		t.Error("initial tokens 3 > burst 2: no error")
	}
}

// naiveFCFS is an independent reference: an explicit token count refilled in
// closed form, serving jobs strictly in order. Job i leaves at D_i: from
// t0 = max(a_i, D_{i-1}) it takes a token at once if one is there, else
// when the missing fraction has accrued.
func naiveFCFS(p Params, times []float64) []float64 {
	tok, last, prev := p.Burst, 0.0, 0.0
	d := make([]float64, len(times))
	for i, a := range times {
		t0 := math.Max(a, prev)
		tok = math.Min(p.Burst, tok+p.Rate*(t0-last))
		last = t0
		if tok >= 1 {
			tok--
			prev = t0
		} else {
			prev = t0 + (1-tok)/p.Rate
			tok, last = 0, prev
		}
		d[i] = prev - a
	}
	return d
}

// randomTimes draws n arrival instants with ties, bursts and idle gaps.
func randomTimes(rng *rand.Rand, n int, rate float64) []float64 {
	ts := make([]float64, n)
	t := 0.0
	for i := range ts {
		switch rng.IntN(4) {
		case 0: // tie
		case 1:
			t += rng.ExpFloat64() / rate / 10
		case 2:
			t += rng.ExpFloat64() / rate
		case 3:
			t += rng.ExpFloat64() / rate * 20
		}
		ts[i] = t
	}
	return ts
}

// TestAgainstNaive compares FCFS delays with the naive token-count reference
// and with eq. (1) evaluated before each arrival, on random instances.
func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for inst := range 200 {
		p := Params{Rate: 0.1 + 5*rng.Float64(), Burst: 1 + 6*rng.Float64()}
		times := randomTimes(rng, 300, p.Rate*1.2)
		want := naiveFCFS(p, times)
		tb, _ := NewTokenBucket(p)
		got := make([]float64, len(times))
		eq1 := make([]float64, len(times))
		for i, a := range times {
			at := engine.Time(a)
			for tb.NextGrant() <= at {
				id, gt, d := tb.Grant()
				got[id] = float64(d)
				if float64(d) != float64(gt)-times[id] {
					t.Fatalf("grant delay %v != instant - arrival", d)
				}
			}
			eq1[i] = float64(tb.Delay(at))
			if !tb.Arrive(at, int64(i)) {
				got[i] = 0
			}
		}
		for tb.NextGrant() < engine.Forever {
			id, _, d := tb.Grant()
			got[id] = float64(d)
		}
		for i := range want {
			tol := 1e-9 * math.Max(1, times[i])
			if math.Abs(got[i]-want[i]) > tol || math.Abs(eq1[i]-want[i]) > tol {
				t.Fatalf("instance %d (r=%v b=%v) job %d at %v: delay %v, eq.(1) %v, naive %v", inst, p.Rate, p.Burst, i, times[i], got[i], eq1[i], want[i])
			}
		}
	}
}

// TestWaitingMatchesCeil checks N(t) = ceil(max(0, r·U(t) - b)) (the note's
// formula) against the queue's count at instants halfway between events,
// where the formula is far from an integer boundary of rounding concern.
func TestWaitingMatchesCeil(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	p := Params{Rate: 1.7, Burst: 3}
	tb, _ := NewTokenBucket(p)
	times := randomTimes(rng, 2000, 2.5)
	for i, a := range times {
		at := engine.Time(a)
		for tb.NextGrant() <= at {
			prev := tb.NextGrant()
			tb.Grant()
			mid := (prev + min(tb.NextGrant(), at)) / 2
			if mid > prev {
				want := int(math.Ceil(math.Max(0, float64(tb.Work(mid))-p.Burst)))
				if tb.Waiting() != want {
					t.Fatalf("t=%v: Waiting() = %d, ceil formula %d", mid, tb.Waiting(), want)
				}
			}
		}
		tb.Arrive(at, int64(i))
		if tok := tb.Tokens(at); tok < 0 || tok > p.Burst || (tb.Waiting() > 0 && tok >= 1) {
			t.Fatalf("t=%v: tokens %v with %d waiting", at, tok, tb.Waiting())
		}
	}
}

// TestAccruedDelay checks the bucket's own S(t) against the check's
// integral of N(t) at every event, and against the sum of all delays at the
// end, on the hand example (r = 1, b = 2, four jobs at 0: S(1) = 2 (two
// jobs waited 1 s), S(2) = 3, S(∞) = 0 + 0 + 1 + 2 = 3) and on random
// instances.
func TestAccruedDelay(t *testing.T) {
	tb, _ := NewTokenBucket(Params{1, 2})
	for i := range 4 {
		tb.Arrive(0, int64(i))
	}
	for _, want := range []struct{ at, s engine.Time }{{1, 2}, {2, 3}} {
		tb.Grant()
		if got := tb.AccruedDelay(want.at); got != want.s {
			t.Errorf("S(%v) = %v, want %v", want.at, got, want.s)
		}
	}
	rng := newTestRand(5)
	for range 50 {
		times := randomTimes(rng, 500, 1.3)
		_, c := compareRun(t, Params{1, 3}, []Params{{0.5, 1}, {0.5, 2}}, "rr", times, nil, false)
		one, chk := c.One(), c.Check()
		if got, want := float64(one.AccruedDelay(c.Now())), float64(chk.S()); math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("bucket S(∞) = %v, check S(∞) = %v", got, want)
		}
	}
}
