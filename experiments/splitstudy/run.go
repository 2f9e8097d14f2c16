package splitstudy

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// RunSpec describes one comparison of a token bucket with its split.
type RunSpec struct {
	One          buckets.Params   // the one bucket (r, b)
	Subs         []buckets.Params // the k sub-buckets (r_l, b_l)
	AllowUnequal bool             // lift the Σ r_l = r and Σ b_l = b checks (negative controls)
	Dispatch     string           // dispatch policy, one of systems.DispatchNames
	Shares       []float64        // traffic shares p_l of dispatch "weighted" (nil: the rate shares r_l/r); one per sub-bucket
	Order        buckets.Order    // service order among waiting jobs, in every bucket
	Seed         uint64           // root seed of every random stream of the run
	MaxJobs      int64            // stop after this many arrivals; 0 means when the arrivals end
	Warmup       int64            // the first Warmup jobs are left out of the statistics (not of the check or the rows)
	Engine       bool             // run on the engine (systems.Drive) instead of the fast path (systems.Run): same results
}

// CheckResult is the outcome of the check of Theorem 2 and Lemma 1 (see
// systems.Check), in seconds and tokens.
type CheckResult struct {
	Events          int64  `json:"events"`           // arrivals plus token grants of both systems
	Evaluated       uint64 `json:"evaluated"`        // instants evaluated exactly (the others are certified)
	Violations      uint64 `json:"violations"`       // evaluated instants with S(t) > S^(k)(t)
	LemmaViolations uint64 `json:"lemma_violations"` // evaluated instants with r·U(t) > Σ r_l·U_l(t)
	// MinSlack is the smallest S^(k)(t) - S(t) over the instants where
	// S(t) > 0, seconds, and MinSlackAt where (seconds since the origin);
	// both nil (null) when the one bucket delays no job.
	MinSlack   *float64 `json:"min_slack_s"`
	MinSlackAt *float64 `json:"min_slack_at_s"`
	// First is the first violation, nil when the check held.
	First *ViolationResult `json:"first_violation,omitempty"`
	// NotChecked, when not empty, says why the check was not run (the
	// closed-form path of a large counts trace; see countsrun.go): then
	// Events counts the arrivals and grants, and the other fields are 0.
	NotChecked string `json:"not_checked,omitempty"`
}

// ViolationResult is a violation with its values in seconds and tokens.
type ViolationResult struct {
	Lemma bool `json:"lemma"` // Lemma 1 (true) or Theorem 2 (false)
	// At is the instant, seconds since the origin. For Theorem 2 it is the
	// exact first instant after which S(t) > S^(k)(t), in general between
	// two events (see systems.Violation), and AtExact writes it exactly
	// (decimal, or p/q); for Lemma 1 (or a crossing beyond exact.Rat's
	// range) it is the instant the check found it at, and AtExact is "".
	At        float64 `json:"at_s"`
	AtExact   string  `json:"at_exact_s"`
	Checked   float64 `json:"checked_at_s"`      // where the check evaluated the values below, seconds
	S         float64 `json:"s_s"`               // S(t) at Checked, seconds
	SSplit    float64 `json:"s_split_s"`         // S^(k)(t) at Checked, seconds
	N         int64   `json:"n_jobs"`            // jobs waiting in the one bucket
	NSplit    int64   `json:"n_split_jobs"`      // jobs waiting in the split system, Σ N_l
	Work      float64 `json:"work_tokens"`       // r·U(t), tokens
	WorkSplit float64 `json:"work_split_tokens"` // Σ r_l·U_l(t), tokens
}

func (v *ViolationResult) String() string {
	if v.Lemma {
		return fmt.Sprintf("t = %.9g s: r·U = %.9g > sum r_l·U_l = %.9g tokens (Lemma 1)", v.At, v.Work, v.WorkSplit)
	}
	vals := fmt.Sprintf("S = %.9g s, S^(k) = %.9g s, N = %d, sum N_l = %d (Theorem 2)", v.S, v.SSplit, v.N, v.NSplit)
	if v.AtExact == "" {
		return fmt.Sprintf("t = %.9g s: %s", v.At, vals)
	}
	at := fmt.Sprintf("%.9g", v.At)
	ex := "exact"
	if at != v.AtExact {
		ex = "exactly " + v.AtExact + " s"
	}
	return fmt.Sprintf("t = %s s (%s; S(t) > S^(k)(t) just after), found at t = %.9g s: %s", at, ex, v.Checked, vals)
}

