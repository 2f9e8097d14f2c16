package experiments

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/plots"
)

// TablePanel is one figure of [TableFigures]: a metric of a study's
// results table against the x axis.
type TablePanel struct {
	Name   string // the figure's name before its group: "drl-sweep-overshoot"
	Metric string // the metric's column; its 95% half-width is METRIC_ci95 when present
	Title  string // before " versus X": "Worst overshoot"
	YLabel string
	// Dashed reports whether the line of a value of the line column is
	// dashed (the theorem's references, say); nil: none is.
	Dashed func(value string) bool
	// Ref, when RefLabel is not "", is a dashed horizontal line at this
	// value (the promise, say).
	Ref      float64
	RefLabel string
	// Clip, when not nil, returns the range [lo, hi] a line's metric can
	// take (a mean delay is never negative; the one bucket's overshoot
	// never exceeds 1): its confidence band is clipped to it, so that a
	// band never shows values the line cannot reach.
	Clip func(value string) (lo, hi float64)
}

// TableFigures draws a model's results table t (see [RunModel]) as
// figures of the panels: each metric against the first axis whose values
// are all numbers among the axis columns [from, to), one line per value of
// the column lineCol (a design, a backoff strategy; -1: one line), with
// 95% confidence bands where the table has them (METRIC_ci95; a NaN
// half-width draws none). The rows of each combination of the other axes
// get their own figures, named after it (drl-sweep-overshoot-nodes-4). An
// x of ±Inf (a period of inf, say) has no place on the axis and is left
// out, as is a NaN metric. It returns none when no axis is numeric. With
// withColumn the line labels name the column ("backoff full").
func TableFigures(t *Table, from, to, lineCol int, withColumn bool, panels []TablePanel, caption string) []NamedFigure {
	xc := tableX(t, from, to, lineCol)
	if xc < 0 {
		return nil
	}
	var figs []NamedFigure
	for _, g := range tableGroups(t, from, to, xc, lineCol) {
		suffix, capt := "", caption
		if g.key != "" {
			suffix = "-" + g.key
			capt = strings.TrimPrefix(caption+"; "+g.text, "; ")
		}
		for i, lp := range g.plots(t, xc, lineCol, withColumn, panels, capt) {
			figs = append(figs, NamedFigure{Name: panels[i].Name + suffix, Figure: lp})
		}
	}
	return figs
}

// tableX is the x axis of [TableFigures]: the first column among [from,
// to) but lineCol whose values are all numbers; -1 when none is.
func tableX(t *Table, from, to, lineCol int) int {
	for c := from; c < to; c++ {
		if c == lineCol {
			continue
		}
		numeric := len(t.Rows) > 0
		for _, r := range t.Rows {
			if x, ok := r[c].(float64); !ok || math.IsNaN(x) {
				numeric = false
				break
			}
		}
		if numeric {
			return c
		}
	}
	return -1
}

// tableGroup is the rows of a table that share the values of the axes
// other than x and the line column.
type tableGroup struct {
	key, text string // for the figure's name and for its caption
	rows      [][]any
}

// tableGroups splits the rows of t by the values of the axes [from, to)
// other than xc and lineCol, in the order they come.
func tableGroups(t *Table, from, to, xc, lineCol int) []*tableGroup {
	var groups []*tableGroup
	for _, r := range t.Rows {
		var parts, texts []string
		for c := from; c < to; c++ {
			if c != xc && c != lineCol {
				parts = append(parts, t.Columns[c]+"-"+strings.ReplaceAll(fmt.Sprint(r[c]), "/", "_"))
				texts = append(texts, t.Columns[c]+" = "+fmt.Sprint(r[c]))
			}
		}
		k := strings.Join(parts, "-")
		i := slices.IndexFunc(groups, func(g *tableGroup) bool { return g.key == k })
		if i < 0 {
			groups = append(groups, &tableGroup{key: k, text: strings.Join(texts, ", ")})
			i = len(groups) - 1
		}
		groups[i].rows = append(groups[i].rows, r)
	}
	return groups
}

// plots draws the group's figure of each panel: a line per value of the
// line column, against column xc.
func (g *tableGroup) plots(t *Table, xc, lineCol int, withColumn bool, panels []TablePanel, capt string) []*plots.LinePlot {
	xname := t.Columns[xc]
	label, param := xname, xname
	if n, ok := strings.CutSuffix(xname, "_s"); ok {
		label, param = n+" (s)", n
	}
	var values []string
	for _, r := range g.rows {
		v := ""
		if lineCol >= 0 {
			v = fmt.Sprint(r[lineCol])
		}
		if !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	lps := make([]*plots.LinePlot, len(panels))
	for i, p := range panels {
		lps[i] = &plots.LinePlot{Title: p.Title + " versus " + param, XLabel: label, YLabel: p.YLabel, Caption: capt}
	}
	for vi, v := range values {
		var rows [][]any
		for _, r := range g.rows {
			if lineCol < 0 || fmt.Sprint(r[lineCol]) == v {
				rows = append(rows, r)
			}
		}
		slices.SortStableFunc(rows, func(a, b []any) int { return cmp.Compare(a[xc].(float64), b[xc].(float64)) })
		name := v
		if withColumn && lineCol >= 0 {
			name = t.Columns[lineCol] + " " + v
		}
		for i, p := range panels {
			l := tableLine(t, rows, xc, p, name, v, vi, &lo, &hi)
			lps[i].Lines = append(lps[i].Lines, l)
		}
	}
	for i, p := range panels {
		if p.RefLabel != "" && lo <= hi {
			lps[i].Lines = append(lps[i].Lines, plots.Line{Label: p.RefLabel, X: []float64{lo, hi}, Y: []float64{p.Ref, p.Ref}, Dashed: true, Color: -1})
		}
	}
	return lps
}

// tableLine is the line of panel p over rows (sorted by x), value v of
// the line column, named name, of colour vi, with its confidence band
// where the table has one; it widens [lo, hi] to the x drawn.
func tableLine(t *Table, rows [][]any, xc int, p TablePanel, name, v string, vi int, lo, hi *float64) plots.Line {
	l := plots.Line{Label: name, Marks: true, Color: vi, Dashed: p.Dashed != nil && p.Dashed(v)}
	mc, cc := t.Column(p.Metric), t.Column(p.Metric+"_ci95")
	for _, r := range rows {
		x, y := r[xc].(float64), r[mc].(float64)
		if math.IsInf(x, 0) || math.IsNaN(y) {
			continue
		}
		*lo, *hi = math.Min(*lo, x), math.Max(*hi, x)
		l.X, l.Y = append(l.X, x), append(l.Y, y)
		if cc < 0 {
			continue
		}
		h := r[cc].(float64)
		if math.IsNaN(h) {
			h = 0
		}
		blo, bhi := y-h, y+h
		if p.Clip != nil {
			clo, chi := p.Clip(v)
			blo, bhi = math.Max(blo, clo), math.Min(bhi, chi)
		}
		l.Lo, l.Hi = append(l.Lo, blo), append(l.Hi, bhi)
	}
	return l
}
