package buckets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// TestLeakySteps: a leaky bucket R = 2 jobs/s (one every 0.5 s) with a
// queue of 2. At 0 the first job leaves at once, the second at 0.5 s
// (delay 0.5) and the third at 1 s (delay 1): two wait, so the fourth is
// rejected. At 0.5 s the job due then has left (a departure at t does not
// wait at t): one waits, and the new job leaves at 1.5 s (delay 1). At 0.75
// s two wait (1 s and 1.5 s): rejected. At 3 s the queue is empty: delay 0.
func TestLeakySteps(t *testing.T) {
	l, err := NewLeakyBucket(LeakyParams{Rate: 2, Queue: 2})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "leaky", Limiter[engine.Time](l), []offerStep[engine.Time]{
		{0, true, 0}, {0, true, 0.5}, {0, true, 1}, {0, false, 0},
		{0.5, true, 1},
		{0.75, false, 0},
		{3, true, 0},
	})
	if w := l.Waiting(3); w != 0 {
		t.Errorf("Waiting(3) = %d, want 0", w)
	}
}

// drawTicks draws n non-decreasing instants in ticks, with ties and gaps of
// up to maxGap ticks.
func drawTicks(t *rapid.T, maxGap int64) []Tick {
	n := rapid.IntRange(1, 60).Draw(t, "jobs")
	ts := make([]Tick, n)
	var at Tick
	for i := range ts {
		at += Tick(rapid.Int64Range(0, maxGap).Draw(t, "gap"))
		ts[i] = at
	}
	return ts
}

// TestLeakyEqualsTokenBucketExact is the first equivalence, exactly:
// on any arrival sequence in whole ticks, a leaky bucket that releases one
// job per P ticks with a queue of capacity q (or none) makes the same
// decisions, with the same delays, as a token bucket (1/P tokens per tick,
// burst 1) in shaping mode with the same queue. Both run in int64 ticks, so
// there is no rounding and equality is exact.
func TestLeakyEqualsTokenBucketExact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		period := Tick(rapid.Int64Range(1, 7).Draw(rt, "period"))
		queue := rapid.IntRange(0, 5).Draw(rt, "queue") // 0: unbounded
		times := drawTicks(rt, 3*int64(period))
		l, err := NewExactLeaky(period, queue)
		if err != nil {
			rt.Fatal(err)
		}
		var opts []Option
		if queue > 0 {
			opts = append(opts, WithQueueCapacity(queue))
		}
		b, err := NewExactBucket(ExactParams{Quantum: 1, Period: int64(period), Burst: 1}, opts...)
		if err != nil {
			rt.Fatal(err)
		}
		for i, at := range times {
			dl, db := l.Offer(at), b.Offer(at)
			if dl != db {
				rt.Fatalf("job %d at tick %d: leaky %+v, token bucket (R, 1) %+v", i, at, dl, db)
			}
		}
	})
}

// TestLeakyEqualsTokenBucketFloat: the same in float64 seconds on random
// rates and arrivals. Both compute a departure as B + k/R from the busy
// period's start B with one product and one sum, so their delays are equal
// bit for bit, not just within a tolerance.
func TestLeakyEqualsTokenBucketFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for inst := range 300 {
		r := 0.05 + 10*rng.Float64()
		queue := rng.IntN(6)
		times := randomInstants(rng, 300, 1/r)
		l, _ := NewLeakyBucket(LeakyParams{Rate: r, Queue: queue})
		var opts []Option
		if queue > 0 {
			opts = append(opts, WithQueueCapacity(queue))
		}
		b, _ := NewTokenBucket(Params{Rate: r, Burst: 1}, opts...)
		for i, at := range times {
			if dl, db := l.Offer(at), b.Offer(at); dl != db {
				t.Fatalf("instance %d (R = %v, queue %d) job %d at %v: leaky %+v, token bucket %+v", inst, r, queue, i, at, dl, db)
			}
		}
	}
}

// TestLeakyAgainstRecursion compares the unbounded leaky bucket with the
// textbook recursion D_i = max(a_i, D_{i-1} + 1/R), computed independently
// by repeated addition, within a relative 1e-9.
func TestLeakyAgainstRecursion(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for range 100 {
		r := 0.1 + 5*rng.Float64()
		times := randomInstants(rng, 500, 1/r)
		l, _ := NewLeakyBucket(LeakyParams{Rate: r})
		dep := math.Inf(-1)
		for i, at := range times {
			dep = math.Max(float64(at), dep+1/r)
			d := l.Offer(at)
			if !d.Admitted || math.Abs(float64(d.Delay)-(dep-float64(at))) > 1e-9*math.Max(1, dep) {
				t.Fatalf("R = %v job %d at %v: %+v, recursion delay %v", r, i, at, d, dep-float64(at))
			}
		}
	}
}

func TestLeakyParamErrors(t *testing.T) {
	for _, p := range []LeakyParams{{Rate: 0}, {Rate: -1}, {Rate: math.NaN()}, {Rate: math.Inf(1)}, {Rate: 1e-320}, {Rate: 1, Queue: -1}} {
		if _, err := NewLeakyBucket(p); !errors.Is(err, ErrParam) {
			t.Errorf("NewLeakyBucket(%+v): err = %v, want ErrParam", p, err)
		}
	}
	if _, err := NewExactLeaky(0, 0); !errors.Is(err, ErrParam) {
		t.Errorf("NewExactLeaky(0, 0): err = %v, want ErrParam", err)
	}
}

// TestLeakyRejectionLeavesState: a job rejected by a full queue changes
// nothing.
func TestLeakyRejectionLeavesState(t *testing.T) {
	l, _ := NewLeakyBucket(LeakyParams{Rate: 1, Queue: 1})
	l.Offer(0)
	l.Offer(0) // waits until 1 s
	before := *l
	before.deps.buf = append([]waiting[engine.Time](nil), l.deps.buf...)
	if d := l.Offer(0.5); d.Admitted {
		t.Fatal("Offer(0.5) admitted a job into a full queue")
	}
	if before.start != l.start || before.k != l.k || before.last != l.last || before.deps.len() != l.deps.len() {
		t.Errorf("a rejected job changed the bucket: %+v -> %+v", before, *l)
	}
	expectPanic(t, "Offer earlier than the last admitted job", func() { l.Offer(-1) })
}