// Held reports whether Theorem 2 and Lemma 1 held at every instant.
func (c CheckResult) Held() bool { return c.Violations == 0 && c.LemmaViolations == 0 }

// Result is the outcome of a run.
type Result struct {
	Jobs  int64             `json:"jobs"`    // arrivals processed
	Span  float64           `json:"span_s"`  // time 0 (a trace's first arrival; a generated process starts at 0) to the last arrival, seconds
	Drain float64           `json:"drain_s"` // first arrival to the last token grant of either system, seconds
	One   experiments.Stats `json:"one"`     // the one-bucket system
	Split experiments.Stats `json:"split"`   // the split system
	Check CheckResult       `json:"check"`
}

func (spec RunSpec) pair() (*systems.Pair, error) {
	return systems.NewSplit(systems.SplitSpec{One: spec.One, Subs: spec.Subs, AllowUnequal: spec.AllowUnequal,
		Dispatch: spec.Dispatch, Weights: spec.Shares, Order: spec.Order, Seed: spec.Seed})
}

// Run compares one bucket with its split on the arrivals of proc, checking
// Theorem 2 and Lemma 1 at every instant, on the fast path (or on the
// engine with spec.Engine: the same results). If jobsOut is not nil, one
// CSV row per job is written to it (see [JobsHeader]) in job order.
//
// Errors: an invalid spec (wrapping buckets.ErrParam), an error from proc
// (it names the file and line for traces), a job that cannot be dispatched
// (wrapping [experiments.ErrInput], naming the trace line), an instant beyond the
// clock (wrapping systems.ErrOverflow), or a write error. A failed check is not
// an error: see Result.Check.
//
// Run stops early, returning ctx.Err(), when ctx is cancelled (checked every
// 4096 arrivals).
//
// A counts trace (spread even) with at least 2^26 jobs in its first 1024
// lines under round robin, FCFS and equal sums takes a closed form per
// interval instead (see countsrun.go): the same statistics at a cost that
// grows with the lines, not the jobs, and the check not run
// (Result.Check.NotChecked).
func Run(ctx context.Context, spec RunSpec, proc arrivals.Process, jobsOut io.Writer) (Result, error) {
	if res, ok, err := runCounts(ctx, spec, proc, jobsOut); ok {
		return res, err // a large counts trace, in closed form (countsrun.go)
	}
	rec := newRecorder(jobsOut, spec.Warmup)
	if n := spec.MaxJobs - spec.Warmup; spec.MaxJobs > 0 {
		// One run of known length: its exact stores at once (a sweep,
		// which keeps every replication's, lets them grow as needed).
		rec.one.Reserve(n)
		rec.split.Reserve(n)
	}
	res, _, err := runWith(ctx, spec, proc, rec, nil)
	return res, err
}

// runWith is [Run] with the statistics kept in rec and, when tap is not
// nil, every decision and release also shown to it.
func runWith(ctx context.Context, spec RunSpec, proc arrivals.Process, rec *recorder, tap *seriesTap) (Result, *systems.Pair, error) {
	defer rec.close() // stops the per-job writer if the run fails
	if spec.Warmup < 0 {
		return Result{}, nil, &buckets.ParamError{Name: "warmup", Value: spec.Warmup, Want: ">= 0 jobs"}
	}
	p, err := spec.pair()
	if err != nil {
		return Result{}, nil, err
	}
	src, jobs := experiments.NewJobSource(proc)
	var obs systems.Observer = rec
	if tap != nil {
		tap.start(p, rec)
		obs = tap
	}
	var n int64
	if spec.Engine {
		n, err = systems.Drive(ctx, engine.NewSim(), p, jobs, spec.MaxJobs, obs)
	} else {
		n, err = systems.Run(ctx, p, jobs, spec.MaxJobs, obs)
	}
	if err != nil {
		return Result{}, nil, src.Wrap(err)
	}
	if err := rec.finish(); err != nil {
		return Result{}, nil, err
	}
	return rec.result(n, src.Last(), p), p, nil
}

