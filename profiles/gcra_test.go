package profiles

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// TestThrottledHand checks max_burst + 1 by hand: PerSec(10) (T = 100
// ms), MaxBurst 2 (τ = 300 ms).
func TestThrottledHand(t *testing.T) {
	g := MustParse("throttled:max_rate=10,max_burst=2").New()
	run(t, g, []step{
		// tat = now = 0: newTat 100 ms, allowAt -200 ms: admitted.
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Admit}, // newTat 200 ms, allowAt -100 ms
		{t: 0, verdict: buckets.Admit}, // newTat 300 ms, allowAt 0: now >= allowAt
		// newTat 400 ms, allowAt 100 ms > 0: refused, RetryAfter 100 ms.
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
		{t: 100*ms - 1, verdict: buckets.Reject, retry: 1},
		{t: 100 * ms, verdict: buckets.Admit},
	}, true)
}

// TestRedisCellHand checks redis-cell's convention, the same as throttled:
// CL.THROTTLE key 4 1 10 (max_burst 4, 1 per 10 s) admits 5 back to back,
// the sixth is refused with a retry of 10 s (T = 1e10 ns, τ = 5e10 ns).
func TestRedisCellHand(t *testing.T) {
	g := MustParse("redis-cell:max_burst=4,count=1,period=10").New()
	steps := []step{}
	for range 5 {
		steps = append(steps, step{t: 0, verdict: buckets.Admit})
	}
	steps = append(steps, step{t: 0, verdict: buckets.Reject, retry: 10 * s1})
	run(t, g, steps, true)
}

// TestRedisRateHand checks redis_rate's v10 script with an origin at
// 2017-01-01, where the script's now is exactly t in seconds (on the µs
// grid): rate 1, burst 3, period 1 s, so emission 1.0 and burst_offset 3.0
// are exact.
func TestRedisRateHand(t *testing.T) {
	r := MustParse("redis-rate:rate=1,burst=3,origin=1483228800").New()
	run(t, r, []step{
		{t: 0, verdict: buckets.Admit}, // newTat 1, allowAt -2, diff 2
		{t: 0, verdict: buckets.Admit}, // newTat 2, allowAt -1, diff 1
		{t: 0, verdict: buckets.Admit}, // newTat 3, allowAt 0, diff 0: remaining 0 is not < 0
		// newTat 4, allowAt 1, diff -1: refused. At t = 1 s - 1 ns the µs
		// clock reads 0.999999 and diff < 0; at 1 s diff = 0: RetryAfter 1 s.
		{t: 0, verdict: buckets.Reject, retry: s1},
		{t: s1 - 1, verdict: buckets.Reject, retry: 1},
		{t: s1, verdict: buckets.Admit},
	}, true)
}

