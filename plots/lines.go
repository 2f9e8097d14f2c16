package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is a curve: Y against X, optionally with a confidence band [Lo, Hi]
// around it. Points with a NaN or infinite coordinate (or, on a log axis,
// one <= 0) are left out and break the curve (and the band) there. A Line with a label and no points
// is a legend entry only (e.g. "dashed: a formula" for several dashed
// curves).
type Line struct {
	Label  string    // legend entry; empty: none
	X, Y   []float64 // the curve, X increasing
	Lo, Hi []float64 // optional band, the same length as X
	Step   bool      // a step function: Y[i] holds from X[i] until X[i+1]
	Dashed bool      // draw dashed (a reference curve, e.g. a formula)
	Marks  bool      // mark each point
	Color  int       // index into the figure palette (see Color); < 0 gray
}

// LinePlot is a figure of curves over shared axes, with a title, axis
// labels (with units), a legend to the right of the axes and a caption
// line under the figure.
type LinePlot struct {
	Title          string
	Caption        string
	XLabel, YLabel string
	// LogX and LogY ask for log axes. An axis with no positive value to
	// show is drawn linear instead, with a note saying so.
	LogX, LogY bool
	// XRange and YRange fix the axis ranges [min, max] when min < max,
	// both finite (and min > 0 on a log axis); otherwise (the zero value)
	// the data choose them.
	XRange, YRange [2]float64
	// XTicks, when not nil, are the values marked on the x axis (the
	// swept values, say); every k-th is labelled when there are more
	// than ten.
	XTicks []float64
	Lines  []Line
}

