package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/plots"
)

// newTraceCmd builds `ratesim trace`, the trace tools.
func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Tools for arrival traces: statistics and burstiness curves",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fmt.Errorf("trace needs a subcommand: stats (see 'ratesim trace --help')")
		},
	}
	cmd.AddCommand(newTraceStatsCmd())
	return cmd
}

// traceStatsFlags are the flags of ratesim trace stats.
type traceStatsFlags struct {
	opt     arrivals.TraceOptions
	fmt     traceFormatFlags
	seed    uint64
	plot    string
	plotO   string // -o, the old spelling of --plot
	fit     bool
	rates   string
	delayed float64
	json    bool
}

func newTraceStatsCmd() *cobra.Command {
	f := &traceStatsFlags{}
	cmd := &cobra.Command{
		Use:   "stats FILE",
		Short: "Print a trace's rate, burstiness and dispersion statistics",
		Long: `Stats reads an arrival trace (any format ratesim run reads, gzip or not) and
prints: jobs, duration, mean rate (jobs/duration), the peak rate over 1 s and
60 s windows (the most arrivals in any window [s, s+w), divided by w), the
interarrival gaps' mean and squared coefficient of variation (SCV, sample
variance/mean²), the index of dispersion of counts Var(N)/E[N] over
consecutive windows of 1 s to 1 h from the first arrival (complete windows
only), the fraction of zero gaps (ties), and with --key-col the number of
distinct keys and the share of the 10 most frequent.

--fit prints the burstiness curve b(r): for each rate r, the smallest bucket
size b such that no job of the trace waits in a token bucket (r, b) that
starts full, which is 1 + max_i r·U(a_i-) for the G/D/1 unfinished work U
with service time 1/r, computed exactly in one pass per rate; and the
smallest b for which at most the fraction --delayed of the jobs wait.
--plot draws the rate over time, the interarrival distribution and b(r).`,
		Example: `  ratesim trace stats ../shared/traces/nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv \
      --time-col ts_unix --key-col client --fit --plot nasa.png
  ratesim trace stats access.log.gz --key-col host
  ratesim trace stats requests.jsonl --time-col ts --time-format rfc3339
  ratesim trace stats ../shared/traces/azure-functions-2019/azure_functions_2019_invocations_per_minute_sample.csv \
      --format wide --series function=func-07 --spread random`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceStats(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	addTraceFormatFlags(fl, &f.fmt)
	fl.StringVar(&f.opt.TimeCol, "time-col", "", "column of arrival times: a header name or a 1-based index (default the first column; jsonl: the field time)")
	fl.StringVar(&f.opt.TimeFormat, "time-format", "unix", "time format: unix, unix-ms, unix-us, unix-ns, datetime, rfc3339, or a Go time layout")
	fl.StringVar(&f.opt.KeyCol, "key-col", "", "column of job keys (clf: host, ident or user), for the key statistics")
	addBadLineFlags(fl, &f.opt)
	fl.Uint64VarP(&f.seed, "seed", "s", 1, "seed of --spread random")
	fl.StringVar(&f.plot, "plot", "", "draw the rate over time, the interarrival distribution and (with --fit) b(r) to this file (.png, .svg or .pdf)")
	markOutput(cmd, "plot", outputFile)
	// -o names an output folder in every other command; here it was the
	// --plot file, and still is, unlisted, for the scripts that used it.
	fl.StringVarP(&f.plotO, "plot-o", "o", "", "")
	markOutput(cmd, "plot-o", outputFile)
	fl.MarkHidden("plot-o")
	fl.BoolVar(&f.fit, "fit", false, "print the burstiness curve b(r) (reads the trace twice)")
	fl.StringVar(&f.rates, "rates", "", "token rates r for --fit, tokens/s, separated by commas (default 1.05 to 20 times the mean rate)")
	fl.Float64Var(&f.delayed, "delayed", 0.01, "target fraction of delayed jobs for --fit, in [0, 1)")
	fl.BoolVar(&f.json, "json", false, "print one JSON object instead of the report")
	return cmd
}

// defaultFitFactors are the multiples of the mean rate of the default
// --fit rates.
var defaultFitFactors = []float64{1.05, 1.1, 1.2, 1.35, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20}

func runTraceStats(cmd *cobra.Command, f *traceStatsFlags, path string) error {
	rates, err := f.check(cmd, path)
	if err != nil {
		return err
	}
	format, _ := arrivals.FormatFor(path, f.opt.Format)
	st, err := arrivals.NewStats(arrivals.StatsOptions{Keyed: f.opt.KeyCol != ""})
	if err != nil {
		return err
	}
	info, err := tracePass(cmd, path, f.opt, func(a arrivals.Arrival) error {
		return st.Add(a.T, a.Key)
	})
	if err != nil {
		return err
	}
	sum := st.Summary()
	if info.skipped > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: skipped %s of %s; the first: %v\n", count(info.skipped, "bad line"), path, cliMessage(info.firstSkipped))
	}
	var fit *burstFit
	if f.fit {
		if len(rates) == 0 {
			if !(sum.MeanRate > 0) || math.IsInf(sum.MeanRate, 0) {
				return fmt.Errorf("--fit: the trace has no mean rate (%d jobs over %v s): give --rates", sum.Jobs, sum.Duration)
			}
			for _, x := range defaultFitFactors {
				rates = append(rates, x*sum.MeanRate)
			}
		}
		if fit, err = fitBurst(cmd, path, f.opt, rates, sum, f.delayed); err != nil {
			return err
		}
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		writeStatsJSON(w, path, format, info, sum, fit)
	} else {
		writeStats(w, path, format, info, sum, fit)
	}
	if w.err != nil {
		return fmt.Errorf("writing the report: %w", w.err)
	}
	if f.plot == "" {
		return nil
	}
	return plotTraceStats(cmd, f.plot, path, format, info, sum, fit)
}

// check checks the flags of ratesim trace stats and returns the rates of
// --rates (none when not given); it applies the trace format flags to
// f.opt.
func (f *traceStatsFlags) check(cmd *cobra.Command, path string) ([]float64, error) {
	changed := cmd.Flags().Changed
	if changed("plot-o") {
		if changed("plot") {
			return nil, fmt.Errorf("-o is the old spelling of --plot: give --plot only")
		}
		deprecated(cmd, "-o FILE", "--plot FILE (-o names an output folder in the other commands)")
		f.plot = f.plotO
	}
	if err := f.fmt.apply(&f.opt, changed, f.seed); err != nil {
		return nil, err
	}
	if !changed("time-format") {
		f.opt.TimeFormat = "" // the default of every format
	}
	if !(f.delayed >= 0 && f.delayed < 1) {
		return nil, flagError("delayed", f.delayed, "a fraction in [0, 1)")
	}
	var rates []float64
	if f.rates != "" {
		for _, s := range strings.Split(f.rates, ",") {
			r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !finitePositive(r) {
				return nil, flagError("rates", f.rates, fmt.Sprintf("finite rates > 0 tokens/s separated by commas; %q is not one", s))
			}
			rates = append(rates, r)
		}
	}
	if (changed("rates") || changed("delayed")) && !f.fit {
		return nil, fmt.Errorf("--rates and --delayed apply to --fit only: add --fit")
	}
	if f.fit {
		// --fit reads the trace a second time: refused at once from a
		// fifo, as from standard input, rather than waiting forever.
		if err := arrivals.CheckRereadable(path); err != nil {
			return nil, fmt.Errorf("--fit: %w", err)
		}
	}
	if f.plot != "" {
		if err := checkOutputFile("plot", f.plot, ".png", ".svg", ".pdf"); err != nil {
			return nil, err
		}
		if err := checkNotInput("plot", f.plot, path); err != nil {
			return nil, err
		}
	}
	return rates, nil
}

// plotTraceStats draws the figure of ratesim trace stats --plot FILE.
func plotTraceStats(cmd *cobra.Command, file, path, format string, info passInfo, sum arrivals.TraceSummary, fit *burstFit) error {
	fig := &plots.TraceFigure{
		Title:      statsTitle(path, format, info, sum, fit),
		Caption:    statsCaption(sum, fit),
		RateWidth:  sum.RateWidth.Seconds(),
		RateCounts: sum.RateCounts,
		MeanRate:   sum.MeanRate,
		GapEdges:   sum.GapEdges, GapCCDF: sum.GapCCDF, GapMean: sum.GapMean, TieFraction: sum.TieFraction,
	}
	if fit != nil {
		fig.Rates, fig.Burst, fig.BurstTarget = fit.rates, fit.none, fit.target
		fig.TargetLabel = fmt.Sprintf("at most %s wait", pct(fit.fraction))
	}
	if err := fig.Save(file); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	noteFigures(cmd.ErrOrStderr(), []string{file})
	return nil
}

// passInfo describes a read of the trace.
type passInfo struct {
	origin       string // the first arrival's instant in UTC, or ""
	counts       string // countsNote of the trace
	interval     engine.Time
	skipped      int
	firstSkipped error
}

// tracePass reads the trace once, calling each for every arrival.
func tracePass(cmd *cobra.Command, path string, opt arrivals.TraceOptions, each func(arrivals.Arrival) error) (passInfo, error) {
	var info passInfo
	ctx := cmd.Context()
	tr, err := arrivals.OpenContext(ctx, path, opt)
	if err != nil {
		return info, err
	}
	defer tr.Close()
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx != nil && ctx.Err() != nil {
			return info, ctx.Err()
		}
		a, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, err
		}
		if err := each(a); err != nil {
			return info, fmt.Errorf("%s:%d: %w", path, a.Line, err)
		}
	}
	if ns, ok := tr.Origin(); ok {
		if o := time.Unix(0, ns).UTC(); o.Year() > 1970 {
			info.origin = o.Format("2006-01-02 15:04:05.999999999 MST")
		}
	}
	info.skipped, info.firstSkipped = tr.Skipped(), tr.FirstSkipped()
	info.counts, info.interval = countsNote(tr, opt.Spread), tr.Interval()
	return info, nil
}

