package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/specfile"
	"github.com/ratesim/ratesim/internal/version"
)

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
		Long:  sweepLong,
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
	fl.StringVar(&f.builtin, "builtin", "", "run a built-in study: "+strings.Join(append(builtinNames(), clientstudy.BackoffStudyName), ", ")+" (Marc Brooker's backoff study, see above)")
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
	fl.StringArrayVar(&f.spec.grid, "grid", nil, "a sweep axis name=v1,v2,... (repeat for a cartesian product); replaces the spec's sweep; names: "+strings.Join(splitstudy.AxisNames, ", "))
	return cmd
}

func runSweep(cmd *cobra.Command, f *sweepFlags, args []string) error {
	if routed, err := routeSweep(cmd, f, args); routed {
		return err
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
	s, err := f.startSweep(spec.NumPoints(), true, args...)
	if err != nil {
		return err
	}
	var done *splitstudy.Results
	if prevPath := s.resumePath(); prevPath != "" {
		if done, err = splitstudy.ReadResults(prevPath); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		vi := version.Get()
		if err := done.CheckResume(spec, s.shard, vi.Version, vi.GoVersion, vi.Commit()); err != nil {
			return fmt.Errorf("--resume: %s: %w (use --force to start over)", prevPath, err)
		}
	}
	stderr := cmd.ErrOrStderr()
	if !f.quiet {
		for _, w := range splitstudy.SpecWarnings(spec) {
			fmt.Fprintf(stderr, "ratesim: warning: %s\n", w)
		}
	}
	ndone := 0
	if done != nil {
		ndone = len(done.Points)
	}
	progress, stop := s.begin(stderr, describeSpec(spec, args, f.builtin), spec.Replications, ndone, f.resume)
	res, runErr := splitstudy.RunSweep(cmd.Context(), spec, experiments.SweepOptions{
		Workers: f.threads, Shard: s.shard, Progress: progress,
	}, done)
	elapsed := time.Since(s.start)
	stop()
	if res == nil {
		return runErr
	}
	vi := version.Get()
	res.Schema, res.Version, res.GoVersion, res.Commit = version.Schema, vi.Version, vi.GoVersion, vi.Commit()
	if runErr != nil && !res.Interrupted {
		return runErr
	}
	return f.finishSweep(cmd, s, spec, res, done, runErr, elapsed)
}

// routeSweep runs the sweeps that are not of a split spec (the backoff
// study, the built-in studies and spec files of other models) and
// reports whether it did.
func routeSweep(cmd *cobra.Command, f *sweepFlags, args []string) (bool, error) {
	if f.builtin == clientstudy.BackoffStudyName {
		return true, runBackoffStudy(cmd, f, args)
	}
	if text, model, ok := clientstudy.BuiltinSpec(f.builtin); ok && len(args) == 0 {
		return true, runBuiltinModelSweep(cmd, f, text, model)
	}
	if len(args) == 1 && f.builtin == "" {
		model, err := specModel(args[0])
		if err != nil {
			return true, err
		}
		if model != specfile.SplitModel {
			return true, runModelSweep(cmd, f, args[0], model)
		}
	}
	return false, nil
}

// finishSweep writes a split sweep's results (what finished, when
// interrupted; figures only for a whole sweep) and its summary.
func (f *sweepFlags) finishSweep(cmd *cobra.Command, s *sweepSession, spec *splitstudy.Spec, res *splitstudy.Results, done *splitstudy.Results, runErr error, elapsed time.Duration) error {
	paths, nfig, err := f.writeResults(cmd.Context(), res, s.stem, s.shard.Count == 0 && !res.Interrupted)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if res.Interrupted {
		s.interrupted(stderr, elapsed, len(res.Points), paths)
		return runErr
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	writeSweepSummary(w, spec, res, spec.Jobs+spec.Warmup)
	if !f.quiet {
		// The jobs this call ran: each point's own (a grid may vary
		// them), the points resumed from excluded.
		ran := 0.0
		prev := map[int]bool{}
		if done != nil {
			for _, p := range done.Points {
				prev[p.Index] = true
			}
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

func describeSpec(spec *splitstudy.Spec, args []string, builtin string) string {
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
func pointJobs(pts []splitstudy.PointResult, total, warmup int64) string {
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
func writeSweepSummary(w io.Writer, spec *splitstudy.Spec, res *splitstudy.Results, jobs int64) {
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
	rows := splitstudy.LeastBad(res)
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

// sweepLong is the help of ratesim sweep.
const sweepLong = `Sweep runs an experiment: one token bucket (r, b) against its split into k
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
usage, 3 internal error, 128 + the signal's number when stopped.`
