package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
)

// clientsFlags are the flags of ratesim clients: the parameters of the
// run (clientstudy.ClientsParams, parsed by its Spec as a sweep spec's
// clients block is) and the outputs.
type clientsFlags struct {
	p        clientstudy.ClientsParams
	trace    string
	traceOpt arrivals.TraceOptions
	traceFmt traceFormatFlags

	json             bool
	plot, plotFormat string
	maxMemory        string
	meanRate         float64 // of the generated process, requests/s

	drlCmd *cobra.Command // the drl command whose design flags are borrowed
	drl    *drlFlags
	// online is the design of the run, and designSpec its specification.
	online     *drl.Online
	designSpec drl.Spec
}

// drlClientFlags are the flags of ratesim drl that ratesim clients takes
// with --design, with the same meaning ('ratesim drl --help').
var drlClientFlags = []string{"nodes", "dispatch", "police", "node-limiter", "rtt", "outage", "outage-process", "store-limiter", "store-cache", "fail",
	"sync-period", "batch-limit", "sync-delay", "loss", "local", "algorithm", "lease-size", "lease-ttl", "estimate-interval", "smoothing", "exchange", "fanout"}

// clientsLong is the help of ratesim clients.
const clientsLong = `Clients runs a population of clients against one limiter and measures what
the users see. Open-loop requests come from --arrivals (or --trace, with the
trace flags of ratesim run); --users adds closed-loop users who think --think
between the end of a request and the next, until --horizon.

A rejected request is retried after the sleep of --backoff (after Marc Brooker,
"Exponential Backoff and Jitter", AWS Architecture Blog, 2015), the n-th retry
sleeping
  none          0
  constant      base
  exponential   min(cap, base·2^n)
  full          uniform on [0, min(cap, base·2^n)]
  equal         half of min(cap, base·2^n), plus uniform on the other half
  decorrelated  min(cap, uniform on [base, 3·previous sleep])
until --max-attempts attempts or past --deadline after its arrival, when it is
given up. With --retry-after a client obeys the limiter's Retry-After where the
limiter gives one (policing token buckets, GCRA and windows do), plus a draw on
[0, --retry-after-jitter], and falls back to --backoff elsewhere.

--pace RATE paces the open-loop requests in front of the limiter instead: at
most RATE requests/s, each gap lengthened by a draw on [0, --pace-jitter]; a
rejected request is sent again at the next gap.

--server-rate feeds everything that passes to a downstream FIFO server of that
service rate with a waiting room of --buffer jobs, and counts what overflows.
A request then succeeds when the server has served it: one the limiter admits
but the full buffer loses has failed, as a 503 from downstream would, and its
client retries it by --backoff (up to --max-attempts, --deadline) from the
instant it reached the server.
--backfill N adds a background job of N requests that paces itself to a
fraction of --server-rate and adjusts it from the foreground's measured queueing
delay downstream: + --backfill-increase while it is at or under
--backfill-target, × --backfill-decrease when over, every --backfill-interval.

The limiter is --limiter, a member of the limiter family of ratesim limiters
with rate --rate and burst or window limit --limit, or --profile, a
library-faithful limiter (see 'ratesim limiters --help'), or --design, a
distributed rate-limiting design of ratesim drl (one, static, store, sync,
reconcile, lease, grd, fps) enforcing the limit R = --rate, B = --limit over --nodes
nodes, with the design flags of 'ratesim drl' (--police, --dispatch, --rtt,
--sync-period, --sync-delay, --lease-size, --estimate-interval, ...; every
request is of one key). A request is decided on the state the design has
when it is made, after the design's messages up to then; a design that asks
a store answers a round trip later (store, lease), and the client waits for
the answer: a refusal is backed off from the instant it arrives. The
"design" line (JSON "design") gives what the design did, as ratesim drl
reports it: the attempts it decided, the messages it sent, and the exact
overshoot of the admitted stream over the promise B + R·d, the supremum over
every length d (above 1 the design let more pass than the one bucket can),
with the excess in jobs.

The table gives offered load and the attempts the limiter admitted, attempts
per request (the retry amplification), the latency users see (first attempt
to success: admission, or with --server-rate the end of service downstream;
give-ups counted apart) and the downstream overflows. With --server-rate
"served" counts the requests that succeeded, and "admitted" the attempts the
limiter let pass, those the buffer lost included; --json adds the series in
bins of --bin (their "admitted" counts successes: served, with a server). --plot DIR draws clients-series (offered, retried and admitted requests
and give-ups per second over time, in bins of --bin, over the retry
amplification of each bin), with --server-rate downstream (the largest
number of jobs at the server in each bin against the buffer + 1, over the
jobs its full buffer lost) and latency-ccdf (the tail of the latency users
saw, log-log), and lists the files written on stderr.

--service runs the clients against servers that can collapse instead of a
limiter (issue 25): --servers servers in round robin, each serving
--server-concurrency jobs at once with service times from --service, and a
waiting room of --server-queue jobs taken in --server-order (fifo or lifo);
--contention stretches the service of the n-th job in service by
1 + contention·(n − 1). The client gives an attempt up after --timeout, while the
server still serves it (wasted work). --fault KIND[@SERVER]:FROM:TO[:X] (repeatable)
breaks a server over [FROM, TO): crash (jobs lost, new attempts refused), error
(answers fail with probability X), slow (service X times longer), capacity
(concurrency times X). A failed attempt (error, full queue, refused, timeout) is
retried by --backoff and --max-attempts if --retry-budget grants it: aws (the AWS
SDK for Go v2 retry quota: 500 tokens, 5 per retry, 10 per retry after a
timeout, +1 per success; its 3 attempts and 1 s full-jitter backoff unless
given), aws-adaptive (the same quota without the +1, and the SDK's CUBIC client
send-rate limiter, enabled by the first throttle error: a full queue or a
concurrency limit's refusal), grpc (gRFC A6 retry throttling, attempts capped at 5), finagle
(Finagle's RetryBudget), bucket (Brooker's retry token bucket) or breaker (no
retries while the failure fraction is over a threshold). --concurrency aimd, gradient2 or vegas puts Netflix's adaptive concurrency limit
(concurrency-limits AIMDLimit, Gradient2Limit, VegasLimit), or envoy Envoy's
adaptive concurrency filter (its gradient controller), in front of each server: an
attempt arriving with the limit in flight is rejected at once. --client-throttle sre
rejects requests locally with probability max(0, (requests − k·accepts)/(requests
+ 1)) over a sliding window. JSON "foreground" then gives retries,
retries_denied, backend_requests, timeouts, work_amplification (backend requests
per original request) and recovered_at_s: the first bin start after the last
fault ends at which goodput, averaged over --recovery-hold, is within 5% of its
level before the first fault (null when it did not recover by the end).

The series keeps at most 10^6 bins: a --bin that would cut the run into
more is refused, before the run when its span is known (generated requests,
closed-loop users) or when the run ends, naming a --bin that fits.

Exit codes: 0 success; 2 bad usage, bad input, or an output that cannot be
written; 3 internal error (a bug in ratesim: please report the message, the
version and the command line); 128 + the signal's number when stopped by a
signal: 129 SIGHUP, 130 SIGINT, 143 SIGTERM.`