// burstFit is the burstiness curve of --fit.
type burstFit struct {
	rates, none, target []float64
	fraction            float64
	allowed             int64 // delayed jobs allowed: floor(fraction·jobs)
}

// fitBurst reads the trace a second time to compute b(r) and the smallest
// b with at most floor(fraction·jobs) delayed jobs.
func fitBurst(cmd *cobra.Command, path string, opt arrivals.TraceOptions, rates []float64, sum arrivals.TraceSummary, fraction float64) (*burstFit, error) {
	allowed := int64(math.Floor(fraction * float64(sum.Jobs)))
	keep := allowed + 1
	if keep > 1<<26 {
		return nil, flagError("delayed", fraction, fmt.Sprintf("a fraction allowing at most %d delayed jobs (it keeps that many values per rate in memory)", 1<<26))
	}
	exactRates := make([]exact.Rat, len(rates))
	for i, r := range rates {
		var err error
		if exactRates[i], err = exact.FromFloat64(r); err != nil {
			return nil, flagError("rates", r, "finite rates > 0 jobs/s")
		}
	}
	bc, err := arrivals.NewBurstCurve(exactRates, int(keep))
	if err != nil {
		return nil, err
	}
	if _, err := tracePass(cmd, path, opt, func(a arrivals.Arrival) error { return bc.Add(a.T) }); err != nil {
		return nil, err
	}
	target, err := bc.BurstAllowing(allowed)
	if err != nil {
		return nil, err
	}
	return &burstFit{rates: rates, none: bc.Burst(), target: target, fraction: fraction, allowed: allowed}, nil
}

