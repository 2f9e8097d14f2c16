package splitstudy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// axisLabels are the axis titles of swept parameters, with units.
var axisLabels = map[string]string{
	"load":     "offered load ρ = λ/r",
	"rate":     "token rate r (tokens/s)",
	"burst":    "burst b (tokens)",
	"k":        "number of sub-buckets k",
	"p":        "traffic share p of sub-bucket 1",
	"q":        "rate and burst share q of sub-bucket 1",
	"q_rate":   "rate share q of sub-bucket 1",
	"q_burst":  "burst share of sub-bucket 1",
	"jobs":     "measured jobs per replication",
	"warmup":   "warm-up jobs per replication",
	"dispatch": "dispatch policy",
	"order":    "service order",
	"arrivals": "arrival process",
}

// maxSeries bounds the curves of one sweep figure.
const maxSeries = 5

// group is the points of one grid that share the values of every axis but
// the plotted ones.
type group struct {
	grid   int
	key    string // "burst10-load0.9"
	label  string // "b = 10, ρ = 0.9"
	title  string // label with the numbers of figure text (see textNumber)
	x, ser string // plotted axes: x, and the one that tells the curves apart ("" for none)
	pts    []*PointResult
}

// groups splits the results of each grid by the values of all axes but
// the last two (the last one when a grid has one axis).
func groups(res *Results) []*group {
	grids := res.Spec.Sweep
	var out []*group
	byKey := map[string]*group{}
	for i := range res.Points {
		pr := &res.Points[i]
		var g Grid
		if pr.Grid < len(grids) {
			g = grids[pr.Grid]
		}
		x, ser := "", ""
		fixed := g
		switch {
		case len(g) >= 2:
			x, ser = g[len(g)-1].Name, g[len(g)-2].Name
			fixed = g[:len(g)-2]
		case len(g) == 1:
			x = g[0].Name
			fixed = nil
		}
		var keys, labels, titles []string
		for _, a := range fixed {
			v := formatAxisValue(pr.axisValue(a.Name))
			keys = append(keys, a.Name+v)
			labels = append(labels, symbol(a.Name)+" = "+v)
			titles = append(titles, symbol(a.Name)+" = "+textValue(pr.axisValue(a.Name)))
		}
		id := fmt.Sprintf("%d|%s", pr.Grid, strings.Join(keys, "-"))
		gr := byKey[id]
		if gr == nil {
			gr = &group{grid: pr.Grid, key: strings.Join(keys, "-"), label: strings.Join(labels, ", "),
				title: strings.Join(titles, ", "), x: x, ser: ser}
			byKey[id] = gr
			out = append(out, gr)
		}
		gr.pts = append(gr.pts, pr)
	}
	// Distinct file names: add the grid number where keys collide.
	seen := map[string]int{}
	for _, g := range out {
		seen[g.key]++
	}
	for _, g := range out {
		if g.key == "" || seen[g.key] > 1 {
			g.key = strings.Trim(fmt.Sprintf("grid%d-%s", g.grid, g.key), "-")
		}
	}
	return out
}

func isShare(name string) bool { return name == "q" || name == "q_rate" || name == "q_burst" }

func numeric(name string) bool { return axisKind[name] != 's' }

// values returns the distinct values of axis name among pts, in order of
// first appearance.
func values(pts []*PointResult, name string) []any {
	var vs []any
	for _, p := range pts {
		v := p.axisValue(name)
		if !slices.ContainsFunc(vs, func(w any) bool { return w == v }) {
			vs = append(vs, v)
		}
	}
	return vs
}

// pick returns at most n of vs, evenly spaced, keeping both ends.
func pick(vs []any, n int) []any {
	if len(vs) <= n {
		return vs
	}
	out := make([]any, n)
	for i := range n {
		out[i] = vs[int(math.Round(float64(i)*float64(len(vs)-1)/float64(n-1)))]
	}
	return out
}

