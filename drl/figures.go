package drl

import (
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// Figures draws the admitted rate over time of every design (bins of
// 1/200 of the run, at least one burst time B/R) against R, for a run
// without keys, and the CCDF of the admitted jobs' delays. results are
// those Params.Run keeps, sums their summaries.
func Figures(s Spec, results []*Result, sums []Summary, caption string) []experiments.NamedFigure {
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

// SweepFigures draws, from a study's results table (see [Study.Columns]),
// the worst overshoot and the mean delay of each design against the first
// axis whose values are all numbers, with 95% confidence bands when the
// table has them; one and static, the theorem's two references, are
// dashed on the delay figure, and the promise (overshoot 1) on the
// overshoot figure. The points of each combination of the other axes get
// their own pair of figures, named after it
// (drl-sweep-overshoot-nodes-4). It returns none when no axis is
// numeric.
func SweepFigures(t *experiments.Table, caption string) []experiments.NamedFigure {
	dc, first := t.Column("design"), t.Column(Metrics[0])
	if dc < 0 || first < dc+2 {
		return nil
	}
	reference := func(d string) bool { return d == "one" || d == "static" }
	return experiments.TableFigures(t, dc+1, first, dc, false, []experiments.TablePanel{
		{Name: "drl-sweep-overshoot", Metric: "worst_overshoot", Title: "Worst overshoot", YLabel: "α*(d)/(B + R·d), worst d and key", Ref: 1, RefLabel: "the promise"},
		{Name: "drl-sweep-delay", Metric: "mean_delay_s", Title: "Mean delay", YLabel: "mean delay (s)", Dashed: reference},
	}, caption)
}
