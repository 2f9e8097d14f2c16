package drlstudy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// OpenArrivals opens the arrivals of a run with root seed p.Seed afresh
// (every design sees the same jobs), through experiments.BuildArrivals:
// the trace, or the arrival spec whose processes without rate= take
// λ = Load·R. It returns them with a description of the input; the
// caller closes them. Errors: those of experiments.BuildArrivals, and a
// *ParamError naming arrivals for an invalid arrival spec.
func (p *Params) OpenArrivals(ctx context.Context, rate exact.Rat) (*experiments.Arrivals, string, error) {
	if p.Trace != nil {
		opt := p.traceOptions()
		a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Trace: p.Trace.Path, TraceOptions: opt}, p.Seed)
		if err != nil {
			return nil, "", err
		}
		in := "trace " + p.Trace.Path
		if note := experiments.CountsNote(a.Trace, opt.Spread); note != "" {
			in += " (" + note + ")"
		}
		if opt.KeyCol != "" {
			in += ", keyed by column " + opt.KeyCol
		}
		return a, in, nil
	}
	a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: rate}, p.Seed)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", p.Arrivals))
		return nil, "", bad("arrivals", p.Arrivals, "a valid arrival spec (see 'ratesim run --help'): "+msg)
	}
	switch p.Arrivals {
	case "poisson", "periodic":
		return a, fmt.Sprintf("%s arrivals, load %v (λ = %.6g jobs/s)", p.Arrivals, p.Load, p.Load*rate.Float64()), nil
	}
	g := a.Generated
	return a, fmt.Sprintf("arrivals %s (mean %.6g jobs/s)", g.Spec, g.MeanRate), nil
}

// Comparison is what [Params.Run] returns: each design's summary, in
// the order of Params.Designs, with the results kept when asked.
type Comparison struct {
	Summaries []drl.Summary
	PerNode   [][]drl.Count // each design's decisions node by node, in the order of Summaries
	Results   []*drl.Result // every job of each design, when Run kept them; else nil
	Input     string        // the input's description
	Skipped   int           // trace lines skipped
}

// Run runs every design of p on the same arrivals and summarises each;
// keep keeps every job of each design (for figures). When "one" is among
// the designs, each summary counts the jobs admitted over it and rejected
// under it (Summary.OverOne, UnderOne).
func (p *Params) Run(ctx context.Context, keep bool) (*Comparison, error) {
	spec, names, err := p.Spec()
	if err != nil {
		return nil, err
	}
	if p.Trace != nil && len(names) > 1 {
		// Each design reads the trace afresh: a fifo or standard input
		// would block or be empty at the second reading.
		if err := arrivals.CheckRereadable(p.Trace.Path); err != nil {
			return nil, fmt.Errorf("%w (%d designs read it in turn: run one design, --designs NAME, per reading)", err, len(names))
		}
	}
	max := p.Jobs
	out := &Comparison{}
	var decided []*drl.Result // only their Admits: one bit per job
	for _, n := range names {
		a, in, err := p.OpenArrivals(ctx, spec.Bucket.Rate)
		if err != nil {
			return nil, err
		}
		out.Input = in
		s := spec
		s.Design = n
		s.KeepDepartures = keep // the admitted-rate figure bins every departure
		res, err := drl.Run(ctx, s, a.Process, max)
		if a.Trace != nil {
			out.Skipped = a.Trace.Skipped()
		}
		a.Close()
		if err != nil {
			return nil, fmt.Errorf("design %s: %w", n, err)
		}
		sum, err := drl.Summarize(res, spec.Bucket, nil, spec.RateWindow)
		if err != nil {
			return nil, err
		}
		out.Summaries = append(out.Summaries, sum)
		out.PerNode = append(out.PerNode, slices.Clone(res.PerNode))
		if keep {
			out.Results = append(out.Results, res)
		}
		decided = append(decided, &drl.Result{Admits: res.Admits})
	}
	if i := slices.Index(names, drl.Reference); i >= 0 {
		for j := range out.Summaries {
			out.Summaries[j].OverOne, out.Summaries[j].UnderOne = drl.Compare(decided[j], decided[i])
		}
	}
	return out, nil
}
