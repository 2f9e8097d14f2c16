package buckets

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// Every limiter of the family implements Limiter, in float64 seconds and,
// where it has one, in the exact model.
var (
	_ Limiter[engine.Time] = (*TokenBucket)(nil)
	_ Limiter[Tick]        = (*Bucket[Tick])(nil)
	_ Limiter[engine.Time] = (*LeakyBucket)(nil)
	_ Limiter[Tick]        = (*Leaky[Tick])(nil)
	_ Limiter[engine.Time] = (*GCRA)(nil)
	_ Limiter[Tick]        = (*Meter[Tick])(nil)
	_ Limiter[engine.Time] = (*FixedWindow)(nil)
	_ Limiter[engine.Time] = (*SlidingLog)(nil)
	_ Limiter[engine.Time] = (*SlidingCounter)(nil)
	_ Limiter[engine.Time] = (*Throttle)(nil)
)

// offerStep is one arrival of a step table: the instant, and the expected
// decision.
type offerStep[T Number] struct {
	t     T
	ok    bool
	delay T
}

// runSteps offers each step's instant to l and checks the decision.
func runSteps[T Number](t *testing.T, name string, l Limiter[T], steps []offerStep[T]) {
	t.Helper()
	for i, s := range steps {
		d := l.Offer(s.t)
		if d.Admitted != s.ok || d.Delay != s.delay {
			t.Errorf("%s step %d: Offer(%v) = %+v, want {Admitted:%v Delay:%v}", name, i, s.t, d, s.ok, s.delay)
		}
	}
}

// offerAll offers times to l and returns the release instants (arrival
// plus delay) of the admitted jobs, in arrival order, and the number
// admitted.
func offerAll(l Limiter[engine.Time], times []engine.Time) (released []engine.Time) {
	for _, t := range times {
		if d := l.Offer(t); d.Admitted {
			released = append(released, t+d.Delay)
		}
	}
	return released
}

// repeat returns n copies of t.
func repeat(t engine.Time, n int) []engine.Time {
	return slices.Repeat([]engine.Time{t}, n)
}

// TestBoundaryBurstHandExample is the hand-worked example: a limit
// of L = 100 jobs per W = 60 s, 100 arrivals at t = 59 s and 100 at 61 s.
//
//   - Fixed window: the first 100 fall in window [0, 60) and the next 100
//     in [60, 120), each within its limit: all 200 pass, so α*(2 s) = 200 =
//     2L, twice the promise of L = 100 in any interval shorter than W.
//   - Sliding window log: the 100 at 59 s fill (t - 60, t] until 119 s, so
//     the 100 at 61 s are rejected: 100 pass, α*(2 s) = 100.
//   - Policing token bucket r = 100/60 tokens/s, b = 100: full at 59 s, it
//     admits 100 and is empty; by 61 s it has accrued 2·100/60 = 3.33
//     tokens, so 3 more pass: 103, α*(2 s) = 103 <= b + 2r = 103.3.
//   - GCRA(T = 1/r = 0.6 s, τ = (b - 1)/r = 59.4 s) decides as the bucket:
//     after 100 at 59 s, TAT = 59 + 100·0.6 = 119 s; at 61 s a job conforms
//     while TAT <= 61 + 59.4 = 120.4 s: TAT 119, 119.6, 120.2 pass, 120.8
//     does not: 103.
//   - Sliding window counter: at 61 s, e = 1 s into window [60, 120) with
//     p = 100: admits while 100·59/60 + c < 100, i.e. c < 1.67: 2 pass, 102.
func TestBoundaryBurstHandExample(t *testing.T) {
	times := append(repeat(59, 100), repeat(61, 100)...)
	win := WindowParams{Limit: 100, Window: 60}
	bucket := Params{Rate: 100.0 / 60, Burst: 100}
	fixed, _ := NewFixedWindow(win)
	log, _ := NewSlidingLog(win)
	counter, _ := NewSlidingCounter(win)
	police, _ := NewTokenBucket(bucket, WithPolicing())
	gcra, _ := NewGCRA(MatchGCRA(bucket))
	ds := []engine.Time{0, 2}
	for _, tc := range []struct {
		name     string
		l        Limiter[engine.Time]
		admitted int
		alpha2   int // α*(2 s)
		promise2 float64
	}{
		{"fixed window", fixed, 200, 200, 100},
		{"sliding log", log, 100, 100, 100},
		{"sliding counter", counter, 102, 102, 100},
		{"policing token bucket", police, 103, 103, 100 + 2*100.0/60},
		{"gcra", gcra, 103, 103, 1 + (59.4+2)/0.6},
	} {
		rel := offerAll(tc.l, times)
		if len(rel) != tc.admitted {
			t.Errorf("%s admits %d of 200, want %d", tc.name, len(rel), tc.admitted)
		}
		pts, err := MeasureArrivalCurve(rel, ds)
		if err != nil {
			t.Fatal(err)
		}
		if pts[1].Jobs != tc.alpha2 || pts[0].Jobs != 100 {
			t.Errorf("%s: α*(0) = %d, α*(2 s) = %d, want 100 and %d", tc.name, pts[0].Jobs, pts[1].Jobs, tc.alpha2)
		}
		if p := tc.l.Promise(2); p < tc.promise2-1e-9 || p > tc.promise2+1e-9 {
			t.Errorf("%s: Promise(2 s) = %v, want %v", tc.name, p, tc.promise2)
		}
	}
	// The fixed window's burst spans exactly [59 s, 61 s].
	rel := offerAll(mustFixed(t, win), times)
	pts, _ := MeasureArrivalCurve(rel, []engine.Time{2})
	if pts[0].From != 59 || pts[0].To != 61 || float64(pts[0].Jobs) != 2*float64(win.Limit) {
		t.Errorf("fixed window α*(2 s) = %+v, want 200 = 2L in [59, 61]", pts[0])
	}
}

func mustFixed(t *testing.T, p WindowParams) *FixedWindow {
	t.Helper()
	f, err := NewFixedWindow(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// randomInstants draws n non-decreasing instants with ties, bursts and idle
// gaps of the order of scale seconds.
func randomInstants(rng *rand.Rand, n int, scale float64) []engine.Time {
	ts := make([]engine.Time, n)
	t := 0.0
	for i := range ts {
		switch rng.IntN(4) {
		case 0: // tie
		case 1:
			t += rng.ExpFloat64() * scale / 10
		case 2:
			t += rng.ExpFloat64() * scale
		case 3:
			t += rng.ExpFloat64() * scale * 10
		}
		ts[i] = engine.Time(t)
	}
	return ts
}
