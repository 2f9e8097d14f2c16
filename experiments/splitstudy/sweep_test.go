package splitstudy

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// smallSpec is a sweep of 18 points that runs in well under a second.
func smallSpec(t testing.TB) *Spec {
	t.Helper()
	s, err := ReadSpec("../../testdata/sweep-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func encode(t testing.TB, r *Results) (csv, js []byte) {
	t.Helper()
	var c, j bytes.Buffer
	if err := r.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	return c.Bytes(), j.Bytes()
}

// TestSweepWorkers: the results are byte for byte the same for 1 and 3
// workers.
func TestSweepWorkers(t *testing.T) {
	s := smallSpec(t)
	var outs [][]byte
	for _, w := range []int{1, 3} {
		res, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: w}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Points) != 18 || res.Interrupted {
			t.Fatalf("%d workers: %d points (interrupted %v), want 18", w, len(res.Points), res.Interrupted)
		}
		c, j := encode(t, res)
		outs = append(outs, append(c, j...))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("results differ between 1 and 3 workers")
	}
}

// TestSweepShardsMerge: three shards merged are byte for byte the single
// run, and the shards hold disjoint interleaved points.
func TestSweepShardsMerge(t *testing.T) {
	s := smallSpec(t)
	whole, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*Results
	for i := 1; i <= 3; i++ {
		// Each shard goes through its JSON file, as ratesim merge reads it.
		r, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2, Shard: experiments.Shard{Index: i, Count: 3}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Shard == "" || len(r.Points) != 6 {
			t.Fatalf("shard %d/3: %q with %d points, want 6", i, r.Shard, len(r.Points))
		}
		for _, p := range r.Points {
			if p.Index%3 != i-1 {
				t.Errorf("shard %d/3 has point %d", i, p.Index)
			}
		}
		_, j := encode(t, r)
		var back Results
		if err := decodeResults(j, &back); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, &back)
	}
	// Any order of the parts.
	parts[0], parts[2] = parts[2], parts[0]
	merged, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	wc, wj := encode(t, whole)
	mc, mj := encode(t, merged)
	if !bytes.Equal(wc, mc) {
		t.Errorf("merged CSV differs from the single run:\n%s\nwant\n%s", mc, wc)
	}
	if !bytes.Equal(wj, mj) {
		t.Error("merged JSON differs from the single run")
	}
}

// TestSweepCancel: a cancelled sweep returns context.Canceled and the
// points that finished, each identical to the same point of a whole run.
func TestSweepCancel(t *testing.T) {
	s := smallSpec(t)
	whole, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := RunSweep(ctx, s, experiments.SweepOptions{Workers: 2, Progress: func(p experiments.SweepProgress) {
		if p.Replications == 30 {
			cancel()
		}
	}}, nil)
	if !errors.Is(err, context.Canceled) || !res.Interrupted {
		t.Fatalf("err %v, interrupted %v; want context.Canceled", err, res.Interrupted)
	}
	if len(res.Points) == 0 || len(res.Points) >= 18 {
		t.Fatalf("%d points finished, want some but not all 18", len(res.Points))
	}
	for _, p := range res.Points {
		a, b := pointJSON(t, p), pointJSON(t, whole.Points[p.Index])
		if a != b {
			t.Errorf("point %d differs from the whole run:\n%s\n%s", p.Index, a, b)
		}
	}
}

