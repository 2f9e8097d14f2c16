package drl

import (
	"maps"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// A lease of one token with no round trip asks the coordinator for every
// job: the policing one bucket, decision for decision.
func TestLeaseOfOneIsOneBucket(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, disp := range []string{"rr", "hash"} {
		base := Spec{Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: disp, Seed: 3}
		o := base
		o.Design = "one"
		l := base
		l.Design, l.Lease.Size, l.Lease.TTL = "lease", 1, sec
		sameDecisions(t, disp, run(t, l, as), run(t, o, as))
	}
}

// Leases strand tokens, and returning them brings them back; worked by
// hand. Promise (1, 4), N = 2 round-robin, leases of 4 tokens, no round
// trip.
//
//	t = 0, four jobs to nodes 0, 1, 0, 1: node 0 asks for 4 and gets the
//	       whole bucket (admits job 0, holds 3); node 1 gets nothing (job 1
//	       rejected); node 0 admits job 2 (holds 2); node 1 again nothing:
//	       2 admitted, 2 rejected, where the one bucket admits 4.
//	t = 2, four jobs to nodes 0, 1, 0, 1:
//	  TTL 1 s: node 0 gave its 2 tokens back at t = 1; the bucket is full
//	       again at t = 2 (4 tokens), so node 0 gets 4 (admits jobs 4
//	       and 6) and node 1 nothing: 2 admitted, 2 rejected; 4 and 4 in all.
//	  no TTL: node 0 still holds 2 (admits jobs 4 and 6); the bucket, empty
//	       at 0, holds 2 at t = 2, all granted to node 1 (admits 5 and 7):
//	       6 admitted, 2 rejected in all.
func TestLeaseHandWorked(t *testing.T) {
	ts := []engine.Time{0, 0, 0, 0, 2 * sec, 2 * sec, 2 * sec, 2 * sec}
	for _, c := range []struct {
		ttl                engine.Time
		admitted, rejected int64
	}{{sec, 4, 4}, {engine.Forever, 6, 2}} {
		s := Spec{Design: "lease", Bucket: params("1", "4"), Nodes: 2, Police: true, Dispatch: "rr", Lease: LeaseParams{Size: 4, TTL: c.ttl}}
		r := run(t, s, at(ts...).as)
		if r.Admitted != c.admitted || r.Rejected != c.rejected {
			t.Errorf("TTL %v: admitted %d rejected %d, want %d, %d", c.ttl, r.Admitted, r.Rejected, c.admitted, c.rejected)
		}
	}
}

// With a round trip, the jobs that arrive while a request is in flight
// wait for its reply: a round trip of 10 ms, jobs at 0 and 4 ms to one
// node: both wait for the reply at 10 ms (delays 10 and 6 ms).
func TestLeaseWaitsForReply(t *testing.T) {
	ms := engine.Time(1e6)
	s := Spec{Design: "lease", Bucket: params("1", "4"), Nodes: 1, Police: true, Dispatch: "rr", Store: StoreParams{RTT: Delay{A: 10 * ms}}, Lease: LeaseParams{Size: 4, TTL: engine.Forever}}
	r := run(t, s, at(0, 4*ms).as)
	if r.Admitted != 2 || len(r.Delays) != 2 || r.Delays[0] != 0.010 || r.Delays[1] != 0.006 {
		t.Errorf("admitted %d, delays %v; want 2, [0.01 0.006]", r.Admitted, r.Delays)
	}
}

// Shaping, a lease of one token with no round trip asks the bucket for
// each job in turn, the node's jobs waiting in order: with hash dispatch
// (a key's jobs all at one node) it is the shaping one bucket job for job;
// with round-robin a key's jobs queue at several nodes and take the
// bucket's tokens in another order, but the same instants: the same
// departures per key and total delay.
func TestLeaseOfOneShapingIsOneBucket(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, disp := range []string{"hash", "rr"} {
		base := Spec{Bucket: params("5", "8"), Nodes: 4, Dispatch: disp, Seed: 3}
		o := base
		o.Design = "one"
		l := base
		l.Design, l.Lease.Size, l.Lease.TTL = "lease", 1, sec
		a, b := run(t, l, as), run(t, o, as)
		if disp == "rr" {
			for _, r := range []*Result{a, b} {
				for _, xs := range r.Departures {
					slices.Sort(xs)
				}
			}
		}
		if a.Admitted != 20000 || !slices.Equal(a.Admits, b.Admits) || a.TotalDelay.Cmp(b.TotalDelay) != 0 || !maps.EqualFunc(a.Departures, b.Departures, slices.Equal) {
			t.Fatalf("%s: lease admitted %d, total delay %v units; one bucket %d, %v", disp, a.Admitted, a.TotalDelay, b.Admitted, b.TotalDelay)
		}
		// Delays are kept in order of decision: the lease decides a job
		// when its reply comes, the one bucket when it arrives.
		if disp == "hash" && !slices.Equal(slices.Sorted(slices.Values(a.Delays)), slices.Sorted(slices.Values(b.Delays))) {
			t.Fatalf("%s: delays differ", disp)
		}
	}
}

// Shaping with a round trip, worked by hand: promise (1, 2), one node,
// leases of 2 tokens, round trip 10 ms (the bucket decides at 5 ms), no
// return; jobs at 0, 4 ms, 6 ms and 1 s.
//
//	job 0 asks at 0; at 5 ms the bucket grants its 2 tokens; the reply at
//	      10 ms serves jobs 0 and 1 (delays 10 and 6 ms); job 2 (arrived
//	      meanwhile) is left and asks again at 10 ms.
//	at 15 ms the bucket is empty since 5 ms: its next token is due at
//	      1.005 s, a wait of 0.99 s; the reply at 1.01 s serves job 2
//	      (delay 1.004 s), and job 3, arrived at 1 s with none held, waits
//	      behind it and asks at 1.01 s.
//	at 1.015 s the next token is due at 2.005 s: job 3 leaves at 2.01 s
//	      (delay 1.01 s).
func TestLeaseShapingHandWorked(t *testing.T) {
	s := Spec{Design: "lease", Bucket: params("1", "2"), Nodes: 1, Dispatch: "rr", Store: StoreParams{RTT: Delay{A: 10 * ms}}, Lease: LeaseParams{Size: 2, TTL: engine.Forever}}
	arr := []engine.Time{0, 4 * ms, 6 * ms, sec}
	r := run(t, s, at(arr...).as)
	want := []engine.Time{10 * ms, 10 * ms, 1010 * ms, 2010 * ms}
	if r.Admitted != 4 || !slices.Equal(r.Departures[0], want) || r.Messages != 3 {
		t.Errorf("admitted %d, departures %v, messages %d; want 4, %v, 3", r.Admitted, r.Departures[0], r.Messages, want)
	}
}