// segments splits the indexes of l into runs where X, Y (and the band when
// present) are finite, and positive on a log axis (see logable).
func (l *Line) segments(logX, logY bool) [][]int {
	var segs [][]int
	var cur []int
	ok := func(i int) bool {
		x, y := l.X[i], l.Y[i]
		if !finite(x, y) || (logX && !logable(x)) || (logY && !logable(y)) {
			return false
		}
		if l.Lo != nil && (!finite(l.Lo[i], l.Hi[i]) || (logY && !logable(l.Hi[i]))) {
			return false
		}
		return true
	}
	for i := range l.X {
		if ok(i) {
			cur = append(cur, i)
			continue
		}
		if len(cur) > 0 {
			segs = append(segs, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}

func (l *Line) check() error {
	if len(l.Y) != len(l.X) {
		return fmt.Errorf("plots: line %q has %d x and %d y values", l.Label, len(l.X), len(l.Y))
	}
	if (l.Lo == nil) != (l.Hi == nil) || (l.Lo != nil && (len(l.Lo) != len(l.X) || len(l.Hi) != len(l.X))) {
		return fmt.Errorf("plots: line %q: the band needs Lo and Hi with one value per point", l.Label)
	}
	return nil
}

// usableRange reports whether a fixed range r can be used.
func usableRange(r [2]float64, log bool) bool {
	return finite(r[0], r[1]) && r[0] < r[1] && !(log && !logable(r[0]))
}

// build makes the gonum plot (without its legend, which is drawn beside
// it) and the legend.
func (lp *LinePlot) build() (*plot.Plot, plot.Legend, error) {
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(9)
	leg.TextStyle.Handler = numberText
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(3)
	leg.Top, leg.Left = true, true
	for i := range lp.Lines {
		if err := lp.Lines[i].check(); err != nil {
			return nil, leg, err
		}
	}
	// A log axis needs positive values: without any, it is drawn linear.
	points, finitePoints := 0, 0
	posX, posY := usableRange(lp.XRange, true), usableRange(lp.YRange, true)
	for _, l := range lp.Lines {
		for i := range l.X {
			points++
			if x, y := l.X[i], l.Y[i]; finite(x, y) {
				finitePoints++
				posX = posX || logable(x)
				posY = posY || logable(y)
			}
		}
	}
	logX, logY := lp.LogX && posX, lp.LogY && posY
	var notes []string
	switch {
	case points == 0:
		notes = append(notes, "no data")
	case finitePoints == 0:
		notes = append(notes, "no finite values")
	}
	if finitePoints > 0 && lp.LogX && !logX {
		notes = append(notes, "no x value > 0: linear x axis")
	}
	if finitePoints > 0 && lp.LogY && !logY {
		notes = append(notes, "no y value > 0: linear y axis")
	}

	p := plot.New()
	styleAxes(p)
	p.Title.Text = lp.Title
	p.X.Label.Text = lp.XLabel
	p.Y.Label.Text = lp.YLabel
	grid := plotter.NewGrid()
	grid.Vertical.Color = withAlpha(gray, 0x40)
	grid.Horizontal.Color = withAlpha(gray, 0x40)
	p.Add(grid)
	// The smallest positive value, for clipping bands on a log axis.
	minPos := math.Inf(1)
	for _, l := range lp.Lines {
		for _, y := range l.Y {
			if logable(y) && y < minPos {
				minPos = y
			}
		}
	}
	var lines []plot.Plotter
	drawn := 0
	for _, l := range lp.Lines {
		c := Color(l.Color)
		if len(l.X) == 0 {
			if l.Label != "" {
				leg.Add(l.Label, lineStyle(l, c))
			}
			continue
		}
		var thumbs []plot.Thumbnailer
		var band *plotter.Polygon
		for _, seg := range l.segments(logX, logY) {
			drawn += len(seg)
			if l.Lo != nil {
				var ring plotter.XYs
				for _, i := range seg {
					ring = append(ring, plotter.XY{X: l.X[i], Y: bandValue(l.Lo[i], logY, minPos)})
				}
				for j := len(seg) - 1; j >= 0; j-- {
					i := seg[j]
					ring = append(ring, plotter.XY{X: l.X[i], Y: bandValue(l.Hi[i], logY, minPos)})
				}
				poly, err := plotter.NewPolygon(ring)
				if err != nil {
					return nil, leg, err
				}
				poly.Color = withAlpha(c, 0x38)
				poly.LineStyle.Width = 0
				p.Add(poly)
				band = poly
			}
			var xys plotter.XYs
			for _, i := range seg {
				xys = append(xys, plotter.XY{X: l.X[i], Y: l.Y[i]})
			}
			ln, err := plotter.NewLine(xys)
			if err != nil {
				return nil, leg, err
			}
			ln.LineStyle = lineStyle(l, c).LineStyle
			if l.Step {
				ln.StepStyle = plotter.PostStep
			}
			lines = append(lines, ln)
			if len(thumbs) == 0 {
				thumbs = append(thumbs, ln)
			}
			if l.Marks {
				sc, err := plotter.NewScatter(xys)
				if err != nil {
					return nil, leg, err
				}
				sc.GlyphStyle.Color = c
				sc.GlyphStyle.Radius = vg.Points(2)
				sc.GlyphStyle.Shape = draw.CircleGlyph{}
				lines = append(lines, sc)
				if len(thumbs) == 1 {
					thumbs = append(thumbs, sc)
				}
			}
		}
		if band != nil {
			thumbs = append([]plot.Thumbnailer{band}, thumbs...)
		}
		if l.Label != "" && len(thumbs) > 0 {
			leg.Add(l.Label, thumbs...)
		}
	}
	p.Add(lines...) // curves over every band
	if drawn == 0 && finitePoints > 0 && len(notes) == 0 {
		notes = append(notes, "no point with both coordinates > 0 for the log axes")
	}
	if len(notes) > 0 {
		p.Add(note(strings.Join(notes, "; ")))
	}

	if usableRange(lp.XRange, logX) {
		p.X.Min, p.X.Max = lp.XRange[0], lp.XRange[1]
	}
	if usableRange(lp.YRange, logY) {
		p.Y.Min, p.Y.Max = lp.YRange[0], lp.YRange[1]
	} else if logY && !math.IsInf(minPos, 1) && p.Y.Min < minPos/2 {
		p.Y.Min = minPos / 2 // clipped band ends stay below the curves
	}
	var xt, yt plot.Ticker = linearTicks{}, linearTicks{}
	if logX {
		p.X.Scale, xt = plot.LogScale{}, logTicks{}
	}
	if logY {
		p.Y.Scale, yt = plot.LogScale{}, logTicks{}
	}
	if lp.XTicks != nil {
		xt = centreTicks(lp.XTicks)
	}
	if err := fixAxis(&p.X, logX, xt); err != nil {
		return nil, leg, fmt.Errorf("plots: %s: %w", lp.axisName("x", lp.XLabel), err)
	}
	if err := fixAxis(&p.Y, logY, yt); err != nil {
		return nil, leg, fmt.Errorf("plots: %s: %w", lp.axisName("y", lp.YLabel), err)
	}
	return p, leg, nil
}

// axisName names an axis of lp in errors: `figure "Delay tail", x axis
// "delay (s)"`.
func (lp *LinePlot) axisName(axis, label string) string {
	s := "figure"
	if lp.Title != "" {
		s += fmt.Sprintf(" %q", lp.Title)
	}
	s += ", " + axis + " axis"
	if label != "" {
		s += fmt.Sprintf(" %q", label)
	}
	return s
}

// fixAxis gives a a range it can draw (see axisRange) and the ticker t,
// wrapped so that it only returns ticks a can draw.
func fixAxis(a *plot.Axis, log bool, t plot.Ticker) error {
	lo, hi, err := axisRange(a.Min, a.Max, log)
	if err != nil {
		return err
	}
	a.Min, a.Max = lo, hi
	a.Tick.Marker = checkedTicks{Ticker: t, log: log}
	return nil
}

// note is a plotter that writes a short remark at the top of the data
// area: why some or all of the data are not shown.
type note string

func (n note) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := plot.New().Title.TextStyle
	sty.Handler = numberText
	sty.Font.Size = vg.Points(8.5)
	sty.Color = color.NRGBA{0x55, 0x55, 0x55, 0xff}
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(3)}, string(n))
}

