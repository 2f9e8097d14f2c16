package drl

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// param is a parameter of a caption: the command line's flag that sets
// it and its text.
type param struct{ flag, text string }

// designParams lists, for each design, the parameters of Spec that change
// its numbers (those the command line's design flags set), written for a
// caption.
func designParams(s Spec, design string) []param {
	dur := func(t engine.Time) string {
		if t == engine.Forever {
			return "never"
		}
		return time.Duration(t).String()
	}
	var out []param
	add := func(flag, format string, args ...any) { out = append(out, param{flag, fmt.Sprintf(format, args...)}) }
	switch design {
	case "static":
		if len(s.Scale) > 0 {
			var ev []string
			for _, e := range s.Scale {
				ev = append(ev, fmt.Sprintf("%d nodes at %s", e.Nodes, dur(e.At)))
			}
			add("scale", "scale events %s", strings.Join(ev, ", "))
		}
	case "store":
		add("rtt", "round trip %s", s.RTT)
		add("store-limiter", "store limiter %s", s.StoreLimiter)
		if len(s.Outages) > 0 {
			var iv []string
			for _, o := range s.Outages {
				iv = append(iv, fmt.Sprintf("[%s, %s)", dur(o.From), dur(o.To)))
			}
			add("outage", "store down %s", strings.Join(iv, ", "))
		}
		if s.OutageUp > 0 && s.OutageDown > 0 {
			add("outage-process", "store outages on/off, mean up %s, mean down %s", dur(s.OutageUp), dur(s.OutageDown))
		}
		if len(s.Outages) > 0 || (s.OutageUp > 0 && s.OutageDown > 0) {
			add("fail", "failing %s", s.Fail)
		}
		if s.StoreCache {
			add("store-cache", "refusals cached")
		}
	case "sync":
		add("sync-period", "sync period T = %s", dur(s.SyncPeriod))
		if s.BatchLimit > 0 {
			add("batch-limit", "batch limit %d keys", s.BatchLimit)
		}
		add("sync-delay", "message delay %s", s.SyncDelay)
		add("loss", "loss %g", s.SyncLoss)
		add("local", "local %s", s.Local)
	case "lease":
		size := fmt.Sprint(s.LeaseSize)
		if s.LeaseSize == 0 {
			size = "B/N"
		}
		add("rtt", "round trip %s", s.RTT)
		add("lease-size", "lease %s tokens", size)
		add("lease-ttl", "lease TTL %s", dur(s.LeaseTTL))
	case "grd", "fps":
		add("estimate-interval", "estimate interval %s", dur(s.EstimateInterval))
		add("smoothing", "smoothing %g", s.Smoothing)
		add("exchange", "exchange %s", s.Exchange)
		add("sync-delay", "message delay %s", s.SyncDelay)
		add("loss", "loss %g", s.SyncLoss)
		if s.Exchange == ExchangeGossip {
			add("fanout", "fanout %d", s.Fanout)
		}
	}
	return out
}

