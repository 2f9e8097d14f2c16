package buckets

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestPolicingSteps: a policing token bucket r = 2 tokens/s, b = 2, full at
// 0. Two jobs at 0 take both tokens; a third finds none and is rejected. At
// 0.25 s the bucket holds 2·0.25 = 0.5 token: rejected. At 0.5 s it holds 1:
// admitted, leaving 0. By 2 s it has refilled to b = 2 (capped; 3 would have
// accrued): two pass, the third is rejected.
func TestPolicingSteps(t *testing.T) {
	b, err := NewTokenBucket(Params{Rate: 2, Burst: 2}, WithPolicing())
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "policing", Limiter[engine.Time](b), []offerStep[engine.Time]{
		{0, true, 0}, {0, true, 0}, {0, false, 0},
		{0.25, false, 0},
		{0.5, true, 0},
		{2, true, 0}, {2, true, 0}, {2, false, 0},
	})
	if b.QueueCapacity() != 0 || b.Waiting() != 0 {
		t.Errorf("queue capacity %d, waiting %d; want 0 and 0", b.QueueCapacity(), b.Waiting())
	}
}

// TestQueueCapacitySteps: a shaping token bucket r = 1 token/s, b = 1,
// whose queue holds at most 1 job. At 0 the first job takes the token, the
// second waits for the token at 1 s (delay 1), the third finds the queue
// full and is rejected, and so is one at 0.5 s. At 1 s the grant is made
// before the arrival, so the queue is empty and the job waits for the token
// at 2 s (delay 1); one at 1.5 s is rejected. At 3 s the bucket holds a
// token again: delay 0.
func TestQueueCapacitySteps(t *testing.T) {
	b, err := NewTokenBucket(Params{Rate: 1, Burst: 1}, WithQueueCapacity(1))
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "queue 1", Limiter[engine.Time](b), []offerStep[engine.Time]{
		{0, true, 0}, {0, true, 1}, {0, false, 0},
		{0.5, false, 0},
		{1, true, 1},
		{1.5, false, 0},
		{3, true, 0},
	})
}

// TestOfferRejectionLeavesState: a rejected job changes nothing (style rule
// 9), in policing mode and with a full queue.
func TestOfferRejectionLeavesState(t *testing.T) {
	for _, opt := range []Option{WithPolicing(), WithQueueCapacity(2)} {
		b, _ := NewTokenBucket(Params{Rate: 1, Burst: 2}, opt)
		for range 4 {
			b.Offer(0)
		}
		// No grant is due before 0.5 s (the first is at 1 s), so Offer(0.5)
		// makes none and the snapshot is the state it sees.
		before := *b
		before.q.buf = append([]waiting[engine.Time](nil), b.q.buf...)
		if d := b.Offer(0.5); d.Admitted {
			t.Fatalf("capacity %d: Offer(0.5) admitted a job", b.QueueCapacity())
		}
		if !reflect.DeepEqual(before, *b) {
			t.Errorf("capacity %d: a rejected job changed the bucket:\n%+v\n%+v", b.QueueCapacity(), before, *b)
		}
	}
}

// TestOfferAgainstNaive: with an unbounded queue, the delays Offer returns
// are the FCFS delays of the naive token-count model (see naiveFCFS), on
// random instances.
func TestOfferAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 200 {
		p := Params{Rate: 0.1 + 5*rng.Float64(), Burst: 1 + 6*rng.Float64()}
		times := randomTimes(rng, 300, p.Rate*1.2)
		want := naiveFCFS(p, times)
		b, _ := NewTokenBucket(p)
		for i, a := range times {
			d := b.Offer(engine.Time(a))
			tol := 1e-9 * math.Max(1, a)
			if !d.Admitted || math.Abs(float64(d.Delay)-want[i]) > tol {
				t.Fatalf("r=%v b=%v job %d at %v: Offer = %+v, naive delay %v", p.Rate, p.Burst, i, a, d, want[i])
			}
		}
	}
}

// TestPolicingRespectsPromise: what a policing bucket admits, and what a
// shaping bucket releases, never exceeds b + r·d in a closed interval of
// length d (up to rounding, 1e-9 of a job), on random arrivals.
func TestPolicingRespectsPromise(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	ds := []engine.Time{0, 0.1, 0.5, 1, 2, 5, 10, 50}
	for inst := range 100 {
		p := Params{Rate: 0.2 + 3*rng.Float64(), Burst: 1 + 5*rng.Float64()}
		times := randomInstants(rng, 400, 1/p.Rate)
		for _, opt := range []Option{WithPolicing(), WithQueueCapacity(3), nil} {
			var b *TokenBucket
			if opt == nil {
				b, _ = NewTokenBucket(p)
			} else {
				b, _ = NewTokenBucket(p, opt)
			}
			pts, err := MeasureArrivalCurve(offerAll(b, times), ds)
			if err != nil {
				t.Fatal(err)
			}
			for _, pt := range pts {
				if float64(pt.Jobs) > b.Promise(pt.D)+1e-9 {
					t.Fatalf("instance %d, r=%v b=%v, queue %d: α*(%v) = %d > b + r·d = %v", inst, p.Rate, p.Burst, b.QueueCapacity(), pt.D, pt.Jobs, b.Promise(pt.D))
				}
			}
		}
	}
}

func TestOfferPanics(t *testing.T) {
	lifo, _ := NewTokenBucket(Params{Rate: 1, Burst: 1}, WithOrder(LIFO, nil))
	expectPanic(t, "Offer on a LIFO bucket", func() { lifo.Offer(0) })
	b, _ := NewTokenBucket(Params{Rate: 1, Burst: 1})
	b.Offer(2)
	expectPanic(t, "Offer earlier than the last job", func() { b.Offer(1) })
	expectPanic(t, "Offer(NaN)", func() { b.Offer(engine.Time(math.NaN())) })
}

func TestQueueCapacityErrors(t *testing.T) {
	if _, err := NewTokenBucket(Params{Rate: 1, Burst: 1}, WithQueueCapacity(-1)); !errors.Is(err, ErrParam) {
		t.Errorf("WithQueueCapacity(-1): err = %v, want ErrParam", err)
	}
	b, _ := NewTokenBucket(Params{Rate: 1, Burst: 1})
	if b.QueueCapacity() != -1 {
		t.Errorf("default queue capacity %d, want -1 (unbounded)", b.QueueCapacity())
	}
}

// TestPolicingKeepsArrive: Arrive still admits every job whatever the mode
// (Compare builds on it): a policing bucket r = 1, b = 1 given two jobs at
// 0 through Arrive queues the second.
func TestPolicingKeepsArrive(t *testing.T) {
	b, _ := NewTokenBucket(Params{Rate: 1, Burst: 1}, WithPolicing())
	if b.Arrive(0, 0) || !b.Arrive(0, 1) {
		t.Error("Arrive in policing mode: want the first job to pass and the second to wait")
	}
}

func expectPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