func newClientsCmd() *cobra.Command {
	f := &clientsFlags{}
	cmd := &cobra.Command{
		Use:   "clients",
		Short: "Run clients that react to a limiter: retries with backoff and jitter, pacing, a downstream buffer, a backfill",
		Long:  clientsLong,
		Example: `  ratesim clients --arrivals 'cron:n=100,period=10' --jobs 1000 --rate 10 --limit 10 --backoff exponential
  ratesim clients --arrivals 'cron:n=100,period=10' --jobs 1000 --rate 10 --limit 10 --backoff full
  ratesim clients --profile 'nginx:rate=10r/s,burst=20' --arrivals poisson --load 1.5 --jobs 5000 --retry-after
  ratesim clients --arrivals 'cron:n=20,period=2' --jobs 2000 --rate 10 --limit 20 --server-rate 10 --buffer 2
  ratesim clients --design reconcile --nodes 4 --sync-period 100ms --police --arrivals 'cron:n=100,period=10' --jobs 1000 --rate 10 --limit 10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClients(cmd, f)
		},
	}
	f.register(cmd)
	keepNumberWording(cmd, clientstudy.ClientsTable)
	return cmd
}

// register defines the flags of ratesim clients on cmd.
func (f *clientsFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	clientstudy.ClientsTable.Bind(fl, &f.p) // the run's parameters, as a clients block's keys
	fl.Lookup("design").Usage = "a distributed rate-limiting design instead of --limiter, one of " + strings.Join(drl.Designs, ", ") + ", with limit (--rate, --limit) and the design flags of ratesim drl"
	fl.StringVar(&f.trace, "trace", "", "read the open-loop request instants from this trace (formats as in ratesim run)")
	addTraceFormatFlags(fl, &f.traceFmt)
	fl.StringVar(&f.traceOpt.TimeCol, "time-col", "", "trace column of arrival times: a header name or a 1-based index (default the first column)")
	fl.StringVar(&f.traceOpt.TimeFormat, "time-format", "unix", "trace time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.BoolVar(&f.traceOpt.Sort, "sort", false, "sort the trace by time in memory instead of failing on an out-of-order line")
	fl.BoolVar(&f.traceOpt.SkipBad, "skip-bad", false, "skip malformed or out-of-order trace lines and report how many")
	addMaxMemory(fl, &f.maxMemory)
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object")
	fl.StringVar(&f.plot, "plot", "", "draw the figures into this folder: offered, retried, admitted requests and retry amplification over time (in bins of --bin), the latency tail (CCDF)")
	markOutput(cmd, "plot", outputFolder)
	fl.StringVar(&f.plotFormat, "plot-format", "png", "format of the --plot figures: png, svg or pdf")
	f.drlCmd, f.drl = newDRLCmdFlags()
	for _, name := range drlClientFlags {
		fl.AddFlag(f.drlCmd.Flags().Lookup(name))
	}
	cmd.MarkFlagsMutuallyExclusive("limiter", "profile", "design")
	cmd.MarkFlagsMutuallyExclusive("arrivals", "trace")
	cmd.MarkFlagsMutuallyExclusive("load", "trace")
}

// paramFlag is the flag of a parameter of clientstudy.ClientsParams: its
// YAML key in kebab case (max_attempts is --max-attempts).
func paramFlag(param string) string { return strings.ReplaceAll(param, "_", "-") }

// spec binds the flags given to the parameters and parses them with
// clientstudy.ClientsParams.Spec, the parser of a sweep spec's clients
// block, its errors naming the flags; then builds the --design.
func (f *clientsFlags) spec(cmd *cobra.Command) (clientstudy.ClientsSpec, error) {
	changed := cmd.Flags().Changed
	p := &f.p
	p.Given = func(param string) bool { return changed(paramFlag(param)) }
	p.Name = func(param string) string { return "--" + paramFlag(param) }
	p.Trace, p.TraceOptions = nil, nil
	var err error
	if p.MaxMemory, err = maxMemory(f.maxMemory); err != nil {
		return clientstudy.ClientsSpec{}, err
	}
	if f.trace != "" {
		p.Trace, p.TraceOptions = &clientstudy.ClientsTrace{Path: f.trace}, &f.traceOpt
	}
	if changed("design") {
		if !slices.Contains(drl.Designs, p.Design) {
			return clientstudy.ClientsSpec{}, flagError("design", p.Design, "one of "+strings.Join(drl.Designs, ", "))
		}
	} else {
		p.Design = ""
		for _, name := range drlClientFlags {
			if changed(name) {
				return clientstudy.ClientsSpec{}, fmt.Errorf("--%s applies with --design only", name)
			}
		}
	}
	s, err := p.Spec()
	if err != nil {
		return s, clientsParamError(err)
	}
	if p.Design != "" {
		if err := f.readDesign(&s); err != nil {
			return s, err
		}
	}
	if f.trace == "" {
		for _, name := range append([]string{"time-col", "time-format", "sort", "skip-bad"}, traceFormatFlagNames...) {
			if changed(name) {
				return s, fmt.Errorf("--%s applies to trace input only: use it with --trace", name)
			}
		}
	} else if err := f.traceFmt.apply(&f.traceOpt, changed, p.Seed); err != nil {
		return s, err
	}
	return s, nil
}

// clientsParamError words an invalid --profile as ratesim limiters does
// (with the profile's keys); other errors already name their flags.
func clientsParamError(err error) error {
	var pe *clientstudy.ParamError
	if errors.As(err, &pe) && pe.Param == "profile" {
		if _, perr := parseProfiles([]string{pe.Value.(string)}); perr != nil {
			return perr
		}
	}
	return err
}

// readDesign reads --design, its limit (--rate, --limit) and the design
// flags borrowed from ratesim drl into s.Remote: a fresh drl.Online per
// run, every request of one key.
func (f *clientsFlags) readDesign(s *clientstudy.ClientsSpec) error {
	d := *f.drl
	d.p.Designs, d.p.Rate, d.p.Burst, d.p.Seed = f.p.Design, f.p.Rate, strconv.FormatInt(f.p.Limit, 10), f.p.Seed
	p, err := d.params(f.drlCmd)
	if err != nil {
		return err
	}
	ds, _, err := p.Spec()
	var pe *drl.ParamError
	if errors.As(err, &pe) && pe.Param == "burst" {
		// The design's burst is --limit (a burst below one token per node
		// of a design that keeps a bucket per node, say).
		return flagError("limit", f.p.Limit, pe.Want)
	}
	if err != nil {
		return paramFlagError(err)
	}
	ds.Design = f.p.Design
	s.RemoteName = "drl " + f.p.Design
	s.RemoteParams = ds.Describe()
	s.Remote = func(origin int64) (clients.Remote, error) {
		ds := ds
		ds.Origin = origin // fixed windows on the trace's clock
		o, err := drl.NewOnline(ds)
		f.online, f.designSpec = o, ds
		return o, err
	}
	return nil
}

func runClients(cmd *cobra.Command, f *clientsFlags) error {
	spec, err := f.spec(cmd)
	if err != nil {
		return err
	}
	if err := f.checkPlot(cmd); err != nil {
		return err
	}
	a, err := f.p.OpenArrivals(cmd.Context(), &spec)
	if err != nil {
		return err
	}
	defer a.Close()
	f.meanRate = spec.Offered
	proc := a.Process
	if err := f.checkBins(spec); err != nil {
		return err
	}
	res, err := clientstudy.RunClients(cmd.Context(), spec, proc)
	var tooMany *clients.ErrTooManyBins
	if errors.As(err, &tooMany) {
		return binError(f.p.Bin, tooMany)
	}
	if err != nil {
		return err
	}
	if tr := a.Trace; tr != nil && tr.Skipped() > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: skipped %d bad lines of %s; the first: %v\n", tr.Skipped(), f.trace, cliMessage(tr.FirstSkipped()))
	}
	var design *drl.Summary
	if f.online != nil {
		r, err := f.online.Finish()
		if err != nil {
			return err
		}
		sm, err := drl.Summarize(r, f.designSpec.Bucket, nil, f.designSpec.RateWindow)
		if err != nil {
			return err
		}
		design = &sm
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		writeClientsJSON(w, res, design, f)
	} else {
		writeClientsTable(w, res, design, f)
	}
	if w.err != nil {
		return fmt.Errorf("writing the result: %w", w.err)
	}
	if f.plot != "" {
		figs := clientstudy.ClientsFigures(res, f.caption(res))
		if len(figs) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: --plot: nothing to draw (no series with --bin 0, and no request succeeded)\n")
		}
		paths, err := experiments.SaveFiguresContext(cmd.Context(), figs, f.plot, f.plotFormat)
		noteFigures(cmd.ErrOrStderr(), paths)
		if err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	return nil
}

// checkBins refuses --bin before the run when the run's span is known to
// need more than clients.MaxBins bins: the expected span of --jobs
// generated requests, or the --horizon of closed-loop users.
func (f *clientsFlags) checkBins(spec clientstudy.ClientsSpec) error {
	w := spec.Scenario.Bin
	if w <= 0 {
		return nil
	}
	var end engine.Time
	if f.meanRate > 0 && spec.MaxJobs > 1 {
		end = engine.Time(min(float64(spec.MaxJobs-1)/f.meanRate*1e9, math.MaxInt64/2))
	}
	if f.p.Users > 0 {
		end = max(end, spec.Scenario.Horizon)
	}
	if end/w >= clients.MaxBins {
		return binError(f.p.Bin, &clients.ErrTooManyBins{Bin: w, At: end})
	}
	return nil
}

// binError says which --bin would fit a run whose series needs too many
// bins.
func binError(text string, e *clients.ErrTooManyBins) error {
	return fmt.Errorf("--bin %s: the run reaches %v s, more than 10^6 bins (the most a series keeps): want --bin %v s or wider, or --bin 0 for no series",
		text, e.At, e.Fits())
}

// checkPlot checks --plot and --plot-format before the run and creates
// the --plot folder.
func (f *clientsFlags) checkPlot(cmd *cobra.Command) error {
	if !validFormat(f.plotFormat) {
		return flagError("plot-format", f.plotFormat, "png, svg or pdf")
	}
	if f.plot == "" {
		if cmd.Flags().Changed("plot") {
			return flagError("plot", "''", "a folder to draw the figures into")
		}
		if cmd.Flags().Changed("plot-format") {
			return fmt.Errorf("--plot-format applies with --plot DIR")
		}
		return nil
	}
	if err := checkDirNotInput("plot", f.plot, []string{"*." + f.plotFormat}, f.trace, drl.DelayFile(f.drl.p.RTT), drl.DelayFile(f.drl.p.SyncDelay)); err != nil {
		return err
	}
	if err := os.MkdirAll(f.plot, 0o755); err != nil {
		return flagError("plot", f.plot, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	return nil
}

// caption describes a clients run under its figures.
func (f *clientsFlags) caption(res *clientstudy.ClientsResult) string {
	sc := res.Spec.Scenario
	c := fmt.Sprintf("%s; limiter %s %s", res.Spec.Input, res.Limiter, res.Params)
	if res.Spec.Overload != nil {
		c = fmt.Sprintf("%s; %s", res.Spec.Input, res.Params)
	}
	switch {
	case f.p.Pace != "":
		c += fmt.Sprintf("; paced to %s requests/s", f.p.Pace)
	default:
		c += fmt.Sprintf("; backoff %s (base %s, cap %s)", f.p.Backoff, f.p.Base, f.p.Cap)
		if sc.Retry.MaxAttempts > 0 {
			c += fmt.Sprintf(", at most %d attempts", sc.Retry.MaxAttempts)
		}
		if f.p.RetryAfter {
			c += ", obeying Retry-After"
		}
	}
	if f.p.ServerRate != "" {
		c += fmt.Sprintf("; downstream server %s jobs/s, buffer %d", f.p.ServerRate, f.p.Buffer)
	}
	return c + fmt.Sprintf("; seed %d", f.p.Seed)
}
