package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// traceFormatFlags are the flags that choose a trace's format and read the
// count formats; run and trace stats share them.
type traceFormatFlags struct {
	format   string
	interval time.Duration
	spread   string
	series   string
	countCol string
}

// traceFormatFlagNames are the flags of traceFormatFlags and of
// addBadLineFlags.
var traceFormatFlagNames = []string{"format", "interval", "spread", "series", "count-col", "sort", "skip-bad", "max-bad"}

// addBadLineFlags adds the flags that say what to do with out-of-order
// and malformed trace lines; run, limiters and trace stats share them.
func addBadLineFlags(fl *pflag.FlagSet, opt *arrivals.TraceOptions) {
	fl.BoolVar(&opt.Sort, "sort", false, "sort the trace by time in memory instead of failing on an out-of-order line")
	fl.BoolVar(&opt.SkipBad, "skip-bad", false, "skip malformed or out-of-order trace lines and report how many; a trace where more than 10 + 1% of the lines read are bad still fails (see --max-bad)")
	fl.IntVar(&opt.MaxBad, "max-bad", 0, "with --skip-bad: fail once more than this many lines are bad (>= 1; default 10 + 1% of the lines read; -1 no bound)")
}

// countsNote says how a count trace became arrivals ("counts per 1m
// interval, spread even"), or "" for a trace of times
// (experiments.CountsNote, which clients and drl write too).
func countsNote(tr *arrivals.Trace, spread string) string {
	return experiments.CountsNote(tr, spread)
}

func addTraceFormatFlags(fl *pflag.FlagSet, f *traceFormatFlags) {
	fl.StringVar(&f.format, "format", "", "trace format: csv (CSV or TSV), clf (Common/Combined Log Format), jsonl (JSON lines), counts (per-interval counts, one interval per line, of --interval each; a headerless file of one count per line, such as per-second counts in a .txt, is one), wide (one row per series, one column per interval); default by extension: .log clf, .jsonl jsonl, else csv; .gz is read transparently")
	f.interval = time.Minute
	fl.Var((*durationFlag)(&f.interval), "interval", "counts and wide formats: length of one counting interval, e.g. 1m or 1s")
	fl.StringVar(&f.spread, "spread", "even", "counts and wide formats: how an interval's c jobs become arrivals: even (at t + j·interval/c) or random (sorted uniform times, from --seed)")
	fl.StringVar(&f.series, "series", "all", "wide format: rows to sum, col=value conditions separated by commas (e.g. function=func-07), or all")
	fl.StringVar(&f.countCol, "count-col", "", "counts format: column of counts, a header name or 1-based index (default the last column)")
}

// apply copies the flags that were given into opt; the spread random
// source is stream StreamArrivals of seed, as for generated arrivals.
func (f *traceFormatFlags) apply(opt *arrivals.TraceOptions, changed func(string) bool, seed uint64) error {
	opt.Format = f.format
	if changed("max-bad") {
		switch {
		case !opt.SkipBad:
			return fmt.Errorf("--max-bad bounds the lines --skip-bad skips: add --skip-bad")
		case opt.MaxBad == 0:
			return flagError("max-bad", opt.MaxBad, "a number of lines >= 1, or -1 for no bound (leave it out for the default, 10 + 1% of the lines read; to allow no bad line, leave out --skip-bad)")
		case opt.MaxBad < -1:
			return flagError("max-bad", opt.MaxBad, "a number of lines >= 1, or -1 for no bound (leave it out for 10 + 1% of the lines read)")
		}
	}
	if changed("interval") {
		if f.interval <= 0 {
			return flagError("interval", f.interval, "a duration > 0, e.g. 1m")
		}
		opt.Interval = engine.Time(f.interval)
	}
	if changed("spread") {
		switch f.spread {
		case "even", "random":
		default:
			return flagError("spread", f.spread, "even or random")
		}
		opt.Spread = f.spread
	}
	if changed("series") && !strings.EqualFold(f.series, "all") {
		opt.Series = f.series
	}
	opt.CountCol = f.countCol
	opt.Src = experiments.Source(seed, systems.StreamArrivals)
	if _, err := arrivals.FormatFor("", f.format); err != nil {
		return flagError("format", f.format, "one of "+strings.Join(arrivals.Formats, ", "))
	}
	return nil
}

// cliMessage returns err's message in the command line's words: the
// options a trace error suggests named as flags (arrivals.FlagNamer).
func cliMessage(err error) string {
	if err == nil {
		return "<nil>"
	}
	msg := err.Error()
	var te *arrivals.TraceError
	if errors.As(err, &te) {
		msg = strings.Replace(msg, te.Error(), te.Phrase(arrivals.FlagNamer), 1)
	}
	return msg
}
