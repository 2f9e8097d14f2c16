package drl

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// TestTheorem2StaticHolds: the static split (R/N, B/N) shaping, on random
// instances (rates, bursts, N, dispatch, keys and arrival instants drawn),
// holds Theorem 2 and Lemma 1 on every key, and its sub-buckets' waits are
// the buckets package's (the checker compares them job by job).
func TestTheorem2StaticHolds(t *testing.T) {
	src := rand.New(rand.NewPCG(12, 1))
	for n := range 200 {
		nodes := 1 + src.IntN(4)
		rate := exact.Frac(exact.I128(int64(1+src.IntN(5))), int64(1+src.IntN(3)))
		p := buckets.Params{Rate: rate, Burst: exact.Int(int64(nodes * (1 + src.IntN(3))))}
		var as []arrivals.Arrival
		tm := engine.Time(0)
		for range 1 + src.IntN(40) {
			tm += engine.Time(src.IntN(3)) * sec / 2
			k := uint64(src.IntN(3))
			as = append(as, arrivals.Arrival{T: tm, Key: k, Hash: k * 0x9e3779b97f4a7c15, Sub: -1})
		}
		disp := []string{"rr", "random", "hash"}[n%3]
		r := run(t, Spec{Design: "static", Bucket: p, Nodes: nodes, Dispatch: disp, Seed: uint64(n)}, as)
		if !r.Theorem2.Applies || r.Theorem2.String() != "held" || r.Theorem2.Keys == 0 {
			t.Fatalf("instance %d (%v, N = %d, %s): %+v, want held", n, p, nodes, disp, r.Theorem2)
		}
	}
}

// TestTheorem2NA: every design but the static split without scale events
// is reported as not applicable, with its reason.
func TestTheorem2NA(t *testing.T) {
	as := zipfJobs(t, 200, 20, 4)
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Design: "one"}, "n/a (the one bucket itself)"},
		{Spec{Design: "static", Police: true}, "n/a (policing: no job waits, S = 0)"},
		{Spec{Design: "static", Static: StaticParams{Scale: []ScaleEvent{{At: sec, Nodes: 1}}}}, "n/a (scale events change the shares)"},
		{Spec{Design: "reconcile", Sync: SyncParams{Period: engine.Forever}}, "n/a (shares do not sum to R: each node decides with a copy of (R, B))"},
		{Spec{Design: "reconcile", Sync: SyncParams{Period: sec}, Reconcile: ReconcileParams{Local: LocalShare}}, "n/a (the owner's broadcasts overwrite the sub-buckets' state)"},
		{Spec{Design: "store"}, "n/a (not a split: one shared bucket behind a round trip)"},
		{Spec{Design: "lease"}, "n/a (not a split: nodes lease tokens of one shared bucket)"},
		{Spec{Design: "lease", Police: true}, "n/a (policing: no job waits, S = 0)"},
		{Spec{Design: "grd", Demand: DemandParams{EstimateInterval: sec, Smoothing: 1}}, "n/a (policing: no job waits, S = 0)"},
		{Spec{Design: "fps", Police: true, Demand: DemandParams{EstimateInterval: sec, Smoothing: 1}}, "n/a (policing: no job waits, S = 0)"},
	} {
		s := c.s
		s.Bucket, s.Nodes, s.Dispatch = params("10", "4"), 2, "rr"
		r := run(t, s, as)
		sum, err := Summarize(r, s.Bucket, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Theorem2 != c.want {
			t.Errorf("%s: theorem2 %q, want %q", s.Design, sum.Theorem2, c.want)
		}
	}
}

// TestTheorem2BrokenSplit: a split whose shares sum above (R, B), forced
// through the check. The one bucket (1, 1) against two sub-buckets (1, 1)
// (what reconcile with copies and no reconciliation enforces), two jobs at 0
// to nodes 0 and 1: the split delays neither, the one bucket delays the
// second by 1 s, so S(t) = t > S^(k)(t) = 0 on (0, 1]: the violation's
// exact first instant is 0, found at the one bucket's grant, t = 1 s.
func TestTheorem2BrokenSplit(t *testing.T) {
	p := params("1", "1")
	u, err := newUnits(p)
	if err != nil {
		t.Fatal(err)
	}
	c := newChecker(p, p, u.scale)
	for i, l := range []int{0, 1} {
		if err := c.offer(l, systems.Job{ID: int64(i), T: 0, Key: 7}, exact.I128(0)); err != nil {
			t.Fatal(err)
		}
	}
	r := c.result()
	if r.Violations == 0 || r.First == nil || !r.First.Crossing || r.First.At.Sign() != 0 || r.First.Checked.Cmp(exact.Int(1e9)) != 0 || r.FirstKey != 7 {
		t.Fatalf("broken split: %+v, first %v; want a Theorem 2 violation from 0, found at 1 s, on key 7", r, r.First)
	}
	if s := r.String(); !strings.HasPrefix(s, "violated at t = 0 s, key 7") {
		t.Errorf("String %q", s)
	}
	// A wait the design got wrong is caught: the sub-bucket (1, 1) at node
	// 0 has no token left at 0, so a third job waits 1 s, not 0.
	if err := c.offer(0, systems.Job{ID: 2, T: 0, Key: 7}, exact.I128(0)); err == nil {
		t.Error("a design's wait that differs from the bucket's: want an error")
	}
}