// TestRedisRateBurstAtScale shows the script's float64 at today's clock:
// with PerSecond(10) (rate 10, burst 10), emission = 0.1 and the script's
// now at 2026-01-01 is 283996800 s since 2017, where a float64's ulp is
// 2^-24 ≈ 5.96e-8 s. Each "tat + 0.1" rounds up by 2.38e-8 s, so after
// nine admissions newTat = 283996801.0000002384 and the tenth request's
// diff is -2.38e-7 < 0: only 9 requests pass back to back, not 10. With an
// origin at 2017-01-01 (now near 0) all 10 pass.
func TestRedisRateBurstAtScale(t *testing.T) {
	for _, c := range []struct {
		spec string
		want int
	}{
		{"redis-rate:rate=10,burst=10", 9},
		{"redis-rate:rate=10,burst=10,origin=1483228800", 10},
	} {
		l := MustParse(c.spec).New()
		n := 0
		for i := range 20 {
			if l.Offer(0, int64(i)).Verdict == buckets.Admit {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%s: %d admitted back to back, want %d", c.spec, n, c.want)
		}
	}
}

// TestRedisRateV9 shows v9's rounded comparison: rate 1, burst 1 at the
// 2017 origin. v10 refuses the second request until 1 s; v9 admits it
// from 0.5 s, where floor(-0.5 + 0.5) = 0 is not < 0.
func TestRedisRateV9(t *testing.T) {
	v10 := MustParse("redis-rate:rate=1,burst=1,origin=1483228800").New()
	run(t, v10, []step{{t: 0, verdict: buckets.Admit}, {t: 500 * ms, verdict: buckets.Reject, retry: 500 * ms}}, true)
	v9 := MustParse("redis-rate:rate=1,burst=1,origin=1483228800,version=v9").New()
	run(t, v9, []step{{t: 0, verdict: buckets.Admit}, {t: 500*ms - 1, verdict: buckets.Reject, retry: 1}, {t: 500 * ms, verdict: buckets.Admit}}, true)
}

// throttledLib is the real throttled v2.15.0 GCRA limiter over its
// in-memory store, whose clock the test sets.
type throttledLib struct {
	rl  *throttled.GCRARateLimiterCtx
	now time.Time
}

func newThrottledLib(t *testing.T, c ThrottledConfig) *throttledLib {
	t.Helper()
	st, err := memstore.New(0)
	if err != nil {
		t.Fatal(err)
	}
	l := &throttledLib{}
	st.SetTimeNow(func() time.Time { return l.now })
	rl, err := throttled.NewGCRARateLimiterCtx(throttled.WrapStoreWithContext(st),
		throttled.RateQuota{MaxRate: throttled.PerDuration(c.MaxRate, time.Duration(c.Per)), MaxBurst: c.MaxBurst})
	if err != nil {
		t.Fatal(err)
	}
	l.rl = rl
	return l
}

// TestThrottledAgainstLibrary drives throttled's GCRA with its memstore's
// clock on random streams and the traces, and requires the same decision
// and RetryAfter to the nanosecond for every request.
func TestThrottledAgainstLibrary(t *testing.T) {
	src := rand.New(rand.NewPCG(4, 1))
	n := 2000
	if testing.Short() {
		n = 300
	}
	total := 0
	for _, maxRate := range []int{1, 3, 10, 60, 997} {
		for _, per := range []engine.Time{s1, 60 * s1, 7 * ms} {
			for _, burst := range []int{0, 1, 5} {
				c := ThrottledConfig{MaxRate: maxRate, Per: per, MaxBurst: burst}
				for _, sk := range streams {
					mean := max(per/engine.Time(maxRate)*engine.Time(1+src.IntN(3))/2, 1)
					ts := sk.gen(src, n, mean)
					total += len(ts)
					compareThrottled(t, fmt.Sprintf("%+v stream %s", c, sk.name), c, ts)
				}
			}
		}
	}
	t.Logf("%d arrivals compared", total)
}

// TestThrottledAgainstLibraryTraces does the same on the real traces.
func TestThrottledAgainstLibraryTraces(t *testing.T) {
	total := 0
	for _, tr := range loadTraces(t) {
		for _, c := range []ThrottledConfig{{MaxRate: 1, Per: s1, MaxBurst: 4}, {MaxRate: 1, Per: 3 * s1, MaxBurst: 0}, {MaxRate: 120, Per: 60 * s1, MaxBurst: 10}} {
			total += len(tr.ts)
			compareThrottled(t, tr.name, c, tr.ts)
		}
	}
	t.Logf("%d arrivals compared", total)
}

func compareThrottled(t *testing.T, what string, c ThrottledConfig, ts []engine.Time) {
	t.Helper()
	base := time.Unix(1700000000, 555555555)
	lib := newThrottledLib(t, c)
	g, err := NewThrottled(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range ts {
		lib.now = base.Add(time.Duration(at))
		limited, res, err := lib.rl.RateLimitCtx(context.Background(), "k", 1)
		if err != nil {
			t.Fatal(err)
		}
		d := g.Offer(at, int64(i))
		if (d.Verdict == buckets.Reject) != limited || (limited && time.Duration(d.RetryAfter) != res.RetryAfter) {
			t.Fatalf("%s: arrival %d at %v: profile %v RetryAfter %v, library limited %v RetryAfter %v", what, i, at, d.Verdict, d.RetryAfter, limited, res.RetryAfter)
		}
	}
}

// TestRedisCellSeconds checks CL.THROTTLE's retry_after rounding (redis-cell
// v0.5.0 src/lib.rs lines 112-115): whole seconds of the wait, plus one
// when its sub-second part has at least a whole millisecond.
func TestRedisCellSeconds(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want engine.Time
	}{
		{900_000_000, s1},           // 0.9 s: 0, 900 ms > 0: 1 s
		{1_000_000_000, s1},         // exactly 1 s: 1, no ms left
		{1_000_999_999, s1},         // 1.000999999 s: 0 whole ms left: 1 s
		{1_001_000_000, 2 * s1},     // 1 ms left: 2 s
		{2_000_500_000, 2 * s1},     // 2.0005 s: 0.5 ms left: 2 s
		{500_000, buckets.RetryNow}, // 0.5 ms: 0 s, "retry now"
		{1_000_000, s1},             // 1 ms: 0 + 1
	} {
		if got := redisCellSeconds(c.ns); got != c.want {
			t.Errorf("redisCellSeconds(%d ns) = %v, want %v", c.ns, got, c.want)
		}
	}
}

// TestRedisCellOwnCases replays the volume-1 cases of redis-cell's own
// test it_rate_limits (v0.5.0 src/cell/mod.rs lines 384-444: max_burst 4,
// 1 per second, from an arbitrary start): five pass at the start, the
// sixth is limited with retry_after 1 s (which src/lib.rs sends as 1), and
// requests at +3.0, +3.1, +4.0, +8.0, +9.5 s pass.
func TestRedisCellOwnCases(t *testing.T) {
	l, err := NewRedisCell(RedisCellConfig{MaxBurst: 4, Count: 1, Period: 1})
	if err != nil {
		t.Fatal(err)
	}
	run(t, l, []step{
		{t: 0, verdict: buckets.Admit}, {t: 0, verdict: buckets.Admit}, {t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Admit}, {t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Reject, retry: s1},
		{t: 3000 * ms, verdict: buckets.Admit}, {t: 3100 * ms, verdict: buckets.Admit},
		{t: 4000 * ms, verdict: buckets.Admit}, {t: 8000 * ms, verdict: buckets.Admit},
		{t: 9500 * ms, verdict: buckets.Admit},
	}, true)
}
