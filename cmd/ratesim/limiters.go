package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/plots"
	"github.com/ratesim/ratesim/profiles"
)

// limitersFlags are the flags of ratesim limiters.
type limitersFlags struct {
	p          limiterstudy.LimitersParams // the run's parameters (limiterstudy.LimitersTable)
	trace      string
	traceOpt   arrivals.TraceOptions
	traceFmt   traceFormatFlags // --format and the count-format flags, shared with run
	plotDir    string
	plotFormat string
	json       bool
	topKeys    int
	replicas   int
}

// limitersLong is the help of ratesim limiters.
const limitersLong = `Limiters feeds the same arrivals to every limiter of the family, with matched
parameters (rate R, burst or window limit L, window W):

  token-police     token bucket (R, b = L), rejecting a job that finds < 1 token
  token-shape      token bucket (R, b = L), queueing it (queue --queue)
  leaky-queue      leaky bucket as a queue: one job every 1/R s (queue --queue)
  gcra             leaky bucket as a meter, GCRA(T = 1/R, τ = (L - 1)/R)
  fixed-window     at most L per fixed window [offset + kW, offset + (k+1)W)
  sliding-log      at most L in any (t - W, t]
  sliding-counter  previous window's count weighted by its overlap + current < L
  throttle         token bucket (R, L) admitting with a probability that falls
                   linearly from 1 at deficit --soft to 0 at --hard tokens

It measures, for each, the jobs admitted and rejected, the delays of the
shapers, and α*(d), the most jobs passing (leaving, for shapers) in any
interval of length d, at the lengths --durations, against the limiter's
promise: b + r·d for token buckets, GCRA and the throttle, 1 + R·d for the
leaky bucket, L·(floor(d/W) + 1) for windows. The table gives the
overshoot, the supremum of α*(d)/promise(d) over every length d, and the
excess, that of α*(d) − promise(d) in jobs, both exact (a maximum over the
pairs of releases), with the interval where the overshoot is reached, and
beside them the worst of the sampled lengths only.

Arrivals (--arrivals): boundary (default) is the adversarial pattern of window
limiters: in each of --cycles cycles, L jobs --gap s before a window edge, L
jobs --gap s after it, and --stream jobs spread over the rest of the window;
cycles are 3W apart. poisson, periodic or an arrival spec of ratesim run (such
as 'cron:n=150,period=60,jitter=2'; see 'ratesim run --help') generate --jobs
arrivals, at λ = --load·R where the spec gives no rate. --trace reads a trace
with the flags of ratesim run. With --key-col (or a spec with keys) every key
gets its own limiters (keyed rate limiting) and the table lists the keys.

--profile 'NAME:key=value,...' (repeatable) adds a library-faithful limiter,
deciding as golang.org/x/time/rate, Guava, bucket4j, redis_rate, throttled,
Envoy, nginx, uber-go/ratelimit or an RFC 2697/2698 marker would (see the
package profiles): a row named NAME with what it admitted, rejected and
delayed and the bound its library keeps, the RFC markers' colour counts,
and each profile's exact arrival curve γ(r, b): the most it lets pass in
any window of d s, its clock's rounding included. Each profile's exact
overshoot is measured against that curve (the sampled one against the
bound its library keeps); with --rate or --limit the table also gives the
exact overshoot against γ(--rate, --limit), the promise you asked for ("vs
limit"; exact_overshoot_vs_limit in the JSON). A profile on each of N
nodes behind a dispatcher runs with 'ratesim drl --designs static
--node-limiter PROFILE --nodes N', which also gives the fleet-wide limit
N·γ(r, b).
--size-burst F sizes each profile's burst key (burst, max_burst, capacity,
max_tokens, slack, cbs, pbs) on the arrivals: the smallest value for which
at most a fraction F of the jobs is rejected or delayed, beside b(r), the
ideal token bucket's at the profile's rate (as ratesim trace stats --fit). With
--profile alone only the profiles run, measured at lengths d up to 4 times
the longest b/r of their curves; add --limiters to run family members
beside them.

--service-rate R (and --service-latency T) sends each limiter's passing jobs
through a rate-latency server β(R, T) (a latency T, then FIFO at R jobs/s) and
compares the largest delay and backlog there with the network-calculus bounds
of the promise α: h = T + b/R and v = b + r·T for α = γ(r, b), the token bucket
(--rate, --limit); each profile is held to its own arrival curve; γ(R, 1)
for the leaky bucket and L per W for the windows. It says whether each stream keeps α and
the first window where it does not.

With --plot DIR it draws arrival-curves, boundary-zoom and throttle-response
figures (--plot-format png, svg or pdf).

Exit codes: 0 success, 2 bad usage or bad input, 3 internal error, 128 +
the signal's number when stopped (130 for SIGINT; see 'ratesim --help').`

