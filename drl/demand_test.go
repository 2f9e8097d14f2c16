package drl

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
)

// drive runs the design of s on as like Run, but runs the events only up
// to instant until after the last job, and returns the design for
// inspection.
func drive(t *testing.T, s Spec, as []arrivals.Arrival, until engine.Time) (design, *Result) {
	t.Helper()
	u, err := newUnits(s.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Design: s.Design, Scale: u.scale}
	d, err := newDesign(s, u, res)
	if err != nil {
		t.Fatal(err)
	}
	sim := engine.NewSim()
	for i, a := range as {
		sim.RunUntil(a.T)
		res.Jobs++
		if err := d.offer(sim, jobOf(int64(i), a)); err != nil {
			t.Fatal(err)
		}
	}
	sim.RunUntil(until)
	return d, res
}

// twoNodes returns, over [0, secs) seconds, 9 jobs per second to node 0
// (at 0, 0.1, ..., 0.8 s into each second) and 3 to node 1 (at 0.05,
// 0.35, 0.65 s).
func twoNodes(secs int) []arrivals.Arrival {
	var as []arrivals.Arrival
	ms := engine.Time(1e6)
	for k := range secs {
		s := engine.Time(k) * sec
		for i := range 9 {
			as = append(as, arrivals.Arrival{T: s + engine.Time(i)*100*ms, Sub: 0})
		}
		for _, o := range []engine.Time{50, 350, 650} {
			as = append(as, arrivals.Arrival{T: s + o*ms, Sub: 1})
		}
	}
	slicesSortByT(as)
	return as
}

// Flow proportional share: demands 9 and 3 jobs/s give shares 3/4 and
// 1/4 of the limit (49152 and 16384 of 65536), exactly.
func TestFPSShares(t *testing.T) {
	s := Spec{Design: "fps", Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", EstimateInterval: sec, Smoothing: 1}
	d, res := drive(t, s, twoNodes(3), 3*sec) // the tick at 3 s measured [2, 3)
	dm := d.(*demand)
	want := []int64{ShareQuantum * 3 / 4, ShareQuantum / 4}
	for l, w := range want {
		st := dm.pairs[nodeKey{l, 0}]
		if st.share != w || st.est != []float64{9, 3}[l] {
			t.Errorf("node %d: share %d, estimate %v; want %d, %v", l, st.share, st.est, w, []float64{9, 3}[l])
		}
	}
	if res.Admitted+res.Rejected != 36 {
		t.Errorf("%d + %d jobs, want 36", res.Admitted, res.Rejected)
	}
	if got := quantize([]float64{1, 1, 1}, 3); got[0]+got[1]+got[2] != ShareQuantum || got[0] != 21846 || got[2] != 21845 {
		t.Errorf("quantize(1, 1, 1) = %v, want [21846 21845 21845]", got)
	}
}

// Global random drop: a demand of 12 jobs/s against R = 4 gives the drop
// probability 1 - 4/12 = 2/3 at every node.
func TestGRDDropProbability(t *testing.T) {
	s := Spec{Design: "grd", Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", EstimateInterval: sec, Smoothing: 1}
	d, res := drive(t, s, twoNodes(3), 3*sec)
	dm := d.(*demand)
	for l := range 2 {
		// 1 - 4/12 in float64 differs from 2/3 in the last bit.
		if p := dm.pairs[nodeKey{l, 0}].drop; math.Abs(p-2.0/3) > 1e-15 {
			t.Errorf("node %d: drop probability %v, want 2/3", l, p)
		}
	}
	// The first second passes whole (no estimate yet).
	if res.Admitted < 12 || res.Admitted+res.Rejected != 36 {
		t.Errorf("admitted %d, rejected %d", res.Admitted, res.Rejected)
	}
}

// FPS with smoothing: α = 1/2 and demands 9 then 9: the estimate after
// two intervals is 9·(1/2) + 9·(1/2)·(1/2) = 6.75 (from 0).
func TestFPSSmoothing(t *testing.T) {
	s := Spec{Design: "fps", Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", EstimateInterval: sec, Smoothing: 0.5}
	d, _ := drive(t, s, twoNodes(2), 2*sec)
	if e := d.(*demand).pairs[nodeKey{0, 0}].est; e != 6.75 {
		t.Errorf("estimate %v, want 6.75", e)
	}
}

func TestDemandRun(t *testing.T) {
	as := zipfJobs(t, 5000, 30, 20)
	for _, design := range []string{"grd", "fps"} {
		s := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "hash", Seed: 2, EstimateInterval: sec / 10, Smoothing: 0.5}
		a, err := Run(context.Background(), keepDepartures(s), &list{as: as}, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := run(t, s, as)
		sameDecisions(t, design, a, b)
		if a.Admitted+a.Rejected != 5000 || a.Messages == 0 {
			t.Errorf("%s: %d + %d, %d messages", design, a.Admitted, a.Rejected, a.Messages)
		}
	}
}

func slicesSortByT(as []arrivals.Arrival) {
	slices.SortStableFunc(as, func(a, b arrivals.Arrival) int { return cmp.Compare(a.T, b.T) })
}

// With no delay and no loss, all-to-all exchange gives every node the
// coordinator's table, so the decisions are the coordinator's, with more
// messages (rr: each of 4 nodes sees every key).
func TestExchangeAllIsCoordinatorWithoutDelay(t *testing.T) {
	as := zipfJobs(t, 5000, 30, 20)
	for _, design := range []string{"grd", "fps"} {
		s := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Seed: 2, EstimateInterval: sec / 10, Smoothing: 0.5}
		c := run(t, s, as)
		s.Exchange = ExchangeAll
		a := run(t, s, as)
		sameDecisions(t, design, a, c)
		if a.Messages <= c.Messages {
			t.Errorf("%s: %d messages all-to-all, %d through the coordinator", design, a.Messages, c.Messages)
		}
	}
}

// Gossip with two nodes and a fan-out of 1 always reaches the other node:
// the decisions are the coordinator's without delay. With 4 nodes it is
// deterministic for a seed.
func TestGossip(t *testing.T) {
	for _, design := range []string{"grd", "fps"} {
		s := Spec{Design: design, Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", Seed: 2, EstimateInterval: sec, Smoothing: 0.5}
		c := run(t, s, twoNodes(5))
		s.Exchange, s.Fanout = ExchangeGossip, 1
		sameDecisions(t, design, run(t, s, twoNodes(5)), c)

		as := zipfJobs(t, 5000, 30, 20)
		g := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Seed: 2, EstimateInterval: sec / 10, Smoothing: 0.5,
			Exchange: ExchangeGossip, Fanout: 2}
		sameDecisions(t, design+" gossip", run(t, g, as), run(t, g, as))
	}
}
