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
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/drlstudy"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/plots"
	"github.com/ratesim/ratesim/profiles"
)

// drlFlags are the flags of ratesim drl: the parameters fill drlstudy.Params,
// the parser that sweep specs share; the rest are the command line's.
type drlFlags struct {
	p          drlstudy.Params
	trace      string
	traceOpt   arrivals.TraceOptions
	traceFmt   traceFormatFlags
	json       bool
	plotDir    string
	plotFormat string
	sweeps     []string
	maxMemory  string
}

// drlLong is ratesim drl's long help.
const drlLong = `Drl feeds the same arrivals to each distributed rate-limiting design, a limit
(R, B) per key enforced by --nodes N nodes (see 'go doc ./drl'):

  one     the one bucket (R, B): the lower bound
  static  N sub-buckets (R/N, B/N) behind --dispatch; --scale AT:N re-splits
  store   a central bucket (R, B): each decision a round trip --rtt; while the
          store is down (--outage FROM:TO, --outage-process UP:DOWN) nodes
          --fail open, closed or local; --store-cache refuses a key the store
          refused, without asking, until its next token; --store-limiter gcra
          (redis-cell's GCRA) or fixed-window (L = B per W = B/R s, Redis
          INCR) in place of the bucket, both policing
  sync    Gubernator v2.13.0's GLOBAL behaviour, decision for decision, with
          --algorithm token-bucket (the default, as in Gubernator) or
          leaky-bucket: every daemon answers from its own copy and queues
          every hit for the key's owner (Gubernator's hash ring over
          --peers), sent every --sync-period (GlobalSyncWait) or when
          --batch-limit keys are queued; the owner applies them as one
          request and broadcasts its integer Remaining back; messages take
          --sync-delay and are lost with --loss. Gubernator polices: sync
          needs --police
  reconcile
          local buckets with periodic reconciliation, the idealized sync:
          each node keeps the exact state of the bucket (--local copy, or
          share: its sub-bucket R/N, B/N), which keeps refilling; only
          admitted hits go to the owner (a rendezvous hash), --sync-period
          after the first one or when --batch-limit keys are queued, applied
          one by one at receipt; the owner's exact state is broadcast back;
          messages take --sync-delay and are lost with --loss; shapes or
          polices
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

--designs all runs every design that applies: shaping (no --police) it
leaves out sync, which only polices, and it leaves sync out when Gubernator
cannot express the limit (B not whole, or B/R not a whole number of ms);
it says so on stderr.

It reports for each the jobs admitted and rejected, the mean, p99 and largest
delay (network time plus the bucket's wait), the overshoot, the supremum of
α*(d)/(B + R·d) over every interval length d and key, and the excess, that of
α*(d) − (B + R·d) in jobs, both exact (above 1, above 0: the promise is
broken), with the d where the overshoot is reached, the jobs a shaper (R, B)
would delay, the share of the run a key's admitted
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
signal: 129 SIGHUP, 130 SIGINT, 143 SIGTERM.`

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
		Long:  drlLong,
		Example: `  ratesim drl --nodes 4 --jobs 5000
  ratesim drl --designs one,store --rtt lognormal:2ms:0.5 --outage 10s:20s --fail local
  ratesim drl --designs static --nodes 2 --scale 30s:4 --police
  ratesim drl --designs one,static,reconcile --police --sweep sync-period=0,10ms,100ms,1s --plot figs
  ratesim drl --designs one,sync --police --algorithm leaky-bucket --sync-period 1s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDRL(cmd, f) },
	}
	fl := cmd.Flags()
	drlstudy.Table.Bind(fl, &f.p) // every parameter of the study, one flag each
	addMaxMemory(fl, &f.maxMemory)
	addDRLInputFlags(fl, f)
	cmd.MarkFlagsMutuallyExclusive("arrivals", "trace")
	cmd.MarkFlagsMutuallyExclusive("load", "trace")
	markOutput(cmd, "plot", outputFolder)
	return cmd, f
}

// addDRLInputFlags adds the flags of the trace, the seed, the outputs and
// the sweeps: the command line's, not parameters of the study.
func addDRLInputFlags(fl *pflag.FlagSet, f *drlFlags) {
	fl.StringVar(&f.trace, "trace", "", "read arrivals from this trace file instead of generating them (formats as in ratesim run)")
	addTraceFormatFlags(fl, &f.traceFmt)
	fl.StringVar(&f.traceOpt.TimeCol, "time-col", "", "trace column of arrival times: a header name or a 1-based index (default the first column)")
	fl.StringVar(&f.traceOpt.TimeFormat, "time-format", "unix", "trace time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.StringVar(&f.traceOpt.KeyCol, "key-col", "", "trace column of keys: each key has its own limit (R, B), and --dispatch hash sends a key to one node")
	fl.BoolVar(&f.traceOpt.Sort, "sort", false, "sort the trace by time in memory instead of failing on an out-of-order line")
	fl.BoolVar(&f.traceOpt.SkipBad, "skip-bad", false, "skip malformed or out-of-order trace lines and report how many")
	fl.Uint64VarP(&f.p.Seed, "seed", "s", 1, "root seed of every random stream")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object")
	fl.StringArrayVar(&f.sweeps, "sweep", nil, "run every design at each value of a parameter, NAME=V1,V2,... with NAME a flag among "+strings.Join(drlSweepable, ", ")+"; repeatable: the grid of all the combinations")
	fl.StringVar(&f.plotDir, "plot", "", "draw the figures into this directory (created if missing): the admitted rate over time and the delay CCDF of each design")
	fl.StringVar(&f.plotFormat, "plot-format", "png", "figure format: png, svg or pdf")
}

// params returns the parameters the flags give, with the trace and its
// options; it checks the flags that only the command line has.
func (f *drlFlags) params(cmd *cobra.Command) (drlstudy.Params, error) {
	changed := cmd.Flags().Changed
	p := f.p
	var err error
	if p.MaxMemory, err = maxMemory(f.maxMemory); err != nil {
		return p, err
	}
	if f.trace == "" {
		for _, name := range append([]string{"time-col", "time-format", "key-col", "sort", "skip-bad"}, traceFormatFlagNames...) {
			if changed(name) {
				return p, fmt.Errorf("--%s applies to trace input only: use it with --trace", name)
			}
		}
	} else {
		opt := f.traceOpt
		if err := f.traceFmt.apply(&opt, changed, p.Seed); err != nil {
			return p, err
		}
		p.Trace, p.TraceOptions = &drlstudy.Trace{Path: f.trace}, &opt
		if !changed("jobs") {
			p.Jobs = 0 // the whole trace
		} else if p.Jobs < 1 {
			return p, flagError("jobs", p.Jobs, "a number of arrivals >= 1")
		}
	}
	if designs, err := p.DesignList(); err == nil {
		// With all, the designs it runs (it leaves sync out when shaping).
		run := p.Designs
		if run == "all" {
			run = "all: " + strings.Join(designs, ",")
		}
		// The flags that only some designs read: one given when none of
		// them runs would change nothing, and is refused.
		flags, readers := drl.FlagDesigns()
		for _, fl := range flags {
			if changed(fl) && !slices.ContainsFunc(readers[fl], func(d string) bool { return slices.Contains(designs, d) }) {
				return p, fmt.Errorf("--%s applies to %s only, not to the designs run (%s)", fl, strings.Join(readers[fl], ", "), run)
			}
		}
	}
	if f.plotDir != "" {
		if !slices.Contains(plots.Formats, f.plotFormat) {
			return p, flagError("plot-format", f.plotFormat, "png, svg or pdf")
		}
		if fi, err := os.Stat(f.plotDir); err == nil && !fi.IsDir() {
			return p, flagError("plot", f.plotDir, "a directory for the figures (it is a file)")
		}
		if err := checkDirNotInput("plot", f.plotDir, []string{"*." + f.plotFormat}, f.trace, drl.DelayFile(p.RTT), drl.DelayFile(p.SyncDelay)); err != nil {
			return p, err
		}
	} else if changed("plot-format") {
		return p, fmt.Errorf("--plot-format applies with --plot DIR only")
	}
	return p, nil
}

// paramFlagError names the flag of a drl.ParamError: the parameter in
// kebab case (sync_period is --sync-period).
func paramFlagError(err error) error {
	var pe *drl.ParamError
	if errors.As(err, &pe) {
		return flagError(strings.ReplaceAll(pe.Param, "_", "-"), pe.Value, pe.Want)
	}
	return err
}

// spec returns the parameters the flags give and the specification and
// designs they parse to (drlstudy.Params.Spec, errors naming the flag).
func (f *drlFlags) spec(cmd *cobra.Command) (drlstudy.Params, drl.Spec, []string, error) {
	p, err := f.params(cmd)
	if err != nil {
		return p, drl.Spec{}, nil, err
	}
	s, names, err := p.Spec()
	if err != nil {
		return p, s, nil, paramFlagError(err)
	}
	if cmd.Flags().Changed("load") && p.Trace == nil {
		// A process that sets its own rate ignores --load: say so.
		a, _, err := p.OpenArrivals(cmd.Context(), s.Bucket.Rate)
		if err != nil {
			return p, s, nil, paramFlagError(err)
		}
		a.Close()
		if a.Generated != nil && !a.Generated.DefaultRate {
			return p, s, nil, fmt.Errorf("--load %v has no effect: every process of --arrivals %q sets its own rate; leave out --load or a rate=", p.Load, p.Arrivals)
		}
	}
	return p, s, names, nil
}

func runDRL(cmd *cobra.Command, f *drlFlags) error {
	if len(f.sweeps) > 0 {
		return runDRLSweep(cmd, f)
	}
	p, spec, designs, err := f.spec(cmd)
	if err != nil {
		return err
	}
	for _, why := range p.AllLeftOut() {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: --designs all leaves out %s\n", why)
	}
	c, err := p.Run(cmd.Context(), f.plotDir != "")
	if err != nil {
		return paramFlagError(err)
	}
	var figures []string
	if f.plotDir != "" {
		if err := os.MkdirAll(f.plotDir, 0o777); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
		caption := drlstudy.Caption(spec, designs, c.Input)
		if figures, err = experiments.SaveFigures(cmd.Context(), drlstudy.Figures(spec, c.Results, c.Summaries, caption), f.plotDir, f.plotFormat); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
	}
	if c.Skipped > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: skipped %d bad lines of %s\n", c.Skipped, f.trace)
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		writeDRLJSON(w, f, spec, c.Input, c.Summaries, c.PerNode, figures)
	} else {
		writeDRLTable(w, f, spec, c.Input, c.Summaries)
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
	Input      string          `json:"input"`
	Rate       float64         `json:"rate_tokens_per_s"`
	RateExact  string          `json:"rate_tokens_per_s_exact"`
	Burst      float64         `json:"burst_tokens"`
	BurstExact string          `json:"burst_tokens_exact"`
	Nodes      int             `json:"nodes"`
	Dispatch   string          `json:"dispatch"`
	Police     bool            `json:"police"`
	RTT        string          `json:"rtt_distribution"` // "1ms", "uniform:1ms:3ms", "lognormal:2ms:0.5"
	RTTSeconds *float64        `json:"rtt_s,omitempty"`  // the fixed round-trip time; absent for a random one
	Outages    [][2]float64    `json:"outages_s"`
	OutageTime float64         `json:"outages_total_s"`  // the length of the --outage intervals, overlaps counted once
	OutageUp   float64         `json:"outage_mean_up_s"` // 0: no on/off process
	OutageDown float64         `json:"outage_mean_down_s"`
	Fail       string          `json:"fail"`
	StoreCache bool            `json:"store_cache"`
	StoreLim   string          `json:"store_limiter"`
	SyncPeriod experiments.Num `json:"sync_period_s"` // "+Inf": never
	BatchLimit int             `json:"batch_limit_keys"`
	SyncDelay  string          `json:"sync_delay_distribution"` // as rtt_distribution
	SyncDelayS *float64        `json:"sync_delay_s,omitempty"`  // the fixed one-way delay; absent for a random one
	Loss       float64         `json:"loss"`
	Local      string          `json:"local"`
	Algorithm  string          `json:"sync_algorithm"`    // token-bucket or leaky-bucket (Gubernator v2.13.0's, the design sync's)
	Peers      []string        `json:"peers,omitempty"`   // the Gubernator daemons' gRPC addresses (a Gubernator algorithm only)
	LeaseSize  int64           `json:"lease_size_tokens"` // 0: B/N
	LeaseTTL   experiments.Num `json:"lease_ttl_s"`       // "+Inf": never
	Estimate   float64         `json:"estimate_interval_s"`
	Smoothing  float64         `json:"smoothing"`
	Exchange   string          `json:"exchange"`
	Fanout     int             `json:"gossip_fanout"`
	Seed       uint64          `json:"seed"`
	// NodeLimiter (--node-limiter) is the profile each node runs, with its
	// arrival curve and the fleet's, N·α.
	NodeLimiter *nodeLimiterJSON `json:"node_limiter,omitempty"`
	Designs     []drlDesignJSON  `json:"designs"`
	Figures     []string         `json:"figures,omitempty"`
}

// drlDesignJSON is one design's summary and, with --node-limiter, the
// decisions of each node (per_node) for the designs that run it.
type drlDesignJSON struct {
	drl.Summary
	PerNode []drl.Count `json:"per_node,omitempty"`
}

func writeDRLJSON(w io.Writer, f *drlFlags, s drl.Spec, input string, sums []drl.Summary, perNode [][]drl.Count, figures []string) {
	designs := make([]drlDesignJSON, len(sums))
	for i, sum := range sums {
		designs[i].Summary = sum
		if s.Static.NodeLimiter != nil && drl.Reads(sum.Design, "node-limiter") && i < len(perNode) {
			designs[i].PerNode = perNode[i]
		}
	}
	out := drlJSON{jsonHeader: newJSONHeader(), Input: input, Rate: s.Bucket.Rate.Float64(), RateExact: s.Bucket.Rate.String(),
		Burst: s.Bucket.Burst.Float64(), BurstExact: s.Bucket.Burst.String(), Nodes: s.Nodes, Dispatch: s.Dispatch, Police: s.Police,
		RTT: s.Store.RTT.String(), Outages: [][2]float64{}, OutageUp: s.Store.OutageUp.Seconds(), OutageDown: s.Store.OutageDown.Seconds(), Fail: s.Store.Fail.String(), StoreCache: s.Store.Cache, StoreLim: s.Store.LimiterName(), SyncPeriod: experiments.Num(math.Inf(1)), BatchLimit: s.Sync.BatchLimit,
		SyncDelay: s.Sync.Delay.String(), Loss: s.Sync.Loss, Local: s.Reconcile.Local.String(), LeaseSize: s.Lease.Size, LeaseTTL: experiments.Num(math.Inf(1)), Estimate: s.Demand.EstimateInterval.Seconds(), Smoothing: s.Demand.Smoothing, Exchange: s.Demand.Exchange.String(), Fanout: s.Demand.Fanout, Seed: s.Seed, Designs: designs, Figures: figures}
	if s.Lease.TTL != engine.Forever {
		out.LeaseTTL = experiments.Num(s.Lease.TTL.Seconds())
	}
	if s.Static.NodeLimiter != nil {
		nl := nodeFleet(s)
		out.NodeLimiter = &nl
	}
	if s.Store.RTT.Fixed() {
		x := s.Store.RTT.A.Seconds()
		out.RTTSeconds = &x
	}
	if s.Sync.Delay.Fixed() {
		x := s.Sync.Delay.A.Seconds()
		out.SyncDelayS = &x
	}
	for _, o := range s.Store.Outages {
		out.Outages = append(out.Outages, [2]float64{o.From.Seconds(), o.To.Seconds()})
	}
	out.OutageTime = outageTime(s.Store.Outages).Seconds()
	if s.Sync.Period != engine.Forever {
		out.SyncPeriod = experiments.Num(s.Sync.Period.Seconds())
	}
	out.Algorithm = s.Sync.Algorithm.String()
	if slices.ContainsFunc(sums, func(n drl.Summary) bool { return drl.Reads(n.Design, "peers") }) {
		out.Peers = s.Sync.Peers
		if len(out.Peers) == 0 {
			out.Peers = drl.DefaultGubernatorPeers(s.Nodes)
		}
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
	if s.Static.NodeLimiter != nil {
		nl := nodeFleet(s)
		fmt.Fprintf(w, "nodes      each node runs %s per key (static; store's local fallback), α = %s;\n", nl.Params, nl.Curve)
		if nl.Fleet == "" {
			fmt.Fprintf(w, "           the fleet of %d admits up to %d·α together (beyond the exact range here)\n", s.Nodes, s.Nodes)
		} else {
			fmt.Fprintf(w, "           the fleet of %d admits up to %d·α = %s together, against the promise γ(r=%v, b=%v)\n", s.Nodes, s.Nodes, nl.Fleet, s.Bucket.Rate, s.Bucket.Burst)
		}
	}
	for _, n := range sums {
		if d, ok := drl.Lookup(n.Design); ok {
			if h := d.Header(s); h != "" {
				fmt.Fprintf(w, "%-10s %s\n", n.Design, h)
			}
		}
	}
	withOne := slices.ContainsFunc(sums, func(s drl.Summary) bool { return s.Design == drl.Reference })
	// The design column is 7 wide, or as wide as the longest name run.
	dw := 7
	for _, n := range sums {
		dw = max(dw, len(n.Design))
	}
	fmt.Fprintf(w, "\n%-*s %9s %9s %10s %10s %10s  %9s %9s %9s %9s %8s  %9s %8s  %7s %7s  %8s", dw, "design", "admitted", "rejected", "mean (s)", "p99 (s)", "max (s)", "overshoot", "excess", "d (s)", "shaper", "time > R", "messages", "fallback", "J nodes", "J keys", "thm 2")
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
		fmt.Fprintf(w, "%-*s %9d %9d %10.4g %10.4g %10.4g  %9.4f %9.4g %9.4g %9d %7.2f%%  %9d %8d  %7.4f %7.4f  %8s", dw, n.Design, n.Admitted, n.Rejected, n.Mean, n.P99, n.Max, n.Overshoot, n.Excess, n.OverD, n.ShaperDelayed, 100*n.OverRate, n.Messages, n.Fallback, n.JainNodes, n.JainKeys, thm)
		if withOne {
			fmt.Fprintf(w, "  %6d %6d", n.OverOne, n.UnderOne)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\novershoot  the supremum over every length d of α*(d)/(B + R·d), where α*(d) is the most admitted jobs of\n")
	fmt.Fprintf(w, "           a key in any closed interval of length d (exact, over every pair of admitted instants; the worst\n")
	fmt.Fprintf(w, "           key), reached at d (s); above 1 the design let more through than (R, B)\n")
	fmt.Fprintf(w, "excess     the supremum over d of α*(d) − (B + R·d), jobs: how far the worst interval went beyond the promise\n")
	fmt.Fprintf(w, "           (exact; above 0 exactly when the overshoot is above 1)\n")
	fmt.Fprintf(w, "shaper     admitted jobs that a shaping bucket (R, B) fed each key's admitted stream would delay: 0 exactly\n")
	fmt.Fprintf(w, "           when the excess is <= 0; it counts every later job of a busy period an excess began, not the excess\n")
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

// nodeLimiterJSON is the node limiter of drl --node-limiter: its spec,
// its exact arrival curve α (when the profile states one) and the
// fleet's, N·α for the run's N nodes at the start.
type nodeLimiterJSON struct {
	Params     string  `json:"params"`
	Curve      string  `json:"arrival_curve,omitempty"`
	Fleet      string  `json:"fleet_arrival_curve,omitempty"`
	FleetRate  float64 `json:"fleet_rate_jobs_per_s,omitempty"`
	FleetBurst float64 `json:"fleet_burst_jobs,omitempty"`
}

// nodeFleet returns the node limiter of s with its curve and the fleet's.
func nodeFleet(s drl.Spec) nodeLimiterJSON {
	nl := nodeLimiterJSON{Params: s.Static.NodeLimiterName, Curve: "(none stated)"}
	p, err := profiles.Parse(s.Static.NodeLimiterName)
	if err != nil {
		return nl
	}
	a, ok := profiles.ArrivalCurve(p)
	if !ok {
		return nl
	}
	nl.Curve = a.String()
	if fa, ok := scaleCurve(a, s.Nodes); ok {
		nl.Fleet = fa.String()
		nl.FleetRate, nl.FleetBurst = netcalc.LongTermRate(fa).Float64(), netcalc.InitialBurst(fa).Float64()
	}
	return nl
}
