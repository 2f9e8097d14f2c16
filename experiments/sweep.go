package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/crash"
	"github.com/ratesim/ratesim/internal/version"
)

// ReplicationSeed returns the root seed of replication rep of point in a
// model's sweep ([RunModel]; a split sweep uses [CommonSeed]) with root
// seed seed: the first output of
//
//	PCG(seed, point·2^32 + rep)
//
// The replication then draws random stream s from PCG(ReplicationSeed, s),
// as every run does (see [Source]): arrivals from stream 0, dispatch from
// stream 1, service order from streams 2 and up. A replication's result is
// thus a function of (seed, point, rep) alone, not of the number of
// workers, of the order the points run in, or of the shard that runs them;
// and both systems of a replication see the same arrivals (common random
// numbers), so the split/one ratio is paired.
//
// Panics if point or rep is outside [0, 2^32) (a programmer error: a spec
// has at most [MaxPoints] points and [MaxReplications] replications).
func ReplicationSeed(seed uint64, point, rep int) uint64 {
	if point < 0 || rep < 0 || uint64(point) >= 1<<32 || uint64(rep) >= 1<<32 {
		panic(fmt.Sprintf("experiments: replication (%d, %d) out of range", point, rep))
	}
	return rand.New(rand.NewPCG(seed, uint64(point)<<32|uint64(rep))).Uint64()
}

// CommonSeed returns the root seed of replication rep of every point of a
// split sweep ([RunSweep]) with root seed seed: the first output of
//
//	PCG(seed, 2^63 + rep)
//
// (a stream no [ReplicationSeed] uses). Every point of replication rep
// draws its random streams from it (arrivals from stream 0, dispatch from
// stream 1, service order from 2 and up; see [Source]): common random
// numbers across points. Points that differ only in k, the split ratio,
// the burst or the order see the same arrivals, so the one bucket, where
// it is the same, has the same delays at every such point of a
// replication, and differences between points are paired; a point's
// result is a function of (seed, rep) and its parameters alone.
//
// Panics if rep is outside [0, 2^32).
func CommonSeed(seed uint64, rep int) uint64 {
	if rep < 0 || uint64(rep) >= 1<<32 {
		panic(fmt.Sprintf("experiments: replication %d out of range", rep))
	}
	return rand.New(rand.NewPCG(seed, 1<<63|uint64(rep))).Uint64()
}

// RunSpec returns the run of replication rep of the point in a sweep with
// root seed seed: its buckets, dispatch, order, seed ([CommonSeed]: the
// same for every point of the replication) and job count (warm-up
// included).
func (p *Point) RunSpec(seed uint64, rep int) RunSpec {
	order, err := buckets.ParseOrder(p.Order)
	if err != nil {
		panic(err) // points are validated when enumerated
	}
	one, err1 := p.One()
	subs, err2 := p.Subs()
	if err1 != nil || err2 != nil {
		panic(errors.Join(err1, err2)) // points are validated when enumerated
	}
	spec := RunSpec{
		One:      one,
		Subs:     subs,
		Dispatch: p.Dispatch,
		Order:    order,
		Seed:     CommonSeed(seed, rep),
		MaxJobs:  p.Warmup + p.Jobs,
	}
	if p.Dispatch == "weighted" {
		spec.Shares = slices.Clone(p.TrafficShares)
	}
	return spec
}

// ArrivalsSpec returns the point's arrivals: the spec's trace, or its
// arrival spec, whose processes without rate= take λ = ρ·r.
func (p *Point) ArrivalsSpec() ArrivalsSpec {
	if p.trace != nil {
		return ArrivalsSpec{Trace: p.trace.Path, TraceOptions: p.trace.Options()}
	}
	rate, err := ratOf(p.Rate, p.RateExact)
	if err != nil {
		panic(err) // points are validated when enumerated
	}
	return ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: rate}
}

// arrivals returns the arrivals of a replication with run seed s; the
// caller closes them.
func (p *Point) arrivals(ctx context.Context, s uint64) (*Arrivals, error) {
	a, err := BuildArrivals(ctx, p.ArrivalsSpec(), s)
	if err != nil {
		return nil, fmt.Errorf("experiments: point %d: %w", p.Index, err)
	}
	return a, nil
}

// repStats is what a sweep keeps of one replication: per system (0 the one
// bucket, 1 the split), the delay statistics (mergeable: exact values or a
// sketch) and the mean delay; and the check's violations.
type repStats struct {
	stats      [2]*delayStats
	mean       [2]float64
	violations uint64
	lemma      uint64
	events     int64
}

// RunReplication runs replication rep of point p of a sweep with root seed
// seed, leaving the warm-up jobs out of the statistics.
func runReplication(ctx context.Context, p *Point, seed uint64, rep int) (repStats, error) {
	spec := p.RunSpec(seed, rep)
	arr, err := p.arrivals(ctx, spec.Seed)
	if err != nil {
		return repStats{}, err
	}
	defer arr.Close()
	proc := arr.Process
	spec.Warmup = p.Warmup
	rec := newRecorder(nil, p.Warmup)
	res, _, err := runWith(ctx, spec, proc, rec, nil)
	if err != nil {
		return repStats{}, err
	}
	var r repStats
	for i, st := range []*delayStats{rec.one, rec.split} {
		r.stats[i], r.mean[i] = st, st.stats().Mean
	}
	r.violations, r.lemma, r.events = res.Check.Violations, res.Check.LemmaViolations, res.Check.Events
	return r, nil
}

