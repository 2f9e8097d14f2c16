package profiles

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.uber.org/ratelimit"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// TestUberHand checks the pacer by hand: rate 10 per second (perRequest
// 100 ms), slack 2 (maxSlack 200 ms).
func TestUberHand(t *testing.T) {
	u := MustParse("uber:rate=10,slack=2").New()
	run(t, u, []step{
		{t: 0, verdict: buckets.Admit},                 // first call: next = 0
		{t: 0, verdict: buckets.Delay, wait: 100 * ms}, // next = 100 ms
		{t: 0, verdict: buckets.Delay, wait: 200 * ms}, // next = 200 ms
		// At 10 s: 10 s - 200 ms > maxSlack + perRequest = 300 ms, so next =
		// 10 s - 200 ms; then 9.9 s and 10 s: slack + 1 = 3 pass at once.
		{t: 10 * s1, verdict: buckets.Admit},
		{t: 10 * s1, verdict: buckets.Admit},
		{t: 10 * s1, verdict: buckets.Admit},
		{t: 10 * s1, verdict: buckets.Delay, wait: 100 * ms},
	}, false)
}

// TestUberV030Boundary shows the v0.3.1 fix (#124) with rate 10/s
// (perRequest 100 ms) and slack 2 (maxSlack 200 ms). After a first call at
// 0 (next = 0), three calls arrive at now = 300 ms - 1 ns, idle for less
// than maxSlack + perRequest but more than maxSlack.
func TestUberV030Boundary(t *testing.T) {
	now := 300*ms - 1
	// v0.3.1: next = 100 ms, 200 ms, then 300 ms: the third waits 1 ns.
	u := MustParse("uber:rate=10,slack=2,version=v0.3.1").New()
	run(t, u, []step{{t: 0, verdict: buckets.Admit}, {t: now, verdict: buckets.Admit}, {t: now, verdict: buckets.Admit}, {t: now, verdict: buckets.Delay, wait: 1}}, false)
	// v0.3.0: now - next > maxSlack, so next = now - 200 ms, now - 100 ms,
	// now: all three pass at once.
	u = MustParse("uber:rate=10,slack=2,version=v0.3.0").New()
	run(t, u, []step{{t: 0, verdict: buckets.Admit}, {t: now, verdict: buckets.Admit}, {t: now, verdict: buckets.Admit}, {t: now, verdict: buckets.Admit}}, false)
}

// fakeUberClock is a ratelimit.Clock whose Now is set by the test and
// whose Sleep records the duration without blocking: each Take models one
// caller arriving at Now, as the profile's Offer does.
type fakeUberClock struct {
	now   time.Time
	slept time.Duration
}

func (c *fakeUberClock) Now() time.Time        { return c.now }
func (c *fakeUberClock) Sleep(d time.Duration) { c.slept = d }
func (c *fakeUberClock) set(base time.Time, t engine.Time) {
	c.now, c.slept = base.Add(time.Duration(t)), 0
}

// TestUberAgainstLibrary drives go.uber.org/ratelimit v0.3.1 with a fake
// clock on random streams and requires the same sleep to the nanosecond
// for every Take.
func TestUberAgainstLibrary(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 1))
	n := 2000
	if testing.Short() {
		n = 300
	}
	total := 0
	for _, rateN := range []int{1, 3, 7, 10, 100, 997, 100000} {
		for _, per := range []engine.Time{s1, 60 * s1, 250 * ms} {
			for _, slack := range []int{0, 1, 10} {
				for _, sk := range streams {
					mean := per / engine.Time(rateN) * engine.Time(1+src.IntN(3)) / 2
					ts := sk.gen(src, n, max(mean, 1))
					total += len(ts)
					compareUber(t, fmt.Sprintf("rate %d per %v slack %d stream %s", rateN, per, slack, sk.name), rateN, per, slack, ts)
				}
			}
		}
	}
	t.Logf("%d arrivals compared", total)
}

// TestUberAgainstLibraryTraces does the same on the real traces.
func TestUberAgainstLibraryTraces(t *testing.T) {
	total := 0
	for _, tr := range loadTraces(t) {
		for _, c := range []struct {
			rate  int
			per   engine.Time
			slack int
		}{{1, s1, 10}, {2, 3 * s1, 0}, {5, s1, 3}} {
			total += len(tr.ts)
			compareUber(t, tr.name, c.rate, c.per, c.slack, tr.ts)
		}
	}
	t.Logf("%d arrivals compared", total)
}

func compareUber(t *testing.T, what string, rateN int, per engine.Time, slack int, ts []engine.Time) {
	t.Helper()
	base := time.Unix(1700000000, 987654321)
	clk := &fakeUberClock{now: base}
	lib := ratelimit.New(rateN, ratelimit.Per(time.Duration(per)), ratelimit.WithSlack(slack), ratelimit.WithClock(clk))
	u, err := NewUber(UberConfig{Rate: rateN, Per: per, Slack: slack})
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range ts {
		clk.set(base, at)
		lib.Take()
		d := u.Offer(at, int64(i))
		var got time.Duration
		if d.Verdict == buckets.Delay {
			got = time.Duration(d.Wait.Num().Int64())
		}
		if got != clk.slept || (got == 0) != (d.Verdict == buckets.Admit) {
			t.Fatalf("%s: arrival %d at %v: profile %v wait %v, library slept %v", what, i, at, d.Verdict, got, clk.slept)
		}
	}
}