// TestBuiltinPollaczekKhinchine checks the built-in split-ratio study
// where every sub-bucket has burst 1 (its grid 1: b = 2 split 1 + 1, the
// rate share q varying): sub-bucket l is then an M/D/1 queue with arrival
// rate p_l·λ and service rate μ_l = q_l·r, whose mean wait is
// ρ_l/(2μ_l(1-ρ_l)) (Pollaczek-Khinchine), so the split system's mean delay
// is Σ_l p_l·ρ_l/(2μ_l(1-ρ_l)).
//
// Sizes: the study's own p grid, loads 0.5 and 0.7 and rate shares 0.3, 0.5
// and 0.7 (only load 0.7 and q = 0.5 with -short), 10 replications of
// 20000 jobs after 2000 warm-up. Points with a sub-bucket load above 0.85
// are left out: near saturation a short run's mean is biased low by the
// empty start and its spread is badly estimated. Tolerance: each point's
// replication means give a standard error SE; a Bonferroni interval
// t_{1-0.005/m, 9}·SE over the m points fails somewhere with probability
// below 1% (fixed seed). Also, the number of points outside their plain
// 95% interval must not exceed the 99th percentile of Binomial(m, 0.05).
func TestBuiltinPollaczekKhinchine(t *testing.T) {
	s, err := Builtin("split-ratio")
	if err != nil {
		t.Fatal(err)
	}
	s.Jobs, s.Warmup = 20000, 2000
	g := s.Sweep[1]
	loads, qs := []any{0.5, 0.7}, []any{0.3, 0.5, 0.7}
	if testing.Short() {
		loads, qs = []any{0.7}, []any{0.5}
	}
	var grid Grid
	for _, a := range g {
		switch a.Name {
		case "load":
			a.Values = loads
		case "q_rate":
			a.Values = qs
		}
		grid = append(grid, a)
	}
	if grid[0].Name != "burst" || grid[0].Values[0] != 2.0 {
		t.Fatalf("grid 1 of the built-in study is %+v, want burst 2 first", grid)
	}
	s.Sweep = Sweep{grid}
	res, err := RunSweep(context.Background(), s, experiments.SweepOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var checked []*PointResult
	for i := range res.Points {
		if p := &res.Points[i]; float64(p.MaxSubLoad) <= 0.85 {
			checked = append(checked, p)
		}
	}
	m := len(checked)
	if m < 5 {
		t.Fatalf("only %d points to check", m)
	}
	R := s.Replications
	// Two-sided Student t quantiles of R-1 degrees of freedom.
	tq := func(level float64) float64 {
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(R - 1)}.Quantile((1 + level) / 2)
	}
	t95 := tq(0.95)
	tb := tq(1 - 0.01/float64(m))
	inside := 0
	for _, p := range checked {
		// The PK value computed here, independently of Point.PKSplit.
		lambda := p.Load * p.Rate
		want := 0.0
		for l := range 2 {
			pl, mu := p.TrafficShares[l], p.RateShares[l]*p.Rate
			rho := pl * lambda / mu
			want += pl * rho / (2 * mu * (1 - rho))
		}
		if math.Abs(float64(p.Split.PK)-want) > 1e-12*want {
			t.Errorf("point %d: split PK %v, want %v", p.Index, p.Split.PK, want)
		}
		se := float64(p.Split.MeanDelayCI) / t95
		got := float64(p.Split.MeanDelay)
		if math.Abs(got-want) > tb*se {
			t.Errorf("point %d (load %v, p %v, q %v): mean split delay %v ± %v (Bonferroni), Pollaczek-Khinchine %v",
				p.Index, p.Load, p.TrafficShares[0], p.RateShares[0], got, tb*se, want)
		}
		if math.Abs(got-want) <= float64(p.Split.MeanDelayCI) {
			inside++
		}
		if p.Violations != 0 || p.LemmaViolations != 0 {
			t.Errorf("point %d: %d violations", p.Index, p.Violations+p.LemmaViolations)
		}
	}
	t.Logf("%d points checked, %d inside their 95%% interval", m, inside)
	outside := distuv.Binomial{N: float64(m), P: 0.05, Src: rand.NewPCG(1, 1)}
	allowed := 0
	for outside.CDF(float64(allowed)) < 0.99 {
		allowed++
	}
	if m-inside > allowed {
		t.Errorf("%d of %d points outside their 95%% interval, want at most %d", m-inside, m, allowed)
	}
}