// drawTitle writes title centred at the top of c, in the style of a plot
// title, and returns the canvas below it, pad further down.
func drawTitle(c draw.Canvas, title string, pad vg.Length) draw.Canvas {
	p := plot.New()
	styleAxes(p)
	sty := p.Title.TextStyle
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}, title)
	return draw.Crop(c, 0, 0, 0, -sty.Height(title)-pad)
}

// lineStyle returns a thumbnail with the style of l's curve in colour c.
func lineStyle(l Line, c color.NRGBA) *plotter.Line {
	ln := &plotter.Line{}
	ln.Color = c
	ln.Width = vg.Points(1.6)
	if l.Dashed {
		ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return ln
}

// bandValue clips a band end for a log axis, where it must be positive.
func bandValue(v float64, logY bool, minPos float64) float64 {
	if logY && !logable(v) {
		return minPos / 4
	}
	return v
}

// legendWidth returns the width of the legend's column.
func legendWidth(leg plot.Legend, c draw.Canvas) vg.Length {
	r := leg.Rectangle(c)
	return r.Max.X - r.Min.X
}

// drawWithLegend draws p in c with the legend in a column to its right.
func drawWithLegend(p *plot.Plot, leg plot.Legend, c draw.Canvas) {
	w := legendWidth(leg, c)
	if w > 0 {
		w += vg.Points(8)
	}
	p.Draw(draw.Crop(c, 0, -w, 0, 0))
	if w > 0 {
		lc := draw.Crop(c, c.Max.X-c.Min.X-w+vg.Points(8), 0, 0, -p.Title.TextStyle.Height(p.Title.Text)-p.Title.Padding-vg.Points(4))
		leg.Draw(lc)
	}
}

// Save implements Figure. It returns an error for lines whose X, Y, Lo
// and Hi differ in length, for values spanning more than float64 can
// subtract, for an unknown format, and when the file cannot be written.
func (lp *LinePlot) Save(path string) error {
	p, leg, err := lp.build()
	if err != nil {
		return err
	}
	return render(path, width, height, lp.Caption, func(c draw.Canvas) error {
		drawWithLegend(p, leg, c)
		return nil
	})
}

// Stack is a figure of line plots stacked vertically with aligned axes,
// sharing the title and the caption (the panels' own are not drawn). Each
// panel has its own legend to its right.
type Stack struct {
	Title, Caption string
	Panels         []*LinePlot
	Heights        []float64 // relative panel heights, finite and > 0, one per panel; nil: equal
}

// Save implements Figure. Besides LinePlot's errors it returns one for a
// stack without panels or with Heights that do not match them.
func (s *Stack) Save(path string) error {
	if len(s.Panels) == 0 {
		return fmt.Errorf("plots: %s: a stack needs at least one panel", path)
	}
	if s.Heights != nil {
		if len(s.Heights) != len(s.Panels) {
			return fmt.Errorf("plots: stack %q has %d heights for %d panels", s.Title, len(s.Heights), len(s.Panels))
		}
		for i, h := range s.Heights {
			if !(h > 0) || !finite(h) {
				return fmt.Errorf("plots: stack %q: panel %d height %v, want finite and > 0", s.Title, i, h)
			}
		}
	}
	var plots []*plot.Plot
	var legs []plot.Legend
	for i, lp := range s.Panels {
		if lp == nil {
			return fmt.Errorf("plots: stack %q: panel %d is nil", s.Title, i)
		}
		p, leg, err := lp.build()
		if err != nil {
			return err
		}
		p.Title.Text = ""
		if i < len(s.Panels)-1 {
			p.X.Label.Text = "" // the bottom panel's label serves all
		}
		plots = append(plots, p)
		legs = append(legs, leg)
	}
	h := height * vg.Length(0.55+0.45*float64(len(s.Panels)))
	return render(path, width, h, s.Caption, func(c draw.Canvas) error {
		body := drawTitle(c, s.Title, vg.Points(8))
		// The widest legend sets one right margin for every panel, so that
		// the axes line up.
		w := vg.Length(0)
		for _, leg := range legs {
			w = max(w, legendWidth(leg, body))
		}
		if w > 0 {
			w += vg.Points(8)
		}
		weights := s.Heights
		if weights == nil {
			weights = make([]float64, len(plots))
			for i := range weights {
				weights[i] = 1
			}
		}
		total := 0.0
		for _, x := range weights {
			total += x
		}
		full := body.Max.Y - body.Min.Y
		top := body.Max.Y
		var tiles []draw.Canvas
		for i := range plots {
			ph := full * vg.Length(weights[i]/total)
			tc := draw.Canvas{Canvas: body.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: body.Min.X, Y: top - ph},
				Max: vg.Point{X: body.Max.X - w, Y: top},
			}}
			tiles = append(tiles, tc)
			top -= ph
		}
		// Align the data areas: the widest y-axis sets the left edge.
		left := vg.Length(0)
		for i, p := range plots {
			dc := p.DataCanvas(tiles[i])
			left = max(left, dc.Min.X-tiles[i].Min.X)
		}
		for i, p := range plots {
			dc := p.DataCanvas(tiles[i])
			shift := left - (dc.Min.X - tiles[i].Min.X)
			t := tiles[i]
			t.Min.X += shift
			p.Draw(t)
			lc := draw.Canvas{Canvas: body.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: body.Max.X - w + vg.Points(8), Y: t.Min.Y},
				Max: vg.Point{X: body.Max.X, Y: t.Max.Y - vg.Points(4)},
			}}
			legs[i].Draw(lc)
		}
		return nil
	})
}
