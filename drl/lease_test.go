package drl

import (
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
		l.Design, l.LeaseSize, l.LeaseTTL = "lease", 1, sec
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
		s := Spec{Design: "lease", Bucket: params("1", "4"), Nodes: 2, Police: true, Dispatch: "rr", LeaseSize: 4, LeaseTTL: c.ttl}
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
	s := Spec{Design: "lease", Bucket: params("1", "4"), Nodes: 1, Police: true, Dispatch: "rr", LeaseSize: 4, LeaseTTL: engine.Forever, RTT: Delay{A: 10 * ms}}
	r := run(t, s, at(0, 4*ms).as)
	if r.Admitted != 2 || len(r.Delays) != 2 || r.Delays[0] != 0.010 || r.Delays[1] != 0.006 {
		t.Errorf("admitted %d, delays %v; want 2, [0.01 0.006]", r.Admitted, r.Delays)
	}
}
