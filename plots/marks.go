package plots

import (
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series are told apart without colour by their marks and dashes: each
// labelled marked series of a figure gets the next of eight shapes
// (filled circle, square and triangle, then a ring, a hollow square, a
// hollow triangle, a cross and a plus), and each labelled dashed curve
// without marks the next of four dash patterns, in the order its label
// first appears, the same in every panel. Solid curves carry a few marks
// spread along them (sparseMarks); Line.Marks marks every point.

// glyphs are the mark shapes, in the order they are handed out.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	outlineGlyph(ring),
	outlineGlyph(box),
	outlineGlyph(pyramid),
	outlineGlyph(cross),
	outlineGlyph(plus),
}

// dashes are the dash patterns of dashed curves, in the order they are
// handed out: dashed, dotted, dash-dot, long dashes.
var dashes = [][]vg.Length{
	{vg.Points(5), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(11), vg.Points(4)},
}

// markBook hands out mark shapes and dash patterns by label for one
// figure.
type markBook struct{ marked, dashed []string }

// index returns the place of label in *list, adding it at the end if new.
func index(list *[]string, label string) int {
	for i, l := range *list {
		if l == label {
			return i
		}
	}
	*list = append(*list, label)
	return len(*list) - 1
}

// glyph returns the shape of the series labelled label, and its index in
// glyphs; an unlabelled series gets the circle.
func (b *markBook) glyph(label string) (draw.GlyphDrawer, int) {
	if label == "" {
		return glyphs[0], 0
	}
	i := index(&b.marked, label) % len(glyphs)
	return glyphs[i], i
}

// dash returns the dash pattern of the dashed curve labelled label, and
// its index in dashes; an unlabelled curve gets the first.
func (b *markBook) dash(label string) ([]vg.Length, int) {
	if label == "" {
		return dashes[0], 0
	}
	i := index(&b.dashed, label) % len(dashes)
	return dashes[i], i
}

// sparseMarks is the number of marks on a curve that does not mark every
// point.
const sparseMarks = 6

// spreadMarks returns the indexes of up to sparseMarks points among idx
// (the drawable points of a curve, X increasing) nearest to evenly spaced
// positions along x (log x on a log axis), shifted by a fraction phase of
// the spacing so that curves that coincide do not hide each other's marks.
func spreadMarks(x []float64, idx []int, logX bool, phase float64) []int {
	if len(idx) <= sparseMarks {
		return idx
	}
	pos := func(i int) float64 {
		if logX {
			return math.Log(x[i])
		}
		return x[i]
	}
	lo, hi := pos(idx[0]), pos(idx[len(idx)-1])
	var out []int
	j := 0
	for k := range sparseMarks {
		target := lo + (hi-lo)*(float64(k)+phase)/sparseMarks
		for j+1 < len(idx) && pos(idx[j+1]) <= target {
			j++
		}
		best := j
		if j+1 < len(idx) && math.Abs(pos(idx[j+1])-target) < math.Abs(pos(idx[j])-target) {
			best = j + 1
		}
		if len(out) == 0 || out[len(out)-1] != idx[best] {
			out = append(out, idx[best])
		}
	}
	return out
}

// outlineGlyph draws a hollow shape with 1-point lines (gonum's hollow
// glyphs use 0.5-point lines, faint in print).
type outlineGlyph int

const (
	ring outlineGlyph = iota
	box
	pyramid
	cross
	plus
)

func (g outlineGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1)})
	r := sty.Radius
	var p vg.Path
	switch g {
	case ring:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
		p.Close()
	case box:
		s := r * 0.9
		p.Move(vg.Point{X: pt.X - s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y + s})
		p.Line(vg.Point{X: pt.X - s, Y: pt.Y + s})
		p.Close()
	case pyramid:
		p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
		p.Line(vg.Point{X: pt.X - r*0.87, Y: pt.Y - r/2})
		p.Line(vg.Point{X: pt.X + r*0.87, Y: pt.Y - r/2})
		p.Close()
	case cross:
		s := r * 0.85
		p.Move(vg.Point{X: pt.X - s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y + s})
		p.Move(vg.Point{X: pt.X - s, Y: pt.Y + s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y - s})
	case plus:
		p.Move(vg.Point{X: pt.X - r, Y: pt.Y})
		p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
		p.Line(vg.Point{X: pt.X, Y: pt.Y + r})
	}
	c.Stroke(p)
}
