package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ratesim/ratesim/experiments/limiterstudy"
)

// limitersJSON is the --json output.
type limitersJSON struct {
	jsonHeader
	Input        string   `json:"input"`
	Rate         float64  `json:"rate_tokens_per_s"`
	RateExact    string   `json:"rate_tokens_per_s_exact"` // the exact value: "10/3"
	Limit        int64    `json:"limit_jobs"`
	Window       float64  `json:"window_s"`
	WindowExact  string   `json:"window_s_exact"`
	Offset       float64  `json:"offset_s"`
	Queue        int      `json:"queue_jobs"` // 0: unbounded
	Soft         float64  `json:"throttle_soft_tokens"`
	Hard         float64  `json:"throttle_hard_tokens"`
	Seed         uint64   `json:"seed"`
	Keyed        bool     `json:"keyed"`
	SkippedLines int      `json:"skipped_lines"`
	Figures      []string `json:"figures,omitempty"`
	// Curves gives each profile's exact arrival curve.
	Curves []limiterstudy.ProfileCurve `json:"profile_curves,omitempty"`
	Sizing *limiterstudy.BurstSizing   `json:"burst_sizing,omitempty"` // with --size-burst
	*limiterstudy.LimitersResult
}

func writeLimitersJSON(w io.Writer, res *limiterstudy.LimitersResult, skipped int, figures []string, curves []limiterstudy.ProfileCurve, sizing *limiterstudy.BurstSizing) {
	s := res.Spec
	out := limitersJSON{jsonHeader: newJSONHeader(), Input: s.Input, Rate: s.Rate.Float64(), RateExact: s.Rate.String(), WindowExact: s.Window.String(), Limit: s.Limit, Window: s.Window.Float64(), Offset: s.Offset.Float64(), Queue: s.Queue,
		Soft: s.Soft.Float64(), Hard: s.Hard.Float64(), Seed: s.Seed, Keyed: s.Keyed, SkippedLines: skipped, Figures: figures, Curves: curves, Sizing: sizing, LimitersResult: res}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // write errors are kept by the errWriter
}

// writeLimitersTable writes the table; with vsLimit (the user gave --rate
// or --limit) the profiles' rows also give their overshoot against
// γ(--rate, --limit).
func writeLimitersTable(w io.Writer, res *limiterstudy.LimitersResult, topKeys, skipped int, figures []string, curves []limiterstudy.ProfileCurve, vsLimit bool) {
	s := res.Spec
	vsLimit = writeLimitersHeader(w, res, skipped, curves, vsLimit)
	ds := s.Durations
	if ds == nil {
		ds = limiterstudy.DefaultDurations(s.Window)
	}
	fmt.Fprintf(w, "jobs       %d over %.6g s; α*(d) at %d lengths d from %.4g to %.4g s\n", res.Jobs, res.Duration, len(ds), ds[0].Seconds(), ds[len(ds)-1].Seconds())
	if s.Keyed {
		fmt.Fprintf(w, "keys       %d, each with its own limiters; overshoot and α* of the worst key\n", res.Keys)
	}
	writeLimiterRows(w, res, vsLimit)
	fmt.Fprintf(w, "\novershoot  the supremum over every length d of α*(d)/promise(d), where α*(d) is the most jobs passing\n")
	fmt.Fprintf(w, "           (leaving, for shapers) in any closed interval of length d: exact, over every pair of releases,\n")
	fmt.Fprintf(w, "           reached with α*(d) jobs against promise(d) in the interval [from, to]; excess: the supremum of\n")
	fmt.Fprintf(w, "           α*(d) − promise(d), jobs (above 0 exactly when the overshoot is above 1); sampled: the worst\n")
	fmt.Fprintf(w, "           α*(d)/promise(d) at the %d lengths only, with α*(d)/promise(d) at its d (s)\n", len(ds))
	writeColours(w, res)
	for _, l := range res.Limiters {
		if l.NoRetry > 0 {
			fmt.Fprintf(w, "no retry   %s: %d of its %d refusals say no retry would ever pass (an infinite wait: refused, not delayed)\n", l.Name, l.NoRetry, l.Rejected)
		}
	}
	writeCurves(w, curves)
	if s.Keyed && topKeys > 0 && len(res.Limiters) > 0 {
		writeKeys(w, res, topKeys)
	}
	if s.Service != nil {
		writeDownstream(w, res)
	}
	for i, p := range figures {
		if i == 0 {
			fmt.Fprintf(w, "figures    %s\n", p)
		} else {
			fmt.Fprintf(w, "           %s\n", p)
		}
	}
}

