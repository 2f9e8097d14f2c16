package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/internal/version"
	"github.com/ratesim/ratesim/plots"
)

// outputFlags are the output flags shared by sweep and merge.
type outputFlags struct {
	out       string
	force     bool
	format    string
	noFigures bool
	quiet     bool
	resume    bool // --resume: keep the finished points of --out
	canResume bool // the command has --resume
}

func (o *outputFlags) register(cmd *cobra.Command, what string) {
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "ratesim-sweep", "output folder for results.csv, results.json and "+what)
	markOutput(cmd, "out", outputFolder)
	fl.BoolVar(&o.force, "force", false, "overwrite existing results in --out")
	fl.StringVar(&o.format, "plot-format", "png", "figure format: png, svg or pdf")
	fl.BoolVar(&o.noFigures, "no-figures", false, "write the results only, no figures")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar or messages on standard error")
}

func (o *outputFlags) check() error {
	if !validFormat(o.format) {
		return flagError("plot-format", o.format, "png, svg or pdf")
	}
	if o.out == "" {
		return flagError("out", `""`, "a folder")
	}
	return nil
}

func validFormat(f string) bool {
	for _, x := range plots.Formats {
		if f == x {
			return true
		}
	}
	return false
}

// checkNotInputs refuses an --out folder where the named files or the
// figures would replace one of inputs.
func (o *outputFlags) checkNotInputs(names []string, inputs ...string) error {
	if err := checkDirNotInput("out", o.out, names, inputs...); err != nil {
		return err
	}
	return checkDirNotInput("out", filepath.Join(o.out, "figures"), []string{"*." + o.format}, inputs...)
}

// prepareOut creates the folder and refuses to overwrite the named files
// without --force.
func (o *outputFlags) prepareOut(names ...string) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return flagError("out", o.out, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	if o.force {
		return nil
	}
	for _, n := range names {
		p := filepath.Join(o.out, n)
		if _, err := os.Stat(p); err == nil {
			how := "use --force to overwrite it"
			if o.canResume {
				how = "use --resume to run only the points it lacks, or --force to overwrite it"
			}
			return flagError("out", o.out, fmt.Sprintf("a folder without results: %s exists (%s)", p, how))
		}
	}
	return nil
}

// sweepFigurePatterns match the figures a sweep writes into --out/figures,
// of every model: a new sweep removes them first.
var sweepFigurePatterns = []string{"heatmap-*", "ratio-*", "delay-*", "drl-sweep-*", "clients-sweep-*"}

// writeResults writes the CSV and JSON and, unless turned off, the figures;
// it returns the paths written.
func (o *outputFlags) writeResults(ctx context.Context, res *experiments.Results, stem string, figures bool) ([]string, int, error) {
	csvPath := filepath.Join(o.out, stem+".csv")
	jsonPath := filepath.Join(o.out, stem+".json")
	if err := res.WriteFiles(csvPath, jsonPath); err != nil {
		return nil, 0, err
	}
	paths := []string{csvPath, jsonPath}
	// Figures of an earlier study in the same folder (--force) would sit
	// beside the new results without belonging to them, even when these
	// get no figures (an interrupted sweep, a shard, --no-figures): remove
	// the sweep figures (heatmap-, ratio-, delay- in any format) first.
	dir := filepath.Join(o.out, "figures")
	for _, pattern := range sweepFigurePatterns {
		old, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range old {
			if ext := filepath.Ext(f); ext == ".png" || ext == ".svg" || ext == ".pdf" {
				os.Remove(f)
			}
		}
	}
	if !figures || o.noFigures {
		return paths, 0, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return paths, 0, fmt.Errorf("--out %s: %w", o.out, err)
	}
	figs, err := experiments.SaveFiguresContext(ctx, experiments.SweepFigures(res), dir, o.format)
	if err != nil {
		return paths, len(figs), err
	}
	return append(paths, dir+string(filepath.Separator)), len(figs), nil
}

// specFlags are the experiment parameters given as flags; each overrides
// the spec file or built-in study when set.
type specFlags struct {
	s                                experiments.Spec
	rateShares, burstShares, traffic string
	grid                             []string
}

// sweepFlags are the flags of ratesim sweep.
type sweepFlags struct {
	outputFlags
	spec          specFlags
	builtin       string
	threads       int
	shard         string
	printSpec     bool
	progressEvery time.Duration
	oldJobs       int64 // --jobs, the old spelling of --jobs-per-replication
}

