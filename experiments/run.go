package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// RunSpec describes one comparison of a token bucket with its split.
type RunSpec struct {
	One          buckets.Params   // the one bucket (r, b)
	Subs         []buckets.Params // the k sub-buckets (r_l, b_l)
	AllowUnequal bool             // lift the Σ r_l = r and Σ b_l = b checks (negative controls)
	Dispatch     string           // dispatch policy, one of buckets.DispatchNames
	Shares       []float64        // traffic shares p_l of dispatch "weighted" (nil: the rate shares r_l/r); one per sub-bucket
	Order        buckets.Order    // service order among waiting jobs, in every bucket
	Seed         uint64           // root seed of every random stream of the run
	MaxJobs      int64            // stop after this many arrivals; 0 means when the arrivals end
}

// Random streams of a run. Stream s of a run with seed S is
// rand.NewPCG(S, s), so each random component has its own stream and
// adding one does not change the draws of the others.
const (
	StreamArrivals = 0 // the arrival process
	StreamDispatch = 1 // random dispatch
	StreamOrder    = 2 // random service order: 2 for the one bucket, 3 + l for sub-bucket l
)

// Source returns the random source of stream of a run with the given seed.
func Source(seed, stream uint64) rand.Source { return rand.NewPCG(seed, stream) }

// CheckResult is the outcome of the event-by-event check of Theorem 2 and
// Lemma 1 (see buckets.Check).
type CheckResult struct {
	Events          uint64  `json:"events"`           // events checked (arrivals and grants)
	Violations      uint64  `json:"violations"`       // events with S(t) > S^(k)(t) beyond the rounding bound
	LemmaViolations uint64  `json:"lemma_violations"` // events with r·U(t) > Σ r_l·U_l(t) beyond the rounding bound
	MaxExcess       float64 `json:"max_excess_s"`     // largest S(t) - S^(k)(t) seen, seconds
	MaxExcessAt     float64 `json:"max_excess_at_s"`  // instant of MaxExcess, seconds

	// First is the first violation, nil when the check held.
	First *buckets.Violation `json:"first_violation,omitempty"`
}

// Held reports whether Theorem 2 and Lemma 1 held at every event.
func (c CheckResult) Held() bool { return c.Violations == 0 && c.LemmaViolations == 0 }

// Result is the outcome of a run.
type Result struct {
	Jobs     int64       `json:"jobs"`       // arrivals processed
	Duration float64     `json:"duration_s"` // instant of the last event (the last grant), seconds
	One      Stats       `json:"one"`        // the one-bucket system
	Split    Stats       `json:"split"`      // the split system
	Check    CheckResult `json:"check"`
}

// ErrInput is wrapped by errors about the arrivals (as opposed to the
// specification).
var ErrInput = errors.New("bad input")

// systems builds the one bucket, the sub-buckets and the dispatcher of spec.
func (spec RunSpec) systems() (*buckets.TokenBucket, []*buckets.TokenBucket, buckets.Dispatcher, error) {
	if err := buckets.ValidateSplit(spec.One, spec.Subs, spec.AllowUnequal); err != nil {
		return nil, nil, nil, err
	}
	order := func(stream uint64) buckets.Option {
		return buckets.WithOrder(spec.Order, Source(spec.Seed, stream))
	}
	one, err := buckets.NewTokenBucket(spec.One, order(StreamOrder))
	if err != nil {
		return nil, nil, nil, err
	}
	subs := make([]*buckets.TokenBucket, len(spec.Subs))
	rates := make([]float64, len(spec.Subs))
	for l, p := range spec.Subs {
		if subs[l], err = buckets.NewTokenBucket(p, order(StreamOrder+1+uint64(l))); err != nil {
			return nil, nil, nil, err
		}
		rates[l] = p.Rate
	}
	weights := rates
	if spec.Shares != nil {
		if spec.Dispatch != "weighted" {
			return nil, nil, nil, fmt.Errorf("experiments: traffic shares %v need dispatch weighted, not %q: %w", spec.Shares, spec.Dispatch, buckets.ErrParam)
		}
		if len(spec.Shares) != len(spec.Subs) {
			return nil, nil, nil, fmt.Errorf("experiments: %d traffic shares for %d sub-buckets: %w", len(spec.Shares), len(spec.Subs), buckets.ErrParam)
		}
		weights = spec.Shares
	}
	disp, err := buckets.NewDispatcher(spec.Dispatch, weights, Source(spec.Seed, StreamDispatch))
	if err != nil {
		return nil, nil, nil, err
	}
	return one, subs, disp, nil
}

// Run compares one bucket with its split on the arrivals of proc, on the
// fast path (buckets.Compare), checking Theorem 2 and Lemma 1 at every event.
// If jobsOut is not nil, one CSV row per job is written to it (see
// [JobsHeader]) in job order. Memory is O(k + waiting jobs): delays go into
// streaming sketches.
//
// Errors: an invalid spec (wrapping buckets.ErrParam), an error from proc
// (it names the file and line for traces), a job that cannot be dispatched
// (wrapping [ErrInput], naming the trace line), or a write error. A failed
// check is not an error: see Result.Check.
//
// Run stops early, returning ctx.Err(), when ctx is cancelled (checked every
// 4096 arrivals).
func Run(ctx context.Context, spec RunSpec, proc arrivals.Process, jobsOut io.Writer) (Result, error) {
	return runWith(ctx, spec, proc, newRecorder(jobsOut), nil)
}