// recorder collects both systems' delay statistics and, optionally, the
// per-job rows. Jobs numbered below warmup are left out of the statistics
// (not of the rows or the check).
type recorder struct {
	one, split *experiments.DelayStats
	rows       *jobWriter
	warmup     int64
	grants     int64 // jobs that waited, in either system, warm-up included
}

func newRecorder(jobsOut io.Writer, warmup int64) *recorder {
	r := &recorder{one: experiments.NewRunDelayStats(), split: experiments.NewRunDelayStats(), warmup: warmup}
	if jobsOut != nil {
		r.rows = newJobWriter(jobsOut)
	}
	return r
}

func (r *recorder) Decided(j systems.Job, side, node int, d buckets.Decision) error {
	if r.rows != nil && side == 0 {
		r.rows.arrived(j.ID, j.T)
	}
	if side == 1 && r.rows != nil {
		r.rows.dispatched(j.ID, node)
	}
	switch d.Verdict {
	case buckets.Queue:
		return nil // its wait comes with its release
	case buckets.Reject:
		return fmt.Errorf("experiments: job %d rejected by a shaping bucket", j.ID) // cannot happen: the buckets shape without bound
	}
	return r.served(j.ID, side, d.Wait)
}

// Waits is the fast path's report of a job (systems.FastObserver): its
// sub-bucket and its waits in both systems in units of 1/scale ns.
func (r *recorder) Waits(j systems.Job, node int, scale int64, wa, wb exact.Int128) error {
	if r.one.Den() == 0 {
		r.one.SetDen(scale)
		r.split.SetDen(scale)
	}
	if wa.Sign() > 0 {
		r.grants++
	}
	if wb.Sign() > 0 {
		r.grants++
	}
	if j.ID >= r.warmup {
		r.one.AddUnits(wa, scale)
		r.split.AddUnits(wb, scale)
	}
	if r.rows != nil {
		return r.rows.complete(j.ID, j.T, node, wa, wb, scale)
	}
	return nil
}