func newSweepCmd() *cobra.Command {
	f := &sweepFlags{}
	f.canResume = true
	cmd := &cobra.Command{
		Use:   "sweep [SPEC.yaml]",
		Short: "Run a what-if sweep with replications and confidence intervals",
		Long: `Sweep runs an experiment: one token bucket (r, b) against its split into k
sub-buckets, fed the same arrivals, at every point of a grid of parameters,
with independent replications per point. The experiment comes from a YAML
file (SPEC.yaml), a built-in study (--builtin), or flags alone; flags
override the file. Unknown fields in the file are errors.

Replication i of every point is seeded from (--seed, i) alone (common
random numbers: the points of a replication see the same arrivals, and
the same dispatch and order draws, so the one bucket's delays are the same
at every point where it is the same, e.g. at every k, and differences
between points are paired), so the results do not depend on -j, on the
order points run in, or on --shard; both systems of a replication see the
same arrivals, so the split/one ratio is paired. Per point it reports each system's mean delay with a 95%
confidence interval (Student t over the replications), the split/one ratio
of the means with its interval (delta method), delay quantiles
p50/p90/p99/p999 by nearest rank over the replications' pooled delays (exact
while the point's delayed jobs fit 2^20, merged DDSketches beyond), the fraction
of delayed jobs, the Pollaczek-Khinchine prediction where every sub-bucket
is an M/D/1 queue, and the theorem check's violations (which must be 0).

Outputs, in --out: results.csv (one row per point: parameters, then
statistics), results.json (the spec, seed, ratesim and Go versions, commit
and every statistic) and figures/ (heat maps of the ratio over (p, q),
curves with confidence bands). Existing results are not overwritten without
--force. With --shard i/n only every n-th point runs, into
shard-i-of-n.csv/.json; ratesim merge combines the shards into exactly the
files one run writes.

A spec with "model: drl" is a study of the distributed rate-limiting
designs of ratesim drl: its drl block takes drl's flags in snake case
(designs, nodes, police, sync_period, sync_delay, rtt, load, jobs, a trace
block with path and key_col, ...) and its sweep varies any of them but
designs and trace, e.g. sync_period: [0, 10ms, 1s]. It writes results.csv
and results.json with a row per point and design (the axes with units,
then admitted, rejected, mean_delay_s, p99_delay_s, worst_overshoot,
over_rate_fraction and messages, each the mean over the replications with
METRIC_ci95, its 95% interval half-width, from 2 replications), and figures
of the overshoot and mean delay against the first numeric axis. -j, --shard
(merge combines the shards), --resume, --out, --force, --format,
--no-figures and --quiet apply; the split's parameter flags do not.

A spec with "model: clients" is a study of the reacting clients of ratesim
clients: its clients block takes clients' flags in snake case (backoff,
base, cap, max_attempts, retry_after, pace, server_rate, buffer, users,
arrivals, jobs, a trace block with path, ...; design with the design
flags clients borrows from drl: nodes, police, sync_period, ...) and its
sweep varies any of them but the trace, e.g. backoff: [none, exponential,
full].
Its rows are one per point: the axes, then requests, attempts_per_request,
goodput_per_s, give_ups, mean_latency_s, p99_latency_s and overflows, each
with METRIC_ci95 from 2 replications; its figures the attempts per request
and the p99 latency against the first numeric axis, a line per value of the
first text axis. The same flags apply.

--builtin backoff runs another kind of study: Marc Brooker's "Exponential
Backoff and Jitter" (AWS Architecture Blog, 2015), N = 10, 20, ..., 190 clients
each updating one row of an optimistic-concurrency store once, retrying a
failed write with the backoff strategies none, exponential, full, equal and
decorrelated (base 5 ms, cap 2 s), every message |Normal(10 ms, 2 ms)| one
way, --replications runs per point (default 100). It writes results.csv (one
row per strategy and number of clients: calls_mean, time_ms_mean and their 95%
interval half-widths) and figures/backoff-calls and backoff-time; only --out,
--force, --format, --no-figures, --quiet, -j, --seed and --replications apply.

A progress bar with ETA goes to standard error when it is a terminal;
otherwise (a batch job's log) a progress line (points and replications
done, time elapsed, ETA) every --progress-every. --quiet turns both off.
Ctrl-C stops the sweep: the points already finished are written
(results.json then says "interrupted": true), and the figures of an
earlier sweep in --out are removed; the exit code is 128 + the signal's
number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). Run the same
command with --resume to run only the missing points: the results are
then byte for byte those of one uninterrupted run.

Exit codes: 0 success, 1 the theorem check failed at some point, 2 bad
usage, 3 internal error, 128 + the signal's number when stopped.`,
		Example: `  ratesim sweep --builtin split-ratio
  ratesim sweep --builtin split-ratio --print-spec > my-study.yaml
  ratesim sweep --builtin backoff -o out/backoff
  ratesim sweep testdata/sweep-load.yaml -j 8 -o out/load
  ratesim sweep testdata/sweep-load.yaml -j 8 -o out/load --resume   # after Ctrl-C
  ratesim sweep --burst 2 --k 2 --dispatch weighted --grid p=0.3,0.5,0.7 --grid load=0.5,0.9
  ratesim sweep --builtin split-ratio --shard 3/8 -o shards && ratesim merge shards/shard-*.json -o merged`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSweep(cmd, f, args) },
	}
	fl := cmd.Flags()
	f.register(cmd, "figures/")
	fl.StringVar(&f.builtin, "builtin", "", "run a built-in study: "+strings.Join(append(experiments.BuiltinNames(), clientstudy.BackoffStudyName), ", ")+" (Marc Brooker's backoff study, see above)")
	fl.IntVarP(&f.threads, "threads", "j", 0, "replications run in parallel; 0, the default, means all cores")
	fl.StringVar(&f.shard, "shard", "", "run shard i of n (i/n, 1-based): the points whose index is i-1 modulo n")
	fl.BoolVar(&f.printSpec, "print-spec", false, "print the experiment as YAML (after flags) and exit")
	fl.BoolVar(&f.resume, "resume", false, "continue an interrupted sweep: keep the points the results in --out hold (same spec, seed, shard and build) and run only the others")
	f.progressEvery = 30 * time.Second
	fl.Var((*durationFlag)(&f.progressEvery), "progress-every", "when standard error is not a terminal, print a progress line this often (0: never)")
	s := &f.spec.s
	fl.StringVar(&s.Name, "name", "", "a name for the study, shown in captions")
	fl.StringVar(&s.Arrivals, "arrivals", "poisson", "arrival process: poisson, periodic or an arrival spec as in ratesim run, such as 'renewal:dist=gamma,scv=4'; a process without rate= takes λ = load·rate")
	fl.Float64Var(&s.Load, "load", 0.9, "offered load ρ = λ/r (> 0)")
	s.Rate, s.Burst = 1, 10
	fl.Var(&exactFloatFlag{&s.Rate, &s.RateExact}, "rate", "token rate r of the one bucket, tokens/s (> 0)")
	fl.Var(&exactFloatFlag{&s.Burst, &s.BurstExact}, "burst", "burst b of the one bucket, tokens (>= 1)")
	fl.IntVar(&s.K, "k", 2, "number of sub-buckets")
	fl.StringVar(&f.spec.rateShares, "rate-shares", "", "rate share of each sub-bucket, e.g. 0.7,0.3 (default equal)")
	fl.StringVar(&f.spec.burstShares, "burst-shares", "", "burst share of each sub-bucket, e.g. 0.5,0.5 (default equal)")
	fl.StringVar(&s.Dispatch, "dispatch", "rr", "dispatch policy: rr, random (∝ rates), least-loaded, weighted (∝ --traffic-shares)")
	fl.StringVar(&f.spec.traffic, "traffic-shares", "", "traffic share of each sub-bucket for --dispatch weighted, e.g. 0.6,0.4")
	fl.StringVar(&s.Order, "order", "fcfs", "service order: fcfs, lifo or random")
	fl.Int64Var(&s.Jobs, "jobs-per-replication", 100_000, "measured jobs per replication (>= 1), after the --warmup jobs (run's --jobs counts all the jobs of its one run)")
	fl.Int64Var(&s.Warmup, "warmup", 10_000, "warm-up jobs per replication before the measured ones, left out of the statistics")
	// --jobs was the old spelling of --jobs-per-replication; unlisted.
	fl.Int64Var(&f.oldJobs, "jobs", 0, "")
	fl.MarkHidden("jobs")
	fl.IntVar(&s.Replications, "replications", 10, "replications per point")
	fl.Uint64VarP(&s.Seed, "seed", "s", 1, "root seed; replication i of point p is seeded from (seed, p, i)")
	fl.StringArrayVar(&f.spec.grid, "grid", nil, "a sweep axis name=v1,v2,... (repeat for a cartesian product); replaces the spec's sweep; names: "+strings.Join(experiments.AxisNames, ", "))
	return cmd
}

