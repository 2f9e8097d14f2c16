package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// ArrivalsSpec says where the jobs of a run come from: a trace file, or
// generated arrivals given by an arrival spec (see arrivals.SpecHelp), such
// as "poisson", "periodic" or "renewal:dist=pareto,rate=0.9,scv=4 |
// keys:n=1000,s=1". It is the one description of arrivals that run,
// limiters, clients and sweep build from (see [BuildArrivals]).
type ArrivalsSpec struct {
	// Trace is the path of a trace file ("-" for standard input), read with
	// TraceOptions; empty for generated arrivals.
	Trace        string
	TraceOptions arrivals.TraceOptions
	// Spec is the arrival spec of generated arrivals. A process of the
	// spec without rate= takes the default arrival rate λ = Load·Rate
	// jobs/s: in float64 for the random processes, exactly (the product of
	// Load's shortest decimal and Rate) for the periodic one.
	Spec string
	Load float64   // offered load ρ, > 0 when a process takes the default rate
	Rate exact.Rat // r, tokens/s
}

// Arrivals is an arrival process built by [BuildArrivals].
type Arrivals struct {
	// Process yields the arrivals. For generated arrivals it is the process
	// itself, not its *arrivals.Generated wrapper: the fast path calls its
	// Next once per job.
	Process arrivals.Process
	// Generated describes generated arrivals (canonical spec, mean rate,
	// keys); nil for a trace.
	Generated *arrivals.Generated
	// Trace is the trace read; nil for generated arrivals.
	Trace *arrivals.Trace
}

// Close closes the trace, if any.
func (a *Arrivals) Close() error {
	if a.Trace == nil {
		return nil
	}
	return a.Trace.Close()
}

// PoissonRate reports whether the arrivals are a Poisson process, and its
// rate in jobs/s (see arrivals.PoissonRate): the closed forms that need
// Poisson arrivals (Pollaczek–Khinchine) are selected by this test.
func (a *Arrivals) PoissonRate() (float64, bool) { return arrivals.PoissonRate(a.Process) }

// DefaultLambda returns the default arrival rate λ = load·rate, jobs/s,
// and whether it is a finite rate > 0 with a finite mean gap 1/λ.
func DefaultLambda(load float64, rate exact.Rat) (float64, bool) {
	l := load * rate.Float64()
	return l, l > 0 && !math.IsInf(l, 0) && !math.IsInf(1/l, 0) && !math.IsNaN(load)
}

// BuildArrivals builds the arrivals of a run with root seed seed: the trace
// opened with ctx (reading stops once ctx is done), or the spec's process.
// Component i of a spec draws from Source(seed, systems.StreamArrivals +
// id), id its arrivals.ProcessStream or TransformStream, so the first
// process draws from the stream every run's arrivals use.
//
// Errors: those of arrivals.OpenContext (naming the file and line) and of
// arrivals.BuildSpec (naming the component and parameter; a process
// without rate= when Load·Rate is not a valid rate is one).
func BuildArrivals(ctx context.Context, a ArrivalsSpec, seed uint64) (*Arrivals, error) {
	if a.Trace != "" {
		tr, err := arrivals.OpenContext(ctx, a.Trace, a.TraceOptions)
		if err != nil {
			return nil, err
		}
		return &Arrivals{Process: tr, Trace: tr}, nil
	}
	g, err := buildSpec(a, func(id uint64) rand.Source { return Source(seed, systems.StreamArrivals+id) }, true)
	if err != nil {
		return nil, err
	}
	return &Arrivals{Process: g.Process, Generated: g}, nil
}

// buildSpec builds a's spec with the given random sources; exactDefault
// gives the periodic process the exact default rate.
func buildSpec(a ArrivalsSpec, src func(uint64) rand.Source, exactDefault bool) (*arrivals.Generated, error) {
	var env arrivals.SpecEnv
	env.Source = src
	if l, ok := DefaultLambda(a.Load, a.Rate); ok {
		env.Rate = l
		if exactDefault {
			if ld, err := exact.FromFloat64(a.Load); err == nil {
				if le, err := ld.Mul(a.Rate); err == nil && le.Sign() > 0 {
					env.ExactRate = le
				}
			}
		}
	}
	return arrivals.BuildSpec(a.Spec, env)
}

// meanRate returns the mean arrival rate of a spec, jobs/s, as the
// float64 the spec's parameters give (no random draws), or NaN when the
// spec is invalid.
func meanRate(a ArrivalsSpec) float64 {
	if a.Trace != "" {
		return math.NaN()
	}
	g, err := buildSpec(a, func(uint64) rand.Source { return rand.NewPCG(0, 0) }, false)
	if err != nil {
		return math.NaN()
	}
	return g.MeanRate
}

// poissonRate is [Arrivals.PoissonRate] of a spec, without random draws.
func poissonRate(a ArrivalsSpec) (float64, bool) {
	if a.Trace != "" {
		return 0, false
	}
	g, err := buildSpec(a, func(uint64) rand.Source { return rand.NewPCG(0, 0) }, false)
	if err != nil {
		return 0, false
	}
	return arrivals.PoissonRate(g)
}

// CountsNote says how a count trace became arrivals, for the input line
// of every output: "counts per 1m interval, spread even" (the interval
// written as time.Duration does, without zero trailing units: 1m, 1h,
// 1m30s, 500ms); "" for a trace of times (or nil).
func CountsNote(tr *arrivals.Trace, spread string) string {
	if tr == nil || tr.Interval() <= 0 {
		return ""
	}
	if spread == "" {
		spread = "even"
	}
	d := time.Duration(tr.Interval()).String()
	if strings.HasSuffix(d, "m0s") {
		d = strings.TrimSuffix(d, "0s")
	}
	if strings.HasSuffix(d, "h0m") {
		d = strings.TrimSuffix(d, "0m")
	}
	return fmt.Sprintf("counts per %s interval, spread %s", d, spread)
}