// WaitsBatch is the batch path's report of jobs first, first+1, ...
// (systems.BatchObserver): Waits for each, with the statistics kept a
// batch at a time.
func (r *recorder) WaitsBatch(first int64, ts []engine.Time, node0, k int, scale int64, wa, wb []int64) error {
	if r.one.Den() == 0 {
		r.one.SetDen(scale)
		r.split.SetDen(scale)
	}
	skip := min(max(r.warmup-first, 0), int64(len(wa)))
	for i := range skip {
		if wa[i] > 0 {
			r.grants++
		}
		if wb[i] > 0 {
			r.grants++
		}
	}
	r.grants += r.one.AddUnitsBatch(wa[skip:], scale)
	r.grants += r.split.AddUnitsBatch(wb[skip:], scale)
	if r.rows != nil {
		for i, t := range ts {
			if err := r.rows.complete(first+int64(i), t, (node0+i)%k, exact.I128(wa[i]), exact.I128(wb[i]), scale); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *recorder) Released(side, _ int, _ engine.Time, rel buckets.Released) error {
	return r.served(rel.ID, side, rel.Wait)
}

func (r *recorder) served(id int64, side int, w exact.Rat) error {
	if w.Sign() > 0 {
		r.grants++
	}
	if id >= r.warmup {
		if side == 0 {
			r.one.Add(w)
		} else {
			r.split.Add(w)
		}
	}
	if r.rows != nil {
		return r.rows.served(id, side == 0, w)
	}
	return nil
}

func (r *recorder) finish() error {
	if r.rows != nil {
		return r.rows.finish()
	}
	return nil
}

// close stops the per-job writer of a run that failed, dropping its error.
func (r *recorder) close() {
	if r.rows != nil {
		r.rows.close()
	}
}

func (r *recorder) result(jobs int64, last engine.Time, p *systems.Pair) Result {
	chk := p.Check().Result()
	res := Result{Jobs: jobs, Span: last.Seconds(), One: stats(r.one), Split: stats(r.split)}
	end := new(big.Rat)
	for _, sys := range []*systems.System{p.A, p.B} {
		for _, n := range sys.Nodes() {
			g := n.(*buckets.TokenBucket).State()
			if f := new(big.Rat).Quo(exact.Frac(g.LastGrant(), g.Scale).Big(), big.NewRat(1e9, 1)); f.Cmp(end) > 0 {
				end = f
			}
		}
	}
	res.Drain, _ = end.Float64()
	res.Drain = max(res.Drain, res.Span)
	res.Check = CheckResult{Events: jobs + r.grants, Evaluated: chk.Evaluated, Violations: chk.Violations,
		LemmaViolations: chk.LemmaViolations}
	if chk.HasSlack {
		s, at := chk.MinSlack.QuoFloat64(1e9), chk.MinSlackAt.QuoFloat64(1e9)
		res.Check.MinSlack, res.Check.MinSlackAt = &s, &at
	}
	if v := chk.First; v != nil {
		exactAt := "" // empty unless At is the exact crossing
		if sec, err := v.At.Quo(exact.Int(1e9)); err == nil && v.Crossing && !v.Lemma {
			exactAt = sec.String()
		}
		res.Check.First = &ViolationResult{Lemma: v.Lemma, At: v.At.QuoFloat64(1e9), AtExact: exactAt, Checked: v.Checked.QuoFloat64(1e9), S: v.S.QuoFloat64(1e9),
			SSplit: v.SSplit.QuoFloat64(1e9), N: v.N, NSplit: v.NSplit, Work: v.Work.Float64(), WorkSplit: v.WorkSplit.Float64()}
	}
	return res
}

// SubLoads returns the offered load ρ_l = λ·p_l/r_l of each sub-bucket for
// arrivals at lambda jobs/s, where the dispatch fixes the traffic shares
// p_l: 1/k under "rr", spec.Shares (by default the rates, r_l/Σ r_l)
// under "random" and "weighted". It returns nil for the other dispatches
// (hash, least-loaded, column), whose shares depend on the arrivals. A
// sub-bucket at load >= 1 has no steady state: its delays grow with the
// run's length (as a G/D/1 queue's at ρ >= 1).
func (spec RunSpec) SubLoads(lambda float64) []float64 {
	k := len(spec.Subs)
	var shares []float64
	switch spec.Dispatch {
	case "rr":
		shares = make([]float64, k)
		for l := range shares {
			shares[l] = 1 / float64(k)
		}
	case "random", "weighted":
		w := spec.Shares
		if w == nil {
			w = make([]float64, k)
			for l, s := range spec.Subs {
				w[l] = s.Rate.Float64()
			}
		}
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		shares = make([]float64, k)
		for l, x := range w {
			shares[l] = x / sum
		}
	default:
		return nil
	}
	loads := make([]float64, k)
	for l, s := range spec.Subs {
		loads[l] = lambda * shares[l] / s.Rate.Float64()
	}
	return loads
}

// OverloadWarning says which sub-buckets (and whether the one bucket) are
// offered a load >= 1 at arrival rate lambda (jobs/s; from says where it
// comes from, "the trace's mean rate"), where the dispatch fixes their
// traffic shares: their delays have no steady state and grow with the
// run's length. It returns "" when every load is below 1 or unknown.
func (spec RunSpec) OverloadWarning(lambda float64, from string) string {
	var over []string
	for l, rho := range spec.SubLoads(lambda) {
		if rho >= 1 {
			over = append(over, fmt.Sprintf("%d at %.3g", l+1, rho))
		}
	}
	one := lambda / spec.One.Rate.Float64()
	switch {
	case len(over) == 0 && one < 1:
		return ""
	case len(over) == 0:
		return fmt.Sprintf("the one bucket is offered load %.3g (λ = %.6g jobs/s, %s): at a load >= 1 delays have no steady state and grow with the run's length", one, lambda, from)
	}
	return fmt.Sprintf("offered a load >= 1 under dispatch %s: sub-bucket %s (λ = %.6g jobs/s, %s; the one bucket at %.3g); at a load >= 1 delays have no steady state and grow with the run's length",
		spec.Dispatch, strings.Join(over, ", sub-bucket "), lambda, from, one)
}

// stats are the statistics of d. The error of a delay the sketch could
// not keep is left out, as the split's runs did before DelayStats
// returned it (their quantiles then come from the delays kept).
func stats(d *experiments.DelayStats) experiments.Stats {
	st, _ := d.Stats()
	return st
}
