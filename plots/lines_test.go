package plots

import (
	"math"
	"testing"
)

// TestSegments: NaN, infinite, and (on a log axis) non-positive points
// break a curve into runs.
func TestSegments(t *testing.T) {
	l := Line{X: []float64{1, 2, 3, 4, 5, 6}, Y: []float64{1, math.NaN(), 2, 0, 3, math.Inf(1)}}
	if got := l.segments(false, false); len(got) != 2 || len(got[0]) != 1 || len(got[1]) != 3 {
		t.Errorf("linear segments %v, want [0] [2 3 4]", got)
	}
	if got := l.segments(false, true); len(got) != 3 {
		t.Errorf("log segments %v, want [0] [2] [4]", got)
	}
}