// caption describes what a sweep figure holds fixed: every parameter of
// the first of pts that is not a plotted axis. When k is plotted the
// shares are those of each k, described for all of pts.
func caption(res *Results, pts []*PointResult, plotted ...string) string {
	pr := pts[0]
	var parts []string
	s := res.Spec
	if s.Name != "" {
		parts = append(parts, s.Name+":")
	}
	is := func(axes ...string) bool {
		return slices.ContainsFunc(axes, func(a string) bool { return slices.Contains(plotted, a) })
	}
	var setting []string
	if !is("arrivals") {
		setting = append(setting, arrivalsLabel(&pr.Point)+" arrivals")
	}
	if !is("load") {
		setting = append(setting, "load ρ = "+experiments.TextNumber(pr.Load))
	}
	if !is("rate") {
		setting = append(setting, "r = "+experiments.TextNumber(pr.Rate)+" tokens/s")
	}
	if !is("burst") {
		setting = append(setting, "b = "+experiments.TextNumber(pr.Burst)+" tokens")
	}
	if is("k") {
		if sh := kShares(pts); sh != "" {
			setting = append(setting, sh)
		}
	} else {
		split := fmt.Sprintf("k = %d", pr.K)
		if !is("q", "q_rate") {
			split += ", rate shares " + textShares(pr.RateShares)
		}
		if !is("q", "q_burst") {
			split += ", burst shares " + textShares(pr.BurstShares)
		}
		setting = append(setting, split)
	}
	if len(setting) > 0 {
		parts = append(parts, strings.Join(setting, ", ")+";")
	}
	var serve []string
	if !is("dispatch") {
		d := pr.Dispatch + " dispatch"
		if pr.Dispatch == "weighted" && !is("p") {
			d += " (traffic shares " + textShares(pr.TrafficShares) + ")"
		}
		serve = append(serve, d)
	}
	if !is("order") {
		serve = append(serve, pr.Order)
	}
	if len(serve) > 0 {
		parts = append(parts, strings.Join(serve, ", ")+";")
	}
	run := fmt.Sprintf("%d replications per point; seed %d", pr.Replications, res.Seed)
	switch {
	case is("jobs") && is("warmup"):
	case is("jobs"):
		run = fmt.Sprintf("%d warm-up jobs, ", pr.Warmup) + run
	case is("warmup"):
		run = fmt.Sprintf("%d jobs, ", pr.Jobs) + run
	default:
		run = fmt.Sprintf("%d jobs after %d warm-up, ", pr.Jobs, pr.Warmup) + run
	}
	parts = append(parts, run)
	if res.Version != "" && res.Version != "(devel)" {
		parts[len(parts)-1] += "; ratesim " + res.Version
	}
	return strings.Join(parts, " ")
}

// kShares describes the shares of points whose k varies: "equal rate and
// burst shares (1/k each)" when every point splits r and b equally,
// "rate and burst share of sub-bucket 1 0.5, the rest equal" when sub-
// bucket 1 has the same shares at every point and the others share the
// rest equally, "" otherwise.
func kShares(pts []*PointResult) string {
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
	equalRest := func(s []float64, from int) bool {
		for _, x := range s[from:] {
			if !same(x, s[from]) {
				return false
			}
		}
		return true
	}
	equal, firstSame := true, true
	q, qb := pts[0].RateShares, pts[0].BurstShares
	for _, p := range pts {
		if len(p.RateShares) == 0 || len(p.BurstShares) == 0 || len(q) == 0 || len(qb) == 0 {
			return ""
		}
		equal = equal && equalRest(p.RateShares, 0) && equalRest(p.BurstShares, 0)
		firstSame = firstSame && same(p.RateShares[0], q[0]) && same(p.BurstShares[0], qb[0]) &&
			equalRest(p.RateShares, 1) && equalRest(p.BurstShares, 1)
	}
	switch {
	case equal:
		return "equal rate and burst shares (1/k each)"
	case firstSame && same(q[0], qb[0]):
		return "rate and burst share of sub-bucket 1 " + experiments.TextNumber(q[0]) + ", the rest equal"
	case firstSame:
		return "rate share of sub-bucket 1 " + experiments.TextNumber(q[0]) + ", burst share " + experiments.TextNumber(qb[0]) + ", the rest equal"
	}
	return ""
}

// textShares writes shares for figure text: "0.5 : 0.25 : 0.25".
func textShares(s []float64) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = experiments.TextNumber(x)
	}
	return strings.Join(parts, " : ")
}

// textValue writes an axis value for figure text (see textNumber).
func textValue(v any) string {
	if x, ok := v.(float64); ok {
		return experiments.TextNumber(x)
	}
	return formatAxisValue(v)
}

