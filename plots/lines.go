package plots

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is a curve: Y against X, optionally with a confidence band [Lo, Hi]
// around it. Points with a NaN or infinite coordinate (or, on a log axis,
// one <= 0) are left out and break the curve (and the band) there. A Line
// with a label and no points is a legend entry only (e.g. "dashed: a
// formula" for several dashed curves).
type Line struct {
	Label  string    // legend entry; empty: none
	X, Y   []float64 // the curve, X increasing
	Lo, Hi []float64 // optional band, the same length as X
	Step   bool      // a step function: Y[i] holds from X[i] until X[i+1]
	Dashed bool      // draw dashed (a reference curve, e.g. a formula)
	// Marks marks every point. Without it, a solid labelled curve still
	// carries a few marks of its series' shape (see the package
	// documentation, "Black and white").
	Marks bool
	Color int // index into the figure palette (see Color); < 0 gray
}

// LinePlot is a figure of curves over shared axes, with a title, axis
// labels (with units), a legend to the right of the axes and a caption
// line under the figure.
type LinePlot struct {
	Title          string
	Caption        string // under the figure, as given; empty: none
	Footer         string // a last, smaller line (provenance), as given; empty: none
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

// panel is a LinePlot ready to draw: the gonum plot (without its title
// and legend, which the figure lays out) and the legend entries.
type panel struct {
	p      *plot.Plot
	legend []legendEntry
	data   bool // the ranges come from drawn values, not defaults
	logX   bool // the x axis is logarithmic
	// The axis titles, drawn by the panel rather than by gonum, which
	// reserves room for a title at the arithmetic middle of the range: on
	// a log axis, far from where it draws it.
	xLabel, yLabel string
	notes          []string // the remarks drawn at the top of the panel
}

// usableRange reports whether a fixed range r can be used.
func usableRange(r [2]float64, log bool) bool {
	return finite(r[0], r[1]) && r[0] < r[1] && !(log && !logable(r[0]))
}

// build makes the panel of lp, taking mark shapes from book (shared by the
// panels of one figure).
func (lp *LinePlot) build(book *markBook) (*panel, error) {
	for i := range lp.Lines {
		if err := lp.Lines[i].check(); err != nil {
			return nil, err
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
	// Degenerate data are drawn as what they are: when every value shown
	// on an axis is one value, a note states it (the axis range around
	// it carries no information), and a single 0 is shown in [0, 1]
	// rather than [-1, 1].
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range lp.Lines {
		for i := range l.X {
			if x, y := l.X[i], l.Y[i]; finite(x, y) && (!logX || logable(x)) && (!logY || logable(y)) {
				xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
				ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
			}
		}
	}
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

	if xlo == xhi && !usableRange(lp.XRange, logX) {
		notes = append(notes, "every x value is "+formatSig([]float64{xlo}, 4)[0])
	}
	if ylo == yhi && !usableRange(lp.YRange, logY) {
		notes = append(notes, "every y value is "+formatSig([]float64{ylo}, 4)[0])
	}

	p := plot.New()
	styleAxes(p)
	grid := plotter.NewGrid()
	grid.Vertical.Color = withAlpha(gray, 0x40)
	grid.Horizontal.Color = withAlpha(gray, 0x40)
	p.Add(grid)
	pn := &panel{p: p, logX: logX, xLabel: lp.XLabel, yLabel: lp.YLabel}
	// The smallest positive value, for clipping bands on a log axis.
	minPos := math.Inf(1)
	for _, l := range lp.Lines {
		for _, y := range l.Y {
			if logable(y) && y < minPos {
				minPos = y
			}
		}
	}
	var curves []plot.Plotter
	drawn := 0
	for i := range lp.Lines {
		bands, cs, entry, n := lp.Lines[i].plotters(book, logX, logY, minPos)
		p.Add(bands...)
		curves = append(curves, cs...)
		if entry != nil {
			pn.legend = append(pn.legend, *entry)
		}
		drawn += n
	}
	p.Add(curves...) // curves over every band
	if drawn == 0 && finitePoints > 0 && len(notes) == 0 {
		notes = append(notes, "no point with both coordinates > 0 for the log axes")
	}
	pn.data = drawn > 0
	if len(notes) > 0 {
		p.Add(note(strings.Join(notes, "; ")))
	}
	pn.notes = notes

	if usableRange(lp.XRange, logX) {
		p.X.Min, p.X.Max = lp.XRange[0], lp.XRange[1]
	} else if xlo == 0 && xhi == 0 && p.X.Min >= 0 {
		p.X.Min, p.X.Max = 0, 1
	}
	if usableRange(lp.YRange, logY) {
		p.Y.Min, p.Y.Max = lp.YRange[0], lp.YRange[1]
	} else if ylo == 0 && yhi == 0 && p.Y.Min >= 0 {
		p.Y.Min, p.Y.Max = 0, 1
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
		return nil, fmt.Errorf("plots: %s: %w", lp.axisName("x", lp.XLabel), err)
	}
	if err := fixAxis(&p.Y, logY, yt); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", lp.axisName("y", lp.YLabel), err)
	}
	return pn, nil
}

// plotters returns the plotters of l: its bands, its curves and marks,
// its legend entry (nil without a label, or when no point can be drawn),
// and the number of points drawn. book gives the mark shape and dash
// pattern of its label; minPos is the smallest positive y of the panel,
// which clips bands on a log y axis.
func (l *Line) plotters(book *markBook, logX, logY bool, minPos float64) (bands, curves []plot.Plotter, entry *legendEntry, drawn int) {
	c := Color(l.Color)
	style := lineStyle(*l, c)
	di := -1
	if l.Dashed && !l.Marks {
		style.Dashes, di = book.dash(l.Label)
	}
	segs := l.segments(logX, logY)
	var all []int
	for _, seg := range segs {
		all = append(all, seg...)
	}
	// The marks: every point, or a few on a solid labelled curve.
	var marks *plotter.Scatter
	gi := -1
	if (l.Marks || (!l.Dashed && l.Label != "")) && (len(all) > 0 || len(l.X) == 0) {
		var glyph draw.GlyphDrawer
		glyph, gi = book.glyph(l.Label)
		idx := all
		if !l.Marks {
			idx = spreadMarks(l.X, all, logX, markPhase(gi))
		}
		xys := make(plotter.XYs, len(idx))
		for k, i := range idx {
			xys[k] = plotter.XY{X: l.X[i], Y: l.Y[i]}
		}
		marks = &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(2.2), Shape: glyph}}
		if len(xys) > 0 {
			curves = append(curves, marks)
		}
	}
	var band *plotter.Polygon
	for _, seg := range segs {
		if l.Lo != nil {
			var ring plotter.XYs
			for _, i := range seg {
				ring = append(ring, plotter.XY{X: l.X[i], Y: bandValue(l.Lo[i], logY, minPos)})
			}
			for j := len(seg) - 1; j >= 0; j-- {
				i := seg[j]
				ring = append(ring, plotter.XY{X: l.X[i], Y: bandValue(l.Hi[i], logY, minPos)})
			}
			band = &plotter.Polygon{XYs: []plotter.XYs{ring}, Color: withAlpha(c, 0x38)}
			bands = append(bands, band)
		}
		xys := make(plotter.XYs, len(seg))
		for k, i := range seg {
			xys[k] = plotter.XY{X: l.X[i], Y: l.Y[i]}
		}
		ln := &plotter.Line{XYs: xys, LineStyle: style.LineStyle}
		if l.Step {
			ln.StepStyle = plotter.PostStep
		}
		curves = append(curves, ln)
	}
	if l.Label == "" || (len(segs) == 0 && len(l.X) > 0) {
		return bands, curves, nil, len(all)
	}
	var thumbs []plot.Thumbnailer
	if band != nil {
		thumbs = append(thumbs, band)
	}
	thumbs = append(thumbs, style)
	if marks != nil {
		thumbs = append(thumbs, marks)
	}
	// The look without colour: a dashed curve with marks keeps the first
	// dash pattern, and its marks tell it apart.
	look := fmt.Sprintf("dashes %d, glyph %d", di, gi)
	if l.Dashed && di < 0 {
		look = fmt.Sprintf("dashes 0, glyph %d", gi)
	}
	key := fmt.Sprintf("%s|%d|%t|%s", l.Label, l.Color, band != nil, look)
	return bands, curves, &legendEntry{label: l.Label, key: key, look: look, thumbs: thumbs}, len(all)
}