// tap is an observer that sees every dispatch and delay before forwarding
// it to the run's recorder (see [RunSeries]).
type tap interface {
	buckets.Recorder
	start(c *buckets.Compare) // called once, before the first arrival
}

// runWith is [Run] with the statistics kept in rec, and reported to obs
// instead of rec directly when obs is not nil.
func runWith(ctx context.Context, spec RunSpec, proc arrivals.Process, rec *recorder, obs tap) (Result, error) {
	one, subs, disp, err := spec.systems()
	if err != nil {
		return Result{}, err
	}
	var seen buckets.Recorder = rec
	if obs != nil {
		seen = obs
	}
	c, err := buckets.NewCompare(one, subs, disp, seen, spec.AllowUnequal)
	if err != nil {
		return Result{}, err
	}
	if obs != nil {
		obs.start(c)
	}
	for spec.MaxJobs == 0 || c.Jobs() < spec.MaxJobs {
		if c.Jobs()%4096 == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		a, err := proc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, err
		}
		if err := c.Arrive(buckets.Job{T: a.T, Key: a.Key, Sub: a.Sub}); err != nil {
			return Result{}, inputError(proc, a, err)
		}
		if rec.err != nil {
			return Result{}, rec.err
		}
	}
	c.Finish()
	if err := rec.finish(); err != nil {
		return Result{}, err
	}
	return rec.result(c.Jobs(), c.Now(), c.Check())
}

// inputError names the arrival's source position in err.
func inputError(proc arrivals.Process, a arrivals.Arrival, err error) error {
	if a.Line > 0 {
		if n, ok := proc.(interface{ Name() string }); ok {
			return fmt.Errorf("%s:%d: %w (%w)", n.Name(), a.Line, err, ErrInput)
		}
		return fmt.Errorf("line %d: %w (%w)", a.Line, err, ErrInput)
	}
	return fmt.Errorf("arrival at %v s: %w (%w)", float64(a.T), err, ErrInput)
}

// checkResult extracts the outcome of chk.
func checkResult(chk *buckets.Check) CheckResult {
	ex, at := chk.MaxExcess()
	r := CheckResult{
		Events:          chk.Events(),
		Violations:      chk.Violations(),
		LemmaViolations: chk.LemmaViolations(),
		MaxExcess:       float64(ex),
		MaxExcessAt:     float64(at),
	}
	if v, ok := chk.First(); ok {
		r.First = &v
	}
	return r
}

// recorder collects both systems' delay statistics and, optionally, the
// per-job rows. Jobs numbered below warmup are left out of the statistics
// (not of the rows or the check).
type recorder struct {
	one, split *delayStats
	rows       *jobWriter
	err        error
	warmup     int64
}

func newRecorder(jobsOut io.Writer) *recorder {
	r := &recorder{one: newDelayStats(), split: newDelayStats()}
	if jobsOut != nil {
		r.rows = newJobWriter(jobsOut)
	}
	return r
}

func (r *recorder) Arrived(j buckets.Job, sub int) {
	if r.rows != nil {
		r.rows.arrived(j.ID, j.T, sub)
	}
}

func (r *recorder) Served(id int64, sub int, delay engine.Time) {
	d := float64(delay)
	if id >= r.warmup {
		if sub == buckets.OneBucket {
			r.one.add(d)
		} else {
			r.split.add(d)
		}
	}
	if r.rows != nil {
		if err := r.rows.served(id, sub == buckets.OneBucket, d); err != nil && r.err == nil {
			r.err = err
		}
	}
}

func (r *recorder) finish() error {
	if r.err != nil {
		return r.err
	}
	if r.rows != nil {
		return r.rows.finish()
	}
	return nil
}

// ErrOverflow is wrapped by the error of a run whose delays or accrued
// delay exceed float64.
var ErrOverflow = errors.New("delays overflow float64")

func (r *recorder) result(jobs int64, end engine.Time, chk *buckets.Check) (Result, error) {
	res := Result{
		Jobs:     jobs,
		Duration: float64(end),
		One:      r.one.stats(),
		Split:    r.split.stats(),
		Check:    checkResult(chk),
	}
	for _, err := range []error{r.one.err, r.split.err} {
		if err != nil {
			return res, fmt.Errorf("%w (%w)", err, ErrOverflow)
		}
	}
	// A non-finite sum would make every comparison false and the check pass
	// vacuously: refuse it.
	for _, x := range []float64{float64(chk.S()), float64(chk.SSplit()), res.One.Total, res.Split.Total, res.One.Mean, res.Split.Mean} {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return res, fmt.Errorf("experiments: total delay %v s: %w; use a larger rate or fewer jobs", x, ErrOverflow)
		}
	}
	return res, nil
}
