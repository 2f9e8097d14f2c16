package experiments

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/plots"
)

// ClientsSweepFigures returns the figures of a clients study's results
// table t (a [ClientsStudy]'s): the attempts per request (the retry
// amplification) and the p99 latency users see against the first axis
// whose values are all numbers, one line per value of the first axis
// whose values are text (a backoff strategy, say), with 95% confidence
// bands when the table has them. The points of each combination of the
// other axes get their own pair of figures, named after it
// (clients-sweep-attempts-max_attempts-5). It returns none when no axis
// is numeric.
func ClientsSweepFigures(t *Table, caption string) []NamedFigure {
	first := t.Column(ClientsMetrics[0])
	if first < 2 { // "point", then at least one axis
		return nil
	}
	xc, lc := -1, -1
	for c := 1; c < first; c++ {
		numeric, text := true, true
		for _, r := range t.Rows {
			x, ok := r[c].(float64)
			numeric = numeric && ok && !math.IsNaN(x)
			_, ok = r[c].(string)
			text = text && ok
		}
		switch {
		case numeric && xc < 0:
			xc = c
		case text && lc < 0:
			lc = c
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
	type group struct {
		key, text string // for the figure's name and for its caption
		rows      [][]any
	}
	var groups []*group
	for _, r := range t.Rows {
		var parts, texts []string
		for c := 1; c < first; c++ {
			if c != xc && c != lc {
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
	var figs []NamedFigure
	for _, g := range groups {
		suffix, capt := "", caption
		if g.key != "" {
			suffix = "-" + g.key
			capt = strings.TrimPrefix(caption+"; "+g.text, "; ")
		}
		att := &plots.LinePlot{Title: "Attempts per request versus " + param, XLabel: label, YLabel: "attempts per request (retry amplification)", Caption: capt}
		p99 := &plots.LinePlot{Title: "p99 latency versus " + param, XLabel: label, YLabel: "p99 latency, first attempt to success (s)", Caption: capt}
		var names []string
		for _, r := range g.rows {
			n := ""
			if lc >= 0 {
				n = r[lc].(string)
			}
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		for li, n := range names {
			var rows [][]any
			for _, r := range g.rows {
				if lc < 0 || r[lc] == n {
					rows = append(rows, r)
				}
			}
			slices.SortStableFunc(rows, func(a, b []any) int { return cmp.Compare(a[xc].(float64), b[xc].(float64)) })
			lineLabel := n
			if lc >= 0 {
				lineLabel = t.Columns[lc] + " " + n
			}
			line := func(m string) plots.Line {
				l := plots.Line{Label: lineLabel, Marks: true, Color: li}
				mc, cc := t.Column(m), t.Column(m+"_ci95")
				for _, r := range rows {
					x, y := r[xc].(float64), r[mc].(float64)
					if math.IsInf(x, 0) || math.IsNaN(y) {
						continue
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
			att.Lines = append(att.Lines, line("attempts_per_request"))
			p99.Lines = append(p99.Lines, line("p99_latency_s"))
		}
		figs = append(figs, NamedFigure{Name: "clients-sweep-attempts" + suffix, Figure: att},
			NamedFigure{Name: "clients-sweep-p99" + suffix, Figure: p99})
	}
	return figs
}
