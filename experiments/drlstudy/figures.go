package drlstudy

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// Caption describes a run of the designs for a figure: the input, the
// promise, the nodes, shaping or policing, the dispatch and the seed, and
// for each design run the parameters that change its numbers (the round
// trip, the outages and the failure mode of store; the sync period,
// message delay and loss of sync; and so on), so that runs that differ
// give figures that are captioned differently. The parameters set by the
// flags in swept (a sweep's axes: "sync-period") are left out, as the
// figure's axes and groups give them.
func Caption(s drl.Spec, designs []string, input string, swept ...string) string {
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
		ds, ok := drl.Lookup(d)
		if !ok {
			continue
		}
		for _, p := range ds.Caption(s) {
			if !slices.Contains(swept, p.Flag) {
				ps = append(ps, p.Text)
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
func Figures(s drl.Spec, results []*drl.Result, sums []drl.Summary, caption string) []experiments.NamedFigure {
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
		ccdf.Lines = append(ccdf.Lines, delayDistribution(r).TailLines(r.Design, i, false)...)
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
	ccdf.YRange = plots.TailRange(ccdf.Lines)
	if !keyed && len(results) > 0 && len(rate.Lines[0].X) > 0 {
		x := rate.Lines[0].X
		rv := s.Bucket.Rate.Float64()
		rate.Lines = append(rate.Lines, plots.Line{Label: "R", X: []float64{x[0], x[len(x)-1]}, Y: []float64{rv, rv}, Dashed: true, Color: -1})
		rate.Lines = append(rate.Lines, eventLines(s, designs, top*1.05)...)
	}
	return []experiments.NamedFigure{{Name: "drl-admitted-rate", Figure: rate}, {Name: "drl-delay-ccdf", Figure: ccdf}}
}

// eventLines marks the events of a run of the designs on a time series
// of height top (Design.Marks): intervals (the store's outages) as grey
// shaded bands, then instants (the static design's scale events) as
// dashed vertical lines.
func eventLines(s drl.Spec, designs map[string]bool, top float64) []plots.Line {
	var bands, lines []plots.Line
	for _, name := range drl.Designs {
		d, ok := drl.Lookup(name)
		if !ok || !designs[name] {
			continue
		}
		for _, m := range d.Marks(s) {
			if m.Band() {
				bands = append(bands, plots.Line{Label: m.Label, X: []float64{m.From, m.To}, Y: []float64{top, top}, Lo: []float64{0, 0}, Hi: []float64{top, top}, Color: -1, Dashed: true}) // dashed: no marks on the band's edge
			} else {
				lines = append(lines, plots.Line{Label: m.Label, X: []float64{m.From, m.From}, Y: []float64{0, top}, Dashed: true, Color: -1})
			}
		}
	}
	return append(bands, lines...)
}

// delayDistribution is the distribution of r's delays: the zeros, then
// the delays that are not 0 (sorted by Summarize).
func delayDistribution(r *drl.Result) experiments.Distribution {
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
	reference := func(d string) bool { return d == drl.Reference || d == drl.Split }
	return experiments.TableFigures(t, dc+1, first, dc, false, []experiments.TablePanel{
		{Name: "drl-sweep-overshoot", Metric: "worst_overshoot", Title: "Worst overshoot", YLabel: "α*(d)/(B + R·d), worst d and key", Ref: 1, RefLabel: "the promise",
			Clip: func(d string) (float64, float64) {
				if d == drl.Reference {
					return 0, 1 // the one bucket keeps its promise
				}
				return 0, math.Inf(1)
			}},
		{Name: "drl-sweep-delay", Metric: "mean_delay_s", Title: "Mean delay", YLabel: "mean delay (s)", Dashed: reference,
			Clip: func(string) (float64, float64) { return 0, math.Inf(1) }},
	}, caption)
}
