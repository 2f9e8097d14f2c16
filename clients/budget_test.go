package clients

import (
	"iter"
	"math"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// every returns n instants gap apart, from gap on.
func every(n int, gap engine.Time) iter.Seq[engine.Time] {
	return func(yield func(engine.Time) bool) {
		for i := 1; i <= n; i++ {
			if !yield(engine.Time(i) * gap) {
				return
			}
		}
	}
}

// failingRun is n requests 1 s apart to one server (det 1 ms) that answers
// every job with an error (an error fault of probability 1 over the whole
// run), at most attempts attempts each, retried at once.
func failingRun(n, attempts int, b RetryBudget) (OverloadResult, error) {
	return RunOverload(Overload{Arrivals: every(n, 1e9), Servers: 1,
		Backend: BackendParams{Concurrency: 1, Queue: -1, Service: DetService{D: 1e6}},
		Faults:  []Fault{{Kind: FaultError, From: 0, To: engine.Time(n+10) * 1e9, X: 1}},
		Retry:   RetryPolicy{Backoff: NoBackoff{}, MaxAttempts: attempts}, Budget: b, Seed: 1})
}

// The AWS SDK's quota at 100% failure: 500 tokens, 5 per retry, so
// exactly 500/5 = 100 retries are granted, and nothing refills it. With
// 3 attempts a request asks for 2 retries: the first 50 requests take
// the 100, and each of the other 150 is refused its first retry.
func TestAWSQuotaHundredRetriesAtFullFailure(t *testing.T) {
	q := NewAWSQuota()
	res, err := failingRun(200, 3, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Retries != 100 || q.Tokens() != 0 || res.RetriesDenied != 150 || res.Backend != 300 {
		t.Errorf("retries %d, tokens %d, denied %d, backend %d; want 100, 0, 150, 300", res.Retries, q.Tokens(), res.RetriesDenied, res.Backend)
	}
}

// The quota step by step (hand-computed from standard.go and
// token_bucket.go): costs 5 and 10, +1 per success, a retry's cost
// refunded when it succeeds, never above 500.
func TestAWSQuotaSteps(t *testing.T) {
	q := NewAWSQuota()
	steps := []struct {
		op      string // "retry", "timeout-retry", "ok", "fail"
		held    int64
		wantOK  bool
		wantTok int64
	}{
		{"ok", 0, true, 500},            // capped at 500
		{"retry", 0, true, 495},         // 500 − 5
		{"timeout-retry", 0, true, 485}, // − 10
		{"ok", 10, true, 496},           // + 10 refunded + 1
		{"fail", 5, true, 496},          // a failure returns nothing
		{"ok", 0, true, 497},            // + 1
	}
	for i, s := range steps {
		switch s.op {
		case "retry", "timeout-retry":
			ok, held := q.Retry(0, s.op == "timeout-retry")
			if ok != s.wantOK || (ok && held != map[string]int64{"retry": 5, "timeout-retry": 10}[s.op]) {
				t.Errorf("step %d: Retry = %v, %d", i, ok, held)
			}
		case "ok", "fail":
			q.Answered(0, s.op == "ok", false, s.held)
		}
		if q.Tokens() != s.wantTok {
			t.Errorf("step %d (%s): tokens %d, want %d", i, s.op, q.Tokens(), s.wantTok)
		}
	}
	// Drained below 5, a retry is refused and takes nothing.
	q.tokens = 4
	if ok, _ := q.Retry(0, false); ok || q.Tokens() != 4 {
		t.Errorf("Retry with 4 tokens = %v, tokens %d; want false, 4", ok, q.Tokens())
	}
}

// gRFC A6's test vector as grpc-core's retry_throttle_test.cc runs it:
// max_tokens 4 (threshold 2), token_ratio 1.6; after each failure, whether
// a retry is allowed and the count in milli-tokens.
func TestGRPCThrottleA6Vector(t *testing.T) {
	g, err := NewGRPCThrottle(4000, 1600)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		fail  bool
		allow bool  // after a failure
		milli int64 // after the step
	}{
		{true, true, 3000},   // 4 − 1 = 3 > 2
		{false, false, 4000}, // 3 + 1.6, capped at 4
		{true, true, 3000},
		{true, false, 2000}, // at the threshold: no retry
		{true, false, 1000},
		{true, false, 0},
		{true, false, 0}, // not below 0
		{false, false, 1600},
		{false, false, 3200},
		{true, true, 2200}, // above 2
		{true, false, 1200},
		{false, false, 2800},
		{true, false, 1800},
		{false, false, 3400},
		{true, true, 2400},
	}
	for i, s := range steps {
		g.Answered(0, !s.fail, false, 0)
		if s.fail {
			if ok, _ := g.Retry(0, false); ok != s.allow {
				t.Errorf("step %d: retry allowed %v, want %v", i, ok, s.allow)
			}
		}
		if g.Milli() != s.milli {
			t.Errorf("step %d: %d milli-tokens, want %d", i, g.Milli(), s.milli)
		}
	}
}

// A6's threshold: with ratio 0.1 retries go on while the failure fraction
// is at most ratio/(1 + ratio) = 1/11 (9.09%) and stop above it. A cycle
// of one failure and k successes changes the count by −1 + 0.1·k tokens:
// k = 10 (f = 1/11 exactly) leaves it at 9 after each failure, k = 11 (f =
// 8.3%) too, and k = 9 (f = 10%) lowers it by 0.1 a cycle until it is at
// or under the threshold of 5 for good (the successes of a cycle cannot
// lift it back over 5 after the next failure).
func TestGRPCThrottleThreshold(t *testing.T) {
	for _, tc := range []struct {
		k               int
		wantLateAllowed int // of the last 500 failures
	}{{11, 500}, {10, 500}, {9, 0}} {
		g, _ := NewGRPCThrottle(10_000, 100)
		allowed := 0
		for c := range 1000 {
			g.Answered(0, false, false, 0)
			if ok, _ := g.Retry(0, false); ok && c >= 500 {
				allowed++
			}
			for range tc.k {
				g.Answered(0, true, false, 0)
			}
		}
		if allowed != tc.wantLateAllowed {
			t.Errorf("one failure per %d successes: %d of the last 500 failures retried, want %d", tc.k, allowed, tc.wantLateAllowed)
		}
	}
}

// Brooker 2022: at 100% failure, N retries multiply the server's work by
// 1 + N (3 retries: exactly 4.0 attempts per request); the retry bucket
// (deposit 0.1, size 10, starting full) gets no deposit, so it grants
// exactly its 10 tokens: 1 + 10/1000 = 1.01.
func TestBrookerFullFailure(t *testing.T) {
	res, err := failingRun(1000, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.WorkAmplification(); got != 4 {
		t.Errorf("3 retries at 100%% failure: work amplification %v, want 4", got)
	}
	b, _ := NewRetryBucket(100, 10_000)
	if res, err = failingRun(1000, 4, b); err != nil {
		t.Fatal(err)
	}
	if got := res.WorkAmplification(); got != 1.01 {
		t.Errorf("bucket at 100%% failure: work amplification %v, want 1.01", got)
	}
}

// The bucket bounds the work at every failure rate: retries <= size +
// 0.1·successes <= 10 + 0.1·requests, so the work amplification is at
// most 1.1 + 10/requests, where 3 plain retries reach 1 + f + f² + f³.
func TestBrookerBucketBound(t *testing.T) {
	const n = 5000
	for _, f := range []float64{0.05, 0.1, 0.2, 0.5, 0.9} {
		b, _ := NewRetryBucket(100, 10_000)
		res, err := RunOverload(Overload{Arrivals: every(n, 1e9), Servers: 1,
			Backend: BackendParams{Concurrency: 1, Queue: -1, Service: DetService{D: 1e6}},
			Faults:  []Fault{{Kind: FaultError, From: 0, To: (n + 10) * 1e9, X: f}},
			Retry:   RetryPolicy{Backoff: NoBackoff{}, MaxAttempts: 4}, Budget: b, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got, bound := res.WorkAmplification(), 1.1+10.0/n; got > bound {
			t.Errorf("failure %v: work amplification %v > %v", f, got, bound)
		}
	}
}

// Finagle's default budget: deposit 1000 per request, withdrawal
// floor(1000/0.2) = 5000 per retry, reserve 10·10·5000 = 500000: with no
// request at all the reserve alone grants 100 retries (10 per second over
// the 10 s window), and 5 requests pay for one more.
func TestFinagleBudgetReserve(t *testing.T) {
	b, err := NewFinagleBudget(200, 10, 10e9)
	if err != nil {
		t.Fatal(err)
	}
	granted := 0
	for range 200 {
		if ok, _ := b.Retry(5e9, false); ok {
			granted++
		}
	}
	if granted != 100 {
		t.Errorf("reserve grants %d retries, want 100", granted)
	}
	for range 5 {
		b.Sent(5e9, false)
	}
	if ok, _ := b.Retry(5e9, false); !ok {
		t.Errorf("5 deposits of 1000 do not pay for a withdrawal of 5000")
	}
	if ok, _ := b.Retry(5e9, false); ok {
		t.Errorf("a second retry granted with the balance spent")
	}
	// The withdrawals expire with their slices: 10 s later the reserve is
	// whole again.
	if got := b.Balance(16e9); got != 500_000 {
		t.Errorf("balance 11 s later %d, want the reserve 500000", got)
	}
}

// The AWS SDK's adaptive send-rate limiter step by step
// (adaptive_ratelimit.go, by hand): ten answers 0.1 s apart measure the
// send rate over half-second buckets (5 answers in [0, 0.5): 10/s,
// measured 0.8·10 = 8; 5 more by 1 s: 0.8·10 + 0.2·8 = 9.6). Meanwhile
// the disabled bucket fills at the minimum rate 0.5/s from the first
// answer at 0.1 s (capacity 1): 0.5 token by 1.1 s. A throttle error at
// 1.1 s enables it at 0.7·9.6 = 6.72 tokens/s; an attempt at 1.1 s waits
// (1 − 0.5)/6.72 s; at 1.3 s the bucket has 0.5 + 0.2·6.72 = 1.844 tokens
// and grants one.
func TestAWSAdaptiveSteps(t *testing.T) {
	a := NewAWSAdaptive()
	if ok, _ := a.Acquire(0); !ok {
		t.Fatal("a disabled limiter refused a token")
	}
	for i := 1; i <= 10; i++ {
		a.Update(engine.Time(i)*100e6, false)
		if i == 5 && math.Abs(a.Measured()-8) > 1e-12 {
			t.Errorf("measured %v at 0.5 s, want 8", a.Measured())
		}
	}
	if math.Abs(a.Measured()-9.6) > 1e-12 {
		t.Errorf("measured %v at 1 s, want 9.6", a.Measured())
	}
	a.Update(1100e6, true)
	if !a.Enabled() || math.Abs(a.FillRate()-6.72) > 1e-12 {
		t.Fatalf("after the throttle: enabled %v, fill %v; want true, 6.72", a.Enabled(), a.FillRate())
	}
	ok, wait := a.Acquire(1100e6)
	if want := engine.Time(math.Ceil(0.5 / 6.72 * 1e9)); ok || math.Abs(float64(wait-want)) > 1 {
		t.Errorf("Acquire at 1.1 s = %v, %v; want false, %v", ok, wait, want)
	}
	if ok, _ := a.Acquire(1300e6); !ok {
		t.Errorf("Acquire at 1.3 s refused with 1.844 tokens")
	}
}
