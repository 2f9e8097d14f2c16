package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/atomicfile"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// runFlags are the flags of ratesim run.
type runFlags struct {
	p         splitstudy.RunParams // the run's parameters (splitstudy.RunTable)
	one       buckets.Params
	process   string
	load      float64
	trace     string
	traceOpt  arrivals.TraceOptions
	traceNote string              // countsNote of the trace
	traceFmt  traceFormatFlags    // --format and the count-format flags
	gen       *arrivals.Generated // the --arrivals spec's process, unless poisson or periodic
	jobsOut   string
	json      bool
	plot      runPlotFlags
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one token bucket against its split, checking Theorem 2 at every event",
		Long: `Run feeds the same arrivals to a token bucket (--rate, --burst) and to its split
into sub-buckets (--k equal ones, or --sub r1:b1,r2:b2,...), dispatching each
arrival to a sub-bucket (--dispatch). Every bucket is in shaping mode: it
starts full, and a job that finds less than one token waits. At every
instant it checks Theorem 2, S(t) <= S^(k)(t), and Lemma 1,
r·U(t) <= Σ r_l·U_l(t), exactly.

Rates and bursts are exact: decimals (0.7) or fractions (10/13). Time is
integer nanoseconds and every decision (a token due exactly at an arrival)
is the one exact arithmetic makes.

With no flags it runs the embedded default: Poisson arrivals at load 0.9,
rate 1 token/s, burst 10 tokens, k = 2, 1000000 jobs, seed 1.

Exit codes: 0 the check held, 1 it failed (the first offending instant is
printed), 2 bad usage or bad input, 3 internal error, 128 + the signal's
number when stopped by SIGHUP, SIGINT or SIGTERM (129, 130, 143; partial
outputs are removed).

` + arrivals.SpecHelp,
		Example: `  ratesim run
  ratesim run --rate 5 --burst 20 --sub 3:12,2:8 --dispatch random --load 0.95
  ratesim run --trace ../shared/traces/nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv \
      --time-col ts_unix --rate 0.7 --burst 10 --k 2 --jobs-out jobs.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd, f)
		},
	}
	fl := cmd.Flags()
	splitstudy.RunTable.Bind(fl, &f.p) // --rate, --burst, --k, --sub, --allow-unequal, --dispatch, --order, --jobs, --warmup, -s/--seed, --engine
	fl.StringVar(&f.process, "arrivals", "poisson", "generated arrivals: poisson (rate λ = load·rate), periodic (spacing 1/λ), or a spec such as 'renewal:dist=pareto,rate=0.9,scv=4' (grammar above)")
	fl.Float64Var(&f.load, "load", 0.9, "offered load ρ = λ/r of generated arrivals (> 0)")
	fl.StringVar(&f.trace, "trace", "", "read arrivals from this trace file instead of generating them: CSV or TSV with a header line, or another --format")
	addTraceFormatFlags(fl, &f.traceFmt)
	fl.StringVar(&f.traceOpt.TimeCol, "time-col", "", "trace column of arrival times: a header name or a 1-based index (default the first column)")
	fl.StringVar(&f.traceOpt.TimeFormat, "time-format", "unix", "trace time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.StringVar(&f.traceOpt.KeyCol, "key-col", "", "trace column of job keys (for --dispatch hash)")
	fl.StringVar(&f.traceOpt.SubCol, "sub-col", "", "trace column of 0-based sub-bucket indexes (for --dispatch column)")
	addBadLineFlags(fl, &f.traceOpt)
	fl.StringVar(&f.jobsOut, "jobs-out", "", "write one CSV row per job to this file (- for standard output, the summary then going to stderr): "+splitstudy.JobsHeader)
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object instead of the summary")
	fl.StringVar(&f.plot.dir, "plot", "", "draw the single-run figures into this folder: delay CDF and CCDF, S(t) and S^(k)(t) with their gap, N(t) and Σ N_l(t)")
	markOutput(cmd, "plot", outputFolder)
	markOutput(cmd, "jobs-out", outputStdout)
	fl.StringVar(&f.plot.format, "plot-format", "png", "format of the --plot figures: png, svg or pdf")
	fl.StringVar(&f.plot.window, "plot-window", "", "FROM:TO seconds of the N(t) figure (default: about 400 changes around the largest Σ N_l)")
	cmd.MarkFlagsMutuallyExclusive("k", "sub")
	cmd.MarkFlagsMutuallyExclusive("arrivals", "trace")
	cmd.MarkFlagsMutuallyExclusive("load", "trace")
	return cmd
}

// flagError names a flag, its value and what was expected.
func flagError(flag string, value any, want string) error {
	if value == "" {
		value = "''" // an empty value, shown as a shell would take it
	}
	return fmt.Errorf("--%s %v: want %s", flag, value, want)
}

func finitePositive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// parseRat parses an exact flag value: a decimal or a fraction p/q.
func parseRat(flag, s, unit string) (exact.Rat, error) {
	r, err := exact.ParseRat(s)
	if errors.Is(err, exact.ErrRange) {
		return r, flagError(flag, s, "a number whose exact value fits the model (a fraction with a denominator below 2^63, such as a decimal with at most 18 places), "+unit)
	}
	if err != nil {
		return r, flagError(flag, s, "a decimal such as 0.7 or a fraction such as 10/13, "+unit)
	}
	return r, nil
}

// spec validates the flags and builds the run specification.
func (f *runFlags) spec(cmd *cobra.Command) (splitstudy.RunSpec, error) {
	changed := cmd.Flags().Changed
	p := f.p
	p.WholeTrace = f.trace != ""
	p.Given = func(key string) bool { return changed(flagOf(key)) }
	p.Name = func(key string) string { return "--" + flagOf(key) }
	spec, err := p.Spec()
	if err != nil {
		return spec, err
	}
	f.one = spec.One
	if err := f.checkArrivalFlags(changed); err != nil {
		return spec, err
	}
	if changed("jobs-out") && f.jobsOut == "" {
		return spec, flagError("jobs-out", f.jobsOut, "a file name, or - for standard output")
	}
	if changed("plot-format") && f.plot.dir == "" {
		return spec, fmt.Errorf("--plot-format applies with --plot DIR")
	}
	if f.p.Dispatch == "column" && f.traceOpt.SubCol == "" {
		return spec, flagError("dispatch", f.p.Dispatch, "--sub-col naming the trace column of sub-bucket indexes")
	}
	if f.p.Dispatch == "hash" && f.traceOpt.KeyCol == "" && f.trace != "" {
		return spec, flagError("dispatch", f.p.Dispatch, "--key-col naming the trace column of job keys")
	}
	return spec, nil
}

// flagOf is the flag of a parameter's key: allow_unequal, --allow-unequal.
func flagOf(key string) string { return strings.ReplaceAll(key, "_", "-") }

// checkArrivalFlags checks the trace flags against --trace and --dispatch,
// and builds the --arrivals process when it is not poisson or periodic.
func (f *runFlags) checkArrivalFlags(changed func(string) bool) error {
	if f.trace == "" {
		for _, name := range append([]string{"time-col", "time-format", "key-col", "sub-col"}, traceFormatFlagNames...) {
			if changed(name) {
				return fmt.Errorf("--%s applies to trace input only: use it with --trace", name)
			}
		}
		if f.process != "poisson" && f.process != "periodic" {
			g, err := buildGenerated(f.process, f.load, f.one.Rate, f.p.Seed, changed("load"))
			if err != nil {
				return err
			}
			f.gen = g
		}
		if f.p.Dispatch == "hash" && (f.gen == nil || !f.gen.Keyed) || f.p.Dispatch == "column" {
			return flagError("dispatch", f.p.Dispatch, "--trace with a --key-col (hash) or --sub-col (column), or for hash an --arrivals spec with keys (... | keys:n=1000,s=1): these generated arrivals have no keys or sub-buckets")
		}
	} else if err := f.traceFmt.apply(&f.traceOpt, changed, f.p.Seed); err != nil {
		return err
	}
	if changed("sub-col") && f.p.Dispatch != "column" {
		return fmt.Errorf("--sub-col applies with --dispatch column (it names each job's sub-bucket); --dispatch is %s", f.p.Dispatch)
	}
	if changed("key-col") && f.p.Dispatch != "hash" {
		return fmt.Errorf("--key-col applies with --dispatch hash (a key always goes to the same sub-bucket); --dispatch is %s", f.p.Dispatch)
	}
	return nil
}

// process builds the arrival process from the flags.
func (f *runFlags) arrivalProcess(ctx context.Context, spec splitstudy.RunSpec) (arrivals.Process, func() error, error) {
	if f.trace != "" {
		a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Trace: f.trace, TraceOptions: f.traceOpt}, spec.Seed)
		if err != nil {
			return nil, nil, err
		}
		return a.Process, a.Close, nil
	}
	if f.gen != nil {
		return f.gen, nil, nil
	}
	if !finitePositive(f.load) {
		return nil, nil, flagError("load", f.load, "a finite load > 0")
	}
	lambda := f.load * f.one.Rate.Float64()
	if !finitePositive(lambda) || math.IsInf(1/lambda, 0) {
		return nil, nil, flagError("load", f.load, fmt.Sprintf("an arrival rate load·rate with a finite mean gap 1/λ, got λ = %v jobs/s", lambda))
	}
	if f.process == "periodic" {
		if _, err := lambdaOf(f.load, f.one.Rate); err != nil {
			return nil, nil, err
		}
	}
	a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Spec: f.process, Load: f.load, Rate: f.one.Rate}, spec.Seed)
	if err != nil {
		return nil, nil, flagError("arrivals", f.process, "poisson, periodic or an arrival spec: "+err.Error())
	}
	return a.Process, nil, nil
}

func runRun(cmd *cobra.Command, f *runFlags) error {
	spec, err := f.spec(cmd)
	if err != nil {
		return err
	}
	if err := checkJobsOut(f.jobsOut, f.trace); err != nil {
		return err
	}
	plotOpt, err := f.plot.options(f.p.Engine)
	if err != nil {
		return err
	}
	if f.plot.dir != "" {
		if err := checkDirNotInput("plot", f.plot.dir, []string{"*." + f.plot.format}, f.trace); err != nil {
			return err
		}
	}
	proc, closeProc, err := f.arrivalProcess(cmd.Context(), spec)
	if err != nil {
		return err
	}
	if tr, ok := proc.(*arrivals.Trace); ok {
		f.traceNote = countsNote(tr, f.traceOpt.Spread)
	}
	if closeProc != nil {
		defer closeProc()
	}
	report, jobsOut, out, err := openJobsOut(cmd, f.jobsOut)
	if err != nil {
		return err
	}
	if out != nil {
		defer out.Abort()
	}
	run := splitstudy.Run
	var res splitstudy.Result
	var series *splitstudy.Series
	if f.plot.dir != "" {
		res, series, err = splitstudy.RunSeries(cmd.Context(), spec, proc, jobsOut, plotOpt)
	} else {
		res, err = run(cmd.Context(), spec, proc, jobsOut)
	}
	if err != nil {
		return err
	}
	if spec.Warmup > 0 && res.Jobs <= spec.Warmup {
		return flagError("warmup", f.p.Warmup, fmt.Sprintf("fewer jobs than the %d of the input, so that some are measured", res.Jobs))
	}
	if out != nil {
		if err := out.Commit(); err != nil {
			return err
		}
	}
	if err := f.report(cmd, report, proc, spec, res, series); err != nil {
		return err
	}
	if !res.Check.Held() {
		return fmt.Errorf("%w: %v", errCheckFailed, res.Check.First)
	}
	return nil
}

// report prints a run's warnings, its summary or JSON, and its figures.
func (f *runFlags) report(cmd *cobra.Command, report io.Writer, proc arrivals.Process, spec splitstudy.RunSpec, res splitstudy.Result, series *splitstudy.Series) error {
	skipped := 0
	if tr, ok := proc.(*arrivals.Trace); ok {
		skipped = tr.Skipped()
		if skipped > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: skipped %s of %s; the first: %v\n", count(skipped, "bad line"), f.trace, cliMessage(tr.FirstSkipped()))
		}
	}
	if f.trace != "" && spec.MaxJobs > 0 && res.Jobs < spec.MaxJobs {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: %s has %s, fewer than --jobs %d: all of them were run\n", f.trace, count(res.Jobs, "job"), spec.MaxJobs)
	}
	if msg := overloadWarning(f, spec, res); msg != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: warning: %s\n", msg)
	}
	w := &errWriter{w: report}
	if f.json {
		writeJSON(w, f, spec, res, skipped)
	} else {
		writeSummary(w, f, spec, res, skipped)
	}
	if w.err != nil {
		return fmt.Errorf("writing the result: %w", w.err)
	}
	if series != nil {
		paths, err := f.plot.write(cmd.Context(), series, splitstudy.RunCaption(f.input(), spec, res.Jobs))
		if err != nil {
			return err
		}
		noteFigures(cmd.ErrOrStderr(), paths)
	}
	return nil
}

// openJobsOut opens the --jobs-out file ("-": standard output, the report
// then going to standard error) and returns where the report goes, where
// the rows go (nil: nowhere) and the file to commit (nil for none).
func openJobsOut(cmd *cobra.Command, path string) (report, rows io.Writer, out *atomicfile.File, err error) {
	switch path {
	case "":
		return cmd.OutOrStdout(), nil, nil, nil
	case "-":
		return cmd.ErrOrStderr(), cmd.OutOrStdout(), nil, nil
	}
	if out, err = atomicfile.Create(cmd.Context(), path); err != nil {
		return nil, nil, nil, fmt.Errorf("--jobs-out: %w", err)
	}
	return cmd.OutOrStdout(), out, out, nil
}

// errWriter keeps the first write error, so that a report written with
// many Fprintf calls can be checked once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// checkOutputFile checks, before any work is done, that the file an
// output flag names can be written: its folder exists, it is not a folder
// itself, and its extension is one of exts (when exts are given).
func checkOutputFile(flag, path string, exts ...string) error {
	if len(exts) > 0 && !slices.Contains(exts, strings.ToLower(filepath.Ext(path))) {
		return flagError(flag, path, "a file name ending in "+strings.Join(exts, ", "))
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return flagError(flag, path, "a regular file, not a folder or device")
	}
	if dir := filepath.Dir(path); dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return flagError(flag, path, fmt.Sprintf("a file in an existing folder (%s does not exist)", dir))
		}
	}
	return nil
}

// checkOutputDir checks that a folder an output flag names exists or can
// be created (no file stands in its place).
func checkOutputDir(flag, dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return flagError(flag, dir, "a folder, not a file")
	}
	return nil
}

// checkJobsOut refuses a --jobs-out path that cannot be written whole or
// that would overwrite the input trace, before the run starts.
func checkJobsOut(path, trace string) error {
	if path == "" || path == "-" {
		return nil
	}
	if err := checkOutputFile("jobs-out", path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil // does not exist yet
	}
	if !fi.Mode().IsRegular() {
		return flagError("jobs-out", path, "a regular file to write (or - for standard output), not a directory or device")
	}
	return checkNotInput("jobs-out", path, trace)
}

func writeJSON(w io.Writer, f *runFlags, spec splitstudy.RunSpec, res splitstudy.Result, skipped int) {
	out := struct {
		jsonHeader
		splitstudy.RunJSON
	}{newJSONHeader(), splitstudy.NewRunJSON(f.input(), spec, res, skipped)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // write errors are kept by the errWriter
}

// input describes the arrivals for humans.
func (f *runFlags) input() string {
	if f.trace != "" && f.traceNote != "" {
		return "trace " + f.trace + " (" + f.traceNote + ")"
	}
	if f.trace != "" {
		return "trace " + f.trace
	}
	if f.gen != nil {
		return fmt.Sprintf("%s (mean rate %.6g jobs/s)", f.gen.Spec, f.gen.MeanRate)
	}
	return fmt.Sprintf("%s arrivals, load %v (λ = %v jobs/s)", f.process, f.load, f.load*f.one.Rate.Float64())
}

func writeSummary(w io.Writer, f *runFlags, spec splitstudy.RunSpec, res splitstudy.Result, skipped int) {
	fmt.Fprintf(w, "input      %s, seed %d\n", f.input(), spec.Seed)
	if skipped > 0 {
		fmt.Fprintf(w, "skipped    %s\n", count(skipped, "bad line"))
	}
	fmt.Fprintf(w, "one        r = %v tokens/s, b = %v tokens\n", spec.One.Rate, spec.One.Burst)
	fmt.Fprintf(w, "split      k = %d: %s; dispatch %s, order %s\n", len(spec.Subs), splitstudy.DescribeSubs(spec.Subs), spec.Dispatch, spec.Order)
	fmt.Fprintf(w, "jobs       %d over %.6g s (from time 0 to the last arrival)\n", res.Jobs, res.Span)
	if spec.Warmup > 0 {
		fmt.Fprintf(w, "warm-up    the first %d jobs are left out of the statistics\n", spec.Warmup)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-18s %14s %14s\n", "delay", "one bucket", "split")
	row := func(name string, a, b float64) {
		fmt.Fprintf(w, "%-18s %14.6g %14.6g\n", name, a, b)
	}
	fmt.Fprintf(w, "%-18s %14d %14d\n", "delayed jobs", res.One.Delayed, res.Split.Delayed)
	row("mean (s)", res.One.Mean, res.Split.Mean)
	row("p50 (s)", res.One.P50, res.Split.P50)
	row("p90 (s)", res.One.P90, res.Split.P90)
	row("p99 (s)", res.One.P99, res.Split.P99)
	row("max (s)", res.One.Max, res.Split.Max)
	row("total (s)", res.One.Total, res.Split.Total)
	if res.One.Quantiles == res.Split.Quantiles {
		fmt.Fprintf(w, "quantiles  %s, nearest rank\n", res.One.Quantiles)
	} else {
		fmt.Fprintf(w, "quantiles  one bucket %s, split %s; nearest rank\n", res.One.Quantiles, res.Split.Quantiles)
	}
	if r := splitstudy.Ratio(res.Split.Mean, res.One.Mean); math.IsNaN(r) {
		fmt.Fprintf(w, "\nsplit/one mean delay ratio undefined (no job waited in either system)\n")
	} else if math.IsInf(r, 0) {
		fmt.Fprintf(w, "\nsplit/one mean delay ratio undefined (no job waited in the one bucket; %s in the split)\n", count(res.Split.Delayed, "job"))
	} else {
		fmt.Fprintf(w, "\nsplit/one mean delay ratio %.6g\n", r)
	}
	c := res.Check
	if c.NotChecked != "" { // a large counts trace, in closed form (experiments/countsrun.go)
		fmt.Fprintf(w, "check      not run: %s; %d events\n", c.NotChecked, c.Events)
		return
	}
	fmt.Fprintf(w, "check      Theorem 2 (S <= S^(k)) and Lemma 1, exactly, at every instant: %s, %s\n",
		count(c.Violations, "violation"), count(c.LemmaViolations, "Lemma 1 violation"))
	fmt.Fprintf(w, "           %d events; %d instants evaluated, every other interval certified\n", c.Events, c.Evaluated)
	if c.MinSlack != nil {
		fmt.Fprintf(w, "           smallest slack S^(k) - S = %.6g s at t = %.6g s (over t where a job waits in the one bucket or S(t) > 0)\n", *c.MinSlack, *c.MinSlackAt)
	}
	if c.First != nil {
		fmt.Fprintf(w, "FIRST VIOLATION at %v\n", c.First)
	}
}

// overloadWarning is the study's overload warning (RunSpec.OverloadWarning)
// at λ: the generated process's mean rate, or a trace's measured mean
// rate over its span.
func overloadWarning(f *runFlags, spec splitstudy.RunSpec, res splitstudy.Result) string {
	var lambda float64
	var from string
	switch {
	case f.trace != "":
		if res.Span <= 0 || res.Jobs < 2 {
			return ""
		}
		lambda, from = float64(res.Jobs-1)/res.Span, "the trace's mean rate"
	case f.gen != nil:
		lambda, from = f.gen.MeanRate, "the arrivals' mean rate"
	default:
		lambda, from = f.load*spec.One.Rate.Float64(), "--load × --rate"
	}
	return spec.OverloadWarning(lambda, from)
}
