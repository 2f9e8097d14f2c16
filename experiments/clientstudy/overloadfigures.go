package clientstudy

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// MetastabilityFigures returns the recovery maps of a clients study over
// servers that can collapse (the table of a [ClientsStudy] with
// [OverloadMetrics]) swept over load and a single fault: one heat map per
// mechanism (the values of the other text axes: a retry budget, a client
// throttle, a queue order), load across, the fault's length up, coloured
// by the mean recovery time after the fault ends (recovery_s, a run that
// did not recover counted to the end of its series) and grey where fewer
// than half the replications recovered. It returns none when the table
// has no recovery_s, load or fault column.
func MetastabilityFigures(t *experiments.Table, caption string) []experiments.NamedFigure {
	rc, lc, fc, recC := t.Column("recovery_s"), t.Column("load"), t.Column("fault"), t.Column("recovered")
	first := t.Column(ClientsMetrics[0])
	if rc < 0 || lc < 0 || fc < 0 || recC < 0 || first < 0 {
		return nil
	}
	byMech := map[string][]recoveryCell{}
	var mechs []string
	for _, r := range t.Rows {
		var parts []string
		for c := 1; c < first; c++ {
			if c == lc || c == fc {
				continue
			}
			if s, ok := r[c].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		mech := strings.Join(parts, " ")
		if mech == "" {
			mech = "none"
		}
		load, ok1 := r[lc].(float64)
		fault, ok2 := r[fc].(string)
		length, ok3 := faultLength(fault)
		rec, ok4 := r[rc].(float64)
		frac, ok5 := r[recC].(float64)
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			continue
		}
		if _, seen := byMech[mech]; !seen {
			mechs = append(mechs, mech)
		}
		byMech[mech] = append(byMech[mech], recoveryCell{load, length, rec, frac})
	}
	var figs []experiments.NamedFigure
	for _, m := range mechs {
		xs, ys, z, mask := recoveryGrid(byMech[m])
		name := "metastability-" + strings.NewReplacer(" ", "-", ":", "-", "=", "-", ",", "-").Replace(m)
		figs = append(figs, experiments.NamedFigure{Name: name, Figure: &plots.HeatMap{
			Title:     "Recovery after a crash: " + m,
			Caption:   caption,
			XLabel:    "load (offered requests over the servers' capacity)",
			YLabel:    "crash length (s)",
			ZLabel:    "time to recover after the crash ends (s)",
			X:         xs,
			Y:         ys,
			Z:         z,
			Masked:    mask,
			MaskLabel: "fewer than half the runs recovered",
			Digits:    2,
		}})
	}
	return figs
}

// recoveryCell is one point of a metastability study: its load and crash
// length, the mean time to recover and the fraction of runs that did.
type recoveryCell struct {
	load, length, rec, frac float64
}

// recoveryGrid lays cells out for a heat map: the loads along x and the
// crash lengths along y, increasing, the recovery times in z (NaN where
// no cell) and masked where fewer than half the runs recovered.
func recoveryGrid(cells []recoveryCell) (xs, ys []float64, z [][]float64, mask [][]bool) {
	for _, c := range cells {
		if !slices.Contains(xs, c.load) {
			xs = append(xs, c.load)
		}
		if !slices.Contains(ys, c.length) {
			ys = append(ys, c.length)
		}
	}
	slices.Sort(xs)
	slices.Sort(ys)
	z, mask = make([][]float64, len(ys)), make([][]bool, len(ys))
	for j := range ys {
		z[j], mask[j] = make([]float64, len(xs)), make([]bool, len(xs))
		for i := range xs {
			z[j][i] = math.NaN()
		}
	}
	for _, c := range cells {
		i, j := slices.Index(xs, c.load), slices.Index(ys, c.length)
		z[j][i] = c.rec
		mask[j][i] = c.frac < 0.5
	}
	return xs, ys, z, mask
}

// faultLength returns the length in seconds of one fault KIND:FROM:TO[:X].
func faultLength(f string) (float64, bool) {
	parts := strings.Split(f, ":")
	if len(parts) < 3 {
		return 0, false
	}
	from, ok1 := ParseSeconds(parts[1])
	to, ok2 := ParseSeconds(parts[2])
	if !ok1 || !ok2 {
		return 0, false
	}
	return to.Float64() - from.Float64(), true
}

// overloadSeries draws a run against servers that can collapse over time:
// per second, the requests offered (first attempts), the retries, the
// attempts that reached a server and the goodput (successes), over the
// jobs waiting at the servers (the largest number in each bin, summed
// over the servers) and the timeouts per second; each fault's start and
// end are marked by dashed gray lines.
func overloadSeries(res *ClientsResult, width float64, caption string) *plots.Stack {
	bins := res.ForegroundSeries
	line := func(label string, color int, dashed bool, f func(OverloadBinJSON) float64) plots.Line {
		x, y := binSteps(bins, width, func(b ClientBin) float64 {
			if b.OverloadBinJSON == nil {
				return math.NaN()
			}
			return f(*b.OverloadBinJSON)
		})
		return plots.Line{Label: label, X: x, Y: y, Step: true, Color: color, Dashed: dashed}
	}
	rates := []plots.Line{
		line("offered (first attempts)", 0, false, func(b OverloadBinJSON) float64 { return b.Offered }),
		line("retries", 1, true, func(b OverloadBinJSON) float64 { return float64(b.Retries) / width }),
		line("at the servers", 4, true, func(b OverloadBinJSON) float64 { return float64(b.Backend) / width }),
		line("goodput (successes)", 2, false, func(b OverloadBinJSON) float64 { return b.Goodput }),
	}
	queue := []plots.Line{
		line("jobs waiting at the servers (max in the bin)", 0, false, func(b OverloadBinJSON) float64 { return float64(b.MaxQueue) }),
	}
	timeouts := []plots.Line{
		line("timeouts", 3, false, func(b OverloadBinJSON) float64 { return float64(b.Timeouts) / width }),
	}
	mark := func(lines []plots.Line) []plots.Line {
		top := 1.0
		for _, l := range lines {
			for _, y := range l.Y {
				if !math.IsNaN(y) {
					top = max(top, y)
				}
			}
		}
		for i, f := range res.Spec.Overload.Faults {
			label := ""
			if i == 0 {
				label = "fault: start and end"
			}
			for _, t := range []float64{f.From.Seconds(), f.To.Seconds()} {
				lines = append(lines, plots.Line{Label: label, X: []float64{t, t}, Y: []float64{0, top}, Color: -1, Dashed: true})
				label = ""
			}
		}
		return lines
	}
	c := caption + fmt.Sprintf("; bins of %s s", experiments.TextNumber(width))
	if o := res.Foreground.OverloadSummary; o != nil && o.PreTrigger != nil {
		if o.RecoveredAt != nil {
			c += fmt.Sprintf("; recovered at %s s", experiments.TextNumber(*o.RecoveredAt))
		} else {
			c += "; did not recover by the end"
		}
	}
	return &plots.Stack{
		Title:   "Offered load, retries, work at the servers and goodput over time",
		Caption: c,
		Heights: []float64{1.6, 1, 1},
		Panels: []*plots.LinePlot{
			{XLabel: "time t (s)", YLabel: "requests/s", Lines: mark(rates)},
			{XLabel: "time t (s)", YLabel: "jobs waiting", Lines: mark(queue)},
			{XLabel: "time t (s)", YLabel: "timeouts/s", Lines: mark(timeouts)},
		},
	}
}
