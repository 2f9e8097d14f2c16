package plots

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TraceFigure is the figure of `ratesim trace stats --plot`: a trace's
// rate over time, the distribution of its interarrival gaps and, when
// given, its burstiness curve b(r). It is drawn from plain numbers (see
// arrivals.TraceSummary and arrivals.BurstCurve) as panels one above the
// other, sharing a title and a caption.
type TraceFigure struct {
	Title   string // e.g. the trace's file name
	Caption string // a line under the figure, as given
	Footer  string // a last, smaller line (provenance), as given

	// RateWidth is the bin width, seconds, of RateCounts, the arrivals in
	// consecutive bins from the first arrival.
	RateWidth  float64
	RateCounts []int64
	MeanRate   float64 // jobs/s, drawn dashed; NaN: none

	// GapEdges and GapCCDF are P(gap > GapEdges[k]) (log-log panel);
	// GapMean (s) adds the exponential of the same mean for reference.
	GapEdges, GapCCDF []float64
	GapMean           float64
	TieFraction       float64 // fraction of gaps that are 0, for the legend

	// Rates (tokens/s) and the bucket sizes (tokens) of the burstiness
	// panel: Burst, the smallest b with no job waiting, and optionally
	// BurstTarget, the smallest b meeting a target, labelled TargetLabel.
	// No panel when Rates is empty.
	Rates, Burst, BurstTarget []float64
	TargetLabel               string
}

// timeUnit picks a unit for a time axis spanning d seconds.
func timeUnit(d float64) (string, float64) {
	switch {
	case d > 3*86400:
		return "days", 86400
	case d > 3*3600:
		return "h", 3600
	case d > 600:
		return "min", 60
	}
	return "s", 1
}

// Save implements Figure. It returns an error without rate counts, for
// a bin width that is not finite and > 0, for Rates and Burst (or a
// non-nil BurstTarget) of different lengths when Rates is not empty, for an unknown format, and when the
// file cannot be written. A panel whose values cannot be drawn says so in
// place of its curves.
func (f *TraceFigure) Save(path string) error { return f.saveContext(context.Background(), path) }

func (f *TraceFigure) saveContext(ctx context.Context, path string) error {
	if len(f.RateCounts) == 0 || !(f.RateWidth > 0) || !finite(f.RateWidth) {
		return fmt.Errorf("plots: %s: a trace figure needs rate counts with a finite bin width > 0, have %d counts and width %v s", path, len(f.RateCounts), f.RateWidth)
	}
	if len(f.Rates) > 0 && len(f.Burst) != len(f.Rates) {
		return fmt.Errorf("plots: %s: %d burst sizes for %d rates", path, len(f.Burst), len(f.Rates))
	}
	if len(f.Rates) > 0 && f.BurstTarget != nil && len(f.BurstTarget) != len(f.Rates) {
		return fmt.Errorf("plots: %s: %d target burst sizes for %d rates", path, len(f.BurstTarget), len(f.Rates))
	}
	span := f.RateWidth * float64(len(f.RateCounts))
	unit, div := timeUnit(span)
	rate := Line{Label: fmt.Sprintf("per %s bin", fmtSeconds(f.RateWidth)), Step: true, Color: 0}
	for i, c := range f.RateCounts {
		rate.X = append(rate.X, float64(i)*f.RateWidth/div)
		rate.Y = append(rate.Y, float64(c)/f.RateWidth)
	}
	// The step line holds each bin's value up to the next bin's start;
	// close the last bin.
	rate.X = append(rate.X, span/div)
	rate.Y = append(rate.Y, rate.Y[len(rate.Y)-1])
	ratePanel := &LinePlot{
		XLabel: fmt.Sprintf("time since the first arrival (%s)", unit),
		YLabel: "arrival rate (jobs/s)",
		Lines:  []Line{rate},
	}
	if f.MeanRate > 0 && !math.IsInf(f.MeanRate, 0) {
		ratePanel.Lines = append(ratePanel.Lines, Line{Label: fmt.Sprintf("mean %s jobs/s", formatSig([]float64{f.MeanRate}, 3)[0]), Dashed: true, Color: 1,
			X: []float64{0, span / div}, Y: []float64{f.MeanRate, f.MeanRate}})
	}
	panels := []*LinePlot{ratePanel}

	if gp := f.gapPanel(); gp != nil {
		panels = append(panels, gp)
	}
	if len(f.Rates) > 0 {
		bp := &LinePlot{
			XLabel: "token rate r (tokens/s)",
			YLabel: "bucket size b (tokens)",
			LogX:   true, LogY: true,
			Lines: []Line{{Label: "no job waits", X: f.Rates, Y: f.Burst, Marks: true, Color: 2}},
		}
		if f.BurstTarget != nil {
			bp.Lines = append(bp.Lines, Line{Label: f.TargetLabel, X: f.Rates, Y: f.BurstTarget, Marks: true, Dashed: true, Color: 3})
		}
		panels = append(panels, bp)
	}
	// Each panel keeps its x label: their x axes differ.
	book := &markBook{}
	var ps []*panel
	for _, lp := range panels {
		pn, err := lp.build(book)
		if err != nil {
			return err
		}
		ps = append(ps, pn)
	}
	h := height * vg.Length(0.1+0.62*float64(len(ps)))
	return render(ctx, path, width, h, f.Caption, f.Footer, func(c draw.Canvas) error {
		body := drawTitle(c, f.Title, vg.Points(10))
		drawPanels(body, ps, nil, vg.Points(14))
		return nil
	})
}

