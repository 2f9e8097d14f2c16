package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

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
	Z              [][]float64 // Z[j][i] is the value at (X[i], Y[j]); NaN: no value (white, "–"); +Inf: "∞"
	// Masked[j][i] draws cell (i, j) in gray, with no value: for example a
	// point where a queue is unstable. Nil: none.
	Masked    [][]bool
	MaskLabel string // legend text for masked cells
	LogZ      bool   // colour by log10(Z); Z must then be > 0
	Diagonal  string // when not empty, draw the line y = x with this legend text
	Digits    int    // significant digits of the cell labels; 0 means 3
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
	return palette.Reverse(cm)
}

// zRange returns the range of the colour scale: the finite values (> 0 on
// a log scale), transformed.
func (h *HeatMap) zRange() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := range h.Z {
		for i, z := range h.Z[j] {
			if h.masked(i, j) || !finite(z) || (h.LogZ && z <= 0) {
				continue
			}
			t := h.scale(z)
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if lo > hi {
		return 0, 1, false
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
		if h.LogZ {
			lo, hi = lo+0.4, hi-0.4
		}
	}
	return lo, hi, true
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
		for i := 1; i < len(c); i++ {
			if !(c[i] > c[i-1]) {
				return fmt.Errorf("plots: heat map %q: cell centres must increase", h.Title)
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
	case math.IsNaN(z) || (h.LogZ && z <= 0):
		return color.White, false
	case math.IsInf(z, 1):
		c, _ := cm.At(cm.Max())
		return c, true
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

// label returns the text of a cell.
func (h *HeatMap) label(i, j int) string {
	z := h.Z[j][i]
	switch {
	case h.masked(i, j):
		return ""
	case math.IsNaN(z):
		return "–"
	case math.IsInf(z, 1):
		return "∞"
	}
	d := h.Digits
	if d <= 0 {
		d = 3
	}
	return strconv.FormatFloat(z, 'g', d, 64)
}

// cells is the plotter of the heat map's cells and labels.
type cells struct {
	labels bool // draw the labels (a second pass, over the diagonal), not the cells
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
			if s := c.h.label(i, j); s != "" {
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

// Save implements Figure.
func (h *HeatMap) Save(path string) error {
	if err := h.check(); err != nil {
		return err
	}
	lo, hi, _ := h.zRange()
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
	p.X.Tick.Marker = centreTicks(h.X)
	p.Y.Tick.Marker = centreTicks(h.Y)
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(8.5)
	leg.ThumbnailWidth = vg.Points(14)
	leg.Padding = vg.Points(3)
	leg.Top, leg.Left = true, true
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
	p.Add(&cells{labels: true, h: h, cm: cm, xe: c.xe, ye: c.ye})
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
	if h.LogZ {
		bar.Y.Tick.Marker = logLabelTicks{}
	}

	return render(path, width, height*1.15, h.Caption, func(dc draw.Canvas) error {
		barW := vg.Points(62) + bar.Y.Label.TextStyle.Height(h.ZLabel)
		main := draw.Crop(dc, 0, -barW-vg.Points(10), 0, 0)
		// The legend goes under the axes' title, over the plot area.
		legH := vg.Length(0)
		if len(h.Diagonal)+len(h.MaskLabel) > 0 {
			r := leg.Rectangle(main)
			legH = r.Max.Y - r.Min.Y + vg.Points(6)
		}
		titleH := p.Title.TextStyle.Height(h.Title) + p.Title.Padding
		plotArea := main
		if legH > 0 {
			// Draw the title ourselves, then the legend row, then the
			// plot without its title.
			tsty := p.Title.TextStyle
			tsty.XAlign, tsty.YAlign = draw.XCenter, draw.YTop
			main.FillText(tsty, vg.Point{X: (main.Min.X + main.Max.X) / 2, Y: main.Max.Y}, h.Title)
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

// centreTicks marks the values c (cell centres, swept values). With more
// than ten, every other one is labelled: the half whose labels are shorter
// (0.1, 0.2, ... rather than 0.05, 0.15, ...).
func centreTicks(c []float64) plot.Ticker {
	return plot.TickerFunc(func(_, _ float64) []plot.Tick {
		return centreTickList(c)
	})
}

func centreTickList(c []float64) []plot.Tick {
	ticks := make([]plot.Tick, len(c))
	var length [2]int
	for i, x := range c {
		l := strconv.FormatFloat(x, 'g', 4, 64)
		ticks[i] = plot.Tick{Value: x, Label: l}
		length[i%2] += len(l)
	}
	if len(c) > 10 {
		keep := 0
		if length[1]*(len(c)/2+len(c)%2) < length[0]*(len(c)/2) {
			keep = 1
		}
		for i := range ticks {
			if i%2 != keep {
				ticks[i].Label = ""
			}
		}
	}
	return ticks
}

// logTickValues returns tick values in [lo, hi] (lo > 0) for a log axis:
// every m·10^n, labelled at m = 1, 2, 5 (at m = 1 only over more than three
// decades), or at every m when that would label fewer than three ticks (a
// range of less than a decade or so).
func logTickValues(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	labelled := 0
	wide := hi/lo > 1e3
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				tk.Label = strconv.FormatFloat(v, 'g', 3, 64)
				labelled++
			}
			ticks = append(ticks, tk)
		}
	}
	if labelled < 3 {
		for i := range ticks {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 3, 64)
		}
	}
	if len(ticks) < 2 {
		ticks = []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)}, {Value: hi, Label: strconv.FormatFloat(hi, 'g', 3, 64)}}
	}
	return ticks
}

// logTicks is the tick marker of log-scaled axes (see logTickValues).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick { return logTickValues(lo, hi) }

// logLabelTicks labels an axis in log10 units (a colour bar of log10 Z)
// with the values themselves.
type logLabelTicks struct{}

func (logLabelTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := logTickValues(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ticks {
		ticks[i].Value = math.Log10(ticks[i].Value)
	}
	return ticks
}
