package profiles

import (
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// sequential offers n acquire() calls one after the other, each after the
// previous one's sleep, as Guava's RateLimiterTest does with its fake
// stopwatch, and returns the sleeps rounded to 10 ms as the test's "R%3.2f"
// events print them, in units of 10 ms.
func sequential(l buckets.Limiter, at *engine.Time, n int) []int64 {
	var out []int64
	for i := range n {
		d := l.Offer(*at, int64(i))
		var w int64
		if d.Verdict == buckets.Delay {
			w = d.Wait.Num().Int64()
		}
		*at += engine.Time(w)
		out = append(out, (w+5*int64(ms))/(10*int64(ms)))
	}
	return out
}

func eq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGuavaSimple is RateLimiterTest.testSimple and testSimpleWithWait:
// create(5.0), stableInterval 200000 µs: "R0.00, R0.20, R0.20", and after
// a 200 ms pause "R0.00" then "R0.20".
func TestGuavaSimple(t *testing.T) {
	l := MustParse("guava-bursty:permits_per_second=5").New()
	var at engine.Time
	if got := sequential(l, &at, 3); !eq(got, []int64{0, 20, 20}) {
		t.Fatalf("testSimple: %v, want [0 20 20] (10 ms units)", got)
	}
	l = MustParse("guava-bursty:permits_per_second=5").New()
	at = 0
	sequential(l, &at, 1)
	at += 200 * ms // U0.20
	if got := sequential(l, &at, 2); !eq(got, []int64{0, 20}) {
		t.Fatalf("testSimpleWithWait: %v, want [0 20]", got)
	}
}

// TestGuavaOneSecondBurst is testOneSecondBurst with single permits:
// create(5.0) idle for 2 s resyncs to maxPermits = 5 stored permits. Five
// requests spend them at no cost, the sixth takes a fresh permit granted at
// the current nextFree (now) and moves nextFree 200 ms on, so six pass at
// once (Guava's test: acquire 1, 1, 3, 1, all R0.00) and the seventh
// repays 200 ms (R0.20).
func TestGuavaOneSecondBurst(t *testing.T) {
	l := MustParse("guava-bursty:permits_per_second=5").New()
	at := 2 * s1
	if got := sequential(l, &at, 7); !eq(got, []int64{0, 0, 0, 0, 0, 0, 20}) {
		t.Fatalf("one-second burst: %v, want six at once then 200 ms", got)
	}
}

// TestGuavaWarmUp is RateLimiterTest.testWarmUp: create(2.0, 4000 ms),
// cold factor 3. stableInterval 500000 µs, coldInterval 1500000 µs,
// thresholdPermits 0.5·4e6/5e5 = 4, maxPermits 4 + 2·4e6/2e6 = 8, slope
// 1e6/4 = 250000 µs per permit, starting with 8 stored permits. The first
// acquire is free and costs the integral from 7 to 8 permits:
// (1.5e6 + 1.25e6)/2 = 1375000 µs, which the second repays (R1.38); then
// 1125000, 875000, 625000 (R1.13, R0.88, R0.63) down to the threshold and
// 500000 µs after it.
func TestGuavaWarmUp(t *testing.T) {
	l := MustParse("guava-warmup:permits_per_second=2,warmup_period=4s").New()
	var at engine.Time
	want := []int64{0, 138, 113, 88, 63, 50, 50, 50}
	if got := sequential(l, &at, 8); !eq(got, want) {
		t.Fatalf("#1: %v, want %v", got, want)
	}
	at += 500*ms + 4*s1 // #2, #3: repay the last acquire, then cold again
	if got := sequential(l, &at, 8); !eq(got, want) {
		t.Fatalf("#4: %v, want %v", got, want)
	}
	at += 500*ms + 2*s1 // #5, #6: not cold yet
	if got := sequential(l, &at, 8); !eq(got, []int64{0, 50, 50, 50, 50, 50, 50, 50}) {
		t.Fatalf("#7: %v, want [0 50 50 50 50 50 50 50]", got)
	}
}

// TestGuavaTryAcquire is testTryAcquire_noWaitAllowed and
// testTryAcquire_someWaitAllowed with create(5.0).
func TestGuavaTryAcquire(t *testing.T) {
	run(t, MustParse("guava-bursty:permits_per_second=5,call=try_acquire").New(), []step{
		{t: 0, verdict: buckets.Admit},
		// nextFree = 200000 µs > now + 0: refused, without resync; a retry
		// passes when the µs clock reads 200000.
		{t: 0, verdict: buckets.Reject, retry: 200 * ms},
		{t: 0, verdict: buckets.Reject, retry: 200 * ms},
		{t: 100 * ms, verdict: buckets.Reject, retry: 100 * ms},
	}, true)
	run(t, MustParse("guava-bursty:permits_per_second=5,call=try_acquire,timeout=200ms").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Delay, wait: 200 * ms}, // nextFree 200 ms <= 0 + 200 ms
	}, false)
	run(t, MustParse("guava-bursty:permits_per_second=5,call=try_acquire,timeout=100ms").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Reject, retry: 100 * ms}, // 200 ms > 0 + 100 ms
		{t: 100 * ms, verdict: buckets.Delay, wait: 100 * ms},
	}, true)
}

// TestGuavaMicrosecondClock checks the truncation of the stopwatch to
// whole microseconds: at 3 permits per second, stableInterval =
// 333333.33333333331 µs and each fresh permit moves nextFree by
// (long)333333.33 = 333333 µs; a tryAcquire at 333332.999 µs reads 333332
// and is refused, at 333333 µs it passes.
func TestGuavaMicrosecondClock(t *testing.T) {
	run(t, MustParse("guava-bursty:permits_per_second=3,call=try_acquire").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 333333*us - 1, verdict: buckets.Reject, retry: 1},
		{t: 333333 * us, verdict: buckets.Admit},
	}, true)
}