func pct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "undefined"
	}
	return strconv.FormatFloat(100*x, 'g', 4, 64) + "%"
}

// num formats a statistic with %.6g, or "undefined" when the trace is too
// short to define it (NaN or ±Inf, e.g. the gap SCV of two arrivals).
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "undefined"
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// statsCaption is the caption line of the figure.
// statsTitle is the title of trace stats --plot: what the panels show,
// of which trace, in what format, and over what span.
func statsTitle(path, format string, info passInfo, s arrivals.TraceSummary, fit *burstFit) string {
	format = formatText(format, info)
	what := "Arrival rate and interarrival gaps"
	if fit != nil {
		what = "Arrival rate, interarrival gaps and burstiness curve b(r)"
	}
	span := fmt.Sprintf("%d jobs over %s", s.Jobs, spanText(s.Duration.Seconds()))
	if info.origin != "" {
		span += " from " + info.origin
	}
	return fmt.Sprintf("%s of trace %s (%s, %s)", what, filepath.Base(path), format, span)
}

// spanText writes a duration in seconds in the unit a reader expects:
// "45.6 s", "20.6 min", "27.8 h", "31 days", "1096 days" (3
// significant digits, all the integer digits, never e-notation).
func spanText(d float64) string {
	unit := "s"
	switch {
	case d >= 3*86400:
		d, unit = d/86400, "days"
	case d >= 3*3600:
		d, unit = d/3600, "h"
	case d >= 600:
		d, unit = d/60, "min"
	}
	if math.Abs(d) >= 100 {
		return fmt.Sprintf("%.0f %s", d, unit)
	}
	return strconv.FormatFloat(d, 'g', 3, 64) + " " + unit
}