// TestWarmupExcluded: on the hand-computed four arrivals at 0 (r = 1,
// b = 2; one bucket delays 0, 0, 1, 2; the round-robin split (0.5, 1) +
// (0.5, 1) delays 0, 0, 2, 2), a warm-up of 2 jobs leaves delays 1, 2 and
// 2, 2 in the statistics, while the check still sees all 8 events.
func TestWarmupExcluded(t *testing.T) {
	spec := RunSpec{One: pp("1", "2"), Subs: []buckets.Params{pp("0.5", "1"), pp("0.5", "1")}, Dispatch: "rr", Warmup: 2}
	rec := newRecorder(nil, 2)
	res, _, err := runWith(context.Background(), spec, &sliceProc{times: []engine.Time{0, 0, 0, 0}}, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.One.Jobs != 2 || res.One.Mean != 1.5 || res.Split.Mean != 2 || res.One.Delayed != 2 || res.Check.Events != 8 {
		t.Errorf("one %+v, split %+v, check %+v; want 2 jobs, means 1.5 and 2, 8 events", res.One, res.Split, res.Check)
	}
}

// repOf builds the statistics of a replication from its delays.
func repOf(one, split []float64) repStats {
	var r repStats
	for s, ds := range [][]float64{one, split} {
		st := experiments.NewDelayStats(false)
		for _, d := range ds {
			w, _ := exact.FromFloat64(d * 1e9) // whole seconds in the test: exact nanoseconds
			st.Add(w)
		}
		r.stats[s], r.mean[s] = st, stats(st).Mean
	}
	return r
}

// TestAggregate checks a point's statistics against values worked by hand.
func TestAggregate(t *testing.T) {
	reps := []repStats{
		repOf([]float64{0, 1, 2, 3}, []float64{0, 2, 2, 4}), // means 1.5 and 2
		repOf([]float64{0, 0, 1, 1}, []float64{1, 1, 1, 1}), // means 0.5 and 1
	}
	reps[1].violations = 3
	p := Point{Arrivals: "poisson", Load: 0.5, Rate: 1, Burst: 2, K: 2, RateShares: []float64{0.5, 0.5}, BurstShares: []float64{0.5, 0.5},
		TrafficShares: []float64{0.5, 0.5}, Dispatch: "weighted", Order: "fcfs", Jobs: 4, Replications: 2}
	pr := aggregate(&p, reps)
	const t1 = 12.706204736174696 // t_{0.975, 1}
	near := func(name string, got experiments.Num, want, tol float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > tol {
			t.Errorf("%s = %v, want %v ± %v", name, got, want, tol)
		}
	}
	// One: means 1.5, 0.5: mean 1, s = sqrt(0.5), half = t1·s/sqrt(2) = t1/2.
	near("One.MeanDelay", pr.One.MeanDelay, 1, 1e-15)
	near("One.MeanDelayCI", pr.One.MeanDelayCI, t1/2, 1e-9)
	// Split: means 2, 1: mean 1.5, half t1/2.
	near("Split.MeanDelay", pr.Split.MeanDelay, 1.5, 1e-15)
	// Ratio 1.5/1; on the log ratio d = y/1.5 - x/1 = (-1/6, 1/6), s_d² =
	// 1/18, SE = sqrt(1/36) = 1/6: [1.5·e^{-t1/6}, 1.5·e^{t1/6}].
	near("Ratio", pr.Ratio, 1.5, 1e-15)
	near("RatioLo", pr.RatioLo, 1.5*math.Exp(-t1/6), 1e-9)
	near("RatioHi", pr.RatioHi, 1.5*math.Exp(t1/6), 1e-9)
	// Pooled one-bucket delays 0,0,0,1,1,1,2,3, exact nearest rank
	// (ceil(q·8)-th smallest): p50 the 4th (1), p90 the 8th (3), p999 the
	// 8th (3).
	near("One.P50", pr.One.P50, 1, 0)
	near("One.P90", pr.One.P90, 3, 0)
	near("One.P999", pr.One.P999, 3, 0)
	// Delayed: one 3 + 2 of 8, split 3 + 4 of 8.
	near("One.Delayed", pr.One.Delayed, 0.625, 0)
	near("Split.Delayed", pr.Split.Delayed, 0.875, 0)
	if pr.Violations != 3 {
		t.Errorf("Violations = %d, want 3", pr.Violations)
	}
	// Each sub-bucket (0.5, 1) gets half of λ = 0.5: ρ_l = 0.5, μ_l = 0.5,
	// wait 0.5/(2·0.5·0.5) = 1; max sub-bucket load 0.5.
	near("Split.PK", pr.Split.PK, 1, 1e-15)
	near("MaxSubLoad", pr.MaxSubLoad, 0.5, 1e-15)
	if !math.IsNaN(float64(pr.One.PK)) {
		t.Errorf("One.PK = %v, want NaN for b = 2", pr.One.PK)
	}
}

func TestMD1Wait(t *testing.T) {
	for _, tc := range []struct{ lambda, mu, want float64 }{
		{0.5, 1, 0.5},  // ρ/(2μ(1-ρ)) = 0.5/(2·0.5)
		{0.8, 1, 2},    // 0.8/(2·0.2)
		{0.45, 0.5, 9}, // ρ = 0.9: 0.9/(2·0.5·0.1)
		{0, 1, 0},
	} {
		if got := MD1Wait(tc.lambda, tc.mu); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("MD1Wait(%v, %v) = %v, want %v", tc.lambda, tc.mu, got, tc.want)
		}
	}
	if got := MD1Wait(1, 1); !math.IsInf(got, 1) {
		t.Errorf("MD1Wait(1, 1) = %v, want +Inf", got)
	}
}

