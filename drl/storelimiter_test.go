package drl

import (
	"testing"

	"github.com/ratesim/ratesim/engine"
)

const ms = engine.Time(1e6)

// admitted returns which of the first n jobs r admitted.
func admitted(r *Result, n int) []bool {
	a := make([]bool, n)
	for i := range a {
		a[i] = r.AdmittedJob(int64(i))
	}
	return a
}

func sameBools(a, b []bool) bool {
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

// A GCRA store decides as the policing token-bucket store, job for job,
// with and without a round trip and with the cache (GCRA(1/R, (B - 1)/R)
// is the policing bucket (R, B)).
func TestStoreGCRAIsTokenStore(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, rtt := range []Delay{{}, {Kind: "uniform", A: 0, B: 40 * ms}} {
		for _, cache := range []bool{false, true} {
			s := Spec{Design: "store", Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Seed: 3, Store: StoreParams{RTT: rtt, Cache: cache}}
			g := s
			g.Store.Limiter = StoreGCRA
			sameDecisions(t, "gcra store", run(t, g, as), run(t, s, as))
		}
	}
}

// GCRA store by hand: (R, B) = (1, 2), so GCRA(T = 1 s, τ = 1 s), TAT
// from 0; one node, round trip 2 ms, the store deciding 1 ms after each
// send. Sends at 0, 0, 0, 1 s, 1.5 s reach it at 0.001, 0.001, 0.001,
// 1.001, 1.501 s:
//
//	0.001  TAT - τ = -1     <= 0.001: admit, TAT = 1.001
//	0.001  TAT - τ = 0.001  <= 0.001: admit, TAT = 2.001
//	0.001  TAT - τ = 1.001  >  0.001: refuse, TAT unchanged (redis-cell)
//	1.001  TAT - τ = 1.001  <= 1.001: admit (a tie), TAT = 3.001
//	1.501  TAT - τ = 2.001  >  1.501: refuse
//
// Admitted 0, 1, 3, each after the 2 ms round trip.
func TestStoreGCRAByHand(t *testing.T) {
	s := Spec{Design: "store", Bucket: params("1", "2"), Nodes: 1, Police: true, Dispatch: "rr", Store: StoreParams{RTT: Delay{A: 2 * ms}, Limiter: StoreGCRA}}
	r := run(t, s, at(0, 0, 0, sec, sec*3/2).as)
	if got, want := admitted(r, 5), []bool{true, true, false, true, false}; !sameBools(got, want) {
		t.Fatalf("admitted %v, want %v", got, want)
	}
	sum, err := Summarize(r, s.Bucket, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Mean != 0.002 || sum.Max != 0.002 || r.Messages != 5 {
		t.Errorf("mean %v s, max %v s, %d messages; want 0.002, 0.002, 5", sum.Mean, sum.Max, r.Messages)
	}
}

// Fixed-window store by hand: (R, B) = (2, 2), so L = 2 jobs per window
// of W = 1 s, edges at 0, 1, 2 s; no round trip. Hits at 0.9, 0.95, 0.99
// (window [0, 1): counts 1, 2, 3: the third refused), 1.0, 1.05, 1.1
// (window [1, 2): 1, 2, 3: the third refused). Counting the refused hits
// as Redis INCR does gives the same decisions: the count is already over
// L, and the edge resets it. The four admitted jobs pass within 0.15 s,
// where the promise allows B + R·0.15 = 2.3: the window breaks it, the
// token-bucket store (which admits 0.9, 0.95 and then one token every
// 0.5 s: none of the rest) does not.
func TestStoreFixedWindowByHand(t *testing.T) {
	ts := at(900*ms, 950*ms, 990*ms, 1000*ms, 1050*ms, 1100*ms).as
	s := Spec{Design: "store", Bucket: params("2", "2"), Nodes: 1, Police: true, Dispatch: "rr", Store: StoreParams{Limiter: StoreFixedWindow}}
	r := run(t, s, ts)
	if got, want := admitted(r, 6), []bool{true, true, false, true, true, false}; !sameBools(got, want) {
		t.Fatalf("fixed window admitted %v, want %v", got, want)
	}
	sum, err := Summarize(r, s.Bucket, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Overshoot <= 1 {
		t.Errorf("fixed window: overshoot %v, want > 1", sum.Overshoot)
	}
	s.Store.Limiter = StoreToken
	tok := run(t, s, ts)
	if got, want := admitted(tok, 6), []bool{true, true, false, false, false, false}; !sameBools(got, want) {
		t.Fatalf("token store admitted %v, want %v", got, want)
	}
	// With the cache, the refusal at 0.99 s is cached until the edge at
	// 1 s (RetryAfter): no further job is refused locally, and the
	// decisions stay the store's.
	s.Store.Limiter, s.Store.Cache = StoreFixedWindow, true
	c := run(t, s, ts)
	if !sameBools(admitted(c, 6), admitted(r, 6)) || c.Messages != 6 {
		t.Errorf("cached fixed window admitted %v with %d messages; want %v and 6", admitted(c, 6), c.Messages, admitted(r, 6))
	}
}

// A store limiter that polices needs Police, and the fixed window a whole
// burst.
func TestStoreLimiterSpec(t *testing.T) {
	s := Spec{Design: "store", Bucket: params("2", "2"), Nodes: 1, Dispatch: "rr", Store: StoreParams{Limiter: StoreGCRA}}
	if err := s.Validate(); err == nil {
		t.Error("gcra store shaping: want an error")
	}
	s.Police, s.Store.Limiter, s.Bucket = true, StoreFixedWindow, params("2", "5/2")
	if err := s.Validate(); err == nil {
		t.Error("fixed-window store with burst 5/2: want an error")
	}
	for _, n := range []string{"token", "gcra", "fixed-window"} {
		if l, err := ParseStoreLimiter(n); err != nil || l.String() != n {
			t.Errorf("ParseStoreLimiter(%q) = %v, %v", n, l, err)
		}
	}
	if _, err := ParseStoreLimiter("sliding"); err == nil {
		t.Error("ParseStoreLimiter(sliding): want an error")
	}
}

// With a round trip, the cache may refuse early. (1, 1), one node, round
// trip 0.4 s (the store decides 0.2 s after a send): job 0 sent at 0 is
// admitted at 0.2 (next token at 1.2); job 1 sent at 0.1 is refused at
// 0.3, cached at 0.5 until 1.2; job 2 sent at 1.1 is refused by the cache,
// though it would reach the store at 1.3, after the token: without the
// cache it is admitted.
func TestStoreCacheEarly(t *testing.T) {
	s := Spec{Design: "store", Bucket: params("1", "1"), Nodes: 1, Police: true, Dispatch: "rr", Store: StoreParams{RTT: Delay{A: 400 * ms}}}
	ts := at(0, 100*ms, 1100*ms).as
	no := run(t, s, ts)
	s.Store.Cache = true
	c := run(t, s, ts)
	if got, want := admitted(no, 3), []bool{true, false, true}; !sameBools(got, want) || no.Messages != 3 {
		t.Errorf("without the cache: admitted %v, %d messages; want %v, 3", got, no.Messages, want)
	}
	if got, want := admitted(c, 3), []bool{true, false, false}; !sameBools(got, want) || c.Messages != 2 {
		t.Errorf("with the cache: admitted %v, %d messages; want %v, 2", got, c.Messages, want)
	}
}

// The store's GCRA is redis-cell's CL.THROTTLE (which cannot run here:
// no Debian package, and its Rust crates come from crates.io). Its own
// test it_rate_limits (brandur/redis-cell v0.5.0, src/cell/mod.rs lines
// 384-444; max_burst 4, 1 per second, volume 1 in cases 1 to 11) through
// the store design, (R, B) = (1, max_burst + 1 = 5), no round trip: five
// pass at the start, the sixth is limited, then +3.0, +3.1, +4.0, +8.0
// and +9.5 s pass (case 0 asks for 6 at once and cases 12 to 14 for 0, 2
// and 5: volumes the store does not model).
func TestStoreGCRARedisCellCases(t *testing.T) {
	s := Spec{Design: "store", Bucket: params("1", "5"), Nodes: 1, Police: true, Dispatch: "rr", Store: StoreParams{Limiter: StoreGCRA}}
	r := run(t, s, at(0, 0, 0, 0, 0, 0, 3*sec, sec*31/10, 4*sec, 8*sec, sec*95/10).as)
	want := []bool{true, true, true, true, true, false, true, true, true, true, true}
	if got := admitted(r, len(want)); !sameBools(got, want) {
		t.Fatalf("admitted %v, want redis-cell's %v", got, want)
	}
}