// Caption describes a run of the designs for a figure: the input, the
// promise, the nodes, shaping or policing, the dispatch and the seed, and
// for each design run the parameters that change its numbers (the round
// trip, the outages and the failure mode of store; the sync period,
// message delay and loss of sync; and so on), so that runs that differ
// give figures that are captioned differently. The parameters set by the
// flags in swept (a sweep's axes: "sync-period") are left out, as the
// figure's axes and groups give them.
func Caption(s Spec, designs []string, input string, swept ...string) string {
	mode := "shaping (a job waits for its token)"
	if s.Police {
		mode = "policing (a job without a token is rejected)"
	}
	var head []string
	head = append(head, input)
	if !slices.Contains(swept, "rate") && !slices.Contains(swept, "burst") {
		head = append(head, fmt.Sprintf("R = %v tokens/s, B = %v tokens per key", s.Bucket.Rate, s.Bucket.Burst))
	}
	if !slices.Contains(swept, "nodes") {
		head = append(head, fmt.Sprintf("%d nodes", s.Nodes))
	}
	if !slices.Contains(swept, "police") {
		head = append(head, mode)
	}
	if !slices.Contains(swept, "dispatch") {
		head = append(head, s.Dispatch+" dispatch")
	}
	head = append(head, fmt.Sprintf("seed %d", s.Seed))
	parts := []string{strings.Join(head, ", ")}
	for _, d := range designs {
		var ps []string
		for _, p := range designParams(s, d) {
			if !slices.Contains(swept, p.flag) {
				ps = append(ps, p.text)
			}
		}
		if len(ps) > 0 {
			parts = append(parts, d+": "+strings.Join(ps, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// Figures draws the admitted rate over time of every design (bins of
// 1/200 of the run, at least one burst time B/R) against R, with the
// store's outages shaded and the static design's scale events marked, for
// a run without keys, and the CCDF of the admitted jobs' delays, each
// curve running to its largest delay. results are those Params.Run keeps,
// sums their summaries.
func Figures(s Spec, results []*Result, sums []Summary, caption string) []experiments.NamedFigure {
	rate := &plots.LinePlot{Title: "Admitted rate over time", XLabel: "time (s)", YLabel: "admitted jobs/s", Caption: caption}
	ccdf := &plots.LinePlot{Title: "Delay of the admitted jobs", XLabel: "delay d (s)", YLabel: "P(delay > d)", LogY: true, Caption: caption + "; each curve ends at its largest delay (mark)"}
	burst := engine.Time(s.Bucket.Burst.Float64() / s.Bucket.Rate.Float64() * 1e9)
	keyed := false
	top := s.Bucket.Rate.Float64()
	designs := map[string]bool{}
	for i, r := range results {
		designs[r.Design] = true
		keyed = keyed || sums[i].Keys > 1
		bin := max(burst, (r.Last-r.First)/200, 1)
		x, y := r.Rate(bin)
		for _, v := range y {
			top = math.Max(top, v)
		}
		rate.Lines = append(rate.Lines, plots.Line{Label: r.Design, X: x, Y: y, Step: true, Color: i})
		ccdf.Lines = append(ccdf.Lines, experiments.TailLines(delayDistribution(r), r.Design, i, false)...)
	}
	var none []string
	for _, r := range results {
		if len(r.Delays) == 0 {
			none = append(none, r.Design)
		}
	}
	if len(none) > 0 {
		ccdf.Caption += "; no admitted job waited under " + strings.Join(none, ", ") + " (no curve)"
	}
	ccdf.YRange = experiments.TailRange(ccdf.Lines)
	if !keyed && len(results) > 0 && len(rate.Lines[0].X) > 0 {
		x := rate.Lines[0].X
		rv := s.Bucket.Rate.Float64()
		rate.Lines = append(rate.Lines, plots.Line{Label: "R", X: []float64{x[0], x[len(x)-1]}, Y: []float64{rv, rv}, Dashed: true, Color: -1})
		rate.Lines = append(rate.Lines, eventLines(s, designs, top*1.05)...)
	}
	return []experiments.NamedFigure{{Name: "drl-admitted-rate", Figure: rate}, {Name: "drl-delay-ccdf", Figure: ccdf}}
}

// eventLines marks the events of a run on a time series of height top:
// the store's outages (when store ran) as grey shaded intervals, and the
// static design's scale events (when static ran) as dashed vertical
// lines.
func eventLines(s Spec, designs map[string]bool, top float64) []plots.Line {
	var out []plots.Line
	if designs["store"] {
		for i, o := range s.Outages {
			l := plots.Line{X: []float64{o.From.Seconds(), o.To.Seconds()}, Y: []float64{top, top}, Lo: []float64{0, 0}, Hi: []float64{top, top}, Color: -1, Dashed: true} // dashed: no marks on the band's edge
			if i == 0 {
				l.Label = "store down (outage)"
			}
			out = append(out, l)
		}
	}
	if designs["static"] {
		for i, e := range s.Scale {
			l := plots.Line{X: []float64{e.At.Seconds(), e.At.Seconds()}, Y: []float64{0, top}, Dashed: true, Color: -1}
			if i == 0 {
				l.Label = "static re-split (scale event)"
			}
			out = append(out, l)
		}
	}
	return out
}

// delayDistribution is the distribution of r's delays: the zeros, then
// the delays that are not 0 (sorted by Summarize).
func delayDistribution(r *Result) experiments.Distribution {
	var d experiments.Distribution
	n := float64(r.ZeroDelays) + float64(len(r.Delays))
	if n == 0 {
		return d
	}
	if r.ZeroDelays > 0 {
		d.X, d.P = append(d.X, 0), append(d.P, float64(r.ZeroDelays)/n)
	}
	ds := slices.Clone(r.Delays)
	slices.Sort(ds)
	for j, v := range ds {
		if j+1 < len(ds) && ds[j+1] == v {
			continue
		}
		d.X, d.P = append(d.X, v), append(d.P, (float64(r.ZeroDelays)+float64(j+1))/n)
	}
	return d
}

// SweepFigures draws, from a study's results table (see [Study.Columns]),
// the worst overshoot and the mean delay of each design against the first
// axis whose values are all numbers, with 95% confidence bands when the
// table has them, clipped to what each design can reach (a mean delay is
// never negative; the one bucket's overshoot never exceeds 1); one and
// static, the theorem's two references, are dashed on the delay figure,
// and the promise (overshoot 1) on the overshoot figure. The points of
// each combination of the other axes get their own pair of figures, named
// after it (drl-sweep-overshoot-nodes-4). It returns none when no axis is
// numeric.
func SweepFigures(t *experiments.Table, caption string) []experiments.NamedFigure {
	dc, first := t.Column("design"), t.Column(Metrics[0])
	if dc < 0 || first < dc+2 {
		return nil
	}
	reference := func(d string) bool { return d == "one" || d == "static" }
	return experiments.TableFigures(t, dc+1, first, dc, false, []experiments.TablePanel{
		{Name: "drl-sweep-overshoot", Metric: "worst_overshoot", Title: "Worst overshoot", YLabel: "α*(d)/(B + R·d), worst d and key", Ref: 1, RefLabel: "the promise",
			Clip: func(d string) (float64, float64) {
				if d == "one" {
					return 0, 1 // the one bucket keeps its promise
				}
				return 0, math.Inf(1)
			}},
		{Name: "drl-sweep-delay", Metric: "mean_delay_s", Title: "Mean delay", YLabel: "mean delay (s)", Dashed: reference,
			Clip: func(string) (float64, float64) { return 0, math.Inf(1) }},
	}, caption)
}
