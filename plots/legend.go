package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendEntry is one line of a legend: a label and the thumbnails that
// show its style.
type legendEntry struct {
	label  string
	key    string // the label and style, to list an entry once in a Stack
	look   string // the style without colour: dash pattern and mark shape
	thumbs []plot.Thumbnailer
}

// legendGap is the space between the axes and the legend, and between
// legend columns.
const legendGap = vg.Length(8)

// maxLegendShare is the largest share of a figure's width its legend may
// take; entries beyond it are summed up in a last line "+ n more".
const maxLegendShare = 0.4

// newLegend returns an empty legend in the figures' style.
func newLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(9)
	leg.TextStyle.Handler = numberText
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(3)
	leg.Top, leg.Left = true, true
	return leg
}

// legendBlock is a legend laid out in columns, each a plot.Legend.
type legendBlock struct {
	cols  []plot.Legend
	width []vg.Length // each column's width
}

// Width returns the width of the block, columns and the gaps between them.
func (b legendBlock) Width() vg.Length {
	w := vg.Length(0)
	for i, cw := range b.width {
		if i > 0 {
			w += legendGap
		}
		w += cw
	}
	return w
}

// layoutLegend splits entries into columns at most h tall (as few as
// that allows), side by side within a width w; when they do not all fit,
// the last line shown says "+ n more" for the rest, so that a legend never
// runs over its panel or crowds out the data.
func layoutLegend(entries []legendEntry, h, w vg.Length) legendBlock {
	if len(entries) == 0 {
		return legendBlock{}
	}
	measure := func(es []legendEntry) plot.Legend {
		leg := newLegend()
		for _, e := range es {
			leg.Add(e.label, e.thumbs...)
		}
		return leg
	}
	size := func(leg plot.Legend) (vg.Length, vg.Length) {
		r := leg.Rectangle(draw.Canvas{})
		return r.Max.X - r.Min.X, r.Max.Y - r.Min.Y
	}
	// Every entry is as tall as the tallest: rows per column from h.
	pad := newLegend().Padding
	_, all := size(measure(entries))
	eh := (all+pad)/vg.Length(len(entries)) - pad
	rows := 1
	if fit := float64((h + pad) / (eh + pad)); fit > 1 {
		rows = int(math.Min(fit, float64(len(entries))))
	}
	var b legendBlock
	for i := 0; i < len(entries); i += rows {
		leg := measure(entries[i:min(i+rows, len(entries))])
		lw, _ := size(leg)
		if len(b.cols) > 0 && b.Width()+legendGap+lw > w {
			// No room for this column: the last line of the one before
			// sums up the rest.
			last := len(b.cols) - 1
			shown := append(entries[i-rows:i-1:i-1], legendEntry{label: fmt.Sprintf("+ %d more", len(entries)-i+1)})
			b.cols[last] = measure(shown)
			b.width[last], _ = size(b.cols[last])
			break
		}
		b.cols = append(b.cols, leg)
		b.width = append(b.width, lw)
	}
	return b
}

// Draw draws the block with its top left corner at the top left of c.
func (b legendBlock) Draw(c draw.Canvas) {
	x := c.Min.X
	for i := range b.cols {
		cc := c
		cc.Min.X = x
		b.cols[i].Draw(cc)
		x += b.width[i] + legendGap
	}
}
