package profiles

import (
	"testing"

	"github.com/ratesim/ratesim/buckets"
)

// TestBucket4jTwiceTheLimit is the example of Bucket4j's documentation
// (production-generic-checklist.adoc, "Be wary of short-timed bursts"): a
// limit of 100 tokens per minute, starting full, admits 100 at T1 and 100
// more at T1 + 1 min: 200 in a closed window of one minute.
func TestBucket4jTwiceTheLimit(t *testing.T) {
	b := MustParse("bucket4j-greedy:capacity=100,refill_tokens=100,refill_period=1m").New()
	admitted := 0
	for i := range 101 {
		if b.Offer(0, int64(i)).Verdict == buckets.Admit {
			admitted++
		}
	}
	// At 30 s greedy refill has added floor(100·3e10 / 6e10) = 50 tokens.
	for i := range 60 {
		if b.Offer(30*s1, int64(200+i)).Verdict == buckets.Admit {
			admitted++
		}
	}
	// At 60 s, 30 s later, another 50.
	for i := range 60 {
		if b.Offer(60*s1, int64(300+i)).Verdict == buckets.Admit {
			admitted++
		}
	}
	if admitted != 200 {
		t.Fatalf("admitted %d in [0, 60 s], want 200", admitted)
	}
	if p := b.(buckets.Curve).Promise(60 * s1); p < 200 {
		t.Fatalf("Promise(60 s) = %v, below the 200 the example shows", p)
	}
}

// TestBucket4jGreedyRemainder checks the carried rounding error: capacity
// 10, 3 tokens per second, starting empty, nanosecond meter.
func TestBucket4jGreedyRemainder(t *testing.T) {
	b := MustParse("bucket4j-greedy:capacity=10,refill_tokens=3,refill_period=1s,initial_tokens=0,time_meter=nanos").New()
	run(t, b, []step{
		// 0.2 s: 3·2e8 = 6e8 < 1e9: no token. The refill is discarded with
		// the refusal. A token arrives when 3·d >= 1e9, d = 333333334 ns.
		{t: 200 * ms, verdict: buckets.Reject, retry: 333333334 - 200*ms},
		// 0.4 s: 3·4e8 = 1.2e9: one token, remainder 2e8 carried.
		{t: 400 * ms, verdict: buckets.Admit},
		// 0.6 s: 3·2e8 + 2e8 = 8e8 < 1e9: none; the next needs 3·d + 2e8 >=
		// 1e9, d = ceil(8e8/3) = 266666667 ns after 0.4 s.
		{t: 600 * ms, verdict: buckets.Reject, retry: 400*ms + 266666667 - 600*ms},
		{t: 400*ms + 266666667, verdict: buckets.Admit},
	}, true)
}

// TestBucket4jIntervalStaircase checks refillIntervally: 5 tokens each
// whole second since creation, capacity 5, millisecond meter.
func TestBucket4jIntervalStaircase(t *testing.T) {
	steps := []step{}
	for range 5 {
		steps = append(steps, step{t: 0, verdict: buckets.Admit})
	}
	steps = append(steps,
		step{t: 0, verdict: buckets.Reject, retry: s1},
		// 999.9 ms: the meter reads 999 ms, no whole period yet.
		step{t: s1 - 100*us, verdict: buckets.Reject, retry: 100 * us},
		step{t: s1, verdict: buckets.Admit},
		// 1.7 s: the period boundary stays at 1 s; 4 tokens left.
		step{t: 1700 * ms, verdict: buckets.Admit},
	)
	run(t, MustParse("bucket4j-interval:capacity=5,refill_tokens=5,refill_period=1s").New(), steps, true)
}

// TestBucket4jBlocking checks asBlocking().consume(1): capacity 1, 1 token
// per second, nanosecond meter. The bucket goes negative and each call
// sleeps (deficit · 1e9 - roundingError) / 1 ns.
func TestBucket4jBlocking(t *testing.T) {
	run(t, MustParse("bucket4j-greedy:capacity=1,refill_tokens=1,refill_period=1s,time_meter=nanos,call=block").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Delay, wait: s1},     // size 0: deficit 1
		{t: 0, verdict: buckets.Delay, wait: 2 * s1}, // size -1: deficit 2
		// At 0.5 s: refill 1·5e8 / 1e9 = 0, remainder 5e8; size -2,
		// deficit 3: (3e9 - 5e8) / 1 = 2.5e9 ns.
		{t: 500 * ms, verdict: buckets.Delay, wait: 2500 * ms},
	}, false)
	// With max_wait = 1.5 s the third call (2 s) is refused, unchanged.
	run(t, MustParse("bucket4j-greedy:capacity=1,refill_tokens=1,refill_period=1s,time_meter=nanos,call=block,max_wait=1.5s").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Delay, wait: s1},
		{t: 0, verdict: buckets.Reject, retry: 500 * ms}, // at 0.5 s the wait is 1.5 s
		{t: 500 * ms, verdict: buckets.Delay, wait: 1500 * ms},
	}, true)
}

// TestBucket4jMillisecondMeter checks the default meter: capacity 1, 1
// token per 10 ms. A request at 10.9 ms reads 10 ms and finds the token;
// at 20.5 ms it reads 20 ms: 1·10e6/10e6 = 1 token.
func TestBucket4jMillisecondMeter(t *testing.T) {
	run(t, MustParse("bucket4j-greedy:capacity=1,refill_tokens=1,refill_period=10ms").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 9900 * us, verdict: buckets.Reject, retry: 100 * us}, // reads 9 ms: 0.9 token
		{t: 10900 * us, verdict: buckets.Admit},
		{t: 19999 * us, verdict: buckets.Reject, retry: 1 * us}, // reads 19 ms
		{t: 20500 * us, verdict: buckets.Admit},
	}, true)
}
