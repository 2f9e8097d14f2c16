package main

import (
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

// traceFormatFlagNames are the flags of traceFormatFlags.
var traceFormatFlagNames = []string{"format", "interval", "spread", "series", "count-col"}

func addTraceFormatFlags(fl *pflag.FlagSet, f *traceFormatFlags) {
	fl.StringVar(&f.format, "format", "", "trace format: csv (CSV or TSV), clf (Common/Combined Log Format), jsonl (JSON lines), counts (per-interval counts, one interval per line), wide (one row per series, one column per interval); default by extension: .log clf, .jsonl jsonl, else csv; .gz is read transparently")
	fl.DurationVar(&f.interval, "interval", time.Minute, "counts and wide formats: length of one counting interval, e.g. 1m or 1s")
	fl.StringVar(&f.spread, "spread", "even", "counts and wide formats: how an interval's c jobs become arrivals: even (at t + j·interval/c) or random (sorted uniform times, from --seed)")
	fl.StringVar(&f.series, "series", "all", "wide format: rows to sum, col=value conditions separated by commas (e.g. function=func-07), or all")
	fl.StringVar(&f.countCol, "count-col", "", "counts format: column of counts, a header name or 1-based index (default the last column)")
}

// apply copies the flags that were given into opt; the spread random
// source is stream StreamArrivals of seed, as for generated arrivals.
func (f *traceFormatFlags) apply(opt *arrivals.TraceOptions, changed func(string) bool, seed uint64) error {
	opt.Format = f.format
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