// TestReplicationSeed: the documented formula, and no two of 100 × 100
// (point, replication) pairs share a seed, also not with the roles swapped.
func TestReplicationSeed(t *testing.T) {
	if got, want := experiments.ReplicationSeed(7, 3, 5), rand.New(rand.NewPCG(7, 3<<32|5)).Uint64(); got != want {
		t.Errorf("ReplicationSeed(7, 3, 5) = %d, want %d", got, want)
	}
	seen := map[uint64]bool{}
	for p := range 100 {
		for i := range 100 {
			s := experiments.ReplicationSeed(1, p, i)
			if seen[s] {
				t.Fatalf("seed of (%d, %d) repeats", p, i)
			}
			seen[s] = true
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ReplicationSeed(1, 1<<32, 0) did not panic")
		}
	}()
	experiments.ReplicationSeed(1, 1<<32, 0)
}

// BenchmarkReplication1e6 runs one sweep replication of the configuration
// of BenchmarkRun1e6 (Poisson, load 0.9, b = 10, k = 2, rr, FCFS, 10^6
// jobs, no warm-up): its ns/job must stay within 10% of Run's.
func BenchmarkReplication1e6(b *testing.B) {
	s := DefaultSpec()
	s.Jobs, s.Warmup = 1_000_000, 0
	pts, err := s.Points()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := range b.N {
		r, err := runReplication(context.Background(), &pts[0], 1, i)
		if err != nil {
			b.Fatal(err)
		}
		if r.violations != 0 {
			b.Fatal("check failed")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/job")
}

// TestCommonRandomNumbersSplitK is the paper's split-k study (report/cost.go:
// one bucket (1, 64) against k equal sub-buckets, round robin, load 0.95,
// k = 1, 2, 8, 64), shortened: with common random numbers every point of a
// replication sees the same arrivals, and the one bucket is the same at
// every k, so its mean delay in a replication is the same number at every
// k (bit for bit: the same jobs, the same exact waits, summed in the same
// order), and so is the point's mean over the replications. The
// replications differ from one another (else the interval would be
// empty), and k = 1 (the split is the one bucket itself) gives the same
// mean in the split system too.
func TestCommonRandomNumbersSplitK(t *testing.T) {
	s := DefaultSpec()
	s.Name = "split-k"
	s.Rate, s.Burst, s.Dispatch = 1, 64, "rr"
	s.Jobs, s.Warmup, s.Replications = 20000, 2000, 6
	g := Grid{}
	for _, a := range []string{"load=0.95", "k=1,2,8,64"} {
		ax, err := ParseAxis(a)
		if err != nil {
			t.Fatal(err)
		}
		g = append(g, ax)
	}
	s.Sweep = Sweep{g}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 4 {
		t.Fatalf("%d points, want 4", len(pts))
	}
	var first []float64 // one-bucket mean of each replication at the first point
	for i := range pts {
		for rep := range s.Replications {
			r, err := runReplication(t.Context(), &pts[i], s.Seed, rep)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = append(first, r.mean[0])
				if r.mean[1] != r.mean[0] {
					t.Errorf("k = 1, replication %d: split mean %v s, one %v s; want equal", rep, r.mean[1], r.mean[0])
				}
				continue
			}
			if r.mean[0] != first[rep] {
				t.Errorf("k = %d, replication %d: one-bucket mean %v s, at k = %d %v s; want the same", pts[i].K, rep, r.mean[0], pts[0].K, first[rep])
			}
		}
	}
	t.Logf("one-bucket means by replication: %v s", first)
	if slices.Min(first) == slices.Max(first) {
		t.Errorf("the replications' one-bucket means are all %v s: they should differ", first[0])
	}
	res, err := RunSweep(t.Context(), &s, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points[1:] {
		if p.One.MeanDelay != res.Points[0].One.MeanDelay || p.One.MeanDelayCI != res.Points[0].One.MeanDelayCI {
			t.Errorf("k = %d: one-bucket mean %v s, at k = 1 %v s; want the same", p.K, p.One.MeanDelay, res.Points[0].One.MeanDelay)
		}
	}
}