// SweepOptions control how a sweep runs; they do not change its results.
type SweepOptions struct {
	Workers int   // replications run in parallel; 0 means runtime.GOMAXPROCS(0)
	Shard   Shard // the subset of points to run; the zero value runs them all
	// Progress, when not nil, is called after each replication, from the
	// goroutine that called RunSweep.
	Progress func(SweepProgress)
	// Done holds the points an earlier, interrupted run of the same sweep
	// finished (the Points of its [Results], checked with
	// [Results.CheckResume]): RunSweep runs only the other points and
	// returns all of them, in point order. Since a point's statistics
	// depend on (seed, point) alone, the results are those of one
	// uninterrupted run, byte for byte once written.
	Done []PointResult
	// DoneTable is Done for a [Model]'s sweep (see [RunModel]).
	DoneTable *Table
}

// SweepProgress is how far a sweep has come.
type SweepProgress struct {
	Points      int // points finished, those of SweepOptions.Done included
	PointsTotal int // points of the sweep, or of its shard
	// Replications counts the replications this call has run, of the
	// ReplicationsTotal it runs (the points of Done excluded).
	Replications, ReplicationsTotal int
}

// RunSweep runs every replication of every point of spec (or of the
// shard's points) on opt.Workers goroutines and returns the statistics of
// each point, in point order. Replication i of every point is seeded by
// [CommonSeed](seed, i) (common random numbers: the points of a
// replication see the same arrivals), so the results are the same for any
// number of workers and any sharding.
//
// When ctx is cancelled the workers stop within 4096 jobs; RunSweep then
// returns the points whose replications had all finished, with
// Interrupted set, and ctx.Err(). Any other error stops the sweep and is
// returned with the points finished so far.
func RunSweep(ctx context.Context, spec *Spec, opt SweepOptions) (*Results, error) {
	pts, err := spec.Points()
	if err != nil {
		return nil, err
	}
	if err := opt.Shard.validate(); err != nil {
		return nil, err
	}
	resumed := make(map[int]bool, len(opt.Done))
	for _, p := range opt.Done {
		switch {
		case p.Index < 0 || p.Index >= len(pts) || !opt.Shard.Has(p.Index):
			return nil, fmt.Errorf("experiments: finished point %d is not a point of this sweep (%d points, shard %q)", p.Index, len(pts), opt.Shard)
		case resumed[p.Index]:
			return nil, fmt.Errorf("experiments: finished point %d is given twice", p.Index)
		}
		resumed[p.Index] = true
	}
	var sel []int
	mine := 0
	for i := range pts {
		if opt.Shard.Has(i) {
			mine++
			if !resumed[i] {
				sel = append(sel, i)
			}
		}
	}
	canon := samePoints(len(pts), func(i int) string { return pointKey(&pts[i]) })
	sel, copies := splitSame(sel, canon, opt.Shard.Has)
	res := &Results{Schema: version.Schema, Seed: spec.Seed, Spec: spec, Shard: opt.Shard.String(), PointsTotal: len(pts)}
	reps := spec.Replications
	finished := make([]*PointResult, len(sel))
	run := func(ctx context.Context, p, rep int) (repStats, error) {
		return runReplicationSafe(ctx, &pts[canon[p]], spec.Seed, rep) // the first listing's seed
	}
	done := func(i int, rs []repStats) error {
		pr := aggregate(&pts[sel[i]], rs)
		finished[i] = &pr
		return nil
	}
	var progress func(points, replications int)
	if opt.Progress != nil {
		progress = func(points, n int) {
			opt.Progress(SweepProgress{Points: len(opt.Done) + points, PointsTotal: mine, Replications: n, ReplicationsTotal: len(sel) * reps})
		}
	}
	firstErr := replicate(ctx, sel, reps, opt.Workers, run, done, progress)
	res.Points = append(res.Points, opt.Done...)
	for _, pr := range finished {
		if pr != nil {
			res.Points = append(res.Points, *pr)
		}
	}
	byIndex := make(map[int]PointResult, len(res.Points))
	for _, pr := range res.Points {
		byIndex[pr.Index] = pr
	}
	for _, i := range copies {
		if pr, ok := byIndex[canon[i]]; ok { // not when the first listing was interrupted
			pr.Point = pts[i]
			res.Points = append(res.Points, pr)
		}
	}
	slices.SortFunc(res.Points, func(a, b PointResult) int { return a.Index - b.Index })
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		res.Interrupted = true
		return res, err
	}
	return res, nil
}

