package drl

import (
	"context"
	"math/big"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
)

// dinkelbach is an oracle of the exact overshoot independent of the
// meter's convex hull: Dinkelbach's parametric method in big.Rat. For a
// trial λ, F(λ) = max over pairs i <= j of (j − i + 1) − λ·(B + R·g), g =
// t_j − t_i, is a running maximum (of λR·t_i − i) in one pass; F(λ) >= 0
// exactly when some pair has ratio >= λ, and the pair that attains F has
// a ratio above λ unless F(λ) = 0, so λ ← that pair's ratio rises to the
// supremum in finitely many steps. With λ = 1, F(1) is the excess.
func dinkelbach(xs []engine.Time, b, r *big.Rat) (ratio, excess *big.Rat) {
	pass := func(lam *big.Rat) (f *big.Rat, count int64, gap engine.Time) {
		lr := new(big.Rat).Mul(lam, r)
		lr.Quo(lr, big.NewRat(1e9, 1)) // per ns
		var best *big.Rat              // max λR·t_i − i
		bi := 0
		for j, x := range xs {
			a := new(big.Rat).Mul(lr, big.NewRat(int64(x), 1))
			a.Sub(a, big.NewRat(int64(j), 1))
			if best == nil || a.Cmp(best) > 0 {
				best, bi = a, j
			}
			v := new(big.Rat).Mul(lr, big.NewRat(int64(x), 1))
			v.Sub(big.NewRat(int64(j+1), 1), v)
			v.Add(v, best)
			v.Sub(v, new(big.Rat).Mul(lam, b))
			if f == nil || v.Cmp(f) > 0 {
				f, count, gap = v, int64(j-bi+1), x-xs[bi]
			}
		}
		return f, count, gap
	}
	excess, _, _ = pass(big.NewRat(1, 1))
	lam := new(big.Rat)
	for {
		f, c, g := pass(lam)
		if f.Sign() <= 0 {
			return lam, excess
		}
		den := new(big.Rat).Mul(r, big.NewRat(int64(g), 1e9))
		lam = new(big.Rat).Quo(big.NewRat(c, 1), den.Add(den, b))
	}
}

// bruteWithin is the largest ratio over the pairs no more than lim apart,
// all of them.
func bruteWithin(xs []engine.Time, b, r *big.Rat, lim engine.Time) (*big.Rat, int, engine.Time) {
	var best *big.Rat
	var jobs int
	var d engine.Time
	for i := range xs {
		for j := i; j < len(xs) && xs[j]-xs[i] <= lim; j++ {
			den := new(big.Rat).Mul(r, big.NewRat(int64(xs[j]-xs[i]), 1e9))
			q := new(big.Rat).Quo(big.NewRat(int64(j-i+1), 1), den.Add(den, b))
			if best == nil || q.Cmp(best) > 0 {
				best, jobs, d = q, j-i+1, xs[j]-xs[i]
			}
		}
	}
	return best, jobs, d
}

