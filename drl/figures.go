package drl

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

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
	xc := -1
	for c := dc + 1; c < first && xc < 0; c++ {
		numeric := true
		for _, r := range t.Rows {
			if x, ok := r[c].(float64); !ok || math.IsNaN(x) {
				numeric = false
				break
			}
		}
		if numeric {
			xc = c
		}
	}
	if xc < 0 {
		return nil
	}
	xname := t.Columns[xc]
	label, param := xname, xname
	if n, ok := strings.CutSuffix(xname, "_s"); ok {
		label, param = n+" (s)", n
	}
	ci := func(m string) int { return t.Column(m + "_ci95") }
	// Group the rows by the values of the other axes.
	type group struct {
		key, text string // for the figure's name and for its caption
		rows      [][]any
	}
	var groups []*group
	for _, r := range t.Rows {
		var parts, texts []string
		for c := dc + 1; c < first; c++ {
			if c != xc {
				parts = append(parts, t.Columns[c]+"-"+strings.ReplaceAll(fmt.Sprint(r[c]), "/", "_"))
				texts = append(texts, t.Columns[c]+" = "+fmt.Sprint(r[c]))
			}
		}
		k := strings.Join(parts, "-")
		i := slices.IndexFunc(groups, func(g *group) bool { return g.key == k })
		if i < 0 {
			groups = append(groups, &group{key: k, text: strings.Join(texts, ", ")})
			i = len(groups) - 1
		}
		groups[i].rows = append(groups[i].rows, r)
	}
	var figs []experiments.NamedFigure
	for _, g := range groups {
		suffix, capt := "", caption
		if g.key != "" {
			suffix = "-" + g.key
			capt = strings.TrimPrefix(caption+"; "+g.text, "; ")
		}
		over := &plots.LinePlot{Title: "Worst overshoot versus " + param, XLabel: label, YLabel: "α*(d)/(B + R·d), worst d and key", Caption: capt}
		delay := &plots.LinePlot{Title: "Mean delay versus " + param, XLabel: label, YLabel: "mean delay (s)", Caption: capt}
		var designs []string
		for _, r := range g.rows {
			if d := r[dc].(string); !slices.Contains(designs, d) {
				designs = append(designs, d)
			}
		}
		var lo, hi float64 = math.Inf(1), math.Inf(-1)
		for di, d := range designs {
			var rows [][]any
			for _, r := range g.rows {
				if r[dc] == d {
					rows = append(rows, r)
				}
			}
			slices.SortStableFunc(rows, func(a, b []any) int { return cmp.Compare(a[xc].(float64), b[xc].(float64)) })
			line := func(m string, dashed bool) plots.Line {
				l := plots.Line{Label: d, Marks: true, Color: di, Dashed: dashed}
				mc, cc := t.Column(m), ci(m)
				for _, r := range rows {
					x, y := r[xc].(float64), r[mc].(float64)
					if math.IsInf(x, 0) {
						continue // inf (never): no place on the axis
					}
					l.X, l.Y = append(l.X, x), append(l.Y, y)
					if cc >= 0 {
						h := r[cc].(float64)
						if math.IsNaN(h) {
							h = 0
						}
						l.Lo, l.Hi = append(l.Lo, y-h), append(l.Hi, y+h)
					}
				}
				return l
			}
			over.Lines = append(over.Lines, line("worst_overshoot", false))
			delay.Lines = append(delay.Lines, line("mean_delay_s", d == "one" || d == "static"))
			for _, r := range rows {
				if x := r[xc].(float64); !math.IsInf(x, 0) {
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				}
			}
		}
		if lo <= hi {
			over.Lines = append(over.Lines, plots.Line{Label: "the promise", X: []float64{lo, hi}, Y: []float64{1, 1}, Dashed: true, Color: -1})
		}
		figs = append(figs, experiments.NamedFigure{Name: "drl-sweep-overshoot" + suffix, Figure: over},
			experiments.NamedFigure{Name: "drl-sweep-delay" + suffix, Figure: delay})
	}
	return figs
}