// SweepFigure is a figure of a sweep and the points it draws, in sweep
// order.
type SweepFigure struct {
	experiments.NamedFigure
	Points []*PointResult
}

// Named returns the figures of figs as [experiments.SaveFigures] takes
// them.
func Named(figs []SweepFigure) []experiments.NamedFigure {
	out := make([]experiments.NamedFigure, len(figs))
	for i, f := range figs {
		out[i] = f.NamedFigure
	}
	return out
}

// SweepFigures returns the figures of a sweep's results: for each group of
// points that differ only in the last two axes of their grid, a heat map of
// the split/one ratio when those axes are p and a share q, the ratio
// against the last axis with one curve per value of the other (at most
// five), and both systems' mean delays likewise, with the
// Pollaczek-Khinchine prediction where it applies. Points with an
// overloaded sub-bucket (max_sub_load >= 1) are masked in the heat maps and
// left out of the curves: their delays grow with the run length.
func SweepFigures(res *Results) []SweepFigure {
	var figs []SweepFigure
	for _, g := range groups(res) {
		if g.x == "" || !numeric(g.x) {
			continue
		}
		if (g.x == "p" && isShare(g.ser)) || (g.ser == "p" && isShare(g.x)) {
			figs = append(figs, SweepFigure{experiments.NamedFigure{Name: "heatmap-" + g.key, Figure: heatMap(res, g)}, g.pts})
		}
		figs = append(figs, SweepFigure{experiments.NamedFigure{Name: "ratio-" + g.key, Figure: curves(res, g, true)}, g.pts})
		figs = append(figs, SweepFigure{experiments.NamedFigure{Name: "delay-" + g.key, Figure: curves(res, g, false)}, g.pts})
	}
	return figs
}

func titleSuffix(g *group) string {
	if g.title == "" {
		return ""
	}
	return " (" + g.title + ")"
}

// heatMap draws the ratio over (p, q): p across, the share up.
func heatMap(res *Results, g *group) *plots.HeatMap {
	xName, yName := g.x, g.ser
	if g.ser == "p" {
		xName, yName = g.ser, g.x
	}
	xs, ys := floats(values(g.pts, xName)), floats(values(g.pts, yName))
	slices.Sort(xs)
	slices.Sort(ys)
	z := make([][]float64, len(ys))
	mask := make([][]bool, len(ys))
	for j := range ys {
		z[j] = make([]float64, len(xs))
		mask[j] = make([]bool, len(xs))
		for i := range xs {
			z[j][i] = math.NaN()
		}
	}
	for _, pr := range g.pts {
		i := slices.Index(xs, pr.axisValue(xName).(float64))
		j := slices.Index(ys, pr.axisValue(yName).(float64))
		z[j][i] = float64(pr.Ratio)
		mask[j][i] = !pr.Stable()
	}
	return &plots.HeatMap{
		Title:     "Split/one mean delay ratio" + titleSuffix(g),
		Caption:   caption(res, g.pts, xName, yName),
		XLabel:    axisLabels[xName],
		YLabel:    axisLabels[yName],
		ZLabel:    "split/one mean delay ratio (log scale)",
		X:         xs,
		Y:         ys,
		Z:         z,
		Masked:    mask,
		MaskLabel: "a sub-bucket overloaded (p_l·λ ≥ q_l·r): no steady state",
		LogZ:      true,
		Diagonal:  "p = q (traffic share = rate share)",
	}
}

func floats(vs []any) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v.(float64)
	}
	return out
}

