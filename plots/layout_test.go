package plots

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestStackAlignment: panels whose legends, tick labels and x titles
// differ in width (a short and a long legend label; y values to 1 and to
// 10^6; a log x axis, titled only at the bottom, whose title gonum would
// place at the arithmetic middle) get data areas with the same left and
// right edges, and the legends start right of them.
func TestStackAlignment(t *testing.T) {
	x := []float64{0.5, 1, 10, 100, 200}
	s := &Stack{Panels: []*LinePlot{
		{XLabel: "interval length d (s)", YLabel: "jobs", LogX: true, LogY: true,
			Lines: []Line{{Label: "a", X: x, Y: []float64{1, 10, 1e3, 1e5, 1e6}, Marks: true}}},
		{XLabel: "interval length d (s)", YLabel: "ratio", LogX: true,
			Lines: []Line{{Label: "a much longer legend label than the other", X: x, Y: []float64{0.5, 1, 1, 0.8, 1}}}},
		{XLabel: "interval length d (s)", YLabel: "ratio", LogX: true, XRange: [2]float64{1, 100},
			Lines: []Line{{Label: "b", X: x[1:4], Y: []float64{1, 2, 3}, Dashed: true}}},
	}, Heights: []float64{2, 1, 1}}
	panels, err := s.build()
	if err != nil {
		t.Fatal(err)
	}
	c := draw.New(vgimg.New(width, 2*height))
	layout := layoutPanels(c, panels, s.Heights, 0)
	var left, right []vg.Length
	for i, l := range layout {
		dc := panels[i].p.DataCanvas(panels[i].axes(l.plot))
		left = append(left, dc.Min.X)
		right = append(right, dc.Max.X)
		if l.legend.Min.X < dc.Max.X+legendGap {
			t.Errorf("panel %d: legend at %v, left of the data area's edge %v + %v", i, l.legend.Min.X, dc.Max.X, legendGap)
		}
		if got := [2]float64{panels[i].p.X.Min, panels[i].p.X.Max}; got != [2]float64{0.5, 200} {
			t.Errorf("panel %d: x range %v, want the union [0.5, 200]", i, got)
		}
	}
	for i := 1; i < len(layout); i++ {
		if math.Abs(float64(left[i]-left[0])) > 0.01 || math.Abs(float64(right[i]-right[0])) > 0.01 {
			t.Errorf("panel %d data area [%v, %v], panel 0 [%v, %v]: not aligned", i, left[i], right[i], left[0], right[0])
		}
	}
}

// TestLegendColumns: entries flow into columns as tall as the panel
// allows, and when the columns would be too wide the last line says how
// many entries are left out. The heights are measured with plot.Legend:
// a column of r entries is r·e + (r−1)·pad tall.
func TestLegendColumns(t *testing.T) {
	var entries []legendEntry
	for i := range 11 {
		entries = append(entries, legendEntry{label: fmt.Sprintf("limiter %d", i)})
	}
	one := newLegend()
	one.Add("limiter 0")
	r := one.Rectangle(draw.Canvas{})
	e, pad := r.Max.Y-r.Min.Y, one.Padding
	w := r.Max.X - r.Min.X

	// Room for all 11 in one column.
	if b := layoutLegend(entries, 11*e+10*pad+1, 1000); len(b.cols) != 1 {
		t.Errorf("tall panel: %d columns, want 1", len(b.cols))
	}
	// Room for 3 rows: ceil(11/3) = 4 columns.
	b := layoutLegend(entries, 3*e+2*pad+1, 1000)
	if len(b.cols) != 4 {
		t.Errorf("3 rows: %d columns, want 4", len(b.cols))
	}
	// 3 rows and room for two columns (of width w each, and a gap): 5
	// entries and "+ 6 more".
	b = layoutLegend(entries, 3*e+2*pad+1, 2*w+legendGap+1)
	if len(b.cols) != 2 {
		t.Fatalf("3 rows, 2 columns' width: %d columns, want 2", len(b.cols))
	}
	last := newLegend()
	for _, l := range []string{"limiter 3", "limiter 4", "+ 6 more"} {
		last.Add(l)
	}
	if got, want := b.cols[1].Rectangle(draw.Canvas{}), last.Rectangle(draw.Canvas{}); got != want {
		t.Errorf("last column %v, want the size of limiter 3, limiter 4, + 6 more (%v)", got, want)
	}
}

// TestListOnce: in a stack an entry is listed at the first panel that
// has it; the same label in another style is listed again.
func TestListOnce(t *testing.T) {
	st, err := limiterCurves().Figure()
	if err != nil {
		t.Fatal(err)
	}
	panels, err := st.build()
	if err != nil {
		t.Fatal(err)
	}
	var bottom []string
	for _, e := range panels[1].legend {
		bottom = append(bottom, e.label)
	}
	if len(bottom) != 1 || bottom[0] != "1: promise just kept" {
		t.Errorf("bottom legend %q, want only the line 1 (a, b and w are listed above)", bottom)
	}
	if n := len(panels[0].legend); n != 5 {
		t.Errorf("top legend has %d entries, want 5", n)
	}
}
