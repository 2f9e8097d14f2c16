package drl

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
)

// drive runs the design of s on as like Run, but runs the events only up
// to instant until after the last job, and returns the design for
// inspection.
func drive(t *testing.T, s Spec, as []arrivals.Arrival, until engine.Time) (Model, *Result) {
	t.Helper()
	u, err := newUnits(s.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Design: s.Design, Scale: u.scale}
	ds, ok := Lookup(s.Design)
	if !ok {
		t.Fatalf("no design %q", s.Design)
	}
	d, err := ds.New(s, &Recorder{res: res, u: u})
	if err != nil {
		t.Fatal(err)
	}
	sim := engine.NewSim()
	for i, a := range as {
		sim.RunUntil(a.T)
		res.Jobs++
		if err := d.Offer(sim, jobOf(int64(i), a)); err != nil {
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
	s := Spec{Design: "fps", Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", Demand: DemandParams{EstimateInterval: sec, Smoothing: 1}}
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
	s := Spec{Design: "grd", Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", Demand: DemandParams{EstimateInterval: sec, Smoothing: 1}}
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
	s := Spec{Design: "fps", Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", Demand: DemandParams{EstimateInterval: sec, Smoothing: 0.5}}
	d, _ := drive(t, s, twoNodes(2), 2*sec)
	if e := d.(*demand).pairs[nodeKey{0, 0}].est; e != 6.75 {
		t.Errorf("estimate %v, want 6.75", e)
	}
}

// Every job is decided once, a run is reproducible, and (in run) the
// figures measured as the run goes are those of the departures, for grd
// and fps, policing and shaping, with delays and losses (shaping rejects
// a job only if the run ends with it waiting at a node whose share is 0,
// which lost messages may cause).
func TestDemandRun(t *testing.T) {
	as := zipfJobs(t, 5000, 30, 20)
	for _, c := range []struct {
		design string
		police bool
		alpha  float64
		loss   float64
	}{{"grd", true, 0.5, 0}, {"fps", true, 0.5, 0}, {"grd", false, 0.5, 0}, {"fps", false, 0.5, 0}, {"fps", false, 1, 0.3}} {
		s := Spec{Design: c.design, Bucket: params("5", "8"), Nodes: 4, Police: c.police, Dispatch: "hash", Seed: 2,
			Sync:   SyncParams{Loss: c.loss, Delay: Delay{Kind: "uniform", A: 0, B: 20 * 1e6}},
			Demand: DemandParams{EstimateInterval: sec / 10, Smoothing: c.alpha},
		}
		a, err := Run(context.Background(), keepDepartures(s), &list{as: as}, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := run(t, s, as)
		sameDecisions(t, c.design, a, b)
		if a.Admitted+a.Rejected != 5000 || a.Messages == 0 {
			t.Errorf("%+v: %d + %d, %d messages", c, a.Admitted, a.Rejected, a.Messages)
		}
		if c.design == "fps" && !c.police && c.loss == 0 && a.Rejected != 0 {
			t.Errorf("%+v: %d rejected", c, a.Rejected)
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
		s := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Seed: 2, Demand: DemandParams{EstimateInterval: sec / 10, Smoothing: 0.5}}
		c := run(t, s, as)
		s.Demand.Exchange = ExchangeAll
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
		s := Spec{Design: design, Bucket: params("4", "4"), Nodes: 2, Police: true, Dispatch: "column", Seed: 2, Demand: DemandParams{EstimateInterval: sec, Smoothing: 0.5}}
		c := run(t, s, twoNodes(5))
		s.Demand.Exchange, s.Demand.Fanout = ExchangeGossip, 1
		sameDecisions(t, design, run(t, s, twoNodes(5)), c)

		as := zipfJobs(t, 5000, 30, 20)
		g := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Seed: 2,
			Demand: DemandParams{EstimateInterval: sec / 10, Smoothing: 0.5, Exchange: ExchangeGossip, Fanout: 2},
		}
		sameDecisions(t, design+" gossip", run(t, g, as), run(t, g, as))
	}
}

// evenSeconds returns, over [0, secs) s, an even number of unkeyed jobs
// in each second (0 to 18, 9 on average, at random instants, fixed seed),
// so that round-robin over 2 nodes gives both the same count in every
// estimate interval of 1 s.
func evenSeconds(secs int) []arrivals.Arrival {
	rng := rand.New(rand.NewPCG(5, 5))
	var as []arrivals.Arrival
	for k := range secs {
		var ts []engine.Time
		for range 2 * rng.IntN(10) {
			ts = append(ts, engine.Time(k)*sec+engine.Time(rng.Int64N(int64(sec))))
		}
		slices.Sort(ts)
		for _, t := range ts {
			as = append(as, arrivals.Arrival{T: t, Sub: -1})
		}
	}
	return as
}

// Shaping, flow proportional share with equal demands on 2 nodes keeps
// the shares at 1/2 each: the node buckets are the static split's
// (R/2, B/2) throughout, and the jobs wait as there, job for job (the
// departures of the key, sorted, and the exact total delay: fps decides a
// waiting job when it leaves, the static split when it arrives).
func TestFPSShapingEqualDemandsIsStaticSplit(t *testing.T) {
	as := evenSeconds(400)
	for _, x := range []Exchange{ExchangeCoordinator, ExchangeAll} {
		base := Spec{Bucket: params("8", "4"), Nodes: 2, Dispatch: "rr", Demand: DemandParams{EstimateInterval: sec, Smoothing: 0.5, Exchange: x}}
		f, st := base, base
		f.Design, st.Design = "fps", "static"
		a, b := run(t, f, as), run(t, st, as)
		for _, r := range []*Result{a, b} {
			slices.Sort(r.Departures[0])
			slices.Sort(r.Delays)
		}
		if a.Admitted != int64(len(as)) || !slices.Equal(a.Admits, b.Admits) || a.TotalDelay.Cmp(b.TotalDelay) != 0 ||
			!slices.Equal(a.Departures[0], b.Departures[0]) || !slices.Equal(a.Delays, b.Delays) {
			t.Fatalf("%v: fps admitted %d, total delay %v units; static %d, %v", x, a.Admitted, a.TotalDelay, b.Admitted, b.TotalDelay)
		}
		if len(a.Delays) < len(as)/10 {
			t.Fatalf("%v: only %d of %d jobs waited: the test exercises little", x, len(a.Delays), len(as))
		}
	}
}

// Shaping, a new share changes the rate at which waiting jobs' tokens
// come, worked by hand. Promise (40/3, 4), N = 2 by column, E = 1 s,
// α = 1, no delay. Before the first share each node holds (20/3, 2): a
// token every 0.15 s.
//
//	node 1: jobs at 0.1 and 0.5 s leave at once.
//	node 0: six jobs at 0.9 s: two leave with the burst, four wait (x = -4
//	        tokens); the first is due at 1.05 s.
//	t = 1:  demands 6 and 2 give node 0 the share 3/4, (10, 3): a token
//	        every 0.1 s. Its tokens are x = -4 + 0.1/0.15 = -10/3; the 1/3
//	        token the first waiting job still owes comes at 1 + 1/30 s,
//	        the others 0.1 s apart: 1.0333..., 1.1333..., 1.2333...,
//	        1.3333... s, each the first nanosecond at or after it (the
//	        run's grid, 1 ns here), where the static split would give
//	        1.05, 1.2, 1.35, 1.5 s.
func TestFPSShapingShareChange(t *testing.T) {
	ms := engine.Time(1e6)
	as := []arrivals.Arrival{{T: 100 * ms, Sub: 1}, {T: 500 * ms, Sub: 1}}
	for range 6 {
		as = append(as, arrivals.Arrival{T: 900 * ms, Sub: 0})
	}
	s := Spec{Design: "fps", Bucket: params("40/3", "4"), Nodes: 2, Dispatch: "column", Demand: DemandParams{EstimateInterval: sec, Smoothing: 1}}
	r := run(t, s, as)
	got := slices.Sorted(slices.Values(r.Departures[0]))
	want := []engine.Time{100 * ms, 500 * ms, 900 * ms, 900 * ms, 1033333334, 1133333334, 1233333334, 1333333334}
	if r.Admitted != 8 || !slices.Equal(got, want) {
		t.Errorf("admitted %d, departures %v; want 8, %v", r.Admitted, got, want)
	}
	// The static split: the same jobs at (20/3, 2) per node throughout.
	s.Design = "static"
	got = slices.Sorted(slices.Values(run(t, s, as).Departures[0]))
	want = []engine.Time{100 * ms, 500 * ms, 900 * ms, 900 * ms, 1050 * ms, 1200 * ms, 1350 * ms, 1500 * ms}
	if !slices.Equal(got, want) {
		t.Errorf("static: departures %v, want %v", got, want)
	}
}