// writeLimitersHeader writes the input, the parameters and the profiles
// of res, and returns whether the table has a vs limit column.
func writeLimitersHeader(w io.Writer, res *limiterstudy.LimitersResult, skipped int, curves []limiterstudy.ProfileCurve, vsLimit bool) bool {
	s := res.Spec
	fmt.Fprintf(w, "input      %s; seed %d\n", s.Input, s.Seed)
	if skipped > 0 {
		fmt.Fprintf(w, "skipped    %s\n", count(skipped, "bad line"))
	}
	queue := "unbounded"
	if s.Queue > 0 {
		queue = fmt.Sprintf("%d jobs", s.Queue)
	}
	family := false
	for _, l := range res.Limiters {
		if !l.Profile {
			family = true
		}
	}
	if family {
		fmt.Fprintf(w, "params     R = %v tokens/s, L = %d (b = %d tokens), W = %v s, edges at %v + k·W s from %s; queue %s; throttle %v to %v tokens\n",
			s.Rate, s.Limit, s.Limit, s.Window, s.Offset, s.EdgesFrom(), queue, s.Soft, s.Hard)
	}
	profileCurve := make(map[string]string, len(curves))
	for _, c := range curves {
		profileCurve[c.Params] = c.Curve
	}
	vsLimit = vsLimit && len(s.Profiles) > 0
	for _, l := range res.Limiters {
		if !l.Profile {
			continue
		}
		held := "held to its own bound (no arrival curve known)"
		if c, ok := profileCurve[l.Params]; ok {
			held = "held to its own curve " + c
		}
		fmt.Fprintf(w, "profile    %s; %s\n", l.Params, held)
	}
	if vsLimit {
		fmt.Fprintf(w, "promise    each profile's overshoot is against its own curve; vs limit: against the promise you asked for,\n")
		fmt.Fprintf(w, "           γ(r=--rate %v, b=--limit %d) = %d + %v·d jobs\n", s.Rate, s.Limit, s.Limit, s.Rate)
	}
	return vsLimit
}

// writeLimiterRows writes the table's header and a row per limiter.
func writeLimiterRows(w io.Writer, res *limiterstudy.LimitersResult, vsLimit bool) {
	s := res.Spec
	keyCol := ""
	if s.Keyed {
		keyCol = "  key"
	}
	vsCol := ""
	if vsLimit {
		vsCol = fmt.Sprintf("  %8s", "vs limit")
	}
	sampledCol := "sampled (α*/promise)"
	if vsCol != "" || keyCol != "" {
		sampledCol = fmt.Sprintf("%-22s", sampledCol)
	}
	fmt.Fprintf(w, "\n%-16s %9s %9s %9s  %9s %9s %6s %8s %8s  %-21s %9s %9s %9s  %s%s%s\n",
		"limiter", "admitted", "rejected", "delayed", "overshoot", "excess", "α*(d)", "promise", "d (s)", "interval (s)", "mean (s)", "p99 (s)", "max (s)", sampledCol, vsCol, keyCol)
	for _, l := range res.Limiters {
		p := l.Worst
		promise := fmt.Sprintf("%.5g", p.Promise)
		if p.Unbounded {
			promise = "+Inf"
		}
		sampled := fmt.Sprintf("%.3f (%d/%s at %.4g)", p.Ratio, p.Jobs, promise, p.D)
		key := p.Key
		if x := l.Exact; x != nil {
			interval := fmt.Sprintf("[%.6g, %.6g]", x.RatioFrom, x.RatioTo)
			if x.RatioJobs == 0 {
				interval = "-"
			}
			fmt.Fprintf(w, "%-16s %9d %9d %9d  %9.4f %9.4g %6d %8.5g %8.4g  %-21s", l.Name, l.Admitted, l.Rejected, l.Delayed, x.Ratio, x.Excess, x.RatioJobs, x.RatioPromise, x.RatioD, interval)
			key = x.RatioKey
		} else {
			fmt.Fprintf(w, "%-16s %9d %9d %9d  %9s %9s %6s %8s %8s  %-21s", l.Name, l.Admitted, l.Rejected, l.Delayed, "-", "-", "-", "-", "-", "-")
		}
		if l.Delay != nil {
			fmt.Fprintf(w, " %9.4g %9.4g %9.4g", l.Delay.Mean, l.Delay.P99, l.Delay.Max)
		} else {
			fmt.Fprintf(w, " %9s %9s %9s", "-", "-", "-")
		}
		if vsLimit || s.Keyed {
			sampled = fmt.Sprintf("%-22s", sampled)
		}
		fmt.Fprintf(w, "  %s", sampled)
		if vsLimit {
			if l.ExactVsLimit != nil {
				fmt.Fprintf(w, "  %8.4f", l.ExactVsLimit.Ratio)
			} else {
				fmt.Fprintf(w, "  %8s", "-")
			}
		}
		if s.Keyed {
			fmt.Fprintf(w, "  %s", key)
		}
		fmt.Fprintln(w)
	}
}

