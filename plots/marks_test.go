package plots

import (
	"math"
	"slices"
	"testing"
)

// TestSpreadMarks: six marks on 101 points at x = 0, 1, ..., 100, at the
// points nearest (k + 0.5)/6 of the way: 8.33, 25, 41.67, 58.33, 75,
// 91.67, so 8, 25, 42, 58, 75, 92. On a log axis they are spread evenly
// in log x: on x = 10^(i/10), i = 0..60, at i = 5, 15, ..., 55.
func TestSpreadMarks(t *testing.T) {
	var x []float64
	var idx []int
	for i := 0; i <= 100; i++ {
		x = append(x, float64(i))
		idx = append(idx, i)
	}
	if got := spreadMarks(x, idx, false, 0.5); !slices.Equal(got, []int{8, 25, 42, 58, 75, 92}) {
		t.Errorf("linear marks at %v, want [8 25 42 58 75 92]", got)
	}
	x, idx = nil, nil
	for i := 0; i <= 60; i++ {
		x = append(x, math.Pow(10, float64(i)/10))
		idx = append(idx, i)
	}
	if got := spreadMarks(x, idx, true, 0.5); !slices.Equal(got, []int{5, 15, 25, 35, 45, 55}) {
		t.Errorf("log marks at %v, want [5 15 25 35 45 55]", got)
	}
	if got := spreadMarks(x, []int{3, 4}, false, 0.5); !slices.Equal(got, []int{3, 4}) {
		t.Errorf("two points: marks at %v, want both", got)
	}
}

// looks returns the colourless style of every legend entry of panels.
func looks(panels []*panel) map[string]string {
	out := map[string]string{}
	for _, pn := range panels {
		for _, e := range pn.legend {
			out[e.label] = e.look
		}
	}
	return out
}

// TestBlackAndWhite: in each figure, series with different labels
// differ by more than colour (dash pattern or mark shape), and a label
// keeps its look in every panel.
func TestBlackAndWhite(t *testing.T) {
	curves, err := limiterCurves().Figure()
	if err != nil {
		t.Fatal(err)
	}
	// Three limiters of one colour, two dashed promises of one colour.
	same := &LinePlot{Lines: []Line{
		{Label: "a", X: []float64{1, 2}, Y: []float64{1, 2}},
		{Label: "b", X: []float64{1, 2}, Y: []float64{2, 3}},
		{Label: "c", X: []float64{1, 2}, Y: []float64{3, 4}, Marks: true},
		{Label: "p", X: []float64{1, 2}, Y: []float64{1, 3}, Dashed: true},
		{Label: "q", X: []float64{1, 2}, Y: []float64{1, 4}, Dashed: true},
	}}
	sameStack := &Stack{Panels: []*LinePlot{same}}
	for name, st := range map[string]*Stack{"arrival curves": curves, "one colour": sameStack} {
		panels, err := st.build()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for label, look := range looks(panels) {
			if other, ok := seen[look]; ok {
				t.Errorf("%s: %q and %q both look %q", name, label, other, look)
			}
			seen[look] = label
		}
	}
	// Without de-duplication the bottom panel lists a, b and w again:
	// with the same looks as on top.
	top, err := curves.Panels[0].build(&markBook{})
	if err != nil {
		t.Fatal(err)
	}
	book := &markBook{}
	var both []*panel
	for _, lp := range curves.Panels {
		pn, _ := lp.build(book)
		both = append(both, pn)
	}
	for _, e := range both[1].legend {
		if want, ok := looks([]*panel{top})[e.label]; ok && e.look != want {
			t.Errorf("%q looks %q in the bottom panel, %q on top", e.label, e.look, want)
		}
	}
}