// curves draws the ratio (ratio true) or the mean delays against g.x.
func curves(res *Results, g *group, ratio bool) *plots.LinePlot {
	lp, series := curvesFrame(res, g, ratio)
	lo, hi := math.Inf(1), math.Inf(-1)
	withPK := false
	for si, sv := range series {
		pts, x := seriesPoints(g, sv)
		name := ""
		if sv != nil {
			name = shortName(g.ser) + " = " + textValue(sv)
		}
		col := stableColumn(pts)
		if ratio {
			y := col(func(r *PointResult) float64 { return float64(r.Ratio) })
			lp.Lines = append(lp.Lines, plots.Line{Label: name, X: x, Y: y,
				Lo:    col(func(r *PointResult) float64 { return float64(r.RatioLo) }),
				Hi:    col(func(r *PointResult) float64 { return float64(r.RatioHi) }),
				Color: si, Marks: true})
			lo, hi = minMax(lo, hi, y)
			continue
		}
		if delayLines(lp, col, x, name, si, si == len(series)/2, &lo, &hi) {
			withPK = true
		}
	}
	// A log scale when the curves span more than a factor of 5.
	lp.LogY = lo > 0 && hi/lo > 5
	if withPK {
		lp.Lines = append(lp.Lines, plots.Line{Label: "Pollaczek-Khinchine (M/D/1)", Dashed: true, Color: -1})
		lp.Caption += "; dashed: the split's mean delay by Pollaczek-Khinchine (every sub-bucket M/D/1)"
	}
	if ratio {
		lp.Caption += "; shaded: 95% confidence intervals (delta method on the log of the ratio, paired replications)"
	} else {
		lp.Caption += "; shaded: 95% confidence intervals (Student t)"
	}
	lp.Caption += leftOutNote(g.pts, ratio)
	return lp
}

// curvesFrame is the plot of a group's curves without its lines: caption,
// axes and title; and the values of the series axis drawn (nil alone when
// the group has none).
func curvesFrame(res *Results, g *group, ratio bool) (*plots.LinePlot, []any) {
	var series []any
	lp := &plots.LinePlot{
		Caption: caption(res, g.pts, g.x, g.ser),
		XLabel:  axisLabels[g.x],
		XTicks:  floats(values(g.pts, g.x)),
	}
	if g.ser != "" {
		all := values(g.pts, g.ser)
		series = pick(all, maxSeries)
		if len(series) < len(all) {
			shown := make([]string, len(series))
			for i, v := range series {
				shown[i] = textValue(v)
			}
			lp.Caption += fmt.Sprintf("; curves for %d of the %d values of %s (%s; every value is in results.csv)",
				len(series), len(all), shortName(g.ser), strings.Join(shown, ", "))
		}
	} else {
		series = []any{nil}
	}
	slices.Sort(lp.XTicks)
	lp.LogX = geometric(lp.XTicks)
	if lp.LogX {
		lp.XLabel += " (log scale)"
	}
	if ratio {
		lp.Title = "Split/one mean delay ratio" + titleSuffix(g)
		lp.YLabel = "split/one mean delay ratio"
	} else {
		lp.Title = "Mean delay" + titleSuffix(g)
		lp.YLabel = "mean delay (s)"
	}
	return lp, series
}

// seriesPoints are the points of the group's curve of series value sv
// (nil: all), in the order of their x, and their x.
func seriesPoints(g *group, sv any) ([]*PointResult, []float64) {
	var pts []*PointResult
	for _, pr := range g.pts {
		if sv == nil || pr.axisValue(g.ser) == sv {
			pts = append(pts, pr)
		}
	}
	slices.SortStableFunc(pts, func(a, b *PointResult) int {
		return cmp.Compare(a.axisValue(g.x).(float64), b.axisValue(g.x).(float64)) // numbers of an axis: never NaN
	})
	x := make([]float64, len(pts))
	for i, pr := range pts {
		x[i] = pr.axisValue(g.x).(float64)
	}
	return pts, x
}

// stableColumn returns the function that gives a statistic of pts, NaN
// at an overloaded point (its delays grow with the run length).
func stableColumn(pts []*PointResult) func(f func(*PointResult) float64) []float64 {
	return func(f func(*PointResult) float64) []float64 {
		out := make([]float64, len(pts))
		for i, pr := range pts {
			out[i] = math.NaN()
			if pr.Stable() || math.IsNaN(float64(pr.MaxSubLoad)) {
				out[i] = f(pr)
			}
		}
		return out
	}
}

