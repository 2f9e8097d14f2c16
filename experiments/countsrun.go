package experiments

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
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// countsClosedFormJobs is the number of jobs from which a counts trace
// takes the closed-form path: below it (the trace is read ahead to
// decide, at most countsAheadLines lines) the run goes job by job, with
// the check of Theorem 2 at every instant; from it on, the delays are
// computed per interval and the check is not run (see
// CheckResult.NotChecked). 2^26 jobs cost about 3 s of CPU job by job.
// (A variable for tests.)
var countsClosedFormJobs int64 = 1 << 26

// countsAheadLines bounds the lines read ahead to decide: a file with
// more lines takes the closed-form path whatever its counts.
const countsAheadLines = 1 << 16

// countsEnumerate is the most delayed jobs whose waits the closed-form
// path lists one by one to find the quantiles; beyond, it bisects on the
// value, counting the waits below it in every interval. (A variable for
// tests.)
var countsEnumerate int64 = 1 << 23

// notCheckedCounts is CheckResult.NotChecked on the closed-form path.
const notCheckedCounts = "counts in closed form per interval (a trace of at least 2^26 jobs): Theorem 2 holds by its proof (Σ r_l = r, Σ b_l = b), not evaluated instant by instant"

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
			return Result{}, true, fmt.Errorf("%s:%d: %w (%w)", tr.Name(), bin.Line, err, ErrInput)
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
	// Job base + i is measured when base + i >= Warmup.
	if err := r.a.admit(ctx, r.one, sp, max(r.spec.Warmup-base, 0)); err != nil {
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
		if err := r.b.admit(ctx, sb, s, (from+k-1)/k); err != nil {
			return err
		}
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
	n       int64 // measured jobs
	delayed int64 // measured positive waits
	grants  int64 // positive waits, warm-up included
	sum     *big.Int
	max     *big.Int
	runs    []countsRunWaits
	singles []exact.Int128 // waits of arrivals admitted one by one (sorted at the end)
}

// countsRunWaits is a run of waits and the indices of it measured.
type countsRunWaits struct {
	w        buckets.SpreadWaits
	from, to int64
}

func newCountsStats(scale int64) *countsStats {
	return &countsStats{scale: scale, sum: new(big.Int), max: new(big.Int)}
}

// admit admits the arrivals of s to b, those of index from on measured:
// in closed form, or one by one where AdmitSpread declines (gaps around
// one token's time).
func (c *countsStats) admit(ctx context.Context, b *buckets.TokenBucket, s buckets.Spread, from int64) error {
	from = min(from, s.N)
	c.n += s.N - from
	if w, ok := b.AdmitSpread(s); ok {
		c.grants += w.Delayed()
		lo, hi := max(from, w.Lo), w.Hi
		if lo >= hi {
			return nil
		}
		c.delayed += hi - lo
		c.sum.Add(c.sum, w.Sum(lo, hi))
		top := hi - 1
		if !w.Rising {
			top = lo
		}
		if m := w.Wait(top); m.Cmp(c.max) > 0 {
			c.max = m
		}
		c.runs = append(c.runs, countsRunWaits{w: w, from: lo, to: hi})
		return nil
	}
	for i := range s.N {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		t := s.At(i)
		w, ok := b.AdmitFCFS(t, exact.Mul64(int64(t), b.Scale()))
		if !ok {
			return fmt.Errorf("systems: a job at %v s would be released beyond the clock's range: %w", t, systems.ErrOverflow)
		}
		if w.Sign() <= 0 {
			continue
		}
		c.grants++
		if i < from {
			continue
		}
		x := w.Big()
		c.delayed++
		c.sum.Add(c.sum, x)
		if x.Cmp(c.max) > 0 {
			c.max = x
		}
		c.singles = append(c.singles, w)
	}
	return nil
}

