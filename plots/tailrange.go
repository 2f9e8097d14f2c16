package plots

import "math"

// TailRange returns a y range [lo, hi] for lines drawn on a log CCDF (y a
// probability, for a [LinePlot]'s YRange): lo is half the smallest
// positive y, hi is 1.05 (a probability never exceeds 1; the margin keeps
// a curve at 1 off the frame).
//
// Special cases: the zero value (the data choose the range) when no y is
// positive or the smallest positive y exceeds 1.
func TailRange(lines []Line) [2]float64 {
	lo := math.Inf(1)
	for _, l := range lines {
		for _, y := range l.Y {
			if y > 0 && y < lo {
				lo = y
			}
		}
	}
	if math.IsInf(lo, 1) || lo >= 1 {
		if lo == 1 {
			return [2]float64{0.5, 1.05}
		}
		return [2]float64{}
	}
	return [2]float64{lo / 2, 1.05}
}