// delayLines adds the split's mean delays of a curve (named name, colour
// si) with their bands, its Pollaczek-Khinchine prediction where there is
// one, and with withOne the one bucket's; it widens [lo, hi] to the delays
// drawn and reports whether it drew a prediction.
func delayLines(lp *plots.LinePlot, col func(func(*PointResult) float64) []float64, x []float64, name string, si int, withOne bool, lo, hi *float64) bool {
	label := "split"
	if name != "" {
		label += ", " + name
	}
	// The bands of mean delays stop at 0: a delay is never negative.
	y := col(func(r *PointResult) float64 { return float64(r.Split.MeanDelay) })
	lp.Lines = append(lp.Lines, plots.Line{Label: label, X: x, Y: y,
		Lo:    col(func(r *PointResult) float64 { return math.Max(0, float64(r.Split.MeanDelay-r.Split.MeanDelayCI)) }),
		Hi:    col(func(r *PointResult) float64 { return float64(r.Split.MeanDelay + r.Split.MeanDelayCI) }),
		Color: si, Marks: true})
	*lo, *hi = minMax(*lo, *hi, y)
	withPK := false
	pk := col(func(r *PointResult) float64 { return float64(r.Split.PK) })
	if slices.ContainsFunc(pk, func(v float64) bool { return finite(v) }) {
		lp.Lines = append(lp.Lines, plots.Line{X: x, Y: pk, Dashed: true, Color: si})
		withPK = true
	}
	if withOne {
		one := col(func(r *PointResult) float64 { return float64(r.One.MeanDelay) })
		lp.Lines = append(lp.Lines, plots.Line{Label: "one bucket" + strings.TrimPrefix(label, "split"), X: x, Y: one,
			Lo:    col(func(r *PointResult) float64 { return math.Max(0, float64(r.One.MeanDelay-r.One.MeanDelayCI)) }),
			Hi:    col(func(r *PointResult) float64 { return float64(r.One.MeanDelay + r.One.MeanDelayCI) }),
			Color: -1, Marks: true})
		*lo, *hi = minMax(*lo, *hi, one)
	}
	return withPK
}

// geometric reports whether the sorted values xs are spaced for a log
// axis: all > 0, spanning a factor of 8 or more, with successive ratios
// whose median is at least 1.5 (k = 1, 2, 4, ..., 64; not loads 0.3 to
// 0.95).
func geometric(xs []float64) bool {
	if len(xs) < 3 || xs[0] <= 0 || xs[len(xs)-1]/xs[0] < 8 {
		return false
	}
	r := make([]float64, len(xs)-1)
	for i := range r {
		r[i] = xs[i+1] / xs[i]
	}
	slices.Sort(r)
	return r[len(r)/2] >= 1.5
}

// leftOutNote says, for a caption, which of pts the curves leave out and
// why: points with an overloaded sub-bucket (no steady state), and on a
// ratio figure those where the one bucket delayed no job (ratio undefined);
// "" when none is.
func leftOutNote(pts []*PointResult, ratio bool) string {
	overloaded, undefined := 0, 0
	for _, pr := range pts {
		switch {
		case !pr.Stable() && !math.IsNaN(float64(pr.MaxSubLoad)):
			overloaded++
		case ratio && !finite(float64(pr.Ratio)):
			undefined++
		}
	}
	var parts []string
	if overloaded > 0 {
		parts = append(parts, fmt.Sprintf("%d with an overloaded sub-bucket", overloaded))
	}
	if undefined > 0 {
		parts = append(parts, fmt.Sprintf("%d where the one bucket delayed no job (ratio undefined)", undefined))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; left out: %s, of %d points", strings.Join(parts, " and "), len(pts))
}

func minMax(lo, hi float64, ys []float64) (float64, float64) {
	for _, y := range ys {
		if finite(y) {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	return lo, hi
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// symbol is the parameter's symbol in titles: "b" for burst, "ρ" for
// load.
func symbol(axis string) string {
	switch axis {
	case "burst":
		return "b"
	case "rate":
		return "r"
	case "load":
		return "ρ"
	case "q_rate", "q_burst":
		return "q"
	}
	return axis
}

func shortName(axis string) string {
	switch axis {
	case "q_rate", "q_burst":
		return "q"
	case "load":
		return "ρ"
	}
	return axis
}

// arrivalsLabel names a point's arrivals in a caption: "Poisson" when they
// are a Poisson process (by its type, see arrivals.PoissonRate), followed
// by the spec when it has parameters; the spec otherwise.
func arrivalsLabel(p *Point) string {
	if _, ok := p.ArrivalsSpec().PoissonRate(); ok {
		if strings.ContainsAny(p.Arrivals, ":|+") {
			return "Poisson (" + p.Arrivals + ")"
		}
		return "Poisson"
	}
	return p.Arrivals
}