// TestOvershootREADMECases runs the drl cases of docs/commands.md the issue names,
// with their departures kept, and checks the summary's exact overshoot
// and excess against the Dinkelbach oracle on the departures:
//
//   - the reconcile sweep at T = 0 (3000 Poisson jobs at load 1.2, policing,
//     messages of 5 ms), whose sampled overshoot read 0.990 while 2382
//     admitted jobs would wait in a shaper (R, B) = (10, 20): within
//     4·B/R = 8 s, the longest sampled length, the worst is 96 jobs in
//     7.584 s against 95.84 (1.0017); over every length it is 1.0252,
//     2110 jobs in 203.8 s, the run's sustained excess;
//   - the store failing open for 100 s (4000 jobs at load 1.2), 1.2828:
//     110 jobs in 6.575 s during the outage.
func TestOvershootREADMECases(t *testing.T) {
	b, r := big.NewRat(20, 1), big.NewRat(10, 1)
	for _, c := range []struct {
		name       string
		set        func(s *Spec)
		jobs       int64
		load       float64
		shaped     int64
		want       string // the overshoot to 4 decimals
		within8    string // the worst within 8 s, 4 decimals
		jobs8      int
		overJobs   int
		ratioExact string
	}{
		{"reconcile T = 0", func(s *Spec) {
			s.Police, s.Design, s.Sync.Delay, s.Sync.Period = true, "reconcile", mustDelay(t, "5ms"), 0
		}, 3000, 1.2, 2382, "1.0252", "1.0017", 96, 2110, "42200000000/41164420643"},
		{"store failing open", func(s *Spec) {
			s.Police, s.Design, s.Sync.Delay, s.Store.RTT, s.Store.Outages, s.Store.Fail = true, "store", mustDelay(t, "5ms"), mustDelay(t, "lognormal:2ms:0.5"), []Interval{{100 * engine.Second, 200 * engine.Second}}, FailOpen
		}, 4000, 1.2, -1, "1.2828", "1.2828", 110, 110, "2200000000/1714968027"},
	} {
		// ratesim drl's defaults (R = 10, B = 20, 4 nodes, rr, seed 1)
		// with the case's parameters, on its Poisson arrivals at load·R.
		spec := Spec{Bucket: params("10", "20"), Nodes: 4, Dispatch: "rr", Seed: 1, RateWindow: 10 * engine.Second, KeepDepartures: true,
			Store:  StoreParams{RTT: mustDelay(t, "1ms")},
			Sync:   SyncParams{Period: 100 * engine.Millisecond, BatchLimit: 1000},
			Lease:  LeaseParams{TTL: engine.Second},
			Demand: DemandParams{EstimateInterval: 100 * engine.Millisecond, Smoothing: 0.5, Fanout: 2},
		}
		c.set(&spec)
		a, err := experiments.BuildArrivals(context.Background(), experiments.ArrivalsSpec{Spec: "poisson", Load: c.load, Rate: spec.Bucket.Rate}, spec.Seed)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), spec, a.Process, c.jobs)
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
		s, err := Summarize(res, spec.Bucket, nil, spec.RateWindow)
		if err != nil {
			t.Fatal(err)
		}
		xs := slices.Sorted(slices.Values(res.Departures[0]))
		ratio, excess := dinkelbach(xs, b, r)
		if s.OvershootExact != ratio.RatString() || s.ExcessExact != excess.RatString() {
			t.Errorf("%s: overshoot %s, excess %s; the oracle %s and %s", c.name, s.OvershootExact, s.ExcessExact, ratio.RatString(), excess.RatString())
		}
		if got := big.NewFloat(s.Overshoot).Text('f', 4); got != c.want || s.OvershootExact != c.ratioExact || s.OverJobs != c.overJobs {
			t.Errorf("%s: overshoot %s (%s, %d jobs), want %s (%s, %d jobs)", c.name, got, s.OvershootExact, s.OverJobs, c.want, c.ratioExact, c.overJobs)
		}
		if c.shaped >= 0 && s.ShaperDelayed != c.shaped {
			t.Errorf("%s: %d jobs delayed by the shaper, want %d", c.name, s.ShaperDelayed, c.shaped)
		}
		w, jobs, d := bruteWithin(xs, b, r, 8*engine.Second)
		if f, _ := w.Float64(); big.NewFloat(f).Text('f', 4) != c.within8 || jobs != c.jobs8 {
			t.Errorf("%s: within 8 s, %v (%d jobs in %v s), want %s with %d jobs", c.name, w, jobs, d.Seconds(), c.within8, c.jobs8)
		}
		if s.Excess <= 0 || s.Overshoot <= 1 || s.ShaperDelayed == 0 {
			t.Errorf("%s: excess %v, overshoot %v, %d delayed by the shaper: the promise is broken, all three must say so", c.name, s.Excess, s.Overshoot, s.ShaperDelayed)
		}
	}
}

// TestOvershootNothingAdmitted: with no admitted job α*(d) = 0 at every
// length, so the overshoot is 0 and the excess −B (−20 here), exactly.
func TestOvershootNothingAdmitted(t *testing.T) {
	s, err := Summarize(&Result{Scale: 1, Departures: map[uint64][]engine.Time{}}, params("10", "20"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Overshoot != 0 || s.OvershootExact != "0" || s.Excess != -20 || s.ExcessExact != "-20" || s.ShaperDelayed != 0 {
		t.Errorf("nothing admitted: overshoot %v (%q), excess %v (%q), %d delayed; want 0, -20, 0", s.Overshoot, s.OvershootExact, s.Excess, s.ExcessExact, s.ShaperDelayed)
	}
}

func mustDelay(t *testing.T, s string) Delay {
	t.Helper()
	d, err := ParseDelay(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
