package clients

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// maxInWindow returns the most sends in any half-open window [x, x + w)
// (the maximum is reached by a window starting at a send), by a sliding
// count over the sorted sends.
func maxInWindow(sends []engine.Time, w exact.Rat) int {
	most, j := 0, 0
	for i := range sends {
		end := must(exact.Int(int64(sends[i])).Add(w))
		for j < len(sends) && exact.Int(int64(sends[j])).Cmp(end) < 0 {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// A paced stream never sends more than once in any window of its spacing
// 1/Rate, whatever the arrivals, the jitter or the limiter's refusals. The
// rate 3/s has the spacing 1/3 s = 333333333.33 ns, between two
// nanoseconds; the check is exact.
func TestPacedNeverExceedsRate(t *testing.T) {
	third := must(exact.Int(1e9).Quo(exact.Int(3)))
	// Arrivals: 50 at 0, 50 at 5 s, and one every 10 ms from 20 s to 25 s.
	var arr []engine.Time
	for range 50 {
		arr = append(arr, 0)
	}
	for range 50 {
		arr = append(arr, 5*engine.Second)
	}
	for k := range int64(500) {
		arr = append(arr, 20*engine.Second+ms(10*k))
	}
	for _, tt := range []struct {
		name   string
		lim    buckets.Limiter
		jitter engine.Time
	}{
		{"no jitter", admitAll{}, 0},
		{"jitter 50 ms", admitAll{}, ms(50)},
		// A bucket of rate 2/s refuses some sends; they are sent again a
		// gap later, and still never closer than the spacing.
		{"refusals", newPolicer(ms(500), 1), ms(50)},
	} {
		s := engine.NewSim()
		p, err := NewPaced(s, NewGate(s, tt.lim), PaceParams{Rate: exact.Int(3), Jitter: tt.jitter}, 0, rand.NewPCG(1, 1))
		if err != nil {
			t.Fatal(err)
		}
		p.RecordSends()
		p.OpenLoop(times(arr...))
		s.Run()
		sends := p.Sends()
		if got := maxInWindow(sends, third); got != 1 {
			t.Errorf("%s: %d sends in a window of 1/3 s, want at most 1", tt.name, got)
		}
		// Gaps are at least ceil(1e9/3) = 333333334 ns and, with jitter
		// J, at most that plus J except when the queue ran empty.
		for i := 1; i < len(sends); i++ {
			if gap := sends[i] - sends[i-1]; gap < 333333334 {
				t.Fatalf("%s: gap %v s between sends %d and %d", tt.name, gap, i-1, i)
			}
		}
		if st := p.Stats(); st.Successes != int64(len(arr)) || st.Attempts != int64(len(sends)) {
			t.Errorf("%s: %d successes in %d attempts (%d sends), want %d successes", tt.name, st.Successes, st.Attempts, len(sends), len(arr))
		}
	}
}

// Without jitter, three requests handed over at 0 at a rate of 3/s are
// sent at 0, at the spacing ceil(1e9/3) = 333333334 ns and at twice that.
func TestPacedSchedule(t *testing.T) {
	s := engine.NewSim()
	p, _ := NewPaced(s, NewGate(s, admitAll{}), PaceParams{Rate: exact.Int(3)}, 0, rand.NewPCG(1, 1))
	p.RecordSends()
	p.Backlog(3)
	s.Run()
	want := []engine.Time{0, 333333334, 666666668}
	if diff := cmp.Diff(want, p.Sends()); diff != "" {
		t.Errorf("sends (-want +got):\n%s", diff)
	}
	// Latency of the third: 0.666666668 s in the pacer's queue.
	if got := p.Stats().Latencies(); got[2] != 0.666666668 {
		t.Errorf("latencies %v, want the last 0.666666668 s", got)
	}
}

func TestCron(t *testing.T) {
	// Without jitter: 200 clients fire together at 0 and at 3600 s.
	seq, err := Cron(CronParams{Clients: 200, Period: 3600 * engine.Second, Periods: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Collect(seq)
	if len(got) != 400 || got[0] != 0 || got[199] != 0 || got[200] != 3600*engine.Second || got[399] != 3600*engine.Second {
		t.Errorf("no jitter: %d firings, first and last of each boundary %v %v %v %v", len(got), got[0], got[199], got[200], got[399])
	}
	// With 60 s of start jitter: sorted, each boundary's firings within
	// [k·3600 s, k·3600 s + 60 s].
	p := CronParams{Clients: 200, Period: 3600 * engine.Second, Periods: 3, Jitter: 60 * engine.Second}
	seq, _ = Cron(p, rand.NewPCG(1, 1))
	got = slices.Collect(seq)
	if len(got) != 600 || !slices.IsSorted(got) {
		t.Fatalf("jitter: %d firings, sorted %v", len(got), slices.IsSorted(got))
	}
	for i, x := range got {
		k := engine.Time(i / 200)
		if lo := k * p.Period; x < lo || x > lo+p.Jitter {
			t.Errorf("firing %d at %v s outside [%v s, %v s]", i, x, lo, lo+p.Jitter)
		}
	}
	// Same seed, same firings.
	seq, _ = Cron(p, rand.NewPCG(1, 1))
	if diff := cmp.Diff(got, slices.Collect(seq)); diff != "" {
		t.Errorf("same seed, different firings:\n%s", diff)
	}
	for _, bad := range []CronParams{
		{Clients: 0, Period: 1, Periods: 1},
		{Clients: 1, Period: 0, Periods: 1},
		{Clients: 1, Period: 1, Periods: 0},
		{Clients: 1, Period: 10, Periods: 1, Jitter: 11},
	} {
		if _, err := Cron(bad, rand.NewPCG(1, 1)); err == nil {
			t.Errorf("%+v: nil error", bad)
		}
	}
}

// The cron herd against a policing bucket of burst 10 and rate 10/s,
// with Retry-After honoured exactly: 100 clients firing together are
// admitted 10 at once, then 10 per second, and every refused client comes
// back exactly when told, so the retries form new herds. Start jitter of
// 10 s spreads the same 100 over the window the bucket can serve, and
// nearly every request passes at its first attempt.
func TestCronJitterSpreadsTheHerd(t *testing.T) {
	run := func(jitter engine.Time) Summary {
		seq, err := Cron(CronParams{Clients: 100, Period: 3600 * engine.Second, Periods: 1, Jitter: jitter}, rand.NewPCG(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		s := engine.NewSim()
		c, _ := NewRetrying(s, NewGate(s, newPolicer(ms(100), 10)), RetryPolicy{Backoff: HonorRetryAfter{Fallback: NoBackoff{}}}, 0, rand.NewPCG(1, 1))
		c.OpenLoop(seq)
		s.Run()
		return c.Stats().Summary()
	}
	herd, spread := run(0), run(10*engine.Second)
	// The herd, by hand: at 0, 10 admitted and 90 refused with
	// Retry-After 0.1 s. At each 0.1·k s one token is back: the first
	// of the waiting clients to retry takes it and the rest are told
	// 0.1 s again. Client m (m = 1..90) is admitted at 0.1·m s after m+1
	// attempts. Attempts: 10 + Σ_{m=1}^{90} (m + 1) = 10 + 4095 + 90 = 4195.
	if herd.Attempts != 4195 || herd.Drain != 9 {
		t.Errorf("herd: %d attempts, drain %v s; want 4195, 9 s", herd.Attempts, herd.Drain)
	}
	if spread.Successes != 100 || spread.Amplification > 1.2 {
		t.Errorf("spread: %d successes, amplification %v; want 100 and at most 1.2", spread.Successes, spread.Amplification)
	}
	t.Logf("herd %+v\nspread %+v", herd, spread)
}
