package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// atZero writes a trace of n requests at t = 0.
func atZero(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "zero.csv")
	if err := os.WriteFile(p, []byte("t\n"+strings.Repeat("0\n", n)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type clientsFG struct {
	Foreground struct {
		Requests int64   `json:"requests"`
		Admitted int64   `json:"admitted"`
		GiveUps  int64   `json:"give_ups"`
		NoRetry  int64   `json:"give_ups_no_retry"`
		Mean     float64 `json:"mean_latency_s"`
		Max      float64 `json:"max_latency_s"`
		Drain    float64 `json:"drain_s"`
		Attempts int64   `json:"attempts"`
	} `json:"foreground"`
	Series []struct {
		Start    float64 `json:"start_s"`
		Admitted int64   `json:"admitted"`
	} `json:"foreground_series"`
}

func runClientsJSON(t *testing.T, args ...string) clientsFG {
	t.Helper()
	out, errOut, code := ratesim(t, append([]string{"clients", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res clientsFG
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// Ten requests at 0 into redis-cell max_burst=0, count=10, period=1 (T =
// τ = 0.1 s): the first passes; each refusal is 0.1 s short of a token,
// which CL.THROTTLE answers as retry_after = 1 s (whole seconds, rounded
// up: src/lib.rs). Honouring it, the nine come back at 1 s, one passes
// (TAT 0.1 s is long past), the eight others are told 1 s again, and so on:
// one request per second, latencies 0, 1, ..., 9 s, mean 4.5 s, max 9 s.
func TestClientsRedisCellRetryAfter(t *testing.T) {
	res := runClientsJSON(t, "--profile", "redis-cell:max_burst=0,count=10,period=1", "--retry-after", "--trace", atZero(t, 10))
	fg := res.Foreground
	if fg.Admitted != 10 || fg.GiveUps != 0 || fg.Max != 9 || fg.Mean != 4.5 || fg.Drain != 9 {
		t.Fatalf("admitted %d, give-ups %d, max %v s, mean %v s, drain %v s; want 10, 0, 9, 4.5, 9", fg.Admitted, fg.GiveUps, fg.Max, fg.Mean, fg.Drain)
	}
	if len(res.Series) != 10 {
		t.Fatalf("%d one-second bins, want 10", len(res.Series))
	}
	for i, b := range res.Series {
		if b.Admitted != 1 {
			t.Errorf("bin %d (%v s): %d admitted, want 1 per second", i, b.Start, b.Admitted)
		}
	}
}

// x/time/rate limit=0, burst=1, call=reserve on 3 jobs at 0: the first
// takes the token; the next two get reservations whose delay is
// rate.InfDuration, refused with no retry. limiters reports 1 admitted,
// 2 refused with no retry (it exited 2, "beyond the clock's range");
// clients honouring Retry-After give those two up at once, counted apart,
// and fold no 292-year latency into the mean.
func TestXRateZeroLimitNoRetry(t *testing.T) {
	trace := atZero(t, 3)
	out, errOut, code := ratesim(t, "limiters", "--json", "--profile", "xrate:limit=0,burst=1,call=reserve", "--trace", trace)
	if code != 0 {
		t.Fatalf("limiters: exit %d: %s", code, errOut)
	}
	var l struct {
		Limiters []struct {
			Admitted int64 `json:"admitted"`
			Rejected int64 `json:"rejected"`
			NoRetry  int64 `json:"rejected_no_retry"`
		} `json:"limiters"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if got := l.Limiters[0]; got.Admitted != 1 || got.Rejected != 2 || got.NoRetry != 2 {
		t.Errorf("limiters: %+v; want 1 admitted, 2 rejected, 2 with no retry", got)
	}
	table, _, _ := ratesim(t, "limiters", "--profile", "xrate:limit=0,burst=1,call=reserve", "--trace", trace)
	if !strings.Contains(table, "no retry   xrate: 2 of its 2 refusals say no retry would ever pass") {
		t.Errorf("limiters table lacks the no-retry line:\n%s", table)
	}

	fg := runClientsJSON(t, "--profile", "xrate:limit=0,burst=1,call=reserve", "--retry-after", "--trace", trace).Foreground
	if fg.Admitted != 1 || fg.GiveUps != 2 || fg.NoRetry != 2 || fg.Attempts != 3 || fg.Max != 0 || fg.Mean != 0 {
		t.Errorf("clients: %+v; want 1 admitted, 2 give-ups with no retry, 3 attempts, latencies 0", fg)
	}
	// Without --retry-after the client does not read the hint: it retries
	// by its backoff until --max-attempts, and still no latency is 292 years.
	fg = runClientsJSON(t, "--profile", "xrate:limit=0,burst=1,call=reserve", "--max-attempts", "3", "--trace", trace).Foreground
	if fg.Admitted != 1 || fg.GiveUps != 2 || fg.NoRetry != 0 || fg.Attempts != 7 || fg.Max != 0 {
		t.Errorf("clients without --retry-after: %+v; want 1 admitted, 2 give-ups after 3 attempts each (7 attempts), latencies 0", fg)
	}
}

// The same ten requests through drl's designs, the redis-cell limiter on
// the node (static --node-limiter) or in the store (--store-limiter, no
// round trip): its CL.THROTTLE hints reach the clients, which are served
// one per second as above.
func TestClientsDesignRetryAfter(t *testing.T) {
	trace := atZero(t, 10)
	for _, args := range [][]string{
		{"--design", "static", "--nodes", "1", "--node-limiter", "redis-cell:max_burst=0,count=10,period=1"},
		{"--design", "store", "--nodes", "2", "--rtt", "0", "--store-limiter", "redis-cell:max_burst=0,count=10,period=1"},
	} {
		fg := runClientsJSON(t, append(args, "--retry-after", "--rate", "10", "--limit", "1", "--trace", trace)...).Foreground
		if fg.Admitted != 10 || fg.Max != 9 || fg.Mean != 4.5 {
			t.Errorf("%v: admitted %d, max %v s, mean %v s; want 10, 9, 4.5", args, fg.Admitted, fg.Max, fg.Mean)
		}
	}
}
