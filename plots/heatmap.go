package plots

import (
	"context"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatMap is a figure of a value over a grid of (x, y) cells, coloured on a
// sequential scale (light: small, dark: large) with a colour bar, each cell
// labelled with its value.
type HeatMap struct {
	Title, Caption string
	XLabel, YLabel string
	ZLabel         string      // the colour bar's label, with units
	X, Y           []float64   // cell centres, increasing
	Z              [][]float64 // Z[j][i] is the value at (X[i], Y[j]); NaN: no value (white, "–"); ±Inf: "∞", "-∞"
	// Masked[j][i] draws cell (i, j) in gray, with no value: for example a
	// point where a queue is unstable. Nil: none.
	Masked    [][]bool
	MaskLabel string // legend text for masked cells
	LogZ      bool   // colour by log10(Z); cells with Z < 2^-1022 (Z <= 0, say) are then white, with their value
	Diagonal  string // when not empty, draw the line y = x with this legend text
	Digits    int    // significant digits of the cell labels; 0 means 3
	Footer    string // a last, smaller line under the caption (provenance), as given
}

// edges returns the cell boundaries around increasing centres c.
func edges(c []float64) []float64 {
	n := len(c)
	e := make([]float64, n+1)
	switch n {
	case 0:
		return nil
	case 1:
		h := math.Max(math.Abs(c[0])*0.05, 0.5)
		return []float64{c[0] - h, c[0] + h}
	}
	e[0] = c[0] - (c[1]-c[0])/2
	for i := 1; i < n; i++ {
		e[i] = (c[i-1] + c[i]) / 2
	}
	e[n] = c[n-1] + (c[n-1]-c[n-2])/2
	return e
}

// colorMap is the sequential scale of heat maps: YlOrRd-like control
// colours (C. Brewer, colorbrewer2.org) interpolated linearly in luminance
// (K. Moreland, "Why we use bad color maps and what you can do about it",
// 2016), light for small values.
func colorMap() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{0x80, 0x00, 0x26, 0xff},
		color.NRGBA{0xE3, 0x1A, 0x1C, 0xff},
		color.NRGBA{0xFD, 0x8D, 0x3C, 0xff},
		color.NRGBA{0xFE, 0xD9, 0x76, 0xff},
		color.NRGBA{0xFF, 0xFF, 0xCC, 0xff},
	})
	if err != nil {
		panic(err) // constant controls with increasing luminance
	}
	return clampedMap{cm}
}

// clampedMap is the reverse of its colour map (dark for large values)
// that never fails: values outside its range get the colour of the nearest
// end (gonum's colour bar panics on an error), NaN white. It reverses
// itself, clamping after the reflection: palette.Reverse maps v to
// max - v + min, which rounding can put just outside [min, max] at an end
// of the range, where the map then fails (the largest value of a heat map
// was drawn white).
type clampedMap struct{ palette.ColorMap }

func (m clampedMap) At(v float64) (color.Color, error) {
	if math.IsNaN(v) {
		return color.White, nil
	}
	lo, hi := m.Min(), m.Max()
	u := math.Max(lo, math.Min(hi, hi-(math.Max(lo, math.Min(hi, v))-lo)))
	c, err := m.ColorMap.At(u)
	if err != nil {
		return color.White, nil
	}
	return c, nil
}

