package profiles

import (
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// TestNginxEightAtOnce is the brief's worked example, derived from
// ngx_http_limit_req_module.c: rate=10r/s (stored 10000), burst=5 (5000),
// eight requests in the same millisecond.
func TestNginxEightAtOnce(t *testing.T) {
	steps := []step{
		// The first request creates the node with excess 0: passes.
		{t: 0, verdict: buckets.Admit},
		// ms = 0, so excess = previous + 1000: 1000..5000 <= 5000, each
		// delayed (excess - 0)·1000/10000 ms = 100..500 ms.
		{t: 0, verdict: buckets.Delay, wait: 100 * ms},
		{t: 0, verdict: buckets.Delay, wait: 200 * ms},
		{t: 0, verdict: buckets.Delay, wait: 300 * ms},
		{t: 0, verdict: buckets.Delay, wait: 400 * ms},
		{t: 0, verdict: buckets.Delay, wait: 500 * ms},
		// 6000 > 5000: 503, node unchanged; RetryAfter: the decay must
		// remove 5000 + 1000 - 5000 = 1000 units, floor(10000·m/1000) >=
		// 1000 at m = 100 ms.
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
	}
	run(t, MustParse("nginx:rate=10r/s,burst=5").New(), steps, true)

	// With nodelay the same six pass at once and two get 503.
	nodelay := []step{}
	for range 6 {
		nodelay = append(nodelay, step{t: 0, verdict: buckets.Admit})
	}
	nodelay = append(nodelay, step{t: 0, verdict: buckets.Reject, retry: 100 * ms}, step{t: 0, verdict: buckets.Reject, retry: 100 * ms})
	run(t, MustParse("nginx:rate=10r/s,burst=5,nodelay").New(), nodelay, true)
}

// TestNginxDelayParameter checks delay=2: the first two excess requests
// pass at once, the later ones wait (excess - 2000)·1000/rate ms.
func TestNginxDelayParameter(t *testing.T) {
	run(t, MustParse("nginx:rate=10r/s,burst=4,delay=2").New(), []step{
		{t: 0, verdict: buckets.Admit},                 // excess 0
		{t: 0, verdict: buckets.Admit},                 // 1000 <= 2000
		{t: 0, verdict: buckets.Admit},                 // 2000 <= 2000
		{t: 0, verdict: buckets.Delay, wait: 100 * ms}, // (3000 - 2000)·1000/10000
		{t: 0, verdict: buckets.Delay, wait: 200 * ms}, // 4000
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
	}, true)
}

// TestNginxOnePerMinute checks that 1r/m is stored as 1000/60 = 16
// thousandths of a request per second, so a request's 1000 units drain in
// 62.5 s, not 60 s.
func TestNginxOnePerMinute(t *testing.T) {
	if r, _ := NginxRate("1r/m"); r != 16 {
		t.Fatalf("NginxRate(1r/m) = %d, want 16", r)
	}
	run(t, MustParse("nginx:rate=1r/m").New(), []step{
		{t: 0, verdict: buckets.Admit}, // node created, excess 0
		// excess = 0 - 16·ms/1000 + 1000 > 0 = burst until 16·ms/1000 >=
		// 1000, ms = 62500: RetryAfter 62.5 s.
		{t: 0, verdict: buckets.Reject, retry: 62500 * ms},
		// At 60 s: 0 - 16·60000/1000 + 1000 = 40 > 0: still refused,
		// 2.5 s short.
		{t: 60 * s1, verdict: buckets.Reject, retry: 2500 * ms},
		{t: 62500*ms - 1, verdict: buckets.Reject, retry: 1},
		{t: 62500 * ms, verdict: buckets.Admit}, // 0 - 1000 + 1000 = 0
	}, true)
}

// TestNginxRefusalsChangeNothing checks that refused requests leave the
// node alone: at 1r/m with burst=3 and nodelay, a request every
// millisecond for 200 s. The first four pass (excess 0, 1000, 2000, 3000,
// last = 3 ms); every later one finds 3000 - floor(16·ms/1000) + 1000 >
// 3000 until the decay since last reaches 1000 units, at ms = 62500: one
// passes at 62.503 s, 125.003 s and 187.503 s. Had refusals moved last,
// the truncated decay floor(16·1/1000) = 0 would never let one through.
func TestNginxRefusalsChangeNothing(t *testing.T) {
	n := MustParse("nginx:rate=1r/m,burst=3,nodelay").New()
	var passed []engine.Time
	for i := range 200000 {
		at := engine.Time(i) * ms
		if n.Offer(at, int64(i)).Verdict == buckets.Admit {
			passed = append(passed, at)
		}
	}
	want := []engine.Time{0, ms, 2 * ms, 3 * ms, 62503 * ms, 125003 * ms, 187503 * ms}
	if !slices.Equal(passed, want) {
		t.Fatalf("passed at %v, want %v", passed, want)
	}
}

// TestNginxTruncatedDecay shows the truncation of rate·ms/1000 at each
// accepted update: at 7r/m (stored 116), requests every 5 ms decay
// floor(116·5/1000) = 0 units each, so six accepted requests 5 ms apart
// reach excess 5000 although 25 ms at 0.116 units/ms would have drained
// 2.9 units; the seventh (6000 > burst 5000) is refused.
func TestNginxTruncatedDecay(t *testing.T) {
	n := MustParse("nginx:rate=7r/m,burst=5,nodelay").New().(*Nginx)
	for i := range 6 {
		if d := n.Offer(engine.Time(i)*5*ms, int64(i)); d.Verdict != buckets.Admit {
			t.Fatalf("request %d = %v, want admit", i, d.Verdict)
		}
	}
	if n.Excess() != 5000 {
		t.Fatalf("excess = %d, want 5000", n.Excess())
	}
	if d := n.Offer(30*ms, 6); d.Verdict != buckets.Reject {
		t.Fatalf("seventh = %v, want reject", d.Verdict)
	}
}

// TestNginxMillisecondClock checks the millisecond clock: two requests
// 0.9 ms apart within one millisecond see ms = 0; the delay's timer fires
// when the millisecond clock reaches now + delay, so a request at 0.4 ms
// delayed 100 ms leaves at 100 ms, a wait of 99.6 ms.
func TestNginxMillisecondClock(t *testing.T) {
	run(t, MustParse("nginx:rate=10r/s,burst=1").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 400 * us, verdict: buckets.Delay, wait: 100*ms - 400*us},
		{t: 900 * us, verdict: buckets.Reject, retry: 100*ms - 900*us},
	}, true)
}