// specFlagNames maps spec fields to their flags.
var specFlagNames = map[string]string{
	"name": "name", "arrivals": "arrivals", "load": "load", "rate": "rate", "burst": "burst", "k": "k",
	"rate_shares": "rate-shares", "burst_shares": "burst-shares", "dispatch": "dispatch",
	"traffic_shares": "traffic-shares", "order": "order", "jobs": "jobs-per-replication", "warmup": "warmup",
	"replications": "replications", "seed": "seed", "sweep": "grid",
}

// buildSpec reads the spec (file, built-in or defaults) and applies the
// flags that were set.
func (f *sweepFlags) buildSpec(cmd *cobra.Command, args []string) (*experiments.Spec, error) {
	var spec *experiments.Spec
	var err error
	switch {
	case len(args) == 1 && f.builtin != "":
		return nil, fmt.Errorf("give a SPEC file or --builtin, not both")
	case len(args) == 1:
		if spec, err = experiments.ReadSpec(args[0]); err != nil {
			return nil, err
		}
	case f.builtin != "":
		if spec, err = experiments.Builtin(f.builtin); err != nil {
			return nil, flagError("builtin", f.builtin, "one of "+strings.Join(experiments.BuiltinNames(), ", "))
		}
	default:
		d := experiments.DefaultSpec()
		spec = &d
	}
	changed := cmd.Flags().Changed
	src := f.spec.s
	if changed("jobs") {
		if changed("jobs-per-replication") {
			return nil, fmt.Errorf("--jobs is the old spelling of --jobs-per-replication: give --jobs-per-replication only")
		}
		deprecated(cmd, "sweep --jobs", "--jobs-per-replication (run's --jobs counts all the jobs of one run)")
		src.Jobs = f.oldJobs
	}
	if changed("name") {
		spec.Name = src.Name
	}
	if changed("arrivals") {
		spec.Arrivals = src.Arrivals
	}
	if changed("load") {
		spec.Load = src.Load
	}
	if changed("rate") {
		spec.Rate, spec.RateExact = src.Rate, src.RateExact
	}
	if changed("burst") {
		spec.Burst, spec.BurstExact = src.Burst, src.BurstExact
	}
	if changed("k") {
		spec.K = src.K
	}
	if changed("dispatch") {
		spec.Dispatch = src.Dispatch
	}
	if changed("order") {
		spec.Order = src.Order
	}
	if changed("jobs-per-replication") || changed("jobs") {
		spec.Jobs = src.Jobs
	}
	if changed("warmup") {
		spec.Warmup = src.Warmup
	}
	if changed("replications") {
		spec.Replications = src.Replications
	}
	if changed("seed") {
		spec.Seed = src.Seed
	}
	for _, l := range []struct {
		flag string
		text string
		dst  *[]float64
	}{{"rate-shares", f.spec.rateShares, &spec.RateShares}, {"burst-shares", f.spec.burstShares, &spec.BurstShares}, {"traffic-shares", f.spec.traffic, &spec.TrafficShares}} {
		if !changed(l.flag) {
			continue
		}
		xs, err := parseFloats(l.text)
		if err != nil {
			return nil, flagError(l.flag, l.text, "shares separated by commas, e.g. 0.7,0.3")
		}
		*l.dst = xs
		if !changed("k") {
			spec.K = len(xs)
		}
	}
	if changed("grid") {
		var g experiments.Grid
		for _, a := range f.spec.grid {
			ax, err := experiments.ParseAxis(a)
			if err != nil {
				return nil, flagError("grid", a, fmt.Sprintf("name=v1,v2,... (%v)", err))
			}
			for _, prev := range g {
				if prev.Name == ax.Name {
					return nil, flagError("grid", a, "each parameter once")
				}
			}
			g = append(g, ax)
		}
		spec.Sweep = experiments.Sweep{g}
	}
	// A trace study measures the whole trace unless --jobs-per-replication
	// or --warmup (or the spec) says otherwise, and its loads come from
	// the trace's mean rate.
	var given []string
	if changed("jobs-per-replication") || changed("jobs") {
		given = append(given, "jobs")
	}
	if changed("warmup") {
		given = append(given, "warmup")
	}
	if err := spec.FitTrace(cmd.Context(), given...); err != nil {
		return nil, err
	}
	// Validating builds every point: refuse a whole sweep too large for
	// the machine first (a shard is checked once its points are known).
	if n := spec.NumPoints(); f.shard == "" && n <= experiments.MaxPoints {
		if err := checkSweepMemory(n); err != nil {
			return nil, err
		}
	}
	if err := spec.Validate(); err != nil {
		var se *experiments.SpecError
		if errors.As(err, &se) {
			top, _, _ := strings.Cut(se.Field, ".")
			if fl, ok := specFlagNames[top]; ok && changed(fl) {
				return nil, fmt.Errorf("--%s: %v", fl, se.Err)
			}
			if len(args) == 1 {
				return nil, fmt.Errorf("%s with the flags given: %s: %v", args[0], se.Field, se.Err)
			}
			return nil, fmt.Errorf("%s: %v (set it with --%s)", se.Field, se.Err, specFlagNames[top])
		}
		return nil, err
	}
	return spec, nil
}