// writeKeys lists the keys with the most arrivals and the jobs each limiter
// rejected of theirs.
func writeKeys(w io.Writer, res *limiterstudy.LimitersResult, top int) {
	keys := res.Limiters[0].Keys
	n := min(top, len(keys))
	fmt.Fprintf(w, "\nrejected jobs of the %d keys with the most arrivals (of %d):\n", n, len(keys))
	fmt.Fprintf(w, "%-16s %10s %8s", "key", "first line", "arrivals")
	for _, l := range res.Limiters {
		fmt.Fprintf(w, " %*s", max(8, len(l.Name)), l.Name)
	}
	fmt.Fprintln(w)
	rejected := make([]map[string]int64, len(res.Limiters))
	for j, l := range res.Limiters {
		rejected[j] = make(map[string]int64, len(l.Keys))
		for _, k := range l.Keys {
			rejected[j][k.Key] = k.Rejected
		}
	}
	for _, k := range keys[:n] {
		fmt.Fprintf(w, "%-16s %10d %8d", k.Key, k.FirstLine, k.Arrivals)
		for j, l := range res.Limiters {
			fmt.Fprintf(w, " %*d", max(8, len(l.Name)), rejected[j][k.Key])
		}
		fmt.Fprintln(w)
	}
}

// writeDownstream lists what each limiter's passing jobs met at the
// rate-latency server, against the network-calculus bounds.
func writeDownstream(w io.Writer, res *limiterstudy.LimitersResult) {
	srv := res.Spec.Service
	fmt.Fprintf(w, "\ndownstream: the passing jobs of each limiter into a rate-latency server %v (latency %v s, then FIFO at %v jobs/s)\n", srv, srv.Latency, srv.Rate)
	width := 20 // of the promise column, in runes (fmt pads by runes)
	for _, l := range res.Limiters {
		if l.Downstream != nil {
			width = max(width, utf8.RuneCountInString(l.Downstream.ArrivalCurve))
		}
	}
	fmt.Fprintf(w, "%-16s %-*s %-9s %12s %12s %11s %11s\n", "limiter", width, "promise α", "conforms", "max delay", "bound h", "max backlog", "bound ⌈v⌉")
	for _, l := range res.Limiters {
		d := l.Downstream
		if d == nil {
			continue
		}
		conf := "yes"
		if !d.Conforms {
			conf = "no"
		}
		fmt.Fprintf(w, "%-16s %-*s %-9s %12s %12s %11d %11d\n", l.Name, width, d.ArrivalCurve, conf,
			fmt.Sprintf("%.6g s", d.MaxDelay), exactSeconds(d.DelayBoundExact, d.DelayBound), d.MaxBacklog, d.BacklogBound)
	}
	for _, l := range res.Limiters {
		if v := l.Downstream.Violation; v != nil {
			fmt.Fprintf(w, "%-16s breaks its promise α = %s: %d jobs in [%.9g, %.9g] s, where α allows %.6g\n", l.Name, l.Downstream.ArrivalCurve, v.Jobs, v.From, v.To, v.Bound)
		}
	}
	fmt.Fprintf(w, "bounds     h = T + b/R and v = b + r·T for α = γ(r, b) (Le Boudec and Thiran, Theorems 1.4.1-2); they hold for every\n")
	fmt.Fprintf(w, "           stream that keeps α, so a limiter that breaks its promise can exceed them; backlog counts the job in service\n")
}

// exactSeconds writes an exact value of seconds, "13/3 s", with its decimal
// when it is a fraction: "13/3 = 4.33333 s".
func exactSeconds(exactText string, x float64) string {
	if strings.Contains(exactText, "/") {
		return fmt.Sprintf("%s=%.4g s", exactText, x)
	}
	return exactText + " s"
}
