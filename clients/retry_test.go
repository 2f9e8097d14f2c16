package clients

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// runRetrying offers requests arriving at arrivals to l with policy p and
// returns the limiter's log of decisions and the statistics.
func runRetrying(t *testing.T, l buckets.Limiter, p RetryPolicy, arrivals ...engine.Time) ([]offer, *Stats) {
	t.Helper()
	lg := &logged{Limiter: l}
	s := engine.NewSim()
	c, err := NewRetrying(s, NewGate(s, lg), p, 0, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	c.OpenLoop(times(arrivals...))
	s.Run()
	return lg.log, c.Stats()
}

// Three clients A, B, C arrive at 0 at a policing token bucket of burst 1
// and rate 1 token/s, full at 0. The bucket has a token at 0, then at 1 s,
// 2 s, ... after each one taken; between two, a job finds none.
func TestRetryHandWorked(t *testing.T) {
	const (
		A = buckets.Admit
		R = buckets.Reject
	)
	tests := []struct {
		name string
		p    RetryPolicy
		log  []offer
		// per request, in arrival order: attempts and latency (ms)
		attempts  []int64 // AttemptsPerSuccess
		latencies []float64
		giveUps   [2]int64 // by attempts, by deadline
	}{{
		// Constant 0.5 s. At 0: A takes the token, B and C are refused.
		// At 0.5 s: half a token, both refused again. At 1 s: exactly one
		// token (a tie, decided exactly): B, whose retry was scheduled
		// first, takes it; C is refused, retries at 1.5 s (half a token,
		// refused) and at 2 s takes the next token.
		// A: [0]; B: [0, 0.5, 1]; C: [0, 0.5, 1, 1.5, 2]: 1 + 3 + 5 = 9.
		name: "constant 0.5 s",
		p:    RetryPolicy{Backoff: Constant{Base: ms(500)}},
		log: []offer{
			{0, A}, {0, R}, {0, R},
			{ms(500), R}, {ms(500), R},
			{ms(1000), A}, {ms(1000), R},
			{ms(1500), R},
			{ms(2000), A},
		},
		attempts:  []int64{0, 1, 0, 1, 0, 1}, // one request each with 1, 3 and 5 attempts
		latencies: []float64{0, 1, 2},
	}, {
		// Exponential, base 0.5 s: the n-th retry sleeps 0.5·2^n s, so 1 s
		// after the first refusal and 2 s after the second. B and C retry
		// at 1 s: B takes the token, C is refused a second time and
		// retries at 1 + 2 = 3 s, when the bucket holds a token again.
		// A: [0]; B: [0, 1]; C: [0, 1, 3]: 1 + 2 + 3 = 6.
		name: "exponential base 0.5 s",
		p:    RetryPolicy{Backoff: Exponential{Base: ms(500), Cap: ms(60000)}},
		log: []offer{
			{0, A}, {0, R}, {0, R},
			{ms(1000), A}, {ms(1000), R},
			{ms(3000), A},
		},
		attempts:  []int64{0, 1, 1, 1},
		latencies: []float64{0, 1, 3},
	}, {
		// Retry-After honoured exactly: refused at 0 with Retry-After 1 s
		// (a whole token missing), B and C both come back at 1 s; B takes
		// the token, C is told 1 s again and takes the token at 2 s.
		name: "retry-after",
		p:    RetryPolicy{Backoff: HonorRetryAfter{Fallback: NoBackoff{}}},
		log: []offer{
			{0, A}, {0, R}, {0, R},
			{ms(1000), A}, {ms(1000), R},
			{ms(2000), A},
		},
		attempts:  []int64{0, 1, 1, 1},
		latencies: []float64{0, 1, 2},
	}, {
		// At most 2 attempts: B and C are refused at 0 and at 0.5 s and
		// give up there.
		name: "max attempts 2",
		p:    RetryPolicy{Backoff: Constant{Base: ms(500)}, MaxAttempts: 2},
		log: []offer{
			{0, A}, {0, R}, {0, R},
			{ms(500), R}, {ms(500), R},
		},
		attempts:  []int64{0, 1},
		latencies: []float64{0},
		giveUps:   [2]int64{2, 0},
	}, {
		// Deadline 0.7 s: the retry at 0.5 s is within it; the next one,
		// at 1 s, is not, so B and C give up at their refusal at 0.5 s.
		name: "deadline 0.7 s",
		p:    RetryPolicy{Backoff: Constant{Base: ms(500)}, Deadline: ms(700)},
		log: []offer{
			{0, A}, {0, R}, {0, R},
			{ms(500), R}, {ms(500), R},
		},
		attempts:  []int64{0, 1},
		latencies: []float64{0},
		giveUps:   [2]int64{0, 2},
	}}
	for _, tt := range tests {
		log, st := runRetrying(t, newPolicer(engine.Second, 1), tt.p, 0, 0, 0)
		if diff := cmp.Diff(tt.log, log); diff != "" {
			t.Errorf("%s: decisions (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.attempts, st.AttemptsPerSuccess); diff != "" {
			t.Errorf("%s: attempts per success (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.latencies, st.Latencies()); diff != "" {
			t.Errorf("%s: latencies (-want +got):\n%s", tt.name, diff)
		}
		if got := [2]int64{st.GiveUpsAttempts, st.GiveUpsDeadline}; got != tt.giveUps {
			t.Errorf("%s: give-ups (attempts, deadline) = %v, want %v", tt.name, got, tt.giveUps)
		}
		if st.Requests != 3 || st.Attempts != int64(len(tt.log)) || st.Successes+st.GiveUps != 3 {
			t.Errorf("%s: requests %d, attempts %d, successes %d, give-ups %d; want 3, %d, and 3 finished",
				tt.name, st.Requests, st.Attempts, st.Successes, st.GiveUps, len(tt.log))
		}
	}
}

// One closed-loop user thinking 0.25 s, against the same bucket with
// constant 0.5 s backoff, until a horizon of 2 s:
//
//	request 1 at 0: admitted (latency 0); think until 0.25 s.
//	request 2 at 0.25: 0.25 token, refused; 0.75: 0.75, refused;
//	  1.25: full again (capped at 1), admitted (latency 1); think to 1.5.
//	request 3 at 1.5: 0.25, refused; 2.0: 0.75, refused; 2.5: admitted
//	  (latency 1). The next would start at 2.75 > 2: the user stops.
//
// Attempts: 1 + 3 + 3 = 7.
func TestClosedLoopHandWorked(t *testing.T) {
	lg := &logged{Limiter: newPolicer(engine.Second, 1)}
	s := engine.NewSim()
	c, err := NewRetrying(s, NewGate(s, lg), RetryPolicy{Backoff: Constant{Base: ms(500)}}, engine.Second, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	c.ClosedLoop(1, Fixed(0.25), 2*engine.Second)
	s.Run()
	want := []offer{
		{0, buckets.Admit},
		{ms(250), buckets.Reject}, {ms(750), buckets.Reject}, {ms(1250), buckets.Admit},
		{ms(1500), buckets.Reject}, {ms(2000), buckets.Reject}, {ms(2500), buckets.Admit},
	}
	if diff := cmp.Diff(want, lg.log); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 1, 1}, c.Stats().Latencies()); diff != "" {
		t.Errorf("latencies (-want +got):\n%s", diff)
	}
	// Bins of 1 s: [0, 1) holds requests 1 and 2 and attempts at 0, 0.25,
	// 0.75; [1, 2) request 3 and attempts at 1.25 and 1.5, success at
	// 1.25; [2, 3) attempts at 2 and 2.5 and the success at 2.5.
	wantBins := []Bin{
		{Start: 0, Requests: 2, Attempts: 3, Successes: 1},
		{Start: engine.Second, Requests: 1, Attempts: 2, Successes: 1},
		{Start: 2 * engine.Second, Requests: 0, Attempts: 2, Successes: 1},
	}
	if diff := cmp.Diff(wantBins, c.Stats().Series()); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	sm := c.Stats().Summary()
	// 7 attempts for 3 requests; first at 0, last success at 2.5 s.
	if sm.Attempts != 7 || sm.Amplification != 7.0/3 || sm.Drain != 2.5 || sm.Goodput != 3/2.5 {
		t.Errorf("summary %+v: want 7 attempts, amplification 7/3, drain 2.5 s, goodput 1.2/s", sm)
	}
}

// Jobs a limiter delays or queues pass at exact instants between two
// nanoseconds: a rate of 3/s lets them pass at 0, 1/3 s and 2/3 s.
func TestDelayedAndQueuedPass(t *testing.T) {
	third := must(exact.Int(1e9).Quo(exact.Int(3)))
	for name, l := range map[string]buckets.Limiter{
		"shaper (Delay)": &shaper{T: third},
		"spacer (Queue)": &spacer{T: third},
	} {
		_, st := runRetrying(t, l, RetryPolicy{Backoff: NoBackoff{}}, 0, 0, 0)
		// 1e9/3 ns = 0.333333333... s, rounded once to float64.
		want := []float64{0, 1.0 / 3, 2.0 / 3}
		if diff := cmp.Diff(want, st.Latencies()); diff != "" {
			t.Errorf("%s: latencies (-want +got):\n%s", name, diff)
		}
		// The last pass, 2/3 s, rounds up to 666666667 ns.
		if st.Last != 666666667 || st.Attempts != 3 {
			t.Errorf("%s: last %v s, attempts %d; want 0.666666667 s and 3", name, st.Last, st.Attempts)
		}
	}
}

func TestRetryPolicyValidate(t *testing.T) {
	bad := []RetryPolicy{
		{},
		{Backoff: Constant{Base: -1}},
		{Backoff: NoBackoff{}, MaxAttempts: -1},
		{Backoff: NoBackoff{}, Deadline: -1},
		{Backoff: NoBackoff{}, Class: -1},
	}
	for _, p := range bad {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: nil error", p)
		}
	}
}

func TestOpenLoopBackwardsPanics(t *testing.T) {
	s := engine.NewSim()
	c, err := NewRetrying(s, NewGate(s, admitAll{}), RetryPolicy{Backoff: NoBackoff{}}, 0, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("arrivals going back in time: no panic")
		}
		c.Stop()
	}()
	c.OpenLoop(times(ms(2), ms(1)))
	s.Run()
}