// markPhase is where the sparse marks of the series with mark shape gi
// sit within their spacing: between 0.325 and 0.675 of it, a different
// place for each shape (steps of the golden ratio), so that curves that
// coincide show each other's marks.
func markPhase(gi int) float64 {
	return 0.5 + 0.35*(math.Mod(float64(gi)*0.618, 1)-0.5)
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
// title, and returns the canvas below it, pad further down. An empty
// title takes no room.
func drawTitle(c draw.Canvas, title string, pad vg.Length) draw.Canvas {
	if title == "" {
		return c
	}
	p := plot.New()
	styleAxes(p)
	sty := p.Title.TextStyle
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	title = fitTitle(title, sty, c.Max.X-c.Min.X)
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}, title)
	return draw.Crop(c, 0, 0, 0, -sty.Height(title)-pad)
}

// fitTitle wraps a title wider than w (less a margin) in style sty onto
// more lines, at spaces, so that a centred title is never cut at both ends.
func fitTitle(title string, sty text.Style, w vg.Length) string {
	w -= vg.Points(12)
	if sty.Width(title) <= w {
		return title
	}
	return strings.Join(wrap(title, sty, w), "\n")
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

// Save implements Figure. It returns an error for lines whose X, Y, Lo
// and Hi differ in length, for values spanning more than float64 can
// subtract, for an unknown format, and when the file cannot be written.
func (lp *LinePlot) Save(path string) error { return lp.saveContext(context.Background(), path) }

func (lp *LinePlot) saveContext(ctx context.Context, path string) error {
	pn, err := lp.build(&markBook{})
	if err != nil {
		return err
	}
	return render(ctx, path, width, height, lp.Caption, lp.Footer, func(c draw.Canvas) error {
		body := drawTitle(c, lp.Title, vg.Points(6))
		drawPanels(body, []*panel{pn}, nil, 0)
		return nil
	})
}

// Stack is a figure of line plots stacked vertically, sharing the title,
// the caption (the panels' own are not drawn), the x range (the union of
// the panels' ranges, fixed or from their data, when their x scales
// agree) and the bottom panel's x label.
// The data areas line up on both sides, and the legends share a column
// to the right, each entry listed once, at the first panel that has it.
type Stack struct {
	Title, Caption string
	Footer         string // a last, smaller line (provenance), as given
	Panels         []*LinePlot
	Heights        []float64 // relative panel heights, finite and > 0, one per panel; nil: equal
}

// Save implements Figure. Besides LinePlot's errors it returns one for a
// stack without panels or with Heights that do not match them.
func (s *Stack) Save(path string) error { return s.saveContext(context.Background(), path) }

func (s *Stack) saveContext(ctx context.Context, path string) error {
	panels, err := s.build()
	if err != nil {
		return err
	}
	h := height * vg.Length(0.55+0.45*float64(len(s.Panels)))
	return render(ctx, path, width, h, s.Caption, s.Footer, func(c draw.Canvas) error {
		body := drawTitle(c, s.Title, vg.Points(8))
		drawPanels(body, panels, s.Heights, 0)
		return nil
	})
}

// build makes the panels of s: mark shapes shared, the x title only at
// the bottom, the x range shared, each legend entry listed once.
func (s *Stack) build() ([]*panel, error) {
	if len(s.Panels) == 0 {
		return nil, fmt.Errorf("plots: stack %q: a stack needs at least one panel", s.Title)
	}
	if s.Heights != nil {
		if len(s.Heights) != len(s.Panels) {
			return nil, fmt.Errorf("plots: stack %q has %d heights for %d panels", s.Title, len(s.Heights), len(s.Panels))
		}
		for i, h := range s.Heights {
			if !(h > 0) || !finite(h) {
				return nil, fmt.Errorf("plots: stack %q: panel %d height %v, want finite and > 0", s.Title, i, h)
			}
		}
	}
	book := &markBook{}
	var panels []*panel
	for i, lp := range s.Panels {
		if lp == nil {
			return nil, fmt.Errorf("plots: stack %q: panel %d is nil", s.Title, i)
		}
		pn, err := lp.build(book)
		if err != nil {
			return nil, err
		}
		if i < len(s.Panels)-1 {
			pn.xLabel = "" // the bottom panel's label serves all
		}
		panels = append(panels, pn)
	}
	shareX(panels)
	listOnce(panels)
	return panels, nil
}

// shareX gives every panel the union of the x ranges of the panels with
// data, when all have the same x scale.
func shareX(panels []*panel) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pn := range panels {
		if pn.logX != panels[0].logX {
			return
		}
		if pn.data {
			lo, hi = math.Min(lo, pn.p.X.Min), math.Max(hi, pn.p.X.Max)
		}
	}
	if lo < hi {
		for _, pn := range panels {
			pn.p.X.Min, pn.p.X.Max = lo, hi
		}
	}
}

// listOnce drops from each panel's legend the entries (same label and
// style) that an earlier panel lists.
func listOnce(panels []*panel) {
	seen := map[string]bool{}
	for _, pn := range panels {
		var keep []legendEntry
		for _, e := range pn.legend {
			if !seen[e.key] {
				seen[e.key] = true
				keep = append(keep, e)
			}
		}
		pn.legend = keep
	}
}
