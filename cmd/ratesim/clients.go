package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// clientsFlags are the flags of ratesim clients.
type clientsFlags struct {
	limiter  string
	profile  string
	rate     string
	limit    int64
	window   string
	queue    int
	process  string
	load     float64
	jobs     int64
	trace    string
	traceOpt arrivals.TraceOptions
	traceFmt traceFormatFlags

	users   int
	think   string
	horizon string

	backoff          string
	base, cap        string
	maxAttempts      int
	deadline         string
	retryAfter       bool
	retryAfterJitter string

	pace       string
	paceJitter string

	serverRate string
	buffer     int

	backfill                 int64
	bfFraction, bfMin, bfMax float64
	bfIncrease, bfDecrease   float64
	bfTarget, bfInterval     string
	bin                      string
	seed                     uint64
	json                     bool
	plot, plotFormat         string
	meanRate                 float64 // of the generated process, requests/s

	design string         // a drl design instead of --limiter
	drlCmd *cobra.Command // the drl command whose design flags are borrowed
	drl    *drlFlags
	// online is the design of the run, and designSpec its specification.
	online     *drl.Online
	designSpec drl.Spec
}

// drlClientFlags are the flags of ratesim drl that ratesim clients takes
// with --design, with the same meaning ('ratesim drl --help').
var drlClientFlags = []string{"nodes", "dispatch", "police", "rtt", "outage", "outage-process", "store-limiter", "store-cache", "fail",
	"sync-period", "batch-limit", "sync-delay", "loss", "local", "lease-size", "lease-ttl", "estimate-interval", "smoothing", "exchange", "fanout"}

