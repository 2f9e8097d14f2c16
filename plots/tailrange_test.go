package plots

import "testing"

// TestTailRange checks the range by hand: the smallest positive y of the
// lines below is 0.1 (zeros are left out), so the range is [0.1/2, 1.05];
// a line at y = 1 alone gives [1/2, 1.05]; no positive y, or none below 1,
// gives the zero value.
func TestTailRange(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []Line
		want  [2]float64
	}{
		{"two lines", []Line{{Y: []float64{0.5, 0.25, 0}}, {Y: []float64{1, 0.1}}}, [2]float64{0.05, 1.05}},
		{"at one", []Line{{Y: []float64{1}}}, [2]float64{0.5, 1.05}},
		{"no positive y", []Line{{Y: []float64{0, -1}}}, [2]float64{}},
		{"above one", []Line{{Y: []float64{2}}}, [2]float64{}},
		{"no lines", nil, [2]float64{}},
	} {
		if got := TailRange(c.lines); got != c.want {
			t.Errorf("%s: TailRange = %v, want %v", c.name, got, c.want)
		}
	}
}