func statsCaption(s arrivals.TraceSummary, fit *burstFit) string {
	c := fmt.Sprintf("%d jobs over %.6g s; mean %s jobs/s; gap SCV %s; %s of gaps are 0 (ties).", s.Jobs, s.Duration.Seconds(), num(s.MeanRate), num(s.GapSCV), pct(s.TieFraction))
	if fit != nil {
		c += " b(r): the smallest bucket of a token bucket (r, b), full at the start, in which no job (or at most " + pct(fit.fraction) + " of jobs) waits."
	}
	return c
}

// formatText names a trace's format with its counts note, if any.
func formatText(format string, info passInfo) string {
	switch {
	case info.counts != "" && format == arrivals.FormatCounts:
		return info.counts
	case info.counts != "":
		return format + ", " + info.counts
	}
	return format
}

func writeStats(w io.Writer, path, format string, info passInfo, s arrivals.TraceSummary, fit *burstFit) {
	fmt.Fprintf(w, "trace      %s (%s)\n", path, formatText(format, info))
	if info.skipped > 0 {
		fmt.Fprintf(w, "skipped    %s\n", count(info.skipped, "bad line"))
	}
	fmt.Fprintf(w, "jobs       %d\n", s.Jobs)
	dur := fmt.Sprintf("%.6g s", s.Duration.Seconds())
	if s.Duration >= 3600*engine.Second {
		dur += fmt.Sprintf(" (%.3g h)", s.Duration.Seconds()/3600)
	}
	if info.origin != "" {
		dur += ", from " + info.origin
	}
	fmt.Fprintf(w, "duration   %s\n", dur)
	fmt.Fprintf(w, "mean rate  %s jobs/s (jobs/duration)\n", num(s.MeanRate))
	for _, p := range s.Peaks {
		fmt.Fprintf(w, "peak rate  %.6g jobs/s over %v s windows (%d jobs from t = %.6g s)\n", p.Rate, p.Window, p.Jobs, p.At.Seconds())
	}
	fmt.Fprintf(w, "gaps       mean %s s, SCV %s\n", num(s.GapMean), num(s.GapSCV))
	fmt.Fprintf(w, "ties       %d zero gaps (%s of gaps)\n", s.Ties, pct(s.TieFraction))
	fmt.Fprintf(w, "dispersion index of dispersion of counts, Var(N)/E[N] over windows of τ s:\n")
	fmt.Fprintf(w, "           %10s %10s %12s %12s\n", "τ (s)", "windows", "mean N", "IDC")
	for _, d := range s.Dispersion {
		if d.Windows < 2 {
			fmt.Fprintf(w, "           %10v %10d %12s %12s\n", d.Scale, d.Windows, "-", "- (trace too short)")
			continue
		}
		fmt.Fprintf(w, "           %10v %10d %12.6g %12.6g\n", d.Scale, d.Windows, d.Mean, d.IDC)
	}
	if s.Keys != nil {
		fmt.Fprintf(w, "keys       %d distinct; the 10 most frequent carry %s of jobs\n", s.Keys.Distinct, pct(s.Keys.Top10Share))
	}
	if fit == nil {
		return
	}
	fmt.Fprintf(w, "\nburstiness curve: the smallest bucket b (tokens) of a token bucket (r, b), full at the start,\n")
	fmt.Fprintf(w, "in which no job waits, and in which at most %s of jobs (%d of %d) wait\n", pct(fit.fraction), fit.allowed, s.Jobs)
	fmt.Fprintf(w, "%18s %8s %14s %14s\n", "r (tokens/s)", "r/mean", "b: none wait", "b: "+pct(fit.fraction)+" wait")
	for i, r := range fit.rates {
		rel := "-" // a trace of one instant has no mean rate
		if s.MeanRate > 0 && !math.IsInf(s.MeanRate, 0) {
			rel = fmt.Sprintf("%.4g", r/s.MeanRate)
		}
		fmt.Fprintf(w, "%18.6g %8s %14.6g %14.6g\n", r, rel, fit.none[i], fit.target[i])
	}
}