// zRange returns the range of the colour scale: that of the finite values
// (> 0 on a log scale), transformed; ± 0.5 around a single value (± 0.1
// decade on a log scale); [0, 1] and ok false without values. It returns
// an error when the values span more than float64 can subtract.
func (h *HeatMap) zRange() (lo, hi float64, ok bool, err error) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := range h.Z {
		for i, z := range h.Z[j] {
			if h.masked(i, j) || !finite(z) || (h.LogZ && !logable(z)) {
				continue
			}
			t := h.scale(z)
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if lo > hi {
		return 0, 1, false, nil
	}
	if lo == hi {
		d := 0.5
		if h.LogZ {
			d = 0.1
		}
		if lo-d == lo { // beyond 2^53: ± |v|/2
			lo, hi, err = axisRange(lo, hi, false)
			return lo, hi, true, err
		}
		return lo - d, hi + d, true, nil
	}
	if !finite(hi - lo) {
		return 0, 0, false, fmt.Errorf("plots: heat map %q: values span [%g, %g], too wide to draw", h.Title, lo, hi)
	}
	return lo, hi, true, nil
}

func (h *HeatMap) scale(z float64) float64 {
	if h.LogZ {
		return math.Log10(z)
	}
	return z
}

func (h *HeatMap) masked(i, j int) bool {
	return h.Masked != nil && j < len(h.Masked) && i < len(h.Masked[j]) && h.Masked[j][i]
}

func (h *HeatMap) check() error {
	if len(h.X) == 0 || len(h.Y) == 0 {
		return fmt.Errorf("plots: heat map %q has no cells", h.Title)
	}
	if len(h.Z) != len(h.Y) {
		return fmt.Errorf("plots: heat map %q has %d rows of values for %d y values", h.Title, len(h.Z), len(h.Y))
	}
	for j, row := range h.Z {
		if len(row) != len(h.X) {
			return fmt.Errorf("plots: heat map %q row %d has %d values for %d x values", h.Title, j, len(row), len(h.X))
		}
	}
	for _, c := range [][]float64{h.X, h.Y} {
		for i, v := range c {
			if !finite(v) {
				return fmt.Errorf("plots: heat map %q: cell centre %v, want a finite value", h.Title, v)
			}
			if i > 0 && !(v > c[i-1]) {
				return fmt.Errorf("plots: heat map %q: cell centres must increase", h.Title)
			}
		}
		for _, e := range edges(c) {
			if !finite(e) {
				return fmt.Errorf("plots: heat map %q: cell centres %v to %v too far apart to draw", h.Title, c[0], c[len(c)-1])
			}
		}
	}
	return nil
}

// CellColor returns the colour of cell (i, j), and whether its label is
// better drawn in white.
func (h *HeatMap) cellColor(cm palette.ColorMap, i, j int) (color.Color, bool) {
	z := h.Z[j][i]
	switch {
	case h.masked(i, j):
		return color.NRGBA{0xbb, 0xbb, 0xbb, 0xff}, false
	case math.IsNaN(z) || (h.LogZ && !logable(z) && !math.IsInf(z, 1)):
		return color.White, false
	case math.IsInf(z, 1):
		c, _ := cm.At(cm.Max())
		return c, true
	case math.IsInf(z, -1):
		c, _ := cm.At(cm.Min())
		return c, false
	}
	t := math.Max(cm.Min(), math.Min(cm.Max(), h.scale(z)))
	c, err := cm.At(t)
	if err != nil {
		c = color.White
	}
	r, g, b, _ := c.RGBA()
	lum := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	return c, lum < 0.45
}

// labels returns the text of every cell, Digits significant digits in
// one notation for the whole map (see formatAll): labels[j][i] for cell
// (i, j); "" for a masked cell, "–" for NaN, "∞" and "-∞" for infinities.
func (h *HeatMap) labels() [][]string {
	d := h.Digits
	if d <= 0 {
		d = 3
	}
	var vals []float64
	for j := range h.Z {
		for i, z := range h.Z[j] {
			if !h.masked(i, j) && finite(z) {
				vals = append(vals, z)
			}
		}
	}
	text := formatSig(vals, d)
	out := make([][]string, len(h.Z))
	k := 0
	for j := range h.Z {
		out[j] = make([]string, len(h.Z[j]))
		for i, z := range h.Z[j] {
			switch {
			case h.masked(i, j):
			case math.IsNaN(z):
				out[j][i] = "–"
			case math.IsInf(z, 0):
				out[j][i] = formatNumber(z, 0, decimal)
			default:
				out[j][i] = text[k]
				k++
			}
		}
	}
	return out
}

// cells is the plotter of the heat map's cells and labels.
type cells struct {
	labels bool // draw the labels (a second pass, over the diagonal), not the cells
	text   [][]string
	h      *HeatMap
	cm     palette.ColorMap
	xe, ye []float64
}

func (c *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return c.xe[0], c.xe[len(c.xe)-1], c.ye[0], c.ye[len(c.ye)-1]
}

func (c *cells) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	sty := p.X.Tick.Label
	sty.Font.Size = vg.Points(7.5)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	border := draw.LineStyle{Color: color.White, Width: vg.Points(0.6)}
	for j := range c.h.Y {
		for i := range c.h.X {
			x0, x1 := trX(c.xe[i]), trX(c.xe[i+1])
			y0, y1 := trY(c.ye[j]), trY(c.ye[j+1])
			pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			col, light := c.h.cellColor(c.cm, i, j)
			if !c.labels {
				dc.FillPolygon(col, pts)
				dc.StrokeLines(border, append(pts, pts[0]))
				continue
			}
			if s := c.text[j][i]; s != "" {
				st := sty
				st.Color = color.Black
				if light {
					st.Color = color.White
				}
				dc.FillText(st, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, s)
			}
		}
	}
}

