package splitstudy

// The closed-form path of a counts trace: a run whose arrivals are a
// counts trace spread evenly takes its intervals whole (arrivals.Bin) and
// admits each to every bucket in O(log count) big-integer operations
// (buckets.TokenBucket.AdmitSpread), so that its cost grows with the
// number of lines, not of jobs. This file is the whole hook: Run calls
// runCounts first.

import (
	"context"
	"fmt"
	"io"
	"math/big"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// countsClosedFormJobs is the number of jobs from which a counts trace
// takes the closed-form path: when its first countsAheadLines lines (read
// ahead to decide) hold at least that many, the delays are computed per
// interval and the check is not run (see CheckResult.NotChecked);
// otherwise the run goes job by job with the check at every instant,
// whatever comes later. 2^26 jobs cost about 1.5 s of CPU job by job;
// the closed form costs about as much as 10^3 jobs job by job per
// interval, so it pays from about 2^16 jobs a line. (A variable for
// tests.)
var countsClosedFormJobs int64 = 1 << 26

// countsAheadLines bounds the lines read ahead to decide.
const countsAheadLines = 1 << 10

// notCheckedCounts is CheckResult.NotChecked on the closed-form path.
const notCheckedCounts = "counts in closed form per interval (at least 2^26 jobs in the first 1024 lines): Theorem 2 holds by its proof (Σ r_l = r, Σ b_l = b), not evaluated instant by instant"

// runCounts runs spec on a counts trace in closed form when it applies:
// proc is an *arrivals.Trace with bins (counts, spread even) of at least
// countsClosedFormJobs jobs (MaxJobs too, when set), no per-job rows, the
// fast path, round-robin dispatch, FCFS, and sub-buckets whose rates and
// bursts sum to the one bucket's. It returns ok = false, having read
// nothing but lines ahead (which Next returns as before), otherwise.
func runCounts(ctx context.Context, spec RunSpec, proc arrivals.Process, jobsOut io.Writer) (res Result, ok bool, err error) {
	tr, isTrace := proc.(*arrivals.Trace)
	if !isTrace || !tr.HasBins() || jobsOut != nil || spec.Engine || spec.Dispatch != "rr" || spec.Order != buckets.FCFS ||
		spec.Warmup < 0 || spec.MaxJobs > 0 && spec.MaxJobs < countsClosedFormJobs || !equalSums(spec) {
		return Result{}, false, nil
	}
	if !tr.CountsAhead(countsClosedFormJobs, countsAheadLines) {
		return Result{}, false, nil
	}
	p, err := spec.pair()
	if err != nil {
		return Result{}, true, err
	}
	one := p.A.Nodes()[0].(*buckets.TokenBucket)
	subs := make([]*buckets.TokenBucket, len(spec.Subs))
	for l, n := range p.B.Nodes() {
		subs[l] = n.(*buckets.TokenBucket)
	}
	run := countsRun{spec: spec, one: one, subs: subs, a: newCountsStats(one.Scale()), b: newCountsStats(one.Scale())}
	for spec.MaxJobs == 0 || run.jobs < spec.MaxJobs {
		if err := ctx.Err(); err != nil {
			return Result{}, true, err
		}
		bin, err := tr.NextBin()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, true, err
		}
		if err := run.bin(ctx, bin); err != nil {
			return Result{}, true, fmt.Errorf("%s:%d: %w (%w)", tr.Name(), bin.Line, err, experiments.ErrInput)
		}
	}
	return run.result(), true, nil
}

// equalSums reports whether Σ r_l = r and Σ b_l = b exactly.
func equalSums(spec RunSpec) bool {
	r, b := exact.Int(0), exact.Int(0)
	for _, s := range spec.Subs {
		var ok1, ok2 error
		r, ok1 = r.Add(s.Rate)
		b, ok2 = b.Add(s.Burst)
		if ok1 != nil || ok2 != nil {
			return false
		}
	}
	return len(spec.Subs) > 0 && r.Cmp(spec.One.Rate) == 0 && b.Cmp(spec.One.Burst) == 0
}

// countsRun is the state of runCounts.
type countsRun struct {
	spec RunSpec
	one  *buckets.TokenBucket
	subs []*buckets.TokenBucket
	a, b *countsStats // the one bucket, the split system
	jobs int64
	last engine.Time
}

// bin admits the arrivals of bin (those below MaxJobs) to every bucket,
// the split's by round robin continuing from the jobs before.
func (r *countsRun) bin(ctx context.Context, bin arrivals.Bin) error {
	n := bin.Jobs()
	if r.spec.MaxJobs > 0 {
		n = min(n, r.spec.MaxJobs-r.jobs)
	}
	base, k := r.jobs, int64(len(r.subs))
	sp := buckets.Spread{Start: bin.Start, Width: bin.Width, Count: bin.Count, First: bin.First, Step: 1, N: n}
	// Job base + i is measured when base + i >= Warmup. A release beyond
	// the clock fails the run at the first job it happens to, in either
	// system, as on the per-job path.
	first := beyond{id: -1}
	if err := r.a.admit(ctx, r.one, sp, max(r.spec.Warmup-base, 0), base, 1, &first); err != nil {
		return err
	}
	for l, sb := range r.subs {
		// Job base + j goes to sub-bucket (base + j) mod k: j = o, o + k, …
		o := ((int64(l)-base)%k + k) % k
		m := int64(0)
		if o < n {
			m = (n - o + k - 1) / k
		}
		s := buckets.Spread{Start: bin.Start, Width: bin.Width, Count: bin.Count, First: bin.First + o, Step: k, N: m}
		from := max(r.spec.Warmup-base-o, 0)
		if err := r.b.admit(ctx, sb, s, (from+k-1)/k, base+o, k, &first); err != nil {
			return err
		}
	}
	if first.id >= 0 {
		return fmt.Errorf("systems: job %d at %v s would be released beyond the clock's range: %w", first.id, first.at, systems.ErrOverflow)
	}
	r.jobs += n
	if n > 0 {
		r.last = sp.At(n - 1)
	}
	return nil
}