// gapPanel is the log-log panel of P(gap > x), or nil without gaps.
func (f *TraceFigure) gapPanel() *LinePlot {
	if len(f.GapEdges) == 0 || len(f.GapEdges) != len(f.GapCCDF) {
		return nil
	}
	// Keep the edges from the last one below the smallest positive gap
	// (where P stays at P(gap > 0), below 1 by the ties) to the first
	// one with P = 0, so the curve fills the axes.
	lo, hi := 0, len(f.GapEdges)-1
	for lo+1 < len(f.GapCCDF) && f.GapCCDF[lo+1] >= f.GapCCDF[0] {
		lo++
	}
	for hi > lo && f.GapCCDF[hi-1] <= 0 {
		hi--
	}
	ccdf := Line{Label: "trace", Color: 0}
	if f.TieFraction > 0 && f.TieFraction <= 1 {
		ccdf.Label = fmt.Sprintf("trace (%s%% of gaps are 0)", formatSig([]float64{100 * f.TieFraction}, 3)[0])
	}
	minPos := 1.0
	for k := lo; k <= hi; k++ {
		if f.GapCCDF[k] > 0 {
			ccdf.X = append(ccdf.X, f.GapEdges[k])
			ccdf.Y = append(ccdf.Y, f.GapCCDF[k])
			minPos = min(minPos, f.GapCCDF[k])
		}
	}
	if len(ccdf.X) < 2 {
		return nil
	}
	gp := &LinePlot{
		XLabel: "interarrival gap x (s)",
		YLabel: "P(gap > x)",
		LogX:   true, LogY: true,
		Lines: []Line{ccdf},
		// A floor below the smallest probability keeps the
		// exponential reference from stretching the axis.
		YRange: [2]float64{minPos / 3, 1.5},
	}
	if f.GapMean > 0 {
		ref := Line{Label: "exponential, same mean", Dashed: true, Color: 1}
		for _, x := range ccdf.X {
			if y := math.Exp(-x / f.GapMean); y >= minPos/3 {
				ref.X = append(ref.X, x)
				ref.Y = append(ref.Y, y)
			}
		}
		if len(ref.X) >= 2 {
			gp.Lines = append(gp.Lines, ref)
		}
	}
	return gp
}

// fmtSeconds writes a bin width in the largest whole unit, the number as
// the figures write numbers (see formatNumber).
func fmtSeconds(s float64) string {
	num := func(v float64) string { return formatSig([]float64{v}, 6)[0] }
	switch {
	case s >= 86400 && math.Mod(s, 86400) == 0:
		return num(s/86400) + " d"
	case s >= 3600 && math.Mod(s, 3600) == 0:
		return num(s/3600) + " h"
	case s >= 60 && math.Mod(s, 60) == 0:
		return num(s/60) + " min"
	case s >= 1:
		return num(s) + " s"
	}
	return num(s*1000) + " ms"
}