// Save implements Figure. It returns an error for a map without cells,
// rows of Z that do not match X and Y, cell centres that are not finite
// and increasing (or so far apart that their edges overflow), values
// spanning more than float64 can subtract, an unknown format, and when
// the file cannot be written.
func (h *HeatMap) Save(path string) error { return h.saveContext(context.Background(), path) }

func (h *HeatMap) saveContext(ctx context.Context, path string) error {
	if err := h.check(); err != nil {
		return err
	}
	lo, hi, _, err := h.zRange()
	if err != nil {
		return err
	}
	cm := colorMap()
	cm.SetMin(lo)
	cm.SetMax(hi)
	c := &cells{h: h, cm: cm, xe: edges(h.X), ye: edges(h.Y)}

	p := plot.New()
	styleAxes(p)
	p.Title.Text = h.Title
	p.X.Label.Text = h.XLabel
	p.Y.Label.Text = h.YLabel
	p.X.Padding, p.Y.Padding = 0, 0
	p.Add(c)
	if err := fixAxis(&p.X, false, centreTicks(h.X)); err != nil {
		return fmt.Errorf("plots: heat map %q: x axis: %w", h.Title, err)
	}
	if err := fixAxis(&p.Y, false, centreTicks(h.Y)); err != nil {
		return fmt.Errorf("plots: heat map %q: y axis: %w", h.Title, err)
	}
	leg := newLegend()
	leg.TextStyle.Font.Size = vg.Points(8.5)
	leg.ThumbnailWidth = vg.Points(14)
	if h.Diagonal != "" {
		lo := math.Max(c.xe[0], c.ye[0])
		hi := math.Min(c.xe[len(c.xe)-1], c.ye[len(c.ye)-1])
		if lo < hi {
			ln, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
			if err != nil {
				return err
			}
			ln.Color = color.NRGBA{0x00, 0x40, 0xA0, 0xff}
			ln.Width = vg.Points(1.2)
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(2.5)}
			p.Add(ln)
			leg.Add(h.Diagonal, ln)
		}
	}
	p.Add(&cells{labels: true, text: h.labels(), h: h, cm: cm, xe: c.xe, ye: c.ye})
	if h.MaskLabel != "" && h.Masked != nil {
		sw, _ := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}})
		sw.Color = color.NRGBA{0xbb, 0xbb, 0xbb, 0xff}
		sw.LineStyle.Width = 0
		leg.Add(h.MaskLabel, sw)
	}

	bar := plot.New()
	styleAxes(bar)
	cb := &plotter.ColorBar{ColorMap: cm, Vertical: true}
	bar.Add(cb)
	bar.HideX()
	bar.Y.Padding = 0
	bar.Y.Label.Text = h.ZLabel
	var zt plot.Ticker = linearTicks{}
	if h.LogZ {
		zt = logLabelTicks{}
	}
	bar.Y.Tick.Marker = checkedTicks{Ticker: zt}

	return render(ctx, path, width, height*1.15, h.Caption, h.Footer, func(dc draw.Canvas) error {
		barW := vg.Points(62) + bar.Y.Label.TextStyle.Height(h.ZLabel)
		main := draw.Crop(dc, 0, -barW-vg.Points(10), 0, 0)
		// The legend goes under the axes' title, over the plot area.
		legH := vg.Length(0)
		if len(h.Diagonal)+len(h.MaskLabel) > 0 {
			r := leg.Rectangle(main)
			legH = r.Max.Y - r.Min.Y + vg.Points(6)
		}
		title := fitTitle(h.Title, p.Title.TextStyle, main.Max.X-main.Min.X)
		p.Title.Text = title
		titleH := p.Title.TextStyle.Height(title) + p.Title.Padding
		plotArea := main
		if legH > 0 {
			// Draw the title ourselves, then the legend row, then the
			// plot without its title.
			tsty := p.Title.TextStyle
			tsty.XAlign, tsty.YAlign = draw.XCenter, draw.YTop
			main.FillText(tsty, vg.Point{X: (main.Min.X + main.Max.X) / 2, Y: main.Max.Y}, title)
			p.Title.Text = ""
			lc := draw.Crop(main, 0, 0, 0, -titleH-vg.Points(2))
			lc.Min.X = p.DataCanvas(main).Min.X
			leg.Draw(lc)
			plotArea = draw.Crop(main, 0, 0, 0, -titleH-legH)
		}
		p.Draw(plotArea)
		// The colour bar spans the data area's height.
		da := p.DataCanvas(plotArea)
		bc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Max.X - barW, Y: da.Min.Y},
			Max: vg.Point{X: dc.Max.X - barW + vg.Points(62) + bar.Y.Label.TextStyle.Height(h.ZLabel), Y: da.Max.Y},
		}}
		bar.Draw(bc)
		return nil
	})
}