func newLimitersCmd() *cobra.Command {
	f := &limitersFlags{}
	cmd := &cobra.Command{
		Use:   "limiters",
		Short: "Run the rate-limiter family on the same arrivals and measure what each lets through",
		Long:  limitersLong,
		Example: `  ratesim limiters
  ratesim limiters --limit 100 --window 60 --plot figs
  ratesim limiters --limiters fixed-window,sliding-log,token-police --arrivals poisson --load 1.5
  ratesim limiters --arrivals 'cron:n=150,period=60,jitter=2' --offset 1 --jobs 15000
  ratesim limiters --profile 'nginx:rate=10r/s,burst=5' --profile 'throttled:max_rate=10,max_burst=5' \
      --rate 10 --limit 5 --window 1 --arrivals poisson --load 1.5 --jobs 5000 --service-rate 12
  ratesim limiters --trace ../shared/traces/nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv \
      --time-col ts_unix --limit 30 --window 60`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLimiters(cmd, f)
		},
	}
	f.register(cmd)
	keepNumberWording(cmd, limiterstudy.LimitersTable)
	return cmd
}

// register defines the flags of ratesim limiters on cmd.
func (f *limitersFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	limiterstudy.LimitersTable.Bind(fl, &f.p) // the run's parameters
	fl.Lookup("profile").Usage = profileHelp()
	fl.StringVar(&f.trace, "trace", "", "read arrivals from this trace file instead of generating them (formats as in ratesim run)")
	addTraceFormatFlags(fl, &f.traceFmt)
	fl.StringVar(&f.traceOpt.TimeCol, "time-col", "", "trace column of arrival times: a header name or a 1-based index (default the first column)")
	fl.StringVar(&f.traceOpt.TimeFormat, "time-format", "unix", "trace time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.StringVar(&f.traceOpt.KeyCol, "key-col", "", "trace column of keys: each key gets its own limiters, and the table lists keys")
	addBadLineFlags(fl, &f.traceOpt)
	fl.StringVar(&f.plotDir, "plot", "", "draw the figures into this folder (created if missing)")
	markOutput(cmd, "plot", outputFolder)
	fl.StringVar(&f.plotFormat, "plot-format", "png", "figure format: png, svg or pdf")
	fl.BoolVar(&f.json, "json", false, "print the table as one JSON object")
	fl.IntVar(&f.topKeys, "top-keys", 10, "keyed runs: the number of keys listed in the table, most arrivals first (the JSON has all)")
	fl.IntVar(&f.replicas, "replicas", 0, "removed: use ratesim drl --designs static --node-limiter PROFILE --nodes N")
	fl.MarkHidden("replicas")
	cmd.MarkFlagsMutuallyExclusive("arrivals", "trace")
	cmd.MarkFlagsMutuallyExclusive("load", "trace")
}

// spec validates the flags and builds the run specification.
func (f *limitersFlags) spec(cmd *cobra.Command) (limiterstudy.LimitersSpec, error) {
	changed := cmd.Flags().Changed
	// The flags every family limiter shares are read as ratesim clients
	// reads them (clientstudy.ClientsParams.FamilyLimits), the rate
	// defaulting to --limit/--window.
	p := clientstudy.ClientsParams{Limit: f.p.Limit, Rate: f.p.Rate, Window: f.p.Window, Queue: f.p.Queue,
		Soft: f.p.Soft, Hard: f.p.Hard, Offset: f.p.Offset, Given: changed, Name: func(param string) string { return "--" + param }}
	lp, err := p.FamilyLimits(true)
	s := limiterstudy.LimitersSpec{Params: lp, Seed: f.p.Seed}
	if err != nil {
		return s, err
	}
	if err := f.limiterNames(&s, changed); err != nil {
		return s, err
	}
	if err := f.service(&s, changed); err != nil {
		return s, err
	}
	if changed("replicas") {
		// It fed one node the fleet's traffic; drl runs the N nodes.
		return s, fmt.Errorf("--replicas was removed: it ran one replica on the whole fleet's traffic; run the profile on N nodes behind a dispatcher with ratesim drl --designs static --node-limiter PROFILE --nodes N (the table gives the fleet-wide limit beside)")
	}
	if err := f.checkSizeBurst(changed); err != nil {
		return s, err
	}
	if err := f.readDurations(&s); err != nil {
		return s, err
	}
	if err := f.checkInput(changed); err != nil {
		return s, err
	}
	s.Keyed = f.traceOpt.KeyCol != ""
	if changed("jobs") || f.trace == "" && f.p.Arrivals != "boundary" {
		if f.p.Jobs < 1 {
			return s, flagError("jobs", f.p.Jobs, "a number of arrivals >= 1")
		}
		s.MaxJobs = f.p.Jobs
	}
	if f.topKeys < 0 {
		return s, flagError("top-keys", f.topKeys, "a number of keys >= 0")
	}
	if err := f.checkPlot(&s, changed); err != nil {
		return s, err
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("invalid parameters: %w", err)
	}
	return s, nil
}

// limiterNames reads --limiters and --profile into s.
func (f *limitersFlags) limiterNames(s *limiterstudy.LimitersSpec, changed func(string) bool) error {
	var err error
	if f.p.Limiters != "all" {
		for _, n := range strings.Split(f.p.Limiters, ",") {
			n = strings.TrimSpace(n)
			if !slices.Contains(limiterstudy.LimiterNames, n) {
				return flagError("limiters", f.p.Limiters, fmt.Sprintf("all, or a comma-separated list of %s (%q is none of them)", strings.Join(limiterstudy.LimiterNames, ", "), n))
			}
			if slices.Contains(s.Names, n) {
				return flagError("limiters", f.p.Limiters, fmt.Sprintf("each limiter once (%s is repeated)", n))
			}
			s.Names = append(s.Names, n)
		}
	}
	if changed("profile") {
		if s.Profiles, err = parseProfiles(f.p.Profile); err != nil {
			return err
		}
		if !changed("limiters") {
			s.Names = []string{} // the profiles alone
		}
		for _, p := range s.Profiles {
			if slices.Contains(s.Names, p.Name) {
				return flagError("profile", p.Name, "a profile whose name is not one of --limiters")
			}
		}
	}
	return nil
}

// checkSizeBurst checks --size-burst and where it applies.
func (f *limitersFlags) checkSizeBurst(changed func(string) bool) error {
	if changed("size-burst") {
		if !changed("profile") {
			return fmt.Errorf("--size-burst applies with --profile only")
		}
		if f.traceOpt.KeyCol != "" {
			return fmt.Errorf("--size-burst applies to unkeyed runs only: leave out --key-col")
		}
		if !(f.p.SizeBurst >= 0 && f.p.SizeBurst < 1) {
			return flagError("size-burst", f.p.SizeBurst, "a fraction of jobs in [0, 1), such as 0 or 0.01")
		}
		if f.trace != "" {
			// Burst sizing reads the arrivals again: not from a fifo.
			if err := arrivals.CheckRereadable(f.trace); err != nil {
				return fmt.Errorf("--size-burst: %w", err)
			}
		}
	}
	return nil
}

// readDurations reads --durations into s (the profiles' default lengths
// when only profiles run).
func (f *limitersFlags) readDurations(s *limiterstudy.LimitersSpec) error {
	if f.p.Durations != "" {
		for _, field := range strings.Split(f.p.Durations, ",") {
			d, err := engine.ParseDuration(field)
			if err != nil || d < 0 || d == engine.Forever {
				why := ""
				if de := (*engine.DurationError)(nil); errors.As(err, &de) {
					why = ": " + de.Why
				}
				return flagError("durations", f.p.Durations, fmt.Sprintf("comma-separated lengths >= 0 s in whole nanoseconds, plain seconds or with a unit (%q is not one%s)", field, why))
			}
			s.Durations = append(s.Durations, d)
		}
		slices.Sort(s.Durations)
		s.Durations = slices.Compact(s.Durations)
	} else if len(s.Names) == 0 && len(s.Profiles) > 0 {
		s.Durations = limiterstudy.DefaultDurations(limiterstudy.ProfilesPeriod(s.Profiles))
	}
	return nil
}

// checkInput checks that the trace's and the boundary pattern's flags
// are given with their input only, and reads the trace's format flags.
func (f *limitersFlags) checkInput(changed func(string) bool) error {
	if f.trace == "" {
		for _, name := range append([]string{"time-col", "time-format", "key-col"}, traceFormatFlagNames...) {
			if changed(name) {
				return fmt.Errorf("--%s applies to trace input only: use it with --trace", name)
			}
		}
	} else if err := f.traceFmt.apply(&f.traceOpt, changed, f.p.Seed); err != nil {
		return err
	}
	if f.p.Arrivals == "boundary" && f.trace == "" && changed("load") {
		return fmt.Errorf("--load applies to poisson, periodic and arrival specs: the boundary pattern's jobs are set by --limit, --stream and --cycles")
	}
	if f.p.Arrivals != "boundary" || f.trace != "" {
		for _, name := range []string{"gap", "cycles", "stream"} {
			if changed(name) {
				return fmt.Errorf("--%s applies to --arrivals boundary only", name)
			}
		}
	}
	return nil
}

// checkPlot checks --plot and --plot-format; figures keep the arrivals.
func (f *limitersFlags) checkPlot(s *limiterstudy.LimitersSpec, changed func(string) bool) error {
	if f.plotDir != "" {
		if !slices.Contains(plots.Formats, f.plotFormat) {
			return flagError("plot-format", f.plotFormat, "png, svg or pdf")
		}
		if fi, err := os.Stat(f.plotDir); err == nil && !fi.IsDir() {
			return flagError("plot", f.plotDir, "a directory for the figures (it is a file)")
		}
		if err := checkDirNotInput("plot", f.plotDir, []string{"*." + f.plotFormat}, f.trace); err != nil {
			return err
		}
		s.KeepArrivals = true
	} else if changed("plot-format") {
		return fmt.Errorf("--plot-format applies with --plot DIR only")
	}
	return nil
}

// service reads --service-rate and --service-latency into s.Service.
func (f *limitersFlags) service(s *limiterstudy.LimitersSpec, changed func(string) bool) error {
	if !changed("service-rate") {
		if changed("service-latency") {
			return fmt.Errorf("--service-latency applies with --service-rate only")
		}
		return nil
	}
	if f.traceOpt.KeyCol != "" {
		return fmt.Errorf("--service-rate applies to unkeyed runs only: leave out --key-col")
	}
	rate, err := parseRat("service-rate", f.p.ServiceRate, "jobs/s")
	if err != nil {
		return err
	}
	if rate.Cmp(s.Rate) < 0 {
		return flagError("service-rate", f.p.ServiceRate, fmt.Sprintf("a service rate >= --rate %v jobs/s (below it the delay and backlog bounds are infinite)", s.Rate))
	}
	lat, err := parseSeconds("service-latency", f.p.ServiceLatency)
	if err != nil {
		return err
	}
	if lat.Sign() < 0 {
		return flagError("service-latency", f.p.ServiceLatency, "a latency >= 0 s")
	}
	if _, err := nanos("service-latency", f.p.ServiceLatency, lat); err != nil {
		return err
	}
	for _, p := range s.Profiles {
		if a, ok := profiles.ArrivalCurve(p); ok && netcalc.LongTermRate(a).Cmp(rate) > 0 {
			return flagError("service-rate", f.p.ServiceRate, fmt.Sprintf("a service rate >= the long-term rate %v jobs/s of --profile %s (its curve %v; below it the bounds are infinite)", netcalc.LongTermRate(a), p.Name, a))
		}
	}
	s.Service = &netcalc.RateLatency{Rate: rate, Latency: lat}
	return nil
}

// arrivalProcess builds the arrival process and describes it, and
// reports whether its arrivals carry keys that should each get their own
// limiters.
func (f *limitersFlags) arrivalProcess(cmd *cobra.Command, s limiterstudy.LimitersSpec) (proc arrivals.Process, closeProc func() error, input string, keyed bool, err error) {
	if f.trace != "" {
		a, err := experiments.BuildArrivals(cmd.Context(), experiments.ArrivalsSpec{Trace: f.trace, TraceOptions: f.traceOpt}, s.Seed)
		if err != nil {
			return nil, nil, "", false, err
		}
		tr := a.Trace
		in := "trace " + f.trace
		if note := countsNote(tr, f.traceOpt.Spread); note != "" {
			in += " (" + note + ")"
		}
		if s.Keyed {
			in += ", keyed by column " + f.traceOpt.KeyCol
		}
		return tr, tr.Close, in, s.Keyed, nil
	}
	proc, input, err = f.generated(cmd, s)
	if g, ok := proc.(*arrivals.Generated); ok && g.Keyed {
		keyed = true
		input += ", one limiter per key"
	}
	return proc, nil, input, keyed, err
}

// generated builds generated arrivals: the boundary pattern, poisson,
// periodic or an arrival spec.
func (f *limitersFlags) generated(cmd *cobra.Command, s limiterstudy.LimitersSpec) (arrivals.Process, string, error) {
	switch f.p.Arrivals {
	case "boundary":
		return f.boundary(cmd, s)
	case "poisson", "periodic":
		lambda := f.p.Load * s.Rate.Float64()
		if !finitePositive(f.p.Load) || math.IsInf(1/lambda, 0) || !finitePositive(lambda) {
			return nil, "", flagError("load", f.p.Load, "a finite load > 0 with a finite mean gap 1/(load·R)")
		}
		in := fmt.Sprintf("%s arrivals, load %v (λ = %.6g jobs/s)", f.p.Arrivals, f.p.Load, lambda)
		if f.p.Arrivals == "periodic" {
			if _, err := lambdaOf(f.p.Load, s.Rate); err != nil {
				return nil, "", err
			}
		}
		a, err := experiments.BuildArrivals(cmd.Context(), experiments.ArrivalsSpec{Spec: f.p.Arrivals, Load: f.p.Load, Rate: s.Rate}, s.Seed)
		if err != nil {
			return nil, "", err
		}
		return a.Process, in, nil
	}
	g, err := buildGenerated(f.p.Arrivals, f.p.Load, s.Rate, s.Seed, cmd.Flags().Changed("load"))
	if err != nil {
		return nil, "", err
	}
	return g, fmt.Sprintf("arrivals %s (mean %.6g jobs/s)", g.Spec, g.MeanRate), nil
}

// boundary builds the boundary pattern of --gap, --cycles and --stream
// around the edges of s's fixed windows, and describes it.
func (f *limitersFlags) boundary(cmd *cobra.Command, s limiterstudy.LimitersSpec) (arrivals.Process, string, error) {
	w, err := nanos("window", f.p.Window, s.Window)
	if err != nil {
		return nil, "", err
	}
	off, err := nanos("offset", f.p.Offset, s.Offset)
	if err != nil {
		return nil, "", err
	}
	if f.p.Gap == "" {
		f.p.Gap = "1"
	}
	gs, err := parseSeconds("gap", f.p.Gap)
	if err != nil {
		return nil, "", err
	}
	gap, err := nanos("gap", f.p.Gap, gs)
	if err != nil {
		return nil, "", err
	}
	if !cmd.Flags().Changed("gap") && 2*gap >= w {
		// The default 1 s gap does not fit a window of 2 s or less:
		// take W/4, in the middle of (0, W/2), rather than fail on a
		// flag the user did not give.
		gap = w / 4
	}
	b := arrivals.BoundarySpec{Window: w, Offset: off, Gap: gap, Burst: int(min(s.Limit, 1<<30)), Stream: int(min(s.Limit, 1<<30)), Cycles: f.p.Cycles}
	if cmd.Flags().Changed("stream") {
		b.Stream = f.p.Stream
	}
	if f.p.Cycles < 1 {
		return nil, "", flagError("cycles", f.p.Cycles, "a number of cycles >= 1")
	}
	if !(gap > 0 && 2*gap < w) {
		return nil, "", flagError("gap", f.p.Gap, fmt.Sprintf("a gap in (0, W/2 = %v) s", w/2))
	}
	if b.Stream < 0 {
		return nil, "", flagError("stream", f.p.Stream, "a number of jobs >= 0")
	}
	p, err := arrivals.NewBoundary(b)
	if err != nil {
		return nil, "", err
	}
	e := b.Edge(0)
	cycles := fmt.Sprintf("%d cycles %v s apart", b.Cycles, 3*b.Window)
	if b.Cycles == 1 {
		cycles = "1 cycle"
	}
	in := fmt.Sprintf("boundary pattern, %s: %d jobs at %v s and %d at %v s around the window edge at %v s",
		cycles, b.Burst, e-b.Gap, b.Burst, e+b.Gap, e)
	if b.Stream > 0 {
		in += fmt.Sprintf(", then %d spread over (%v, %v) s", b.Stream, e+b.Gap, e+b.Window-b.Gap)
	}
	if total := int64(b.Cycles) * int64(2*b.Burst+b.Stream); s.MaxJobs > 0 && s.MaxJobs < total {
		in += fmt.Sprintf("; its first %d of %d jobs (--jobs)", s.MaxJobs, total)
	}
	return p, in, nil
}

func runLimiters(cmd *cobra.Command, f *limitersFlags) error {
	spec, err := f.spec(cmd)
	if err != nil {
		return err
	}
	proc, closeProc, input, keyed, err := f.arrivalProcess(cmd, spec)
	if err != nil {
		return err
	}
	if closeProc != nil {
		defer closeProc()
	}
	spec.Input, spec.Keyed = input, keyed
	res, err := limiterstudy.RunLimiters(cmd.Context(), spec, proc)
	if err != nil {
		return err
	}
	skipped := 0
	if tr, ok := proc.(*arrivals.Trace); ok {
		if skipped = tr.Skipped(); skipped > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: skipped %s of %s; the first: %v\n", count(skipped, "bad line"), f.trace, cliMessage(tr.FirstSkipped()))
		}
	}
	var figures []string
	if f.plotDir != "" {
		if err := os.MkdirAll(f.plotDir, 0o755); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
		figs, err := limiterstudy.LimiterFigures(res)
		if err != nil {
			return fmt.Errorf("drawing the figures: %w", err)
		}
		if figures, err = experiments.SaveFiguresContext(cmd.Context(), figs, f.plotDir, f.plotFormat); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
	}
	curves := limiterstudy.ProfileCurves(spec)
	var sizing *limiterstudy.BurstSizing
	if cmd.Flags().Changed("size-burst") {
		if keyed {
			return fmt.Errorf("--size-burst applies to unkeyed arrivals only: the arrival spec gives keys")
		}
		if sizing, err = f.sizeBursts(cmd, spec); err != nil {
			return err
		}
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		writeLimitersJSON(w, res, skipped, figures, curves, sizing)
	} else {
		vsLimit := cmd.Flags().Changed("rate") || cmd.Flags().Changed("limit")
		writeLimitersTable(w, res, f.topKeys, skipped, figures, curves, vsLimit)
		writeSizing(w, sizing)
	}
	if w.err != nil {
		return fmt.Errorf("writing the result: %w", w.err)
	}
	return nil
}
