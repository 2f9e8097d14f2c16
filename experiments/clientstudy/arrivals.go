package clientstudy

import (
	"context"
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/experiments"
)

// traceOptions returns the options the trace is read with.
func (p *ClientsParams) traceOptions() arrivals.TraceOptions {
	if p.TraceOptions != nil {
		return *p.TraceOptions
	}
	t := p.Trace
	return arrivals.TraceOptions{Format: t.Format, TimeCol: t.TimeCol, TimeFormat: t.TimeFormat, Sort: t.Sort, SkipBad: t.SkipBad}
}

// OpenArrivals opens the open-loop requests of a run of spec (from
// [ClientsParams.Spec]) with root seed p.Seed, through BuildArrivals: the
// trace, or the arrival spec whose processes without rate= take
// λ = Load·Rate. It sets spec.Input (a description of the requests and
// users) and spec.Offered (a generated process's mean rate) and returns
// the process, nil for closed-loop users only, and the trace read, if
// any; the caller closes the returned Arrivals. Errors: those of
// BuildArrivals for a trace, and *ParamError naming arrivals or load.
func (p *ClientsParams) OpenArrivals(ctx context.Context, spec *ClientsSpec) (*experiments.Arrivals, error) {
	var a *experiments.Arrivals
	closedLoop := fmt.Sprintf("%d closed-loop users, think %s, until %s", p.Users, p.Think, p.Horizon)
	switch {
	case p.Trace != nil:
		var err error
		opt := p.traceOptions()
		a, err = experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Trace: p.Trace.Path, TraceOptions: opt}, p.Seed)
		if err != nil {
			return nil, err
		}
		spec.Input = traceInputText(p.Trace.Path, a.Trace, opt.Spread)
	case spec.MaxJobs == 0:
		spec.Input = fmt.Sprintf("%d closed-loop users, think %v s, until %v s", p.Users, float64(spec.Scenario.Think.(clients.Fixed)), spec.Scenario.Horizon.Seconds())
		return &experiments.Arrivals{}, nil
	default:
		g, err := p.generated(spec)
		if err != nil {
			return nil, err
		}
		a = &experiments.Arrivals{Process: g, Generated: g}
		spec.Offered = g.MeanRate
		spec.Input = fmt.Sprintf("%s, %d requests (mean %.6g requests/s)", g.Spec, spec.MaxJobs, g.MeanRate)
	}
	if p.Users > 0 {
		spec.Input += "; " + closedLoop
	}
	return a, nil
}

// generated builds the generated open-loop requests of spec.
func (p *ClientsParams) generated(spec *ClientsSpec) (*arrivals.Generated, error) {
	if spec.Profile != nil && !strings.Contains(p.Arrivals, "rate=") {
		return nil, &ParamError{Param: "arrivals", Value: p.Arrivals, text: fmt.Sprintf("%s %s: with %s give the arrival rate in the spec (such as 'poisson:rate=15'): %s is relative to %s, which a profile does not use",
			p.name("arrivals"), p.Arrivals, p.name("profile"), p.name("load"), p.name("rate"))}
	}
	rate, loadGiven := spec.Limits.Rate, p.given("load")
	if _, ok := experiments.DefaultLambda(p.Load, rate); !ok && (loadGiven || !strings.Contains(p.Arrivals, "rate=")) {
		return nil, p.bad("load", p.Load, fmt.Sprintf("a finite load > 0 whose arrival rate load·rate has a finite mean gap, got λ = %v jobs/s", p.Load*rate.Float64()))
	}
	a, err := experiments.BuildArrivals(context.Background(), experiments.ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: rate}, p.Seed)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", p.Arrivals))
		return nil, p.bad("arrivals", p.Arrivals, "a valid arrival spec (see 'ratesim run --help'): "+msg)
	}
	g := a.Generated
	if loadGiven && !g.DefaultRate {
		return nil, &ParamError{Param: "load", Value: p.Load, text: fmt.Sprintf("%s %v has no effect: every process of %s %q sets its own rate; leave out %s or a rate=",
			p.name("load"), p.Load, p.name("arrivals"), p.Arrivals, p.name("load"))}
	}
	return g, nil
}

// traceInputText is "trace PATH", followed by the CountsNote of a count
// trace in parentheses.
func traceInputText(path string, tr *arrivals.Trace, spread string) string {
	if note := experiments.CountsNote(tr, spread); note != "" {
		return "trace " + path + " (" + note + ")"
	}
	return "trace " + path
}
