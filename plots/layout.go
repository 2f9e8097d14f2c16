package plots

import (
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// panelLayout is where one panel goes: its plot (axes and data) and its
// legend.
type panelLayout struct {
	plot   draw.Canvas
	legend draw.Canvas
	block  legendBlock
}

// layoutPanels places panels one above the other in c, with heights in
// the proportions weights (nil: equal) and gap between them, and their
// legends in one column at the right as wide as the widest. Each plot's
// canvas is chosen so that every panel's data area has the same left
// edge (set by the widest y axis) and the same right edge, whatever the
// widths of their tick labels and legends.
func layoutPanels(c draw.Canvas, panels []*panel, weights []float64, gap vg.Length) []panelLayout {
	n := len(panels)
	if len(weights) != n {
		weights = make([]float64, n)
		for i := range weights {
			weights[i] = 1
		}
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	avail := c.Max.Y - c.Min.Y - gap*vg.Length(n-1)
	out := make([]panelLayout, n)
	legW := vg.Length(0)
	top := c.Max.Y
	for i, pn := range panels {
		h := avail * vg.Length(weights[i]/total)
		tile := c
		tile.Min.Y, tile.Max.Y = top-h, top
		top -= h + gap
		out[i].plot = tile
		out[i].block = layoutLegend(pn.legend, h-vg.Points(4), maxLegendShare*(c.Max.X-c.Min.X))
		legW = max(legW, out[i].block.Width())
	}
	if legW > 0 {
		legW += legendGap
	}
	for i := range out {
		out[i].plot.Max.X = c.Max.X - legW
		out[i].legend = out[i].plot
		out[i].legend.Min.X = c.Max.X - legW + legendGap
		out[i].legend.Max.X = c.Max.X
		out[i].legend.Max.Y -= vg.Points(4)
	}
	// The padding around a data area depends a little on the canvas width
	// (glyphs and tick labels near the ends), so settle it in a few
	// rounds.
	for range 5 {
		left, right := c.Min.X, c.Max.X-legW
		var lpad, rpad []vg.Length
		for i, pn := range panels {
			dc := pn.p.DataCanvas(pn.axes(out[i].plot))
			lpad = append(lpad, dc.Min.X-out[i].plot.Min.X)
			rpad = append(rpad, out[i].plot.Max.X-dc.Max.X)
			left = max(left, c.Min.X+lpad[i])
			right = min(right, c.Max.X-legW-rpad[i])
		}
		moved := false
		for i := range out {
			minX, maxX := left-lpad[i], right+rpad[i]
			if math.Abs(float64(minX-out[i].plot.Min.X)) > 1e-3 || math.Abs(float64(maxX-out[i].plot.Max.X)) > 1e-3 {
				moved = true
			}
			out[i].plot.Min.X, out[i].plot.Max.X = minX, maxX
		}
		if !moved {
			break
		}
	}
	return out
}

// drawPanels draws panels as layoutPanels places them.
func drawPanels(c draw.Canvas, panels []*panel, weights []float64, gap vg.Length) {
	for i, l := range layoutPanels(c, panels, weights, gap) {
		panels[i].draw(l.plot)
		l.block.Draw(l.legend)
	}
}

// labelPad is the space between an axis title and the tick labels.
const labelPad = vg.Length(1)

// axes returns the part of c left to the axes and the data once the axis
// titles have their room.
func (pn *panel) axes(c draw.Canvas) draw.Canvas {
	sty := pn.p.X.Label.TextStyle
	var left, bottom vg.Length
	if pn.yLabel != "" {
		left = sty.Height(pn.yLabel) + labelPad
	}
	if pn.xLabel != "" {
		bottom = sty.Height(pn.xLabel) + labelPad
	}
	return draw.Crop(c, left, 0, bottom, 0)
}

// draw draws the panel's plot in c, and its axis titles centred on the
// data area, placed as gonum places them.
func (pn *panel) draw(c draw.Canvas) {
	ac := pn.axes(c)
	pn.p.Draw(ac)
	dc := pn.p.DataCanvas(ac)
	sty := pn.p.X.Label.TextStyle
	descent := sty.FontExtents().Descent
	if pn.xLabel != "" {
		c.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: c.Min.Y + descent}, pn.xLabel)
	}
	if pn.yLabel != "" {
		ys := pn.p.Y.Label.TextStyle
		ys.Rotation += math.Pi / 2
		c.FillText(ys, vg.Point{X: c.Min.X + ys.Height(pn.yLabel) - descent, Y: (dc.Min.Y + dc.Max.Y) / 2}, pn.yLabel)
	}
}