func parseFloats(s string) ([]float64, error) {
	var xs []float64
	for _, p := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	return xs, nil
}

// sweepBytesPerPoint is the memory a sweep keeps per point until it
// writes its results: the point's statistics and its rows, measured as
// the growth of the peak resident memory over 10^4 points (7.6 KB per
// point, rounded up).
const sweepBytesPerPoint = 8 << 10

// checkSweepMemory refuses, before anything runs, a sweep of points whose
// results would need more memory than the machine has, with the estimate.
func checkSweepMemory(points int) error {
	need := uint64(points) * sweepBytesPerPoint
	have, ok := physicalMemory()
	if !ok || need <= have {
		return nil
	}
	return fmt.Errorf("the sweep has %s and would keep about %.3g GB of results in memory (%d KiB per point), more than the machine's %.3g GB: use fewer points, or split it with --shard i/n (n >= %d) and merge the shards",
		count(points, "point"), float64(need)/1e9, sweepBytesPerPoint>>10, float64(have)/1e9, need/have+1)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func runSweep(cmd *cobra.Command, f *sweepFlags, args []string) error {
	if f.builtin == clientstudy.BackoffStudyName {
		return runBackoffStudy(cmd, f, args)
	}
	if text, model, ok := experiments.BuiltinModelSpec(f.builtin); ok && len(args) == 0 {
		return runBuiltinModelSweep(cmd, f, text, model)
	}
	if len(args) == 1 && f.builtin == "" {
		model, err := specModel(args[0])
		if err != nil {
			return err
		}
		if model != experiments.SplitModel {
			return runModelSweep(cmd, f, args[0], model)
		}
	}
	spec, err := f.buildSpec(cmd, args)
	if err != nil {
		return err
	}
	if f.printSpec {
		y, err := spec.YAML()
		if err != nil {
			return err
		}
		_, err = cmd.OutOrStdout().Write(y)
		return err
	}
	shard, stem, err := f.runFlags()
	if err != nil {
		return err
	}
	pts := spec.NumPoints()
	mine := 0
	for p := range pts {
		if shard.Has(p) {
			mine++
		}
	}
	if err := checkSweepMemory(mine); err != nil {
		return err
	}
	if err := f.checkNotInputs([]string{stem + ".csv", stem + ".json"}, args...); err != nil {
		return err
	}
	var names []string
	if !f.resume {
		names = []string{stem + ".csv", stem + ".json"}
	}
	if err := f.prepareOut(names...); err != nil {
		return err
	}
	var done []experiments.PointResult
	if prevPath := filepath.Join(f.out, stem+".json"); f.resume {
		if _, err := os.Stat(prevPath); err == nil {
			prev, err := experiments.ReadResults(prevPath)
			if err != nil {
				return fmt.Errorf("--resume: %w", err)
			}
			vi := version.Get()
			if err := prev.CheckResume(spec, shard, vi.Version, vi.GoVersion, vi.Commit()); err != nil {
				return fmt.Errorf("--resume: %s: %w (use --force to start over)", prevPath, err)
			}
			done = prev.Points
		}
	}
	stderr := cmd.ErrOrStderr()
	if !f.quiet {
		for _, w := range experiments.SpecWarnings(spec) {
			fmt.Fprintf(stderr, "ratesim: warning: %s\n", w)
		}
	}
	jobs := spec.Jobs + spec.Warmup
	if !f.quiet {
		resumed := ""
		if f.resume {
			resumed = fmt.Sprintf(" (resumed: %d finished, %d to run)", len(done), mine-len(done))
		}
		fmt.Fprintf(stderr, "ratesim: sweep %s: %s × %s on %s%s\n", describeSpec(spec, args, f.builtin), count(mine, "point"), count(spec.Replications, "replication"), count(f.threads, "worker"), resumed)
	}
	progress, stop := f.progress(stderr, len(done), mine, (mine-len(done))*spec.Replications)
	start := time.Now()
	res, runErr := experiments.RunSweep(cmd.Context(), spec, experiments.SweepOptions{
		Workers: f.threads, Shard: shard, Done: done, Progress: progress,
	})
	elapsed := time.Since(start)
	stop()
	if res == nil {
		return runErr
	}
	vi := version.Get()
	res.Schema, res.Version, res.GoVersion, res.Commit = version.Schema, vi.Version, vi.GoVersion, vi.Commit()
	interrupted := res.Interrupted
	if runErr != nil && !interrupted {
		return runErr
	}
	// Write what finished even when interrupted; figures only for a whole
	// sweep.
	paths, nfig, err := f.writeResults(cmd.Context(), res, stem, shard.Count == 0 && !interrupted)
	if err != nil {
		return err
	}
	if interrupted {
		fmt.Fprintf(stderr, "ratesim: interrupted after %.1f s: %d of %d points finished, written to %s; add --resume to the same command to run the rest\n",
			elapsed.Seconds(), len(res.Points), mine, strings.Join(paths, ", "))
		return runErr
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	writeSweepSummary(w, spec, res, jobs)
	if !f.quiet {
		// The jobs this call ran: each point's own (a grid may vary
		// them), the points resumed from excluded.
		ran := 0.0
		prev := map[int]bool{}
		for _, p := range done {
			prev[p.Index] = true
		}
		for _, p := range res.Points {
			if !prev[p.Index] {
				ran += float64((p.Jobs + p.Warmup) * int64(spec.Replications))
			}
		}
		fmt.Fprintf(stderr, "ratesim: sweep took %.2f s on %s (%.3g jobs, %.0f ns/job per worker)\n",
			elapsed.Seconds(), count(f.threads, "worker"), ran, elapsed.Seconds()*1e9*float64(f.threads)/math.Max(ran, 1))
	}
	fmt.Fprintf(w, "wrote      %s", strings.Join(paths[:2], ", "))
	if nfig > 0 {
		fmt.Fprintf(w, ", %d %s figures in %s", nfig, f.format, paths[2])
	}
	fmt.Fprintln(w)
	if w.err != nil {
		return fmt.Errorf("writing the summary: %w", w.err)
	}
	var viol, lemma uint64
	for _, p := range res.Points {
		viol += p.Violations
		lemma += p.LemmaViolations
	}
	if viol+lemma > 0 {
		return fmt.Errorf("%w: %d Theorem 2 and %d Lemma 1 violations (see the violations columns of %s)", errCheckFailed, viol, lemma, paths[0])
	}
	return nil
}

func describeSpec(spec *experiments.Spec, args []string, builtin string) string {
	switch {
	case builtin != "":
		return builtin
	case len(args) == 1:
		return args[0]
	case spec.Name != "":
		return spec.Name
	}
	return "from flags"
}

// pointJobs says how many jobs the points ran, from the points themselves
// (a grid's jobs or warmup axis changes them): "J jobs (W warm-up)" when
// every point ran the same, the ranges otherwise; total and warmup (the
// spec's) when there is no point.
func pointJobs(pts []experiments.PointResult, total, warmup int64) string {
	if len(pts) == 0 {
		return fmt.Sprintf("%d jobs (%d warm-up)", total, warmup)
	}
	j0, j1, w0, w1 := pts[0].Jobs+pts[0].Warmup, pts[0].Jobs+pts[0].Warmup, pts[0].Warmup, pts[0].Warmup
	for _, p := range pts[1:] {
		j0, j1 = min(j0, p.Jobs+p.Warmup), max(j1, p.Jobs+p.Warmup)
		w0, w1 = min(w0, p.Warmup), max(w1, p.Warmup)
	}
	span := func(a, b int64) string {
		if a == b {
			return fmt.Sprint(a)
		}
		return fmt.Sprintf("%d to %d", a, b)
	}
	return fmt.Sprintf("%s jobs (%s warm-up)", span(j0, j1), span(w0, w1))
}

// writeSweepSummary prints the run and, per group of points, the least bad
// stable point.
func writeSweepSummary(w io.Writer, spec *experiments.Spec, res *experiments.Results, jobs int64) {
	reps := len(res.Points) * spec.Replications
	var viol, lemma uint64
	for _, p := range res.Points {
		viol += p.Violations
		lemma += p.LemmaViolations
	}
	name := ""
	if spec.Name != "" {
		name = spec.Name + ": "
	}
	shard := ""
	if res.Shard != "" {
		shard = ", shard " + res.Shard
	}
	fmt.Fprintf(w, "sweep      %s%s × %s of %s, seed %d%s\n",
		name, count(len(res.Points), "point"), count(spec.Replications, "replication"), pointJobs(res.Points, jobs, spec.Warmup), spec.Seed, shard)
	fmt.Fprintf(w, "check      Theorem 2 and Lemma 1 in %s: %s, %s\n", count(reps, "replication"), count(viol, "violation"), count(lemma, "Lemma 1 violation"))
	fmt.Fprintf(w, "paired     common random numbers: replication i of every point draws its arrivals, dispatch and order from (seed, i)\n")
	rows := experiments.LeastBad(res)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nleast bad split per group (stable points only; ratio = split/one mean delay, 95%% CI)\n")
	fmt.Fprintf(w, "%-22s %-28s %-26s %s\n", "group", "point", "ratio", "stable")
	for _, r := range rows {
		fmt.Fprintf(w, "%-22s %-28s %-26s %d of %d\n", r.Group, r.Point, fmt.Sprintf("%.3g [%.3g, %.3g]", r.Ratio, r.Lo, r.Hi), r.Stable, r.Points)
	}
	fmt.Fprintln(w)
}

// runFlags checks the flags every sweep runs with (outputs, -j, --shard,
// --resume with --force, --progress-every) and returns the shard and the
// stem of its results files ("results", or "shard-I-of-N").
func (f *sweepFlags) runFlags() (shard experiments.Shard, stem string, err error) {
	if err := f.check(); err != nil {
		return shard, "", err
	}
	if f.threads == 0 {
		f.threads = runtime.GOMAXPROCS(0)
	}
	if f.threads < 1 || f.threads > 4096 {
		return shard, "", flagError("threads", f.threads, "between 1 and 4096 workers, or 0 for all cores")
	}
	stem = "results"
	if f.shard != "" {
		if shard, err = experiments.ParseShard(f.shard); err != nil {
			return shard, "", flagError("shard", f.shard, "i/n with 1 <= i <= n, e.g. 2/8")
		}
		stem = fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count)
	}
	if f.resume && f.force {
		return shard, "", fmt.Errorf("--resume keeps the finished points and --force discards them: give one")
	}
	if f.progressEvery < 0 {
		return shard, "", flagError("progress-every", f.progressEvery, "a duration >= 0, e.g. 1m (0: no progress lines)")
	}
	return shard, stem, nil
}

// progress returns the progress callback of a sweep (a bar on a terminal,
// a line every --progress-every otherwise, nothing with --quiet) with
// finished of points points already done and replications to run, and the
// function that ends it.
func (f *sweepFlags) progress(stderr io.Writer, finished, points, replications int) (func(experiments.SweepProgress), func()) {
	var bar *progressbar.ProgressBar
	var plog *progressLog
	switch {
	case f.quiet:
	case isTerminal(stderr):
		bar = progressbar.NewOptions(replications,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("replications"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
		)
	case f.progressEvery > 0:
		plog = startProgressLog(stderr, f.progressEvery, experiments.SweepProgress{
			Points: finished, PointsTotal: points, ReplicationsTotal: replications})
	}
	update := func(p experiments.SweepProgress) {
		if bar != nil {
			bar.Set(p.Replications)
		}
		if plog != nil {
			plog.update(p)
		}
	}
	stop := func() {
		if bar != nil {
			bar.Exit()
		}
		if plog != nil {
			plog.close()
		}
	}
	return update, stop
}