// jnum is a float64 that encodes NaN and infinities as JSON null.
type jnum float64

func (x jnum) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func writeStatsJSON(w io.Writer, path, format string, info passInfo, s arrivals.TraceSummary, fit *burstFit) {
	type peak struct {
		Window jnum  `json:"window_s"`
		Jobs   int64 `json:"jobs"`
		Rate   jnum  `json:"rate_jobs_per_s"`
		At     jnum  `json:"at_s"`
	}
	type disp struct {
		Scale   jnum  `json:"scale_s"`
		Windows int64 `json:"windows"`
		Mean    jnum  `json:"mean_jobs"`
		IDC     jnum  `json:"index_of_dispersion"`
	}
	type keys struct {
		Distinct   int     `json:"distinct"`
		Top10Share jnum    `json:"top10_share"`
		Top        []int64 `json:"top10_jobs"`
	}
	type point struct {
		Rate   jnum `json:"rate_tokens_per_s"`
		None   jnum `json:"burst_none_wait_tokens"`
		Target jnum `json:"burst_target_tokens"`
	}
	out := struct {
		jsonHeader
		Trace       string  `json:"trace"`
		Format      string  `json:"format"`
		Interval    *jnum   `json:"interval_s,omitempty"` // counts and wide formats
		Jobs        int64   `json:"jobs"`
		Duration    jnum    `json:"duration_s"`
		MeanRate    jnum    `json:"mean_rate_jobs_per_s"`
		Peaks       []peak  `json:"peak_rates"`
		GapMean     jnum    `json:"gap_mean_s"`
		GapSCV      jnum    `json:"gap_scv"`
		Ties        int64   `json:"zero_gaps"`
		TieFraction jnum    `json:"zero_gap_fraction"`
		Dispersion  []disp  `json:"dispersion"`
		Keys        *keys   `json:"keys,omitempty"`
		Delayed     *jnum   `json:"fit_delayed_fraction,omitempty"`
		Fit         []point `json:"fit,omitempty"`
	}{jsonHeader: newJSONHeader(), Trace: path, Format: format, Jobs: s.Jobs, Duration: jnum(s.Duration.Seconds()), MeanRate: jnum(s.MeanRate),
		GapMean: jnum(s.GapMean), GapSCV: jnum(s.GapSCV), Ties: s.Ties, TieFraction: jnum(s.TieFraction)}
	if info.interval > 0 {
		iv := jnum(info.interval.Seconds())
		out.Interval = &iv
	}
	for _, p := range s.Peaks {
		out.Peaks = append(out.Peaks, peak{jnum(p.Window.Seconds()), p.Jobs, jnum(p.Rate), jnum(p.At.Seconds())})
	}
	for _, d := range s.Dispersion {
		out.Dispersion = append(out.Dispersion, disp{jnum(d.Scale.Seconds()), d.Windows, jnum(d.Mean), jnum(d.IDC)})
	}
	if s.Keys != nil {
		out.Keys = &keys{s.Keys.Distinct, jnum(s.Keys.Top10Share), s.Keys.Top}
	}
	if fit != nil {
		d := jnum(fit.fraction)
		out.Delayed = &d
		for i, r := range fit.rates {
			out.Fit = append(out.Fit, point{jnum(r), jnum(fit.none[i]), jnum(fit.target[i])})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // write errors are kept by the errWriter
}