// aggregate computes a point's statistics from its replications, in
// replication order (so that the floating-point results do not depend on
// the order replications finished in).
func aggregate(p *Point, reps []repStats) PointResult {
	pr := PointResult{Point: *p}
	means := [2][]float64{make([]float64, len(reps)), make([]float64, len(reps))}
	merged := [2]*delayStats{newDelayStats(), newDelayStats()}
	for i, r := range reps {
		for s := range 2 {
			means[s][i] = r.mean[s]
			merged[s].merge(r.stats[s])
		}
		pr.Violations += r.violations
		pr.LemmaViolations += r.lemma
	}
	m, h := MeanCI(means[0], ConfidenceLevel)
	pr.One.MeanDelay, pr.One.MeanDelayCI = Num(m), Num(h)
	m, h = MeanCI(means[1], ConfidenceLevel)
	pr.Split.MeanDelay, pr.Split.MeanDelayCI = Num(m), Num(h)
	r, lo, hi := RatioCI(means[1], means[0], ConfidenceLevel)
	pr.Ratio, pr.RatioLo, pr.RatioHi = Num(r), Num(lo), Num(hi)
	for s, q := range [2]*SystemStats{&pr.One, &pr.Split} {
		st := merged[s].stats()
		q.P50, q.P90, q.P99, q.P999 = Num(st.P50), Num(st.P90), Num(st.P99), Num(st.P999)
	}
	pr.One.Delayed = Num(float64(merged[0].delayed) / float64(merged[0].n))
	pr.Split.Delayed = Num(float64(merged[1].delayed) / float64(merged[1].n))
	pr.MaxSubLoad = Num(p.MaxSubLoad())
	pr.One.PK, pr.Split.PK = Num(p.PKOne()), Num(p.PKSplit())
	return pr
}

// MaxSubLoad returns the largest load of a sub-bucket, max_l p_l·λ/(q_l·r),
// where p_l is the traffic share of sub-bucket l; NaN when the dispatch
// policy has no fixed shares (least-loaded). A value >= 1 means that
// sub-bucket is overloaded: its queue grows without bound, and the point's
// delays grow with the run length.
func (p *Point) MaxSubLoad() float64 {
	if p.TrafficShares == nil {
		return math.NaN()
	}
	m := 0.0
	subs, _ := p.Subs()
	for l, sub := range subs {
		m = math.Max(m, p.TrafficShares[l]*p.Lambda()/sub.Rate.Float64())
	}
	return m
}

// MD1Wait returns the mean waiting time, in seconds, of an M/D/1 queue with
// Poisson arrivals at lambda jobs/s and deterministic service at mu jobs/s,
// by the Pollaczek-Khinchine formula
//
//	W = ρ / (2μ(1 - ρ)),   ρ = λ/μ
//
// A token bucket (r, 1) under Poisson arrivals is exactly such a queue with
// μ = r: eq. (1) of the note with b = 1 makes a job's delay the unfinished
// work it finds. See [Pollaczek–Khinchine formula].
//
// Special cases:
//
//	λ = 0      0
//	ρ >= 1     +Inf (no steady state)
//
// [Pollaczek–Khinchine formula]: https://en.wikipedia.org/wiki/Pollaczek%E2%80%93Khinchine_formula
func MD1Wait(lambda, mu float64) float64 {
	rho := lambda / mu
	if rho >= 1 {
		return math.Inf(1)
	}
	return rho / (2 * mu * (1 - rho))
}

// PKOne returns the one bucket's mean delay from Pollaczek-Khinchine when
// it is an M/D/1 queue (Poisson arrivals, as arrivals.PoissonRate tells
// from the process's type, and b = 1), NaN otherwise.
func (p *Point) PKOne() float64 {
	lambda, poisson := poissonRate(p.ArrivalsSpec())
	if !poisson || p.Burst != 1 {
		return math.NaN()
	}
	return MD1Wait(lambda, p.Rate)
}

// PKSplit returns the split system's mean delay from Pollaczek-Khinchine
// when every sub-bucket is an M/D/1 queue: Poisson arrivals thinned
// independently (dispatch random or weighted) and every burst b_l = 1.
// Sub-bucket l then sees Poisson arrivals at p_l·λ and serves at
// μ_l = q_l·r, so
//
//	E[delay] = Σ_l p_l · ρ_l / (2μ_l(1 - ρ_l)),   ρ_l = p_l·λ/(q_l·r)
//
// It is +Inf when some ρ_l >= 1 with p_l > 0, and NaN when the formula
// does not apply.
func (p *Point) PKSplit() float64 {
	lambda, poisson := poissonRate(p.ArrivalsSpec())
	if !poisson || (p.Dispatch != "random" && p.Dispatch != "weighted") {
		return math.NaN()
	}
	subs, _ := p.Subs()
	for _, s := range subs {
		if s.Burst.Cmp(exact.Int(1)) != 0 {
			return math.NaN()
		}
	}
	w := 0.0
	for l, s := range subs {
		if pl := p.TrafficShares[l]; pl > 0 {
			w += pl * MD1Wait(pl*lambda, s.Rate.Float64())
		}
	}
	return w
}

// runReplicationSafe is runReplication with a panic returned as a
// *crash.Error.
func runReplicationSafe(ctx context.Context, pt *Point, seed uint64, rep int) (r repStats, err error) {
	defer crash.Recover(&err)
	return runReplication(ctx, pt, seed, rep)
}
