package plots

import (
	"strings"
	"testing"
)

// TestFlatData: data that are one value are drawn as what they are. A
// policing sweep's mean delays, 0 at every point, get the y range [0, 1]
// (a delay is never negative; not -1..1) and a note stating the value; a
// single point states both coordinates; data that vary get no note.
func TestFlatData(t *testing.T) {
	for _, c := range []struct {
		name         string
		lp           LinePlot
		wantY        [2]float64 // 0, 0: not checked
		want, absent []string
	}{
		{"zeros", LinePlot{Lines: []Line{{Label: "one", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}, {Label: "sync", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}}},
			[2]float64{0, 1}, []string{"every y value is 0"}, []string{"every x value"}},
		{"one point", LinePlot{Lines: []Line{{Label: "d", X: []float64{0.001}, Y: []float64{1}, Marks: true}}},
			[2]float64{}, []string{"every x value is 0.001", "every y value is 1"}, nil},
		{"varying", LinePlot{Lines: []Line{{Label: "d", X: []float64{1, 2}, Y: []float64{0, 1}}}},
			[2]float64{}, nil, []string{"every"}},
		{"fixed range", LinePlot{YRange: [2]float64{0, 2}, Lines: []Line{{Label: "d", X: []float64{1, 2}, Y: []float64{1, 1}}}},
			[2]float64{0, 2}, nil, []string{"every y value"}},
	} {
		pn, err := c.lp.build(&markBook{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := strings.Join(pn.notes, "; ")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: notes %q, want %q", c.name, got, w)
			}
		}
		for _, w := range c.absent {
			if strings.Contains(got, w) {
				t.Errorf("%s: notes %q, want none with %q", c.name, got, w)
			}
		}
		if c.wantY != [2]float64{} && (pn.p.Y.Min != c.wantY[0] || pn.p.Y.Max != c.wantY[1]) {
			t.Errorf("%s: y range [%v, %v], want %v", c.name, pn.p.Y.Min, pn.p.Y.Max, c.wantY)
		}
	}
}
