package drl

import (
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/profiles"
)

// xrateNode returns a node limiter x/time/rate limit=1, burst=1 (Allow).
func xrateNode(t *testing.T) (func() buckets.Limiter, string) {
	t.Helper()
	p, err := profiles.Parse("xrate:limit=1,burst=1")
	if err != nil {
		t.Fatal(err)
	}
	return p.New, p.String()
}

// Static with a node limiter x/time/rate (1/s, burst 1) per node, round
// robin, and scale events, by hand:
//
//	t = 0    2 nodes: jobs 0..3 to nodes 0, 1, 0, 1: admit, admit, reject, reject
//	t = 0.5  3 nodes (rr restarts at node 0): node 0 holds 0.5 token: reject;
//	         node 1 likewise: reject; node 2 is new, full: admit
//	t = 0.6  1 node (nodes 1 and 2 dropped)
//	t = 1    node 0 kept its limiter: 1 token since its admission at 0: admit
//	t = 1    node 0 again: reject
func TestStaticNodeLimiterByHand(t *testing.T) {
	lim, name := xrateNode(t)
	s := Spec{Design: "static", Bucket: params("1", "1"), Nodes: 2, Dispatch: "rr", Police: true,
		Static: StaticParams{NodeLimiter: lim, NodeLimiterName: name, Scale: []ScaleEvent{{At: sec / 2, Nodes: 3}, {At: sec * 6 / 10, Nodes: 1}}},
	}
	r := run(t, s, at(0, 0, 0, 0, sec/2, sec/2, sec/2, sec, sec).as)
	want := []bool{true, true, false, false, false, false, true, true, false}
	if got := admitted(r, len(want)); !sameBools(got, want) {
		t.Fatalf("admitted %v, want %v", got, want)
	}
	if why := Theorem2NA(s); why == "" {
		t.Error("Theorem 2 applies to a static split of node limiters; want n/a")
	}
}

// The store's local fallback runs the node limiter: the store down for the
// whole run, one node, x/time/rate 1/s burst 1: jobs at 0, 0, 1 s are
// admitted, refused (no token), admitted (one token back after 1 s).
func TestStoreFailLocalNodeLimiter(t *testing.T) {
	lim, name := xrateNode(t)
	s := Spec{Design: "store", Bucket: params("1", "1"), Nodes: 1, Dispatch: "rr", Police: true,
		Static: StaticParams{NodeLimiter: lim, NodeLimiterName: name},
		Store:  StoreParams{Fail: FailLocal, Outages: []Interval{{From: 0, To: 10 * sec}}},
	}
	r := run(t, s, at(0, 0, sec).as)
	if got, want := admitted(r, 3), []bool{true, false, true}; !sameBools(got, want) || r.Fallback != 3 {
		t.Fatalf("admitted %v with %d fallbacks, want %v with 3", got, r.Fallback, want)
	}
}

// Designs with no per-node limiter a library could stand in for refuse one.
func TestNodeLimiterRefused(t *testing.T) {
	lim, name := xrateNode(t)
	for _, d := range []string{"reconcile", "lease", "grd", "fps"} {
		s := Spec{Design: d, Bucket: params("1", "1"), Nodes: 1, Dispatch: "rr", Police: true, Static: StaticParams{NodeLimiter: lim, NodeLimiterName: name}, Demand: DemandParams{EstimateInterval: sec, Smoothing: 1}}
		if err := s.Validate(); err == nil {
			t.Errorf("%s with a node limiter: no error", d)
		}
	}
}