func newClientsCmd() *cobra.Command {
	f := &clientsFlags{}
	cmd := &cobra.Command{
		Use:   "clients",
		Short: "Run clients that react to a limiter: retries with backoff and jitter, pacing, a downstream buffer, a backfill",
		Long: `Clients runs a population of clients against one limiter and measures what
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
lease, grd, fps) enforcing the limit R = --rate, B = --limit over --nodes
nodes, with the design flags of 'ratesim drl' (--police, --dispatch, --rtt,
--sync-period, --sync-delay, --lease-size, --estimate-interval, ...; every
request is of one key). A request is decided on the state the design has
when it is made, after the design's messages up to then; a design that asks
a store answers a round trip later (store, lease), and the client waits for
the answer: a refusal is backed off from the instant it arrives. The
"design" line (JSON "design") gives what the design did, as ratesim drl
reports it: the attempts it decided, the messages it sent, and the worst
overshoot of the admitted stream over the promise B + R·d (above 1 the
design let more pass than the one bucket can).

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

The series keeps at most 10^6 bins: a --bin that would cut the run into
more is refused, before the run when its span is known (generated requests,
closed-loop users) or when the run ends, naming a --bin that fits.

Exit codes: 0 success; 2 bad usage, bad input, or an output that cannot be
written; 3 internal error (a bug in ratesim: please report the message, the
version and the command line); 128 + the signal's number when stopped by a
signal: 129 SIGHUP, 130 SIGINT, 143 SIGTERM.`,
		Example: `  ratesim clients --arrivals 'cron:n=100,period=10' --jobs 1000 --rate 10 --limit 10 --backoff exponential
  ratesim clients --arrivals 'cron:n=100,period=10' --jobs 1000 --rate 10 --limit 10 --backoff full
  ratesim clients --profile 'nginx:rate=10r/s,burst=20' --arrivals poisson --load 1.5 --jobs 5000 --retry-after
  ratesim clients --arrivals 'cron:n=20,period=2' --jobs 2000 --rate 10 --limit 20 --server-rate 10 --buffer 2
  ratesim clients --design sync --nodes 4 --sync-period 100ms --police --arrivals 'cron:n=100,period=10' --jobs 1000 --rate 10 --limit 10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClients(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.limiter, "limiter", "token-police", "the limiter, one of "+strings.Join(experiments.LimiterNames, ", "))
	fl.StringVar(&f.profile, "profile", "", "a library-faithful limiter instead of --limiter, 'NAME:key=value,...' (see 'ratesim limiters --help')")
	fl.StringVar(&f.rate, "rate", "10", "--limiter: rate R, tokens/s (exact: a decimal or p/q, > 0)")
	fl.Int64Var(&f.limit, "limit", 10, "--limiter: burst b in tokens, or window limit in jobs (>= 1)")
	fl.StringVar(&f.window, "window", "1", "--limiter: window length of the window limiters, seconds or with a unit (> 0)")
	fl.IntVar(&f.queue, "queue", 0, "--limiter: queue capacity of token-shape and leaky-queue, jobs (0: unbounded; default --limit)")
	fl.StringVar(&f.process, "arrivals", "poisson", "open-loop requests: poisson, periodic (λ = load·rate) or an arrival spec as in ratesim run, such as 'cron:n=100,period=10'")
	fl.Float64Var(&f.load, "load", 1.2, "offered load λ/R where the arrival spec gives no rate (> 0)")
	fl.Int64Var(&f.jobs, "jobs", 10_000, "open-loop requests (>= 0; 0 with --users for closed-loop users only); with --trace, all unless given")
	fl.StringVar(&f.trace, "trace", "", "read the open-loop request instants from this trace (formats as in ratesim run)")
	addTraceFormatFlags(fl, &f.traceFmt)
	fl.StringVar(&f.traceOpt.TimeCol, "time-col", "", "trace column of arrival times: a header name or a 1-based index (default the first column)")
	fl.StringVar(&f.traceOpt.TimeFormat, "time-format", "unix", "trace time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.BoolVar(&f.traceOpt.Sort, "sort", false, "sort the trace by time in memory instead of failing on an out-of-order line")
	fl.BoolVar(&f.traceOpt.SkipBad, "skip-bad", false, "skip malformed or out-of-order trace lines and report how many")
	fl.IntVar(&f.users, "users", 0, "closed-loop users (>= 0), each sending its next request --think after the previous one ends")
	fl.StringVar(&f.think, "think", "1", "closed-loop users' think time, seconds or with a unit (>= 0)")
	fl.StringVar(&f.horizon, "horizon", "60", "closed-loop users start requests until this instant, seconds or with a unit (> 0)")
	fl.StringVar(&f.backoff, "backoff", "exponential", "retry backoff: "+strings.Join(clients.BackoffNames(), ", "))
	fl.StringVar(&f.base, "base", "100ms", "backoff base, seconds or with a unit (> 0 except for none)")
	fl.StringVar(&f.cap, "cap", "10s", "backoff cap, seconds or with a unit (>= --base)")
	fl.IntVar(&f.maxAttempts, "max-attempts", 10, "attempts of one request, the first included, before it is given up (>= 1; 0 for no bound)")
	fl.StringVar(&f.deadline, "deadline", "0", "give a request up when its next attempt would come this long after its arrival, seconds or with a unit (0: no deadline)")
	fl.BoolVar(&f.retryAfter, "retry-after", false, "obey the limiter's Retry-After where it gives one, and --backoff elsewhere")
	fl.StringVar(&f.retryAfterJitter, "retry-after-jitter", "0", "with --retry-after: add a draw uniform on [0, this] to Retry-After, seconds or with a unit")
	fl.StringVar(&f.pace, "pace", "", "pace the open-loop requests to at most this many per second in front of the limiter (exact, > 0)")
	fl.StringVar(&f.paceJitter, "pace-jitter", "0", "with --pace: add a draw uniform on [0, this] to each gap, seconds or with a unit")
	fl.StringVar(&f.serverRate, "server-rate", "", "feed every passing request to a downstream FIFO server of this service rate, jobs/s (exact, > 0)")
	fl.IntVar(&f.buffer, "buffer", 10, "with --server-rate: the server's waiting room, jobs (>= 0), not counting the job in service")
	fl.Int64Var(&f.backfill, "backfill", 0, "add a backfill of this many requests, paced to a fraction of --server-rate adjusted by AIMD (needs --server-rate)")
	fl.Float64Var(&f.bfFraction, "backfill-fraction", 0.5, "backfill: initial fraction of --server-rate, in [--backfill-min, --backfill-max]")
	fl.Float64Var(&f.bfMin, "backfill-min", 0.05, "backfill: least fraction, in (0, 1]")
	fl.Float64Var(&f.bfMax, "backfill-max", 1, "backfill: largest fraction, in (0, 1]")
	fl.Float64Var(&f.bfIncrease, "backfill-increase", 0.05, "backfill: added to the fraction after an interval at or under target (>= 0)")
	fl.Float64Var(&f.bfDecrease, "backfill-decrease", 0.5, "backfill: factor of the fraction after an interval over target, in (0, 1]")
	fl.StringVar(&f.bfTarget, "backfill-target", "10ms", "backfill: the foreground's mean queueing delay downstream over which it slows down, seconds or with a unit")
	fl.StringVar(&f.bfInterval, "backfill-interval", "1s", "backfill: control period, seconds or with a unit (> 0)")
	fl.StringVar(&f.bin, "bin", "1s", "width of the series bins in the JSON and --plot, seconds or with a unit (0: no series; at most 10^6 bins over the run)")
	fl.Uint64VarP(&f.seed, "seed", "s", 1, "root seed: each client's jitter and each component draw from their own streams of it")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object")
	fl.StringVar(&f.plot, "plot", "", "draw the figures into this folder: offered, retried, admitted requests and retry amplification over time (in bins of --bin), the latency tail (CCDF)")
	markOutput(cmd, "plot", outputFolder)
	fl.StringVar(&f.plotFormat, "plot-format", "png", "format of the --plot figures: png, svg or pdf")
	fl.StringVar(&f.design, "design", "", "a distributed rate-limiting design instead of --limiter, one of "+strings.Join(drl.Designs, ", ")+", with limit (--rate, --limit) and the design flags of ratesim drl")
	f.drlCmd, f.drl = newDRLCmdFlags()
	for _, name := range drlClientFlags {
		fl.AddFlag(f.drlCmd.Flags().Lookup(name))
	}
	cmd.MarkFlagsMutuallyExclusive("limiter", "profile", "design")
	cmd.MarkFlagsMutuallyExclusive("arrivals", "trace")
	cmd.MarkFlagsMutuallyExclusive("load", "trace")
	return cmd
}

// span parses a time flag into whole nanoseconds >= 0 (> 0 when positive
// is set).
func span(flag, text string, positive bool) (engine.Time, error) {
	secs, err := parseSeconds(flag, text)
	if err != nil {
		return 0, err
	}
	if secs.Sign() < 0 || positive && secs.Sign() == 0 {
		want := "a time >= 0 s"
		if positive {
			want = "a time > 0 s"
		}
		return 0, flagError(flag, text, want)
	}
	return nanos(flag, text, secs)
}

// spec validates the flags and builds the run specification.
func (f *clientsFlags) spec(cmd *cobra.Command) (experiments.ClientsSpec, error) {
	changed := cmd.Flags().Changed
	var s experiments.ClientsSpec
	var err error
	s.Scenario.Seed = f.seed
	if changed("profile") {
		ps, err := parseProfiles([]string{f.profile})
		if err != nil {
			return s, err
		}
		s.Profile = &ps[0]
		for _, name := range []string{"rate", "limit", "window", "queue"} {
			if changed(name) {
				return s, fmt.Errorf("--%s applies to --limiter only: a --profile gives its own parameters", name)
			}
		}
	} else if changed("design") {
		if err := f.readDesign(&s, changed); err != nil {
			return s, err
		}
	} else if !slices.Contains(experiments.LimiterNames, f.limiter) {
		return s, flagError("limiter", f.limiter, "one of "+strings.Join(experiments.LimiterNames, ", "))
	}
	if !changed("design") {
		for _, name := range drlClientFlags {
			if changed(name) {
				return s, fmt.Errorf("--%s applies with --design only", name)
			}
		}
	}
	s.Limiter = f.limiter
	l, err := familyLimits(changed, f.limit, f.rate, f.window, f.queue, false)
	if err != nil {
		return s, err
	}
	l.Seed = f.seed
	s.Limits = l

	sc := &s.Scenario
	if err := f.retry(sc, changed); err != nil {
		return s, err
	}
	if f.users < 0 {
		return s, flagError("users", f.users, "a number of closed-loop users >= 0")
	}
	if f.users > 0 {
		sc.Users = f.users
		think, err := span("think", f.think, false)
		if err != nil {
			return s, err
		}
		sc.Think = clients.Fixed(think.Seconds())
		if sc.Horizon, err = span("horizon", f.horizon, true); err != nil {
			return s, err
		}
	} else if changed("think") || changed("horizon") {
		return s, fmt.Errorf("--think and --horizon apply with --users only")
	}
	if f.jobs < 0 {
		return s, flagError("jobs", f.jobs, "a number of requests >= 0")
	}
	if f.jobs == 0 && f.users == 0 {
		return s, flagError("jobs", f.jobs, "at least one request: --jobs >= 1, or closed-loop --users")
	}
	if changed("jobs") || f.trace == "" {
		s.MaxJobs = f.jobs
	}
	if f.trace == "" {
		for _, name := range append([]string{"time-col", "time-format", "sort", "skip-bad"}, traceFormatFlagNames...) {
			if changed(name) {
				return s, fmt.Errorf("--%s applies to trace input only: use it with --trace", name)
			}
		}
	} else if err := f.traceFmt.apply(&f.traceOpt, changed, f.seed); err != nil {
		return s, err
	}
	if changed("pace") {
		rate, err := parseRat("pace", f.pace, "requests/s")
		if err != nil {
			return s, err
		}
		if rate.Sign() <= 0 || rate.Cmp(exact.Int(1e9)) > 0 {
			return s, flagError("pace", f.pace, "a rate in (0, 1e9] requests/s")
		}
		jit, err := span("pace-jitter", f.paceJitter, false)
		if err != nil {
			return s, err
		}
		sc.Pace = &clients.PaceParams{Rate: rate, Jitter: jit, MaxAttempts: sc.Retry.MaxAttempts}
	} else if changed("pace-jitter") {
		return s, fmt.Errorf("--pace-jitter applies with --pace only")
	}
	if err := f.server(sc, changed); err != nil {
		return s, err
	}
	if sc.Bin, err = span("bin", f.bin, false); err != nil {
		return s, err
	}
	return s, nil
}

// readDesign reads --design, its limit (--rate, --limit) and the design
// flags borrowed from ratesim drl into s.Remote: a fresh drl.Online per
// run, every request of one key.
func (f *clientsFlags) readDesign(s *experiments.ClientsSpec, changed func(string) bool) error {
	if !slices.Contains(drl.Designs, f.design) {
		return flagError("design", f.design, "one of "+strings.Join(drl.Designs, ", "))
	}
	for _, name := range []string{"window", "queue"} {
		if changed(name) {
			return fmt.Errorf("--%s applies to --limiter only: a --design takes --rate and --limit (its burst)", name)
		}
	}
	if f.design != "one" && f.limit < int64(f.drl.p.Nodes) {
		return flagError("limit", f.limit, fmt.Sprintf("a burst of at least one token per node: --limit >= --nodes %d", f.drl.p.Nodes))
	}
	d := *f.drl
	d.p.Designs, d.p.Rate, d.p.Burst, d.p.Seed = f.design, f.rate, strconv.FormatInt(f.limit, 10), f.seed
	_, ds, _, err := d.spec(f.drlCmd)
	if err != nil {
		return err
	}
	ds.Design = f.design
	s.RemoteName = "drl " + f.design
	s.RemoteParams = designParams(ds)
	s.Remote = func() (clients.Remote, error) {
		o, err := drl.NewOnline(ds)
		f.online, f.designSpec = o, ds
		return o, err
	}
	return nil
}

// designParams describes the parameters of a design that matter to it.
func designParams(s drl.Spec) string {
	p := fmt.Sprintf("R = %v tokens/s, B = %v tokens", s.Bucket.Rate, s.Bucket.Burst)
	if s.Design != "one" {
		p += fmt.Sprintf(", %d nodes, dispatch %s", s.Nodes, s.Dispatch)
	}
	switch s.Design {
	case "store":
		p += fmt.Sprintf(", round trip %v", s.RTT)
	case "sync":
		p += fmt.Sprintf(", sync period %v s, message delay %v, local %v", s.SyncPeriod, s.SyncDelay, s.Local)
	case "lease":
		p += fmt.Sprintf(", round trip %v, lease TTL %v s", s.RTT, s.LeaseTTL)
	case "grd", "fps":
		p += fmt.Sprintf(", estimate interval %v s, message delay %v", s.EstimateInterval, s.SyncDelay)
	}
	if s.Police || s.Design == "lease" || s.Design == "grd" || s.Design == "fps" {
		return p + ", policing"
	}
	return p + ", shaping"
}

// retry reads the retry flags into sc.Retry.
func (f *clientsFlags) retry(sc *clients.Scenario, changed func(string) bool) error {
	if !slices.Contains(clients.BackoffNames(), f.backoff) {
		return flagError("backoff", f.backoff, "one of "+strings.Join(clients.BackoffNames(), ", "))
	}
	base, err := span("base", f.base, f.backoff != "none")
	if err != nil {
		return err
	}
	capT, err := span("cap", f.cap, false)
	if err != nil {
		return err
	}
	if f.backoff != "none" && f.backoff != "constant" && capT < base {
		return flagError("cap", f.cap, fmt.Sprintf("a cap >= --base %v s", base))
	}
	b, err := clients.NewBackoff(f.backoff, base, capT)
	if err != nil {
		return fmt.Errorf("--backoff %s with --base %s and --cap %s: %v", f.backoff, f.base, f.cap, strings.TrimPrefix(err.Error(), "clients: "))
	}
	if f.retryAfter {
		jit, err := span("retry-after-jitter", f.retryAfterJitter, false)
		if err != nil {
			return err
		}
		b = clients.HonorRetryAfter{Fallback: b, Spread: jit}
	} else if changed("retry-after-jitter") {
		return fmt.Errorf("--retry-after-jitter applies with --retry-after only")
	}
	if f.maxAttempts < 0 {
		return flagError("max-attempts", f.maxAttempts, "a number of attempts >= 1, or 0 for no bound")
	}
	deadline, err := span("deadline", f.deadline, false)
	if err != nil {
		return err
	}
	sc.Retry = clients.RetryPolicy{Backoff: b, MaxAttempts: f.maxAttempts, Deadline: deadline}
	return nil
}

// server reads the downstream and backfill flags into sc.
func (f *clientsFlags) server(sc *clients.Scenario, changed func(string) bool) error {
	bfFlags := []string{"backfill-fraction", "backfill-min", "backfill-max", "backfill-increase", "backfill-decrease", "backfill-target", "backfill-interval"}
	if !changed("server-rate") {
		for _, name := range append([]string{"buffer", "backfill"}, bfFlags...) {
			if changed(name) {
				return fmt.Errorf("--%s applies with --server-rate only", name)
			}
		}
		return nil
	}
	rate, err := parseRat("server-rate", f.serverRate, "jobs/s")
	if err != nil {
		return err
	}
	if rate.Sign() <= 0 || rate.Cmp(exact.Int(1e9)) > 0 {
		return flagError("server-rate", f.serverRate, "a service rate in (0, 1e9] jobs/s")
	}
	if f.buffer < 0 {
		return flagError("buffer", f.buffer, "a waiting room >= 0 jobs")
	}
	sc.Server = &clients.ServerParams{Rate: rate, Buffer: f.buffer}
	if !changed("backfill") {
		for _, name := range bfFlags {
			if changed(name) {
				return fmt.Errorf("--%s applies with --backfill only", name)
			}
		}
		return nil
	}
	if f.backfill < 1 {
		return flagError("backfill", f.backfill, "a number of backfill requests >= 1")
	}
	p := clients.BackfillParams{Capacity: rate, Initial: f.bfFraction, Min: f.bfMin, Max: f.bfMax,
		Increase: f.bfIncrease, Decrease: f.bfDecrease, Live: sc.Retry.Class, Class: sc.Retry.Class + 1, MaxAttempts: sc.Retry.MaxAttempts}
	if p.Target, err = span("backfill-target", f.bfTarget, false); err != nil {
		return err
	}
	if p.Interval, err = span("backfill-interval", f.bfInterval, true); err != nil {
		return err
	}
	switch {
	case !(p.Min > 0 && p.Min <= 1):
		return flagError("backfill-min", f.bfMin, "a fraction in (0, 1]")
	case !(p.Max >= p.Min && p.Max <= 1):
		return flagError("backfill-max", f.bfMax, fmt.Sprintf("a fraction in [--backfill-min %v, 1]", p.Min))
	case !(p.Initial >= p.Min && p.Initial <= p.Max):
		return flagError("backfill-fraction", f.bfFraction, fmt.Sprintf("a fraction in [--backfill-min %v, --backfill-max %v]", p.Min, p.Max))
	case !(p.Increase >= 0 && !math.IsInf(p.Increase, 0)):
		return flagError("backfill-increase", f.bfIncrease, "a finite increase >= 0")
	case !(p.Decrease > 0 && p.Decrease <= 1):
		return flagError("backfill-decrease", f.bfDecrease, "a factor in (0, 1]")
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("--backfill: %v", strings.TrimPrefix(err.Error(), "clients: "))
	}
	sc.Backfill, sc.BackfillItems = &p, f.backfill
	return nil
}

// arrivalProcess builds the open-loop request process, or nil for
// closed-loop users only.
func (f *clientsFlags) arrivalProcess(cmd *cobra.Command, s experiments.ClientsSpec) (arrivals.Process, func() error, string, error) {
	if f.trace != "" {
		a, err := experiments.BuildArrivals(cmd.Context(), experiments.ArrivalsSpec{Trace: f.trace, TraceOptions: f.traceOpt}, f.seed)
		if err != nil {
			return nil, nil, "", err
		}
		return a.Process, a.Close, "trace " + f.trace, nil
	}
	if s.MaxJobs == 0 {
		return nil, nil, fmt.Sprintf("%d closed-loop users, think %v s, until %v s", f.users, float64(s.Scenario.Think.(clients.Fixed)), s.Scenario.Horizon.Seconds()), nil
	}
	rate := s.Limits.Rate
	if s.Profile != nil && !strings.Contains(f.process, "rate=") {
		return nil, nil, "", fmt.Errorf("--arrivals %s: with --profile give the arrival rate in the spec (such as 'poisson:rate=15'): --load is relative to --rate, which a profile does not use", f.process)
	}
	g, err := buildGenerated(f.process, f.load, rate, f.seed, cmd.Flags().Changed("load"))
	if err != nil {
		return nil, nil, "", err
	}
	f.meanRate = g.MeanRate
	return g, nil, fmt.Sprintf("%s, %d requests (mean %.6g requests/s)", g.Spec, s.MaxJobs, g.MeanRate), nil
}

func runClients(cmd *cobra.Command, f *clientsFlags) error {
	spec, err := f.spec(cmd)
	if err != nil {
		return err
	}
	if err := f.checkPlot(cmd); err != nil {
		return err
	}
	proc, closeProc, input, err := f.arrivalProcess(cmd, spec)
	if err != nil {
		return err
	}
	if closeProc != nil {
		defer closeProc()
	}
	if f.users > 0 && proc != nil {
		input += fmt.Sprintf("; %d closed-loop users, think %s, until %s", f.users, f.think, f.horizon)
	}
	spec.Input, spec.Offered = input, f.meanRate
	if err := f.checkBins(spec); err != nil {
		return err
	}
	res, err := experiments.RunClients(cmd.Context(), spec, proc)
	var tooMany *clients.ErrTooManyBins
	if errors.As(err, &tooMany) {
		return binError(f.bin, tooMany)
	}
	if err != nil {
		return err
	}
	if tr, ok := proc.(*arrivals.Trace); ok && tr.Skipped() > 0 {
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
		figs := experiments.ClientsFigures(res, f.caption(res))
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
func (f *clientsFlags) checkBins(spec experiments.ClientsSpec) error {
	w := spec.Scenario.Bin
	if w <= 0 {
		return nil
	}
	var end engine.Time
	if f.meanRate > 0 && spec.MaxJobs > 1 {
		end = engine.Time(min(float64(spec.MaxJobs-1)/f.meanRate*1e9, math.MaxInt64/2))
	}
	if f.users > 0 {
		end = max(end, spec.Scenario.Horizon)
	}
	if end/w >= clients.MaxBins {
		return binError(f.bin, &clients.ErrTooManyBins{Bin: w, At: end})
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
	if err := checkDirNotInput("plot", f.plot, []string{"*." + f.plotFormat}, f.trace); err != nil {
		return err
	}
	if err := os.MkdirAll(f.plot, 0o755); err != nil {
		return flagError("plot", f.plot, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	return nil
}

// caption describes a clients run under its figures.
func (f *clientsFlags) caption(res *experiments.ClientsResult) string {
	sc := res.Spec.Scenario
	c := fmt.Sprintf("%s; limiter %s %s", res.Spec.Input, res.Limiter, res.Params)
	switch {
	case f.pace != "":
		c += fmt.Sprintf("; paced to %s requests/s", f.pace)
	default:
		c += fmt.Sprintf("; backoff %s (base %s, cap %s)", f.backoff, f.base, f.cap)
		if sc.Retry.MaxAttempts > 0 {
			c += fmt.Sprintf(", at most %d attempts", sc.Retry.MaxAttempts)
		}
		if f.retryAfter {
			c += ", obeying Retry-After"
		}
	}
	if f.serverRate != "" {
		c += fmt.Sprintf("; downstream server %s jobs/s, buffer %d", f.serverRate, f.buffer)
	}
	return c + fmt.Sprintf("; seed %d", f.seed)
}

// clientsJSON is the --json output.
type clientsJSON struct {
	jsonHeader
	Input   string  `json:"input"`
	Seed    uint64  `json:"seed"`
	Backoff string  `json:"backoff"`
	Base    float64 `json:"backoff_base_s"`
	Cap     float64 `json:"backoff_cap_s"`
	MaxAtt  int     `json:"max_attempts"` // 0: no bound
	Deadln  float64 `json:"deadline_s"`   // 0: none
	RetryAf bool    `json:"retry_after"`
	Pace    string  `json:"pace_requests_per_s,omitempty"`
	Server  string  `json:"server_rate_jobs_per_s,omitempty"`
	Buffer  *int    `json:"buffer_jobs,omitempty"`
	Bin     float64 `json:"bin_s"`
	*experiments.ClientsResult
	// Design is what a --design did with the attempts (ratesim drl's
	// figures: messages, overshoot, ...).
	Design *drl.Summary `json:"design,omitempty"`
}

func writeClientsJSON(w io.Writer, res *experiments.ClientsResult, design *drl.Summary, f *clientsFlags) {
	sc := res.Spec.Scenario
	out := clientsJSON{jsonHeader: newJSONHeader(), Input: res.Spec.Input, Seed: f.seed, Backoff: f.backoff, MaxAtt: sc.Retry.MaxAttempts,
		Deadln: sc.Retry.Deadline.Seconds(), RetryAf: f.retryAfter, Bin: sc.Bin.Seconds(), ClientsResult: res, Design: design}
	out.Base, out.Cap = secondsOf(f.base), secondsOf(f.cap)
	if sc.Pace != nil {
		out.Pace = sc.Pace.Rate.String()
	}
	if sc.Server != nil {
		out.Server = sc.Server.Rate.String()
		out.Buffer = &sc.Server.Buffer
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // write errors are kept by the errWriter
}

// secondsOf returns a validated time flag in seconds.
func secondsOf(text string) float64 {
	s, _ := parseSeconds("", text)
	return s.Float64()
}

func writeClientsTable(w io.Writer, res *experiments.ClientsResult, design *drl.Summary, f *clientsFlags) {
	sc := res.Spec.Scenario
	fmt.Fprintf(w, "input      %s; seed %d\n", res.Spec.Input, f.seed)
	fmt.Fprintf(w, "limiter    %s: %s\n", res.Limiter, res.Params)
	retry := fmt.Sprintf("backoff %s, base %s, cap %s", f.backoff, f.base, f.cap)
	if f.backoff == "none" {
		retry = "no backoff"
	}
	if f.retryAfter {
		if h, ok := sc.Retry.Backoff.(clients.HonorRetryAfter); ok && h.Spread > 0 {
			retry = fmt.Sprintf("Retry-After plus up to %v s, else %s", h.Spread, retry)
		} else {
			retry = "Retry-After, else " + retry
		}
	}
	if sc.Retry.MaxAttempts > 0 {
		retry += fmt.Sprintf(", at most %d attempts", sc.Retry.MaxAttempts)
	}
	if sc.Retry.Deadline > 0 {
		retry += fmt.Sprintf(", deadline %v s", sc.Retry.Deadline)
	}
	fmt.Fprintf(w, "retry      %s\n", retry)
	if p := sc.Pace; p != nil {
		jit := ""
		if p.Jitter > 0 {
			jit = fmt.Sprintf(", each gap plus up to %v s of jitter", p.Jitter)
		}
		fmt.Fprintf(w, "pacing     at most %v requests/s (gaps >= %v s)%s\n", p.Rate, p.Spacing(), jit)
	}
	if s := sc.Server; s != nil {
		fmt.Fprintf(w, "server     FIFO at %v jobs/s, waiting room %d jobs\n", s.Rate, s.Buffer)
	}
	fg := res.Foreground
	fmt.Fprintf(w, "\n%-11s %9s %9s %9s %8s %8s %8s %10s %10s %9s %9s %9s %9s\n",
		"", "requests", "attempts", "admitted", "give-ups", "ampl.", "att/adm.", "admitted/s", "drain (s)", "mean (s)", "p50 (s)", "p99 (s)", "max (s)")
	row := func(name string, s experiments.ClientSummary) {
		fmt.Fprintf(w, "%-11s %9d %9d %9d %8d %8.3f %8.3f %10.4g %10.4g %9.4g %9.4g %9.4g %9.4g\n", name, s.Requests, s.Attempts, s.Successes, s.GiveUps,
			float64(s.Amplification), float64(s.AttemptsPerSuccess), s.Goodput, s.Drain, s.MeanLatency, s.P50Latency, s.P99Latency, s.MaxLatency)
	}
	row("foreground", fg)
	if res.Backfill != nil {
		row("backfill", *res.Backfill)
	}
	if res.Offered > 0 {
		if fg.ServedRate != nil {
			fmt.Fprintf(w, "\noffered    %.6g requests/s, served %.6g requests/s\n", res.Offered, *fg.ServedRate)
		} else {
			fmt.Fprintf(w, "\noffered    %.6g requests/s, admitted %.6g requests/s\n", res.Offered, fg.Goodput)
		}
	}
	if fg.Served != nil {
		fmt.Fprintf(w, "served     %d of %d requests served downstream (%.6g requests/s over the drain), of %d attempts admitted\n", *fg.Served, fg.Requests, *fg.ServedRate, fg.Successes)
	}
	if d := design; d != nil {
		fmt.Fprintf(w, "design     %d attempts decided, %d admitted; %d messages, %d lost; worst overshoot %.4g (%d jobs in %.4g s; above 1 breaks the promise)\n",
			d.Jobs, d.Admitted, d.Messages, d.Lost, d.Overshoot, d.OverJobs, d.OverD)
	}
	if len(res.Downstream) > 0 {
		fmt.Fprintf(w, "\n%-11s %9s %9s %9s %14s %14s\n", "downstream", "arrived", "overflows", "departed", "mean queue (s)", "max queue (s)")
		for _, c := range res.Downstream {
			fmt.Fprintf(w, "%-11s %9d %9d %9d %14.6g %14.6g\n", c.Class, c.Arrived, c.Overflows, c.Departed, c.MeanQueue, c.MaxQueue)
		}
	}
	if n := len(res.Controls); n > 0 {
		c := res.Controls[n-1]
		fmt.Fprintf(w, "backfill   %d control steps; fraction of capacity at the end %.4g\n", n, c.Fraction)
	}
	fmt.Fprintf(w, "\nampl.      retry amplification, attempts per original request; att/adm. attempts per admitted request\n")
	if sc.Server != nil {
		fmt.Fprintf(w, "latency    first attempt to the end of service downstream, served requests only (an attempt lost to the full buffer is retried); give-ups counted apart\n")
	} else {
		fmt.Fprintf(w, "latency    first attempt to admission by the limiter, admitted requests only; give-ups counted apart\n")
	}
}
