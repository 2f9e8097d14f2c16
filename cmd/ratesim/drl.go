package main

import (
	"cmp"
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
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
	"github.com/ratesim/ratesim/systems"
)

// drlFlags are the flags of ratesim drl.
type drlFlags struct {
	designs    string
	rate       string
	burst      string
	nodes      int
	dispatch   string
	police     bool
	scale      []string
	rtt        string
	outages    []string
	outageProc string
	storeCache bool
	storeLim   string
	fail       string
	syncPeriod string
	batchLimit int
	syncDelay  string
	loss       float64
	local      string
	leaseSize  int64
	leaseTTL   string
	estimate   string
	smoothing  float64
	exchange   string
	fanout     int
	process    string
	load       float64
	trace      string
	traceOpt   arrivals.TraceOptions
	traceFmt   traceFormatFlags
	jobs       int64
	seed       uint64
	json       bool
	plotDir    string
	plotFormat string
	rateWindow string
	sweeps     []string
}

func newDRLCmd() *cobra.Command {
	cmd, _ := newDRLCmdFlags()
	return cmd
}

// newDRLCmdFlags returns the drl command and the flags it parses into
// (ratesim clients borrows the design flags).
func newDRLCmdFlags() (*cobra.Command, *drlFlags) {
	f := &drlFlags{}
	cmd := &cobra.Command{
		Use:   "drl",
		Short: "Run distributed rate-limiting designs on the same arrivals and compare them with the one bucket",
		Long: `Drl feeds the same arrivals to each distributed rate-limiting design, a limit
(R, B) per key enforced by --nodes N nodes (see 'go doc ./drl'):

  one     the one bucket (R, B): the lower bound
  static  N sub-buckets (R/N, B/N) behind --dispatch; --scale AT:N re-splits
  store   a central bucket (R, B): each decision a round trip --rtt; while the
          store is down (--outage FROM:TO, --outage-process UP:DOWN) nodes
          --fail open, closed or local; --store-cache refuses a key the store
          refused, without asking, until its next token; --store-limiter gcra
          (redis-cell's GCRA) or fixed-window (L = B per W = B/R s, Redis
          INCR) in place of the bucket, both policing
  sync    local decisions reconciled through an owner per key (Gubernator's
          global behaviour): hits sent --sync-period after the first one or
          when --batch-limit keys are queued, the owner's state broadcast
          back; messages take --sync-delay and are lost with --loss
  lease   a node admits with tokens it holds; with none it asks a central
          bucket (R, B) for --lease-size tokens (a round trip --rtt); tokens
          unused --lease-ttl after the latest grant go back; shaping, a job
          with no token waits, in order, for the node's next grant
  grd     global random drop (Raghavan et al., SIGCOMM 2007): every
          --estimate-interval nodes report their smoothed demand (weight
          --smoothing) to a coordinator, which sends back the drop
          probability 1 - R/D for global demand D (a drop is the design:
          it polices with or without --police)
  fps     flow proportional share: the coordinator sends node l the share
          e_l/D; the node enforces (R·e_l/D, B·e_l/D); shaping, a job waits
          for its token at the node's current share

It reports for each the jobs admitted and rejected, the mean, p99 and largest
delay (network time plus the bucket's wait), the worst overshoot
α*(d)/(B + R·d) of a key's admitted stream and the interval length d where it
occurs (above 1 the promise is broken), the share of the run a key's admitted
rate over --rate-window exceeded R, the messages sent, the jobs decided
without the store, Jain's fairness index across nodes and keys, and, when
'one' runs too, the jobs admitted over it and rejected under it, job by job.

--sweep NAME=V1,V2,... (repeatable) runs every design at each point of the
grid; --plot DIR draws the admitted rate over time and the delay CCDF (or,
for a sweep of one numeric axis, overshoot and mean delay against it).

Durations take a unit (100ms, 2s) or are plain seconds; delays are fixed
(2ms), uniform:1ms:3ms, lognormal:MEDIAN:SHAPE (lognormal:2ms:0.5), or
trace:FILE:COL, a value of column COL (a header name or a number from 1) of
a CSV or TSV file drawn at random for each round trip or message: seconds
(0.0021) or with a unit (2.1ms), e.g. measured round trips to a Redis.

Exit codes: 0 success; 2 bad usage, bad input, or an output that cannot be
written; 3 internal error (a bug in ratesim: please report the message, the
version and the command line); 128 + the signal's number when stopped by a
signal: 129 SIGHUP, 130 SIGINT, 143 SIGTERM.`,
		Example: `  ratesim drl --nodes 4 --jobs 5000
  ratesim drl --designs one,store --rtt lognormal:2ms:0.5 --outage 10s:20s --fail local
  ratesim drl --designs static --nodes 2 --scale 30s:4 --police
  ratesim drl --designs one,static,sync --police --sweep sync-period=0,10ms,100ms,1s --plot figs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDRL(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.designs, "designs", "all", "designs to run, comma-separated, or all: "+strings.Join(drl.Designs, ", "))
	fl.StringVar(&f.rate, "rate", "10", "limit rate R per key, tokens/s (> 0; a decimal or a fraction p/q, exact)")
	fl.StringVar(&f.burst, "burst", "20", "limit burst B per key, tokens (>= 1, and B/N >= 1 for the designs with local buckets)")
	fl.IntVar(&f.nodes, "nodes", 4, "N: nodes of the fleet (>= 1)")
	fl.StringVar(&f.dispatch, "dispatch", "rr", "how jobs reach nodes: rr, random, or hash (of the key)")
	fl.BoolVar(&f.police, "police", false, "reject a job that finds no token instead of delaying it (shaping)")
	fl.StringArrayVar(&f.scale, "scale", nil, "static: at instant AT the fleet becomes N nodes, AT:N (e.g. 30s:8); repeatable, in time order")
	fl.StringVar(&f.rtt, "rtt", "1ms", "store, lease: round-trip time, a delay (fixed, uniform:A:B, lognormal:MEDIAN:SHAPE or trace:FILE:COL)")
	fl.StringArrayVar(&f.outages, "outage", nil, "store: the store is down during [FROM, TO), FROM:TO since the first arrival (e.g. 10s:20s); repeatable")
	fl.StringVar(&f.outageProc, "outage-process", "", "store: also a Poisson on/off outage process, UP:DOWN mean durations (e.g. 10m:30s), from the first arrival")
	fl.StringVar(&f.storeLim, "store-limiter", "token", "store: the limiter per key, token (a bucket (R, B)), gcra (GCRA(1/R, (B-1)/R), as redis-cell) or fixed-window (L = B jobs per window of B/R s); gcra and fixed-window police")
	fl.BoolVar(&f.storeCache, "store-cache", false, "store: a node caches the keys the store refused until their next token, and refuses their jobs without asking (policing)")
	fl.StringVar(&f.fail, "fail", "open", "store: what a node does while the store is down: open (admit), closed (reject) or local (its sub-bucket R/N, B/N)")
	fl.StringVar(&f.syncPeriod, "sync-period", "100ms", "sync: T, a node sends its hits T after the first one (0: at once; inf: never)")
	fl.IntVar(&f.batchLimit, "batch-limit", 1000, "sync: a node also sends when its batch holds this many keys (0: no limit; Gubernator's default 1000)")
	fl.StringVar(&f.syncDelay, "sync-delay", "0", "sync, grd, fps: one-way delay of each message, a delay as --rtt")
	fl.Float64Var(&f.loss, "loss", 0, "sync, grd, fps: probability that a message is lost, in [0, 1)")
	fl.StringVar(&f.local, "local", "copy", "sync: what a node decides with between reconciliations: copy (of the whole bucket, Gubernator) or share (its sub-bucket R/N, B/N)")
	fl.Int64Var(&f.leaseSize, "lease-size", 0, "lease: tokens a node asks for at a time (>= 1; default B/N rounded down)")
	fl.StringVar(&f.leaseTTL, "lease-ttl", "1s", "lease: unused tokens go back this long after the latest grant (inf: never)")
	fl.StringVar(&f.estimate, "estimate-interval", "100ms", "grd, fps: demand is measured and exchanged every this long (> 0)")
	fl.Float64Var(&f.smoothing, "smoothing", 0.5, "grd, fps: weight of the newest measurement in the demand estimate, in (0, 1] (1: no smoothing)")
	fl.StringVar(&f.exchange, "exchange", "coordinator", "grd, fps: estimates go through a coordinator, all-to-all among the nodes that saw the key (all), or by gossip to --fanout random peers (gossip)")
	fl.IntVar(&f.fanout, "fanout", 2, "grd, fps with --exchange gossip: peers each node sends to per estimate interval (>= 1)")
	fl.StringVar(&f.process, "arrivals", "poisson", "generated arrivals: poisson (rate λ = load·R), periodic, or an arrival spec as in ratesim run (Zipf keys: 'poisson | keys:n=100,s=1.1')")
	fl.Float64Var(&f.load, "load", 0.9, "offered load λ/R of generated arrivals (> 0)")
	fl.StringVar(&f.trace, "trace", "", "read arrivals from this trace file instead of generating them (formats as in ratesim run)")
	addTraceFormatFlags(fl, &f.traceFmt)
	fl.StringVar(&f.traceOpt.TimeCol, "time-col", "", "trace column of arrival times: a header name or a 1-based index (default the first column)")
	fl.StringVar(&f.traceOpt.TimeFormat, "time-format", "unix", "trace time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.StringVar(&f.traceOpt.KeyCol, "key-col", "", "trace column of keys: each key has its own limit (R, B), and --dispatch hash sends a key to one node")
	fl.BoolVar(&f.traceOpt.Sort, "sort", false, "sort the trace by time in memory instead of failing on an out-of-order line")
	fl.BoolVar(&f.traceOpt.SkipBad, "skip-bad", false, "skip malformed or out-of-order trace lines and report how many")
	fl.Int64Var(&f.jobs, "jobs", 100_000, "number of arrivals; with --trace the default is the whole trace")
	fl.Uint64VarP(&f.seed, "seed", "s", 1, "root seed of every random stream")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object")
	fl.StringVar(&f.rateWindow, "rate-window", "10s", "the admitted rate is measured over windows of this length (the table's time > R), > 0")
	fl.StringArrayVar(&f.sweeps, "sweep", nil, "run every design at each value of a parameter, NAME=V1,V2,... with NAME a flag among "+strings.Join(drlSweepable, ", ")+"; repeatable: the grid of all the combinations")
	fl.StringVar(&f.plotDir, "plot", "", "draw the figures into this directory (created if missing): the admitted rate over time and the delay CCDF of each design")
	fl.StringVar(&f.plotFormat, "plot-format", "png", "figure format: png, svg or pdf")
	cmd.MarkFlagsMutuallyExclusive("arrivals", "trace")
	cmd.MarkFlagsMutuallyExclusive("load", "trace")
	markOutput(cmd, "plot", outputFolder)
	return cmd, f
}

// spec validates the flags and builds the specification shared by the
// designs, and the list of designs.
func (f *drlFlags) spec(cmd *cobra.Command) (drl.Spec, []string, error) {
	changed := cmd.Flags().Changed
	var s drl.Spec
	var err error
	if s.Bucket.Rate, err = parseRat("rate", f.rate, "tokens/s"); err != nil {
		return s, nil, err
	}
	if s.Bucket.Burst, err = parseRat("burst", f.burst, "tokens"); err != nil {
		return s, nil, err
	}
	var pe *buckets.ParamError
	if err := s.Bucket.Validate(); errors.As(err, &pe) {
		return s, nil, flagError(pe.Name, pe.Value, pe.Want)
	}
	var names []string
	list := f.designs
	if list == "all" {
		list = strings.Join(drl.Designs, ",")
	}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(drl.Designs, n) || slices.Contains(names, n) {
			return s, nil, flagError("designs", f.designs, fmt.Sprintf("a comma-separated list of distinct designs among %s (%q is not one, or is repeated)", strings.Join(drl.Designs, ", "), n))
		}
		names = append(names, n)
	}
	if f.nodes < 1 {
		return s, nil, flagError("nodes", f.nodes, "a number of nodes >= 1")
	}
	s.Nodes, s.Police, s.Seed, s.Dispatch = f.nodes, f.police, f.seed, f.dispatch
	switch f.dispatch {
	case "rr", "random", "hash":
	default:
		return s, nil, flagError("dispatch", f.dispatch, "rr, random or hash")
	}
	for _, e := range f.scale {
		a, n, ok := strings.Cut(e, ":")
		t, err := drl.ParseDuration(a)
		k, err2 := strconv.Atoi(n)
		if !ok || err != nil || err2 != nil || k < 1 || t == engine.Forever {
			return s, nil, flagError("scale", e, "AT:N, an instant since the first arrival and a number of nodes >= 1, e.g. 30s:8")
		}
		if len(s.Scale) > 0 && t < s.Scale[len(s.Scale)-1].At {
			return s, nil, flagError("scale", e, "scale events in time order")
		}
		s.Scale = append(s.Scale, drl.ScaleEvent{At: t, Nodes: k})
	}
	if s.RTT, err = drl.ParseDelay(f.rtt); err != nil {
		return s, nil, delayFlagError("rtt", f.rtt, err)
	}
	for _, o := range f.outages {
		iv, err := drl.ParseInterval(o)
		if err != nil {
			return s, nil, flagError("outage", o, "FROM:TO, two instants since the first arrival with FROM < TO, e.g. 10s:20s")
		}
		s.Outages = append(s.Outages, iv)
	}
	if f.outageProc != "" {
		up, down, ok := strings.Cut(f.outageProc, ":")
		u, err1 := drl.ParseDuration(up)
		d, err2 := drl.ParseDuration(down)
		if !ok || err1 != nil || err2 != nil || u <= 0 || d <= 0 || u == engine.Forever || d == engine.Forever {
			return s, nil, flagError("outage-process", f.outageProc, "UP:DOWN, two mean durations > 0, e.g. 10m:30s")
		}
		s.OutageUp, s.OutageDown = u, d
	}
	s.StoreCache = f.storeCache
	if s.StoreLimiter, err = drl.ParseStoreLimiter(f.storeLim); err != nil {
		return s, nil, flagError("store-limiter", f.storeLim, "token, gcra or fixed-window")
	}
	if s.Fail, err = drl.ParseFail(f.fail); err != nil {
		return s, nil, flagError("fail", f.fail, "open, closed or local")
	}
	if s.SyncPeriod, err = drl.ParseDuration(f.syncPeriod); err != nil {
		return s, nil, flagError("sync-period", f.syncPeriod, "a duration >= 0 (100ms, 2s, 0.5) or inf")
	}
	if f.batchLimit < 0 {
		return s, nil, flagError("batch-limit", f.batchLimit, "a number of keys >= 1, or 0 for no limit")
	}
	s.BatchLimit = f.batchLimit
	if s.SyncDelay, err = drl.ParseDelay(f.syncDelay); err != nil {
		return s, nil, delayFlagError("sync-delay", f.syncDelay, err)
	}
	if !(f.loss >= 0 && f.loss < 1) {
		return s, nil, flagError("loss", f.loss, "a probability in [0, 1)")
	}
	s.SyncLoss = f.loss
	if s.Local, err = drl.ParseLocal(f.local); err != nil {
		return s, nil, flagError("local", f.local, "copy or share")
	}
	if changed("lease-size") && f.leaseSize < 1 {
		return s, nil, flagError("lease-size", f.leaseSize, "a number of tokens >= 1")
	}
	s.LeaseSize = f.leaseSize
	if s.LeaseTTL, err = drl.ParseDuration(f.leaseTTL); err != nil {
		return s, nil, flagError("lease-ttl", f.leaseTTL, "a duration >= 0 (1s, 500ms) or inf")
	}
	if s.EstimateInterval, err = drl.ParseDuration(f.estimate); err != nil || s.EstimateInterval == 0 || s.EstimateInterval == engine.Forever {
		return s, nil, flagError("estimate-interval", f.estimate, "a duration > 0 (100ms, 1s)")
	}
	if !(f.smoothing > 0 && f.smoothing <= 1) {
		return s, nil, flagError("smoothing", f.smoothing, "a weight in (0, 1]")
	}
	s.Smoothing = f.smoothing
	if s.Exchange, err = drl.ParseExchange(f.exchange); err != nil {
		return s, nil, flagError("exchange", f.exchange, "coordinator, all or gossip")
	}
	if f.fanout < 1 {
		return s, nil, flagError("fanout", f.fanout, "a number of peers >= 1")
	}
	s.Fanout = f.fanout
	if f.trace == "" {
		for _, name := range append([]string{"time-col", "time-format", "key-col", "sort", "skip-bad"}, traceFormatFlagNames...) {
			if changed(name) {
				return s, nil, fmt.Errorf("--%s applies to trace input only: use it with --trace", name)
			}
		}
	} else if err := f.traceFmt.apply(&f.traceOpt, changed, f.seed); err != nil {
		return s, nil, err
	}
	if w, err := drl.ParseDuration(f.rateWindow); err != nil || w == 0 || w == engine.Forever {
		return s, nil, flagError("rate-window", f.rateWindow, "a duration > 0 (1s, 500ms)")
	}
	if f.plotDir != "" {
		if !slices.Contains(plots.Formats, f.plotFormat) {
			return s, nil, flagError("plot-format", f.plotFormat, "png, svg or pdf")
		}
		if fi, err := os.Stat(f.plotDir); err == nil && !fi.IsDir() {
			return s, nil, flagError("plot", f.plotDir, "a directory for the figures (it is a file)")
		}
		if err := checkDirNotInput("plot", f.plotDir, []string{"*." + f.plotFormat}, f.trace); err != nil {
			return s, nil, err
		}
	} else if changed("plot-format") {
		return s, nil, fmt.Errorf("--plot-format applies with --plot DIR only")
	}
	if (changed("jobs") || f.trace == "") && f.jobs < 1 {
		return s, nil, flagError("jobs", f.jobs, "a number of arrivals >= 1")
	}
	for _, n := range names {
		t := s
		t.Design = n
		if err := t.Validate(); err != nil {
			if n != "one" && strings.Contains(err.Error(), "per node") {
				return s, nil, flagError("burst", f.burst, fmt.Sprintf("a burst of at least one token per node: B/N >= 1 for every N (%s)", strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+drl.ErrSpec.Error())))
			}
			return s, nil, fmt.Errorf("invalid parameters: %w", err)
		}
	}
	return s, names, nil
}

// arrivals opens the arrival process afresh, so that every design sees
// the same jobs; it describes the input.
func (f *drlFlags) arrivals(cmd *cobra.Command, rate exact.Rat) (arrivals.Process, func() error, string, error) {
	if f.trace != "" {
		tr, err := arrivals.Open(f.trace, f.traceOpt)
		if err != nil {
			return nil, nil, "", err
		}
		in := "trace " + f.trace
		if f.traceOpt.KeyCol != "" {
			in += ", keyed by column " + f.traceOpt.KeyCol
		}
		return tr, tr.Close, in, nil
	}
	switch f.process {
	case "poisson", "periodic":
		lambda := f.load * rate.Float64()
		if !finitePositive(f.load) || !finitePositive(lambda) || math.IsInf(1/lambda, 0) {
			return nil, nil, "", flagError("load", f.load, "a finite load > 0 with a finite mean gap 1/(load·R)")
		}
		in := fmt.Sprintf("%s arrivals, load %v (λ = %.6g jobs/s)", f.process, f.load, lambda)
		if f.process == "poisson" {
			p, err := arrivals.NewPoisson(lambda, experiments.Source(f.seed, systems.StreamArrivals))
			return p, nil, in, err
		}
		l, err := lambdaOf(f.load, rate)
		if err != nil {
			return nil, nil, "", err
		}
		p, err := arrivals.NewPeriodicRate(l, exact.Rat{})
		return p, nil, in, err
	}
	g, err := buildGenerated(f.process, f.load, rate, f.seed, cmd.Flags().Changed("load"))
	if err != nil {
		return nil, nil, "", err
	}
	return g, nil, fmt.Sprintf("arrivals %s (mean %.6g jobs/s)", g.Spec, g.MeanRate), nil
}

// runDesigns runs every design of names on the arrivals of f and returns
// their summaries and results, the input's description and the trace
// lines skipped.
func (f *drlFlags) runDesigns(cmd *cobra.Command, spec drl.Spec, names []string) ([]drl.Summary, []*drl.Result, string, int, error) {
	max := int64(0)
	if cmd.Flags().Changed("jobs") || f.trace == "" {
		max = f.jobs
	}
	var input string
	skipped := 0
	var sums []drl.Summary
	var results []*drl.Result
	var decided []*drl.Result // only their Admits: one bit per job
	win, _ := drl.ParseDuration(f.rateWindow)
	for _, n := range names {
		proc, closeProc, in, err := f.arrivals(cmd, spec.Bucket.Rate)
		if err != nil {
			return nil, nil, "", 0, err
		}
		input = in
		s := spec
		s.Design = n
		s.RateWindow = win
		s.KeepDepartures = f.plotDir != "" // the admitted-rate figure bins every departure
		res, err := drl.Run(cmd.Context(), s, proc, max)
		if tr, ok := proc.(*arrivals.Trace); ok {
			skipped = tr.Skipped()
		}
		if closeProc != nil {
			closeProc()
		}
		if err != nil {
			return nil, nil, "", 0, fmt.Errorf("design %s: %w", n, err)
		}
		sum, err := drl.Summarize(res, spec.Bucket, nil, win)
		if err != nil {
			return nil, nil, "", 0, err
		}
		sums = append(sums, sum)
		if f.plotDir != "" { // the figures need every job; otherwise let it go
			results = append(results, res)
		}
		decided = append(decided, &drl.Result{Admits: res.Admits})
	}
	if i := slices.Index(names, "one"); i >= 0 {
		for j := range sums {
			sums[j].OverOne, sums[j].UnderOne = drl.Compare(decided[j], decided[i])
		}
	}
	return sums, results, input, skipped, nil
}

func runDRL(cmd *cobra.Command, f *drlFlags) error {
	if len(f.sweeps) > 0 {
		return runDRLSweep(cmd, f)
	}
	spec, names, err := f.spec(cmd)
	if err != nil {
		return err
	}
	sums, results, input, skipped, err := f.runDesigns(cmd, spec, names)
	if err != nil {
		return err
	}
	var figures []string
	if f.plotDir != "" {
		if err := os.MkdirAll(f.plotDir, 0o755); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
		caption := fmt.Sprintf("%s; R = %v tokens/s, B = %v tokens per key, %d nodes", input, spec.Bucket.Rate, spec.Bucket.Burst, spec.Nodes)
		if figures, err = experiments.SaveFiguresContext(cmd.Context(), drlFigures(spec, results, sums, caption), f.plotDir, f.plotFormat); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
	}
	if skipped > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: skipped %d bad lines of %s\n", skipped, f.trace)
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		writeDRLJSON(w, f, spec, input, sums, figures)
	} else {
		writeDRLTable(w, f, spec, input, sums)
		for i, p := range figures {
			if i == 0 {
				fmt.Fprintf(w, "figures    %s\n", p)
			} else {
				fmt.Fprintf(w, "           %s\n", p)
			}
		}
	}
	if w.err != nil {
		return fmt.Errorf("writing the result: %w", w.err)
	}
	return nil
}

// drlJSON is the --json output.
type drlJSON struct {
	jsonHeader
	Input      string        `json:"input"`
	Rate       float64       `json:"rate_tokens_per_s"`
	RateExact  string        `json:"rate_tokens_per_s_exact"`
	Burst      float64       `json:"burst_tokens"`
	BurstExact string        `json:"burst_tokens_exact"`
	Nodes      int           `json:"nodes"`
	Dispatch   string        `json:"dispatch"`
	Police     bool          `json:"police"`
	RTT        string        `json:"rtt_distribution"` // "1ms", "uniform:1ms:3ms", "lognormal:2ms:0.5"
	RTTSeconds *float64      `json:"rtt_s,omitempty"`  // the fixed round-trip time; absent for a random one
	Outages    [][2]float64  `json:"outages_s"`
	OutageTime float64       `json:"outages_total_s"`  // the length of the --outage intervals, overlaps counted once
	OutageUp   float64       `json:"outage_mean_up_s"` // 0: no on/off process
	OutageDown float64       `json:"outage_mean_down_s"`
	Fail       string        `json:"fail"`
	StoreCache bool          `json:"store_cache"`
	StoreLim   string        `json:"store_limiter"`
	SyncPeriod float64       `json:"sync_period_s"` // -1: never
	BatchLimit int           `json:"batch_limit_keys"`
	SyncDelay  string        `json:"sync_delay_distribution"` // as rtt_distribution
	SyncDelayS *float64      `json:"sync_delay_s,omitempty"`  // the fixed one-way delay; absent for a random one
	Loss       float64       `json:"loss"`
	Local      string        `json:"local"`
	LeaseSize  int64         `json:"lease_size_tokens"` // 0: B/N
	LeaseTTL   float64       `json:"lease_ttl_s"`       // -1: never
	Estimate   float64       `json:"estimate_interval_s"`
	Smoothing  float64       `json:"smoothing"`
	Exchange   string        `json:"exchange"`
	Fanout     int           `json:"gossip_fanout"`
	Seed       uint64        `json:"seed"`
	Designs    []drl.Summary `json:"designs"`
	Figures    []string      `json:"figures,omitempty"`
}

func writeDRLJSON(w io.Writer, f *drlFlags, s drl.Spec, input string, sums []drl.Summary, figures []string) {
	out := drlJSON{jsonHeader: newJSONHeader(), Input: input, Rate: s.Bucket.Rate.Float64(), RateExact: s.Bucket.Rate.String(),
		Burst: s.Bucket.Burst.Float64(), BurstExact: s.Bucket.Burst.String(), Nodes: s.Nodes, Dispatch: s.Dispatch, Police: s.Police,
		RTT: s.RTT.String(), Outages: [][2]float64{}, OutageUp: s.OutageUp.Seconds(), OutageDown: s.OutageDown.Seconds(), Fail: s.Fail.String(), StoreCache: s.StoreCache, StoreLim: s.StoreLimiter.String(), SyncPeriod: -1, BatchLimit: s.BatchLimit,
		SyncDelay: s.SyncDelay.String(), Loss: s.SyncLoss, Local: s.Local.String(), LeaseSize: s.LeaseSize, LeaseTTL: -1, Estimate: s.EstimateInterval.Seconds(), Smoothing: s.Smoothing, Exchange: s.Exchange.String(), Fanout: s.Fanout, Seed: s.Seed, Designs: sums, Figures: figures}
	if s.LeaseTTL != engine.Forever {
		out.LeaseTTL = s.LeaseTTL.Seconds()
	}
	if s.RTT.Fixed() {
		x := s.RTT.A.Seconds()
		out.RTTSeconds = &x
	}
	if s.SyncDelay.Fixed() {
		x := s.SyncDelay.A.Seconds()
		out.SyncDelayS = &x
	}
	for _, o := range s.Outages {
		out.Outages = append(out.Outages, [2]float64{o.From.Seconds(), o.To.Seconds()})
	}
	out.OutageTime = outageTime(s.Outages).Seconds()
	if s.SyncPeriod != engine.Forever {
		out.SyncPeriod = s.SyncPeriod.Seconds()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // write errors are kept by the errWriter
}

func writeDRLTable(w io.Writer, f *drlFlags, s drl.Spec, input string, sums []drl.Summary) {
	mode := "shaping"
	if s.Police {
		mode = "policing"
	}
	fmt.Fprintf(w, "input      %s; seed %d\n", input, s.Seed)
	fmt.Fprintf(w, "limit      R = %v tokens/s, B = %v tokens per key (%s); %d nodes, dispatch %s\n", s.Bucket.Rate, s.Bucket.Burst, mode, s.Nodes, s.Dispatch)
	for _, n := range sums {
		switch n.Design {
		case "static":
			if len(s.Scale) > 0 {
				var ev []string
				for _, e := range s.Scale {
					ev = append(ev, fmt.Sprintf("%d nodes at %v s", e.Nodes, e.At.Seconds()))
				}
				fmt.Fprintf(w, "static     re-split: %s\n", strings.Join(ev, ", "))
			}
		case "store":
			var os []string
			for _, o := range s.Outages {
				os = append(os, fmt.Sprintf("[%v, %v) s", o.From.Seconds(), o.To.Seconds()))
			}
			if s.OutageUp > 0 {
				os = append(os, fmt.Sprintf("on/off, up %v s and down %v s on average", s.OutageUp.Seconds(), s.OutageDown.Seconds()))
			}
			out := "no outage"
			if len(os) > 0 {
				out = "outages " + strings.Join(os, ", ") + ", fail " + s.Fail.String()
			}
			cache := ""
			if s.StoreCache {
				cache = "; nodes cache the keys over limit"
			}
			lim := ""
			switch s.StoreLimiter {
			case drl.StoreGCRA:
				lim = "GCRA(1/R, (B - 1)/R) per key, "
			case drl.StoreFixedWindow:
				w, _ := s.Bucket.Burst.Quo(s.Bucket.Rate)
				lim = fmt.Sprintf("fixed window of %v jobs per %v s per key, ", s.Bucket.Burst, w)
			}
			fmt.Fprintf(w, "store      %sround trip %v; %s%s\n", lim, s.RTT, out, cache)
		case "sync":
			period := "never"
			if s.SyncPeriod != engine.Forever {
				period = fmt.Sprintf("%v s", s.SyncPeriod.Seconds())
			}
			fmt.Fprintf(w, "sync       period %s, batch limit %d keys, message delay %v, loss %v, local %s\n", period, s.BatchLimit, s.SyncDelay, s.SyncLoss, s.Local)
		case "lease":
			size := fmt.Sprintf("%d tokens", s.LeaseSize)
			if s.LeaseSize == 0 {
				size = "B/N tokens"
			}
			ttl := "never returned"
			if s.LeaseTTL != engine.Forever {
				ttl = fmt.Sprintf("returned %v s after the latest grant", s.LeaseTTL.Seconds())
			}
			fmt.Fprintf(w, "lease      %s per request (round trip %v), %s; %s\n", size, s.RTT, ttl, mode)
		case "grd", "fps":
			via := "through a coordinator"
			switch s.Exchange {
			case drl.ExchangeAll:
				via = "all-to-all"
			case drl.ExchangeGossip:
				via = fmt.Sprintf("by gossip to %d peers", s.Fanout)
			}
			m := mode
			if n.Design == "grd" {
				m = "policing (drops)"
			}
			fmt.Fprintf(w, "%-10s demand estimated every %v s (smoothing %v), exchanged %s (message delay %v, loss %v); %s\n", n.Design, s.EstimateInterval.Seconds(), s.Smoothing, via, s.SyncDelay, s.SyncLoss, m)
		}
	}
	withOne := slices.ContainsFunc(sums, func(s drl.Summary) bool { return s.Design == "one" })
	fmt.Fprintf(w, "\n%-7s %9s %9s %10s %10s %10s  %9s %9s %8s  %9s %8s  %7s %7s  %8s", "design", "admitted", "rejected", "mean (s)", "p99 (s)", "max (s)", "overshoot", "d (s)", "time > R", "messages", "fallback", "J nodes", "J keys", "thm 2")
	if withOne {
		fmt.Fprintf(w, "  %6s %6s", "> one", "< one")
	}
	fmt.Fprintln(w)
	var violated []string
	for _, n := range sums {
		thm := n.Theorem2
		switch {
		case strings.HasPrefix(thm, "n/a"):
			thm = "n/a"
		case thm != "held":
			thm = "VIOLATED"
			violated = append(violated, n.Design+": "+n.Theorem2)
		}
		fmt.Fprintf(w, "%-7s %9d %9d %10.4g %10.4g %10.4g  %9.3f %9.4g %7.2f%%  %9d %8d  %7.4f %7.4f  %8s", n.Design, n.Admitted, n.Rejected, n.Mean, n.P99, n.Max, n.Overshoot, n.OverD, 100*n.OverRate, n.Messages, n.Fallback, n.JainNodes, n.JainKeys, thm)
		if withOne {
			fmt.Fprintf(w, "  %6d %6d", n.OverOne, n.UnderOne)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\novershoot  the largest α*(d)/(B + R·d), where α*(d) is the most admitted jobs of a key\n")
	fmt.Fprintf(w, "           passing in any interval of length d; above 1 the design let more through than (R, B)\n")
	fmt.Fprintf(w, "time > R   the share of the run during which a key's admitted rate over the last %v s exceeded R (the worst key)\n", sums0Window(sums))
	fmt.Fprintf(w, "J          Jain's fairness index of the fractions admitted, across nodes and across keys\n")
	fmt.Fprintf(w, "thm 2      Theorem 2, S(t) <= S^(design)(t) at every instant, key by key, checked exactly where the design\n")
	fmt.Fprintf(w, "           is a split of (R, B) that shapes (static without scale events); n/a elsewhere (--json says why)\n")
	for _, v := range violated {
		fmt.Fprintf(w, "           %s\n", v)
	}
	if withOne {
		fmt.Fprintf(w, "> one      jobs admitted that the one bucket rejected; < one: rejected that it admitted\n")
	}
}

// drlFigures draws the admitted rate over time of every design (bins of
// 1/200 of the run, at least one burst time B/R) against R, for a run
// without keys, and the CCDF of the admitted jobs' delays.
func drlFigures(s drl.Spec, results []*drl.Result, sums []drl.Summary, caption string) []experiments.NamedFigure {
	rate := &plots.LinePlot{Title: "Admitted rate over time", XLabel: "time (s)", YLabel: "admitted jobs/s", Caption: caption}
	ccdf := &plots.LinePlot{Title: "Delay of the admitted jobs", XLabel: "delay d (s)", YLabel: "P(delay > d)", LogY: true, Caption: caption}
	burst := engine.Time(s.Bucket.Burst.Float64() / s.Bucket.Rate.Float64() * 1e9)
	keyed := false
	for i, r := range results {
		keyed = keyed || sums[i].Keys > 1
		bin := max(burst, (r.Last-r.First)/200, 1)
		x, y := r.Rate(bin)
		rate.Lines = append(rate.Lines, plots.Line{Label: r.Design, X: x, Y: y, Step: true, Color: i})
		// The delays that are not 0, sorted by Summarize, after ZeroDelays
		// zeros: P(delay > d) = (jobs with a larger delay)/n.
		n := float64(r.ZeroDelays) + float64(len(r.Delays))
		cx, cy := []float64{0}, []float64{float64(len(r.Delays)) / n}
		for j, d := range r.Delays {
			if j+1 < len(r.Delays) && r.Delays[j+1] == d {
				continue
			}
			cx, cy = append(cx, d), append(cy, float64(len(r.Delays)-j-1)/n)
		}
		ccdf.Lines = append(ccdf.Lines, plots.Line{Label: r.Design, X: cx, Y: cy, Step: true, Color: i})
	}
	if !keyed && len(results) > 0 && len(rate.Lines[0].X) > 0 {
		x := rate.Lines[0].X
		rv := s.Bucket.Rate.Float64()
		rate.Lines = append(rate.Lines, plots.Line{Label: "R", X: []float64{x[0], x[len(x)-1]}, Y: []float64{rv, rv}, Dashed: true, Color: -1})
	}
	return []experiments.NamedFigure{{Name: "drl-admitted-rate", Figure: rate}, {Name: "drl-delay-ccdf", Figure: ccdf}}
}

// sums0Window returns the rate window of the summaries, s.
func sums0Window(sums []drl.Summary) float64 {
	if len(sums) == 0 {
		return 0
	}
	return sums[0].OverRateWindow
}

// outageTime returns the total length of the intervals, overlaps counted
// once.
func outageTime(ivs []drl.Interval) engine.Time {
	ivs = slices.Clone(ivs)
	slices.SortFunc(ivs, func(a, b drl.Interval) int { return cmp.Compare(a.From, b.From) })
	var total, end engine.Time
	for i, iv := range ivs {
		from := iv.From
		if i > 0 {
			from = max(from, end)
		}
		if iv.To > from {
			total += iv.To - from
		}
		if i == 0 || iv.To > end {
			end = iv.To
		}
	}
	return total
}

// delayFlagError is the error of a delay flag: what fits, and why the
// value does not (a trace's file:line).
func delayFlagError(flag, v string, err error) error {
	why := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+drl.ErrSpec.Error())
	return flagError(flag, v, "a delay: 2ms, uniform:1ms:3ms, lognormal:2ms:0.5 or trace:FILE:COL ("+why+")")
}
