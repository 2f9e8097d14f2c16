package plots

import (
	"math"
	"os"
	"path/filepath"
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

// TestLogAxisWithoutPositiveData: a log axis whose data are all 0 (a delay
// tail when no job waited) draws a linear axis instead of panicking
// (regression: ratesim run --arrivals periodic --plot DIR).
func TestLogAxisWithoutPositiveData(t *testing.T) {
	lp := &LinePlot{Title: "tail", XLabel: "delay (s)", YLabel: "P(delay > x)", LogY: true, LogX: true,
		Lines: []Line{{Label: "one", X: []float64{0}, Y: []float64{0}}}}
	path := filepath.Join(t.TempDir(), "tail.png")
	if err := lp.Save(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("no figure written: %v", err)
	}
}
