package limiterstudy

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
)

// Params are the matched parameters of the limiter family: every limiter
// of [LimiterNames] is built from them by [NewLimiter] (the token bucket
// (Rate, Limit), the GCRA matched to it, the windows' L per W, ...). A
// Params is a value; its zero value is invalid (Rate and Window are 0).
type Params struct {
	Rate   exact.Rat // R: token rate of the buckets, GCRA rate and leaky drain rate, tokens/s (jobs/s); > 0
	Limit  int64     // L: bucket burst b = L tokens and window limit L jobs; >= 1
	Window exact.Rat // W: window length, seconds; > 0
	// Offset puts fixed windows' edges at Offset + k·W seconds from the
	// Unix epoch (Origin + t in run time), in [0, W): windows follow the
	// trace's own clock, as a Redis key per minute does.
	Offset exact.Rat
	// Origin is the absolute instant of the run's t = 0, ns since the
	// Unix epoch. RunLimiters sets it from a trace (its first arrival);
	// generated arrivals keep 0.
	Origin int64
	Queue  int       // queue capacity of token-shape and leaky-queue, jobs; 0 means unbounded
	Soft   exact.Rat // throttle: token deficit up to which every job passes, tokens; in [0, Hard]
	Hard   exact.Rat // throttle: token deficit from which every job is rejected, tokens; in [Soft, L - 1]
}

// Validate returns a *LimiterError naming the first invalid field of p,
// or nil.
func (p Params) Validate() error {
	if p.Rate.Sign() <= 0 {
		return &LimiterError{"Rate", p.Rate, "a rate > 0 tokens/s"}
	}
	if p.Limit < 1 || p.Limit > 1<<40 {
		return &LimiterError{"Limit", p.Limit, "between 1 and 2^40 jobs"}
	}
	if p.Window.Sign() <= 0 {
		return &LimiterError{"Window", p.Window, "a window > 0 s"}
	}
	if p.Offset.Sign() < 0 || p.Offset.Cmp(p.Window) >= 0 {
		return &LimiterError{"Offset", p.Offset, fmt.Sprintf("in [0, W = %v) s", p.Window)}
	}
	if p.Queue < 0 {
		return &LimiterError{"Queue", p.Queue, ">= 1 job, or 0 for no limit"}
	}
	if p.Hard.Sign() < 0 || p.Hard.Cmp(exact.Int(p.Limit-1)) > 0 {
		return &LimiterError{"Hard", p.Hard, fmt.Sprintf("in [0, L - 1 = %d] tokens of deficit", p.Limit-1)}
	}
	if p.Soft.Sign() < 0 || p.Soft.Cmp(p.Hard) > 0 {
		return &LimiterError{"Soft", p.Soft, fmt.Sprintf("in [0, Hard = %v] tokens of deficit", p.Hard)}
	}
	return nil
}

// LimiterError reports an invalid field of a LimitersSpec.
type LimiterError struct {
	Field string // the field, e.g. "Rate"
	Value any
	Want  string
}

func (e *LimiterError) Error() string {
	return fmt.Sprintf("experiments: limiters %s = %v, want %s", e.Field, e.Value, e.Want)
}

// Unwrap makes errors.Is(err, buckets.ErrParam) true.
func (e *LimiterError) Unwrap() error { return buckets.ErrParam }

func (p Params) bucket() buckets.Params {
	return buckets.Params{Rate: p.Rate, Burst: exact.Int(p.Limit)}
}

// window returns the window limiters' parameters with their edges aligned
// to absolute time (see buckets.WindowParams.Aligned).
func (p Params) window() (buckets.WindowParams, error) {
	return buckets.WindowParams{Limit: p.Limit, Window: p.Window, Offset: p.Offset}.Aligned(p.Origin)
}

// NewLimiter returns a fresh limiter of the family member name
// (LimiterNames: token-police, token-shape, leaky-queue, gcra,
// fixed-window, sliding-log, sliding-counter, throttle) built from the
// matched parameters p: Rate and Limit (the bucket (Rate, Limit), the
// GCRA matched to it, the windows' L), Window, Offset and Origin (fixed
// windows' edges at Offset + k·Window from the Unix epoch on a trace
// whose first arrival is at Origin ns), Queue, Soft and Hard. src is the
// throttle's random source (nil for the others).
//
// It is the one path from a limiter's name and parameters to a
// buckets.Limiter: ratesim limiters, ratesim clients
// (clientstudy.ClientsSpec.NewLimiter) and drl's store (fixed-window) build their
// limiters through it; parameters are validated by buckets' constructors
// (errors wrap buckets.ErrParam), an unknown name is a *LimiterError.
func NewLimiter(name string, p Params, src rand.Source) (buckets.Limiter, error) {
	win, err := p.window()
	if err != nil {
		return nil, err
	}
	if d := familyDef(name); d != nil {
		return d.build(p, win, src)
	}
	return nil, &LimiterError{"Names", name, "one of " + strings.Join(LimiterNames, ", ")}
}

// Describe returns the parameters of limiter name for humans ("" for a
// name that is not of the family).
func (p Params) Describe(name string) string {
	if d := familyDef(name); d != nil {
		return d.describe(p)
	}
	return ""
}

// EdgesFrom names the instant fixed windows are aligned to: "the Unix
// epoch" when the arrivals carry an absolute clock (Origin != 0), "the
// start" for generated arrivals (and a trace whose clock starts at 0).
func (p Params) EdgesFrom() string {
	if p.Origin != 0 {
		return "the Unix epoch"
	}
	return "the start"
}
