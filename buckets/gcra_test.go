package buckets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// TestGCRASteps: GCRA(T = 1 s, τ = 1 s), the match of a policing bucket
// r = 1, b = 2. TAT starts at 0. At 0: conforms, TAT = 1; again at 0: TAT 1
// <= 0 + τ, conforms, TAT = 2; a third at 0: TAT 2 > 1, rejected. At 0.5 s:
// 2 > 1.5, rejected. At 1 s: 2 <= 2, conforms, TAT = 3. At 5 s: TAT 3 < 5,
// conforms, TAT = max(5, 3) + 1 = 6.
func TestGCRASteps(t *testing.T) {
	g, err := NewGCRA(MatchGCRA(Params{Rate: 1, Burst: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if p := g.Params(); p.Interval != 1 || p.Tolerance != 1 {
		t.Fatalf("MatchGCRA(1, 2) = %+v, want T = 1 s, τ = 1 s", p)
	}
	for i, s := range []struct {
		t   engine.Time
		ok  bool
		tat engine.Time
	}{
		{0, true, 1}, {0, true, 2}, {0, false, 2}, {0.5, false, 2}, {1, true, 3}, {5, true, 6},
	} {
		if d := g.Offer(s.t); d.Admitted != s.ok || d.Delay != 0 || g.TAT() != s.tat {
			t.Errorf("step %d: Offer(%v) = %+v with TAT %v, want admitted %v, TAT %v", i, s.t, d, g.TAT(), s.ok, s.tat)
		}
	}
}

// TestGCRAEqualsPolicingExact is the second equivalence, exactly:
// on any arrival sequence in whole ticks, GCRA(T = 1/r, τ = (b - 1)/r)
// decides every arrival as the policing token bucket (r, b). The bucket is
// drawn as ExactParams (Q quanta per token, P ticks per quantum, burst B
// quanta, so r = 1/(Q·P) tokens per tick and b = B/Q tokens, fractional
// bursts included); then T = Q·P and τ = (B - Q)·P ticks. Both run in
// int64, so there is no rounding: equal decisions are required, not
// approximately equal ones.
func TestGCRAEqualsPolicingExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		q := rapid.Int64Range(1, 4).Draw(rt, "quantum")
		p := rapid.Int64Range(1, 5).Draw(rt, "period")
		burst := rapid.Int64Range(q, 8*q).Draw(rt, "burst")
		times := drawTicks(rt, 2*q*p)
		b, err := NewExactBucket(ExactParams{Quantum: q, Period: p, Burst: burst}, WithPolicing())
		if err != nil {
			rt.Fatal(err)
		}
		m, err := NewExactMeter(Tick(q*p), Tick((burst-q)*p))
		if err != nil {
			rt.Fatal(err)
		}
		for i, at := range times {
			if dm, db := m.Offer(at), b.Offer(at); dm != db {
				rt.Fatalf("job %d at tick %d: GCRA %+v, policing bucket %+v (TAT %d)", i, at, dm, db, m.TAT())
			}
		}
	})
}

// TestGCRAEqualsPolicingGrid: the same in float64 seconds, where it holds
// exactly when no operation rounds. Rates are powers of two (1/8 to 8
// tokens/s, so 1/r is exact), bursts are multiples of 1/4 token, and the
// instants multiples of 1/64 s below 2^20 s: every sum and product either
// model computes is then a multiple of 2^-9 below 2^30, exactly
// representable in float64's 53 bits, so the decisions must be equal.
func TestGCRAEqualsPolicingGrid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := math.Ldexp(1, rapid.IntRange(-3, 3).Draw(rt, "log2 rate"))
		bq := rapid.IntRange(4, 40).Draw(rt, "burst in quarters")
		p := Params{Rate: r, Burst: float64(bq) / 4}
		b, _ := NewTokenBucket(p, WithPolicing())
		g, _ := NewGCRA(MatchGCRA(p))
		var at engine.Time
		n := rapid.IntRange(1, 80).Draw(rt, "jobs")
		for i := range n {
			at += engine.Time(rapid.IntRange(0, 256).Draw(rt, "gap in 1/64 s")) / 64
			if dg, db := g.Offer(at), b.Offer(at); dg != db {
				rt.Fatalf("r = %v, b = %v: job %d at %v s: GCRA %+v, policing bucket %+v", p.Rate, p.Burst, i, at, dg, db)
			}
		}
	})
}

// TestGCRAFloatRounding: on arbitrary float64 rates and instants the two
// models round differently, so they may disagree on a job that arrives
// within rounding of a decision boundary (after which their states differ).
// This checks that the first disagreement, if any, is such a job:
// |TAT - τ - t| <= 1e-9·max(1, t).
func TestGCRAFloatRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	disagreements := 0
	for inst := range 300 {
		p := Params{Rate: 0.1 + 5*rng.Float64(), Burst: 1 + 6*rng.Float64()}
		b, _ := NewTokenBucket(p, WithPolicing())
		g, _ := NewGCRA(MatchGCRA(p))
		for i, at := range randomInstants(rng, 300, 1/p.Rate) {
			tat := g.TAT()
			dg, db := g.Offer(at), b.Offer(at)
			if dg == db {
				continue
			}
			disagreements++
			if gap := math.Abs(float64(tat) - g.Params().Tolerance - float64(at)); gap > 1e-9*math.Max(1, float64(at)) {
				t.Fatalf("instance %d (r = %v, b = %v) job %d at %v: GCRA %+v, bucket %+v, %g s from the boundary", inst, p.Rate, p.Burst, i, at, dg, db, gap)
			}
			break
		}
	}
	t.Logf("%d of 300 random instances met a rounding tie", disagreements)
}

func TestGCRAParamErrors(t *testing.T) {
	for _, p := range []GCRAParams{{0, 1}, {-1, 1}, {math.NaN(), 0}, {math.Inf(1), 0}, {1, -1}, {1, math.NaN()}, {1, math.Inf(1)}} {
		if _, err := NewGCRA(p); !errors.Is(err, ErrParam) {
			t.Errorf("NewGCRA(%+v): err = %v, want ErrParam", p, err)
		}
	}
	if _, err := NewExactMeter(0, 0); !errors.Is(err, ErrParam) {
		t.Error("NewExactMeter(0, 0): want ErrParam")
	}
	if _, err := NewExactMeter(1, -1); !errors.Is(err, ErrParam) {
		t.Error("NewExactMeter(1, -1): want ErrParam")
	}
	g, _ := NewGCRA(GCRAParams{Interval: 1})
	g.Offer(3)
	expectPanic(t, "GCRA Offer earlier than the last admitted job", func() { g.Offer(2) })
}
