package buckets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// TestThrottleAdmission: the response function for Soft = 2, Hard = 6
// tokens of deficit is 1 up to 2, then (6 - δ)/4: 0.75 at 3, 0.5 at 4,
// 0.25 at 5, and 0 from 6. With Soft = Hard = 3 it is the cliff: 1 up to 3,
// 0 beyond.
func TestThrottleAdmission(t *testing.T) {
	ramp := ThrottleParams{Rate: 1, Burst: 10, Soft: 2, Hard: 6}
	cliff := ThrottleParams{Rate: 1, Burst: 10, Soft: 3, Hard: 3}
	for _, c := range []struct {
		p       ThrottleParams
		deficit float64
		want    float64
	}{
		{ramp, 0, 1}, {ramp, 2, 1}, {ramp, 3, 0.75}, {ramp, 4, 0.5}, {ramp, 5, 0.25}, {ramp, 6, 0}, {ramp, 9, 0},
		{cliff, 3, 1}, {cliff, 3.001, 0},
	} {
		if got := c.p.Admission(c.deficit); got != c.want {
			t.Errorf("%+v: Admission(%v) = %v, want %v", c.p, c.deficit, got, c.want)
		}
	}
}

// TestThrottleSteps: r = 1 token/s, b = 4, Soft = Hard = 3 (the cliff, no
// draws). Full at 0: four jobs pass at deficits 0, 1, 2, 3; the fifth, at
// deficit 4 > 3, is rejected. At 0.5 s the deficit is 3.5: rejected. At 1 s
// it is 3: admitted (deficit 4 after).
func TestThrottleSteps(t *testing.T) {
	th, err := NewThrottle(ThrottleParams{Rate: 1, Burst: 4, Soft: 3, Hard: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "throttle", Limiter[engine.Time](th), []offerStep[engine.Time]{
		{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0}, {0, false, 0},
		{0.5, false, 0}, {1, true, 0},
	})
	if d := th.Deficit(1); d != 4 {
		t.Errorf("Deficit(1) = %v, want 4", d)
	}
}

// TestThrottleCliffIsPolicing: with Soft = Hard = b - 1 the throttle admits
// a job iff the bucket holds at least one token, as the policing token
// bucket does, so on the exact grid of TestGCRAEqualsPolicingGrid (power of
// two rates, bursts in quarters, instants in 1/64 s) every decision must be
// equal.
func TestThrottleCliffIsPolicing(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := math.Ldexp(1, rapid.IntRange(-3, 3).Draw(rt, "log2 rate"))
		b := float64(rapid.IntRange(4, 40).Draw(rt, "burst in quarters")) / 4
		th, err := NewThrottle(ThrottleParams{Rate: r, Burst: b, Soft: b - 1, Hard: b - 1}, nil)
		if err != nil {
			rt.Fatal(err)
		}
		pb, _ := NewTokenBucket(Params{Rate: r, Burst: b}, WithPolicing())
		var at engine.Time
		for i := range rapid.IntRange(1, 80).Draw(rt, "jobs") {
			at += engine.Time(rapid.IntRange(0, 256).Draw(rt, "gap in 1/64 s")) / 64
			if dt, dp := th.Offer(at), pb.Offer(at); dt != dp {
				rt.Fatalf("r = %v, b = %v: job %d at %v s: throttle %+v, policing bucket %+v", r, b, i, at, dt, dp)
			}
		}
	})
}

// TestThrottleProbability: at a fixed deficit δ the throttle admits with
// probability p(δ). Soft = 2, Hard = 6, b = 10: each of n = 100000 trials
// puts the throttle at deficit δ and offers one job. The standard error of
// the admitted fraction is at most sqrt(0.25/n) = 0.0016, so a tolerance of
// 0.01 (more than 6 standard errors) fails by chance with probability
// below 1e-9; the seed is fixed anyway.
func TestThrottleProbability(t *testing.T) {
	const n = 100000
	src := rand.NewPCG(1, 1)
	for _, c := range []struct{ deficit, p float64 }{{1, 1}, {3, 0.75}, {4, 0.5}, {5, 0.25}, {6, 0}} {
		th, _ := NewThrottle(ThrottleParams{Rate: 1, Burst: 10, Soft: 2, Hard: 6}, src)
		admitted := 0
		for range n {
			th.tokens, th.last = 10-c.deficit, 0
			if th.Offer(0).Admitted {
				admitted++
			}
		}
		if got := float64(admitted) / n; math.Abs(got-c.p) > 0.01 {
			t.Errorf("deficit %v: admitted fraction %v, want %v ± 0.01", c.deficit, got, c.p)
		}
	}
}

// TestThrottleRespectsPromise: what the throttle admits never exceeds
// b + r·d in a closed interval of length d.
func TestThrottleRespectsPromise(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	ds := []engine.Time{0, 0.5, 1, 3, 10, 40}
	for range 100 {
		b := 2 + 8*rng.Float64()
		p := ThrottleParams{Rate: 0.2 + 3*rng.Float64(), Burst: b, Soft: (b - 1) * rng.Float64() / 2}
		p.Hard = p.Soft + (b-1-p.Soft)*rng.Float64()
		th, err := NewThrottle(p, rand.NewPCG(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		pts, _ := MeasureArrivalCurve(offerAll(th, randomInstants(rng, 400, 0.5/p.Rate)), ds)
		for _, pt := range pts {
			if float64(pt.Jobs) > th.Promise(pt.D)+1e-9 {
				t.Fatalf("%+v: α*(%v) = %d > b + r·d = %v", p, pt.D, pt.Jobs, th.Promise(pt.D))
			}
		}
	}
}

func TestThrottleParamErrors(t *testing.T) {
	for _, p := range []ThrottleParams{
		{Rate: 0, Burst: 4}, {Rate: 1, Burst: 0.5},
		{Rate: 1, Burst: 4, Soft: 1, Hard: 3.5}, // hard > b - 1
		{Rate: 1, Burst: 4, Soft: 2, Hard: 1},   // soft > hard
		{Rate: 1, Burst: 4, Soft: -1, Hard: 1},
		{Rate: 1, Burst: 4, Soft: math.NaN(), Hard: 1},
		{Rate: 1, Burst: 4, Soft: 0, Hard: math.NaN()},
	} {
		if _, err := NewThrottle(p, rand.NewPCG(1, 1)); !errors.Is(err, ErrParam) {
			t.Errorf("NewThrottle(%+v): err = %v, want ErrParam", p, err)
		}
	}
	if _, err := NewThrottle(ThrottleParams{Rate: 1, Burst: 4, Soft: 1, Hard: 3}, nil); !errors.Is(err, ErrParam) {
		t.Errorf("a ramp without a random source: err = %v, want ErrParam", err)
	}
}
