package clients

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"gonum.org/v1/gonum/stat/distuv"
)

// A hard limit (cliff) and a throttle that delays (slope) under the same
// retrying clients: three requests at 0, constant backoff 0.5 s, 1 job/s.
//
//	cliff, a policing bucket of burst 1: the hand-worked case of
//	  TestRetryHandWorked, 9 attempts, last success at 2 s.
//	slope, a shaping bucket of burst 1 (FCFS): A passes at 0, B is
//	  delayed to 1 s, C to 2 s: 3 attempts, last pass at 2 s.
//	slope then cliff, the shaper refusing waits over 1 s with
//	  Retry-After: C would wait 2 s and is refused (Retry-After 1 s,
//	  ignored by the constant backoff); at 0.5 s it would wait 1.5 s,
//	  refused; at 1 s it would wait 1 s and is delayed to 2 s: 5 attempts.
//
// All three drain the burst at 2 s with the same latencies (0, 1, 2 s);
// the work the limiter sees differs: 3, 5/3 and 1 attempts per success.
func TestCliffVersusSlope(t *testing.T) {
	for _, tt := range []struct {
		name     string
		lim      buckets.Limiter
		attempts int64
	}{
		{"cliff", newPolicer(engine.Second, 1), 9},
		{"slope then cliff", &shaper{T: exact.Int(1e9), maxWait: engine.Second}, 5},
		{"slope", &shaper{T: exact.Int(1e9)}, 3},
	} {
		res, err := Run(Scenario{
			Arrivals: times(0, 0, 0),
			Retry:    RetryPolicy{Backoff: Constant{Base: ms(500)}},
		}, tt.lim)
		if err != nil {
			t.Fatal(err)
		}
		want := Summary{
			Requests: 3, Attempts: tt.attempts, Successes: 3,
			Amplification:      float64(tt.attempts) / 3,
			AttemptsPerSuccess: float64(tt.attempts) / 3,
			Goodput:            1.5, // 3 successes over 2 s
			Drain:              2,
			MeanLatency:        1, P50Latency: 1, P99Latency: 2, MaxLatency: 2,
		}
		if diff := cmp.Diff(want, res.Foreground); diff != "" {
			t.Errorf("%s: summary (-want +got):\n%s", tt.name, diff)
		}
	}
}

// scenario builds a run with every part: cron-synchronized open-loop
// clients with full jitter, closed-loop users thinking exponentially,
// a downstream server and an adaptive backfill.
func scenario(seed uint64) Scenario {
	cron, err := Cron(CronParams{Clients: 50, Period: 10 * engine.Second, Periods: 3, Jitter: ms(500)}, Stream(seed, 0, 0, StreamArrivals))
	if err != nil {
		panic(err)
	}
	return Scenario{
		Arrivals: cron,
		Users:    5,
		Think:    distuv.Exponential{Rate: 2, Src: Stream(seed, 0, 0, StreamThink)},
		Horizon:  30 * engine.Second,
		Retry:    RetryPolicy{Backoff: FullJitter{Base: ms(50), Cap: ms(5000)}, MaxAttempts: 8},
		Server:   &ServerParams{Rate: exact.Int(20), Buffer: 10},
		Backfill: &BackfillParams{
			Capacity: exact.Int(20), Initial: 0.2, Min: 0.05, Max: 0.8,
			Increase: 0.05, Decrease: 0.5, Target: ms(20), Interval: engine.Second,
			Live: 0, Class: 1,
		},
		BackfillItems: 200,
		Bin:           engine.Second,
		Seed:          seed,
	}
}

var ratEqual = cmp.Comparer(func(a, b exact.Rat) bool { return a.Cmp(b) == 0 })

func TestRunDeterministic(t *testing.T) {
	run := func(seed uint64) Result {
		res, err := Run(scenario(seed), newPolicer(ms(100), 5))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(11), run(11)
	if diff := cmp.Diff(a, b, ratEqual); diff != "" {
		t.Errorf("same seed, different results:\n%s", diff)
	}
	if cmp.Equal(a, run(12), ratEqual) {
		t.Errorf("seeds 11 and 12 gave the same results")
	}
	// Everything requested finished, and the server saw every pass.
	fg, bf := a.Foreground, a.Backfill
	if fg.Successes+fg.GiveUps != fg.Requests || bf.Successes != 200 {
		t.Errorf("foreground %+v, backfill %+v: unfinished requests", fg, bf)
	}
	if got := a.Server[0].Arrived + a.Server[1].Arrived; got != fg.Successes+bf.Successes {
		t.Errorf("server saw %d arrivals, %d passed the limiter", got, fg.Successes+bf.Successes)
	}
	if len(a.Controls) == 0 || len(a.ForegroundSeries) == 0 {
		t.Errorf("no controls or no series")
	}
}

func TestRunInvalid(t *testing.T) {
	for name, sc := range map[string]Scenario{
		"nothing":            {Retry: RetryPolicy{Backoff: NoBackoff{}}},
		"users, no horizon":  {Users: 1, Retry: RetryPolicy{Backoff: NoBackoff{}}},
		"no backoff":         {Arrivals: times(0)},
		"backfill no server": {Arrivals: times(0), Retry: RetryPolicy{Backoff: NoBackoff{}}, Backfill: &BackfillParams{}},
		"bad server":         {Arrivals: times(0), Retry: RetryPolicy{Backoff: NoBackoff{}}, Server: &ServerParams{}},
		"bad pace":           {Arrivals: times(0), Pace: &PaceParams{}},
	} {
		if _, err := Run(sc, admitAll{}); err == nil {
			t.Errorf("%s: nil error", name)
		}
	}
}

// TestTooManyBins: requests at 0 and 2 s. A bin of w ns puts 2 s in bin
// floor(2e9/w), which must be < 10^6: w = 2000 ns is one bin too many,
// 2001 fits; Fits rounds the least fitting width (2001) up to 1-2-5: 5000.
func TestTooManyBins(t *testing.T) {
	e := &ErrTooManyBins{Bin: 1, At: 2_000_000_000}
	if got := e.Fits(); got != 5000 {
		t.Errorf("Fits at 2 s = %d ns, want 5000", got)
	}
	if got := (&ErrTooManyBins{Bin: 1, At: 1_999_999_999}).Fits(); got != 2000 {
		t.Errorf("Fits at 2 s - 1 ns = %d ns, want 2000", got)
	}
	sc := Scenario{Arrivals: times(0, 2_000_000_000), Retry: RetryPolicy{Backoff: NoBackoff{}, MaxAttempts: 1}, Bin: 1}
	_, err := Run(sc, admitAll{})
	var tm *ErrTooManyBins
	if !errors.As(err, &tm) || tm.At != 2_000_000_000 {
		t.Fatalf("Run with bin 1 ns: %v, want ErrTooManyBins at 2 s", err)
	}
	sc.Bin = 2000 // 2 s / 2 µs = 10^6: the bin of 2 s is one too many
	if _, err := Run(sc, admitAll{}); !errors.As(err, &tm) {
		t.Errorf("bin 2 µs: %v, want ErrTooManyBins", err)
	}
	sc.Bin = 2001
	if _, err := Run(sc, admitAll{}); err != nil {
		t.Errorf("bin 2.001 µs: %v", err)
	}
}
