package drl

import (
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
)

// recorder is a Remote that keeps the instant of every offer.
type recorder struct {
	clients.Remote
	offers []engine.Time
}

func (r *recorder) Offer(t engine.Time, id int64) buckets.Decision {
	r.offers = append(r.offers, t)
	return r.Remote.Offer(t, id)
}

// runClients runs n clients at 0, retried with the backoff bo,
// through r, and returns the sorted offer instants and the result.
func runClients(t *testing.T, r clients.Remote, n int, bo clients.Backoff) ([]engine.Time, clients.Result) {
	t.Helper()
	rec := &recorder{Remote: r}
	res, err := clients.RunRemote(clients.Scenario{
		Arrivals: func(yield func(engine.Time) bool) {
			for range n {
				if !yield(0) {
					return
				}
			}
		},
		Retry: clients.RetryPolicy{Backoff: bo},
		Seed:  7,
	}, rec)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rec.offers)
	return rec.offers, res
}

func online(t *testing.T, s Spec) *Online {
	t.Helper()
	o, err := NewOnline(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Three clients at 0 into a policing bucket of rate 1 and burst 1 with a
// constant backoff of 0.5 s, by hand: A passes at 0 (the next token is at
// 1 s); B and C are refused at 0 and 0.5 s; at 1 s B takes the token and
// C is refused, again at 1.5 s, and passes at 2 s. Offers: 0, 0, 0, 0.5,
// 0.5, 1, 1, 1.5, 2 (9); latencies 0, 1, 2 s.
//
// The one bucket, a store with no round trip and a lease of one token
// with no round trip give exactly these (drl's doc: each is the policing
// one bucket). A store with a fixed round trip D = 0.1 s decides at
// t + 0.05 s and answers at t + 0.1 s: A is decided at 0.05 s, passes at
// 0.1 s; B and C are decided at 0.05 s (no token before 1.05 s), learn it
// at 0.1 s and retry at 0.6 s; refused again (decided 0.65 s, learnt
// 0.7 s), they retry at 1.2 s; B is decided at 1.25 s (the token came at
// 1.05 s) and passes at 1.3 s; C is refused (next token 2.05 s), retries
// at 1.8 s, refused (decided 1.85 s, learnt 1.9 s), retries at 2.4 s and
// is decided at 2.45 s: passes at 2.5 s. Offers 0, 0, 0, 0.6, 0.6, 1.2,
// 1.2, 1.8, 2.4; latencies 0.1, 1.3, 2.5 s: every answer, refusals
// included, costs the client D.
func TestOnlineHandWorked(t *testing.T) {
	ms := func(x int64) engine.Time { return engine.Time(x) * 1e6 }
	bo := clients.Constant{Base: ms(500)}
	base := Spec{Bucket: params("1", "1"), Nodes: 1, Police: true, Dispatch: "rr", Seed: 1}
	for _, tt := range []struct {
		name   string
		design string
		rtt    engine.Time
		offers []engine.Time
		lat    []float64
	}{
		{"one", "one", 0, []engine.Time{0, 0, 0, ms(500), ms(500), ms(1000), ms(1000), ms(1500), ms(2000)}, []float64{0, 1, 2}},
		{"store, no round trip", "store", 0, []engine.Time{0, 0, 0, ms(500), ms(500), ms(1000), ms(1000), ms(1500), ms(2000)}, []float64{0, 1, 2}},
		{"lease of 1, no round trip", "lease", 0, []engine.Time{0, 0, 0, ms(500), ms(500), ms(1000), ms(1000), ms(1500), ms(2000)}, []float64{0, 1, 2}},
		{"store, round trip 0.1 s", "store", ms(100), []engine.Time{0, 0, 0, ms(600), ms(600), ms(1200), ms(1200), ms(1800), ms(2400)}, []float64{0.1, 1.3, 2.5}},
	} {
		s := base
		s.Design, s.Store.RTT, s.Lease.Size, s.Lease.TTL = tt.design, Delay{A: tt.rtt}, 1, engine.Forever
		o := online(t, s)
		offers, res := runClients(t, o, 3, bo)
		if !slices.Equal(offers, tt.offers) {
			t.Errorf("%s: offers at %v, want %v", tt.name, offers, tt.offers)
		}
		if got := res.ForegroundLatencies; !slices.Equal(got, tt.lat) {
			t.Errorf("%s: latencies %v s, want %v", tt.name, got, tt.lat)
		}
		r, err := o.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs != 9 || r.Admitted != 3 || r.Rejected != 6 {
			t.Errorf("%s: %d jobs, %d admitted, %d rejected, want 9, 3, 6", tt.name, r.Jobs, r.Admitted, r.Rejected)
		}
	}
}

// Sync with T = 0 and no delay is the one bucket decision for decision
// (each node holds the true state when a job arrives), so clients that
// react to its decisions make the same attempts at the same instants as
// through the one bucket and through buckets.TokenBucket itself: 40
// clients at 0 into (R, B) = (5/s, 8) over 4 nodes, full jitter backoff
// from the same seed.
func TestOnlineSyncZeroIsOneBucket(t *testing.T) {
	bo := clients.FullJitter{Base: 100 * 1e6, Cap: 4 * sec}
	tb, err := buckets.NewTokenBucket(params("5", "8"), buckets.WithPolicing())
	if err != nil {
		t.Fatal(err)
	}
	want, wres := runClients(t, clients.FromLimiter(tb), 40, bo)
	for _, s := range []Spec{
		{Design: "one", Bucket: params("5", "8"), Nodes: 1, Police: true, Dispatch: "rr"},
		{Design: "reconcile", Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Sync: SyncParams{Period: 0, BatchLimit: 1000}},
		{Design: "reconcile", Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "random", Seed: 3, Sync: SyncParams{Period: 0}},
	} {
		got, res := runClients(t, online(t, s), 40, bo)
		if !slices.Equal(got, want) {
			t.Errorf("%s over %d nodes: offers differ from the token bucket's:\n got %v\nwant %v", s.Design, s.Nodes, got, want)
		}
		if res.Foreground != wres.Foreground {
			t.Errorf("%s: %+v, want %+v", s.Design, res.Foreground, wres.Foreground)
		}
	}
	if len(want) <= 40 {
		t.Errorf("no retries: %d offers", len(want))
	}
}
