package splitstudy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/specfile"
)

// CommonSeed returns the root seed of replication rep of every point of a
// split sweep ([RunSweep]) with root seed seed: the first output of
//
//	PCG(seed, 2^63 + rep)
//
// (a stream no [experiments.ReplicationSeed] uses). Every point of replication rep
// draws its random streams from it (arrivals from stream 0, dispatch from
// stream 1, service order from 2 and up; see [experiments.Source]): common random
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
func (p *Point) ArrivalsSpec() experiments.ArrivalsSpec {
	if p.trace != nil {
		return experiments.ArrivalsSpec{Trace: p.trace.Path, TraceOptions: p.trace.Options()}
	}
	rate, err := ratOf(p.Rate, p.RateExact)
	if err != nil {
		panic(err) // points are validated when enumerated
	}
	return experiments.ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: rate}
}

// arrivals returns the arrivals of a replication with run seed s; the
// caller closes them.
func (p *Point) arrivals(ctx context.Context, s uint64) (*experiments.Arrivals, error) {
	a, err := experiments.BuildArrivals(ctx, p.ArrivalsSpec(), s)
	if err != nil {
		return nil, fmt.Errorf("experiments: point %d: %w", p.Index, err)
	}
	return a, nil
}

// repStats is what a sweep keeps of one replication: per system (0 the one
// bucket, 1 the split), the delay statistics (mergeable: exact values or a
// sketch) and the mean delay; and the check's violations.
type repStats struct {
	stats      [2]*experiments.DelayStats
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
	for i, st := range []*experiments.DelayStats{rec.one, rec.split} {
		r.stats[i], r.mean[i] = st, stats(st).Mean
	}
	r.violations, r.lemma, r.events = res.Check.Violations, res.Check.LemmaViolations, res.Check.Events
	return r, nil
}

// Model is a split sweep as an [experiments.Model]: its points are those
// of the spec, its replications the spec's, and a point's one row holds
// the columns of results.csv after "point" ([CSVColumns]): the point's
// parameters as the CSV writes them (strings) and its statistics as
// float64 (NaN for none). Make one with [NewModel].
//
// Replication rep of every point draws its random streams from
// [CommonSeed](seed, rep), not from the seed the runner passes
// ([experiments.ReplicationSeed]): common random numbers across points.
type Model struct {
	spec *Spec
	pts  []Point
}

// NewModel returns the model of spec. Errors: those of [Spec.Points].
func NewModel(spec *Spec) (*Model, error) {
	pts, err := spec.Points()
	if err != nil {
		return nil, err
	}
	return &Model{spec: spec, pts: pts}, nil
}

// NumPoints implements [experiments.Model].
func (m *Model) NumPoints() int { return len(m.pts) }

// NumReplications implements [experiments.Model].
func (m *Model) NumReplications() int { return m.spec.Replications }

// RootSeed implements [experiments.Model].
func (m *Model) RootSeed() uint64 { return m.spec.Seed }

// Columns implements [experiments.Model]: the results CSV's columns after
// "point".
func (m *Model) Columns() []string { return CSVColumns()[1:] }

// Replicate implements [experiments.Model]: replication rep of point, with
// the streams of [CommonSeed](RootSeed(), rep) (the runner's seed is not
// used).
func (m *Model) Replicate(ctx context.Context, point, rep int, _ uint64) (any, error) {
	return runReplication(ctx, &m.pts[point], m.spec.Seed, rep)
}

// Rows implements [experiments.Model]: the point's one row, from its
// replications' statistics.
func (m *Model) Rows(point int, reps []any) ([][]any, error) {
	rs := make([]repStats, len(reps))
	for i, r := range reps {
		rs[i] = r.(repStats)
	}
	pr := aggregate(&m.pts[point], rs)
	return [][]any{pr.row()[1:]}, nil
}

// RunSweep runs every replication of every point of spec (or of the
// shard's points) with [experiments.RunModel] on opt.Workers goroutines
// and returns the statistics of each point, in point order. Replication i
// of every point is seeded by [CommonSeed](seed, i) (common random
// numbers: the points of a replication see the same arrivals), so the
// results are the same for any number of workers and any sharding.
//
// done, when not nil, holds the points an earlier, interrupted run of the
// same sweep finished (checked with [Results.CheckResume]): RunSweep runs
// only the other points and returns all of them, in point order, the
// results of one uninterrupted run, byte for byte once written.
//
// When ctx is cancelled the workers stop within 4096 jobs; RunSweep then
// returns the points whose replications had all finished, with
// Interrupted set, and ctx.Err(). Any other error stops the sweep and is
// returned with the points finished so far.
func RunSweep(ctx context.Context, spec *Spec, opt experiments.SweepOptions, done *Results) (*Results, error) {
	m, err := NewModel(spec)
	if err != nil {
		return nil, err
	}
	if done != nil {
		opt.DoneTable = done.table()
	}
	t, err := experiments.RunModel(ctx, spec.Name, specfile.SplitModel, m, opt)
	if t == nil {
		return nil, err
	}
	return m.results(t), err
}

// aggregate computes a point's statistics from its replications, in
// replication order (so that the floating-point results do not depend on
// the order replications finished in).
func aggregate(p *Point, reps []repStats) PointResult {
	pr := PointResult{Point: *p}
	means := [2][]float64{make([]float64, len(reps)), make([]float64, len(reps))}
	merged := [2]*experiments.DelayStats{experiments.NewDelayStats(false), experiments.NewDelayStats(false)}
	for i, r := range reps {
		for s := range 2 {
			means[s][i] = r.mean[s]
			merged[s].Merge(r.stats[s])
		}
		pr.Violations += r.violations
		pr.LemmaViolations += r.lemma
	}
	m, h := experiments.MeanCI(means[0], experiments.ConfidenceLevel)
	pr.One.MeanDelay, pr.One.MeanDelayCI = experiments.Num(m), experiments.Num(h)
	m, h = experiments.MeanCI(means[1], experiments.ConfidenceLevel)
	pr.Split.MeanDelay, pr.Split.MeanDelayCI = experiments.Num(m), experiments.Num(h)
	r, lo, hi := experiments.RatioCI(means[1], means[0], experiments.ConfidenceLevel)
	pr.Ratio, pr.RatioLo, pr.RatioHi = experiments.Num(r), experiments.Num(lo), experiments.Num(hi)
	for s, q := range [2]*SystemStats{&pr.One, &pr.Split} {
		st := stats(merged[s])
		q.P50, q.P90, q.P99, q.P999 = experiments.Num(st.P50), experiments.Num(st.P90), experiments.Num(st.P99), experiments.Num(st.P999)
		q.Delayed = experiments.Num(float64(st.Delayed) / float64(st.Jobs))
	}
	pr.MaxSubLoad = experiments.Num(p.MaxSubLoad())
	pr.One.PK, pr.Split.PK = experiments.Num(p.PKOne()), experiments.Num(p.PKSplit())
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
	lambda, poisson := p.ArrivalsSpec().PoissonRate()
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
	lambda, poisson := p.ArrivalsSpec().PoissonRate()
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
