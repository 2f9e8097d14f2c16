package experiments

import (
	"github.com/ratesim/ratesim/plots"
)

// TailLines returns the curves that draw P(delay > x) of d on a log-log
// CCDF: a step curve through every point of d, and the mark that ends it
// at the largest value. The last step of the empirical tail,
// P(delay > X[n-2]), holds until the largest value X[n-1], where the tail
// reaches 0 (which a log axis cannot show), so the curve is drawn up to
// X[n-1] and ends there with a mark: the x axis reaches the maximum.
// Points at x = 0 are kept (a linear x axis draws them; a log axis leaves
// them out, and P(delay > 0) belongs in the legend). label names the
// curve and is extended with the maximum ("…, max 546.7 s"); the mark is
// unlabelled, in the curve's colour. A distribution of one value v (every
// job delayed by v, or every delayed job by v) is drawn as what it is:
// the mark at (v, P(delay > 0)) labelled "every delayed job waits v s".
// It returns nil for an empty distribution or one without a delay > 0.
//
// Points: for X = [0, 1, 3] and P = [0.5, 0.75, 1] the curve is
// (0, 0.5), (1, 0.25), (3, 0.25) and the mark (3, 0.25).
func (d Distribution) TailLines(label string, color int, dashed bool) []plots.Line {
	d = distinct(d)
	n := len(d.X)
	if n == 0 || d.X[n-1] <= 0 {
		return nil
	}
	tail := make([]float64, n)
	for i, p := range d.P {
		tail[i] = 1 - p
	}
	max := d.X[n-1]
	// The positive values: one distinct value is a mark, not a curve.
	first := 0
	if d.X[0] == 0 {
		first = 1
	}
	if n-first == 1 {
		p := 1.0
		if first == 1 {
			p = tail[0]
		}
		return []plots.Line{{Label: label + ", every delayed job waits " + plots.SecondsText(max), X: []float64{max}, Y: []float64{p}, Marks: true, Color: color}}
	}
	x := append(append([]float64(nil), d.X[:n-1]...), max)
	y := append(append([]float64(nil), tail[:n-1]...), tail[n-2])
	return []plots.Line{
		{Label: label + ", max " + plots.SecondsText(max), X: x, Y: y, Step: true, Color: color, Dashed: dashed},
		{X: []float64{max}, Y: []float64{tail[n-2]}, Marks: true, Color: color},
	}
}

// distinct returns d with one point per distinct value: the last P of
// each (the fraction <= it).
func distinct(d Distribution) Distribution {
	var out Distribution
	for i, x := range d.X {
		if n := len(out.X); n > 0 && out.X[n-1] == x {
			out.P[n-1] = d.P[i]
			continue
		}
		out.X, out.P = append(out.X, x), append(out.P, d.P[i])
	}
	return out
}

// CDFLine returns the step curve of P(delay ≤ x) of d with its atom at 0
// drawn: when some jobs wait 0 (X[0] = 0) the curve starts at (0, 0) and
// jumps to P[0] there, and the label says how much P(delay = 0) is. It
// returns a Line without points for an empty distribution.
func (d Distribution) CDFLine(label string, color int, dashed bool) plots.Line {
	l := plots.Line{Label: label, Step: true, Color: color, Dashed: dashed}
	if len(d.X) == 0 {
		return l
	}
	if d.X[0] == 0 {
		l.Label += ", P(delay = 0) = " + FormatProb(d.P[0])
		l.X, l.Y = append(l.X, 0), append(l.Y, 0)
	}
	l.X = append(l.X, d.X...)
	l.Y = append(l.Y, d.P...)
	return l
}