// result assembles the run's Result as the per-job path does: the same
// statistics, the drain from the buckets' last grants, the check not run.
func (r *countsRun) result() Result {
	res := Result{Jobs: r.jobs, Span: r.last.Seconds(), One: r.a.stats(), Split: r.b.stats()}
	end := new(big.Rat)
	for _, b := range append([]*buckets.TokenBucket{r.one}, r.subs...) {
		g := b.State()
		if f := new(big.Rat).Quo(exact.Frac(g.LastGrant(), g.Scale).Big(), big.NewRat(1e9, 1)); f.Cmp(end) > 0 {
			end = f
		}
	}
	res.Drain, _ = end.Float64()
	res.Drain = max(res.Drain, res.Span)
	res.Check = CheckResult{Events: r.jobs + r.a.grants + r.b.grants, NotChecked: notCheckedCounts}
	return res
}

// countsStats are one system's delay statistics on the closed-form path:
// exact counts, total and maximum, and the measured positive waits as
// monotone runs (buckets.SpreadWaits) and single values, from which the
// quantiles are found exactly.
type countsStats struct {
	scale   int64
	n       int64        // measured jobs
	delayed int64        // measured positive waits
	grants  int64        // positive waits, warm-up included
	sum     exact.Int128 // Σ waits, units, while it fits (sumBig nil)
	sumBig  *big.Int     // Σ waits once beyond 128 bits
	max     exact.Int128
	runs    []countsRunWaits
	singles []exact.Int128 // waits of arrivals admitted one by one (sorted at the end)
}

// countsRunWaits is a run of waits and the indices of it measured.
type countsRunWaits struct {
	w        buckets.SpreadWaits
	from, to int64
}

func newCountsStats(scale int64) *countsStats {
	return &countsStats{scale: scale}
}

// beyond is the first job released beyond the clock (id -1: none yet).
type beyond struct {
	id int64
	at engine.Time
}

// admit admits the arrivals of s to b, those of index from on measured
// (arrival i is job id0 + i·step): in closed form, or one by one where
// AdmitSpread declines (gaps around one token's time). At the first
// arrival whose release would be beyond the clock it stops, noting it in
// first when it is the earliest job so far (the bucket is then left in
// between: the run fails).
func (c *countsStats) admit(ctx context.Context, b *buckets.TokenBucket, s buckets.Spread, from, id0, step int64, first *beyond) error {
	from = min(from, s.N)
	c.n += s.N - from
	if w, ok := b.AdmitSpread(s); ok {
		c.grants += w.Delayed()
		lo, hi := max(from, w.Lo), w.Hi
		if lo >= hi {
			return nil
		}
		c.delayed += hi - lo
		if x, ok := w.Sum128(lo, hi); ok {
			c.add(x)
		} else {
			c.addBig(w.Sum(lo, hi))
		}
		top := hi - 1
		if !w.Rising {
			top = lo
		}
		m, _ := exact.FromBig(w.Wait(top)) // a wait fits: the bucket keeps their sum in an Int128
		if c.max.Less(m) {
			c.max = m
		}
		c.runs = append(c.runs, countsRunWaits{w: w, from: lo, to: hi})
		return nil
	}
	note := func(i int64) error {
		if id := id0 + i*step; first.id < 0 || id < first.id {
			first.id, first.at = id, s.At(i)
		}
		return nil
	}
	if i, ok := b.SpreadBeyondClock(s); ok {
		return note(i)
	}
	for i := range s.N {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		t := s.At(i)
		w, ok := b.AdmitFCFS(t, exact.Mul64(int64(t), b.Scale()))
		if !ok {
			return note(i)
		}
		if w.Sign() <= 0 {
			continue
		}
		c.grants++
		if i < from {
			continue
		}
		c.delayed++
		c.add(w)
		if c.max.Less(w) {
			c.max = w
		}
		c.singles = append(c.singles, w)
	}
	return nil
}

// add adds x units to the total.
func (c *countsStats) add(x exact.Int128) {
	if c.sumBig == nil {
		if s, ok := c.sum.AddOK(x); ok {
			c.sum = s
			return
		}
		c.sumBig = c.sum.Big()
	}
	c.sumBig.Add(c.sumBig, x.Big())
}

// addBig adds x units to the total.
func (c *countsStats) addBig(x *big.Int) {
	if c.sumBig == nil {
		c.sumBig = c.sum.Big()
	}
	c.sumBig.Add(c.sumBig, x)
}

// stats returns the statistics of the measured waits, as the per-job
// path computes them from the same waits (experiments.WaitsStats).
func (c *countsStats) stats() experiments.Stats {
	sum := c.sumBig
	if sum == nil {
		sum = c.sum.Big()
	}
	runs := make([]experiments.WaitRun, len(c.runs))
	for i, r := range c.runs {
		w := r.w
		runs[i] = experiments.WaitRun{From: r.from, To: r.to, Wait: func(i int64) exact.Int128 {
			x, ok := w.Wait128(i)
			if !ok {
				x, _ = exact.FromBig(w.Wait(i)) // a wait fits: the buckets keep its sum in an Int128
			}
			return x
		}}
	}
	return experiments.WaitsStats(c.scale, c.n, c.delayed, sum, c.max, runs, c.singles)
}