// stats returns the statistics as delayStats.stats computes them from the
// same waits (newRunStats: exact quantiles up to ExactQuantileJobs delayed
// jobs, a logHist's beyond).
func (c *countsStats) stats() Stats {
	st := Stats{Jobs: c.n, Delayed: c.delayed, Quantiles: "exact"}
	hist := c.delayed > ExactQuantileJobs
	if hist {
		st.Quantiles = fmt.Sprintf("log-linear histogram, relative accuracy %g", HistogramAccuracy)
	}
	total := new(big.Rat).SetFrac(c.sum, big.NewInt(c.scale))
	st.Total, _ = new(big.Rat).Quo(total, big.NewRat(1e9, 1)).Float64()
	maxWait, _ := exact.FromBig(c.max) // below 2^127: the buckets keep it in an Int128
	st.Max = exact.Frac(maxWait, c.scale).QuoFloat64(1e9)
	if c.n == 0 {
		return st
	}
	st.Mean, _ = new(big.Rat).Quo(total, new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(1e9), big.NewInt(c.n)))).Float64()
	slices.SortFunc(c.singles, exact.Int128.Cmp)
	q := make([]float64, 4)
	zeros := c.n - c.delayed
	var listed []exact.Int128
	if c.delayed <= countsEnumerate {
		listed = c.list()
	}
	for i, pm := range []int64{500, 900, 990, 999} {
		r := rank(pm, c.n)
		if r <= zeros {
			continue
		}
		k := r - zeros - 1
		var w exact.Int128
		if listed != nil {
			w = listed[k]
		} else {
			w, _ = exact.FromBig(c.kth(k)) // at most the maximum
		}
		x := c.seconds(w)
		if hist {
			x = math.Min(binMid(int(math.Float64bits(x)>>histShift)), st.Max)
		}
		q[i] = x
	}
	st.P50, st.P90, st.P99, st.P999 = q[0], q[1], q[2], q[3]
	return st
}

// seconds converts a wait of w units to seconds as delayStats.addUnits
// does (one rounding either way).
func (c *countsStats) seconds(x exact.Int128) float64 {
	if hi, sc := bits.Mul64(uint64(c.scale), 1e9); hi == 0 && sc <= 1<<53 && x.IsInt64() && x.Int64() <= 1<<53 {
		return float64(x.Int64()) / float64(sc)
	}
	return exact.Frac(x, c.scale).QuoFloat64(1e9)
}

// list returns every measured positive wait, sorted, or nil when one
// does not fit 127 bits.
func (c *countsStats) list() []exact.Int128 {
	out := make([]exact.Int128, 0, c.delayed)
	for _, r := range c.runs {
		var ok bool
		if out, ok = r.w.AppendWaits(out, r.from, r.to); !ok {
			return nil
		}
	}
	out = append(out, c.singles...)
	slices.SortFunc(out, exact.Int128.Cmp)
	return out
}

// kth returns the k-th smallest measured positive wait (0-based): the
// smallest v with at least k+1 waits <= v, by bisection on v over
// [1, max], counting in each run by binary search (the waits of a run are
// monotone) and in the sorted singles.
func (c *countsStats) kth(k int64) *big.Int {
	lo, hi := big.NewInt(1), new(big.Int).Set(c.max) // the answer is in [lo, hi]
	mid := new(big.Int)
	for lo.Cmp(hi) < 0 {
		mid.Add(lo, hi)
		mid.Rsh(mid, 1)
		if c.countAtMost(mid) > k {
			hi.Set(mid)
		} else {
			lo.Add(mid, big.NewInt(1))
		}
	}
	return lo
}

// countAtMost returns how many measured positive waits are at most v.
func (c *countsStats) countAtMost(v *big.Int) int64 {
	n := int64(0)
	for _, r := range c.runs {
		n += r.w.CountAtMost(v, r.from, r.to)
	}
	i, _ := slices.BinarySearchFunc(c.singles, v, func(x exact.Int128, v *big.Int) int {
		if x.Big().Cmp(v) <= 0 {
			return -1
		}
		return 1
	})
	return n + int64(i)
}
