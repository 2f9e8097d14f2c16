package plots

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// limiterCurves: two limiters sharing the promise b + r·d (b = 10, r = 1)
// and one window limiter; α* and promises chosen so that the ratios are
// 1, 0.5 and 2 at d = 1 s.
func limiterCurves() ArrivalCurves {
	d := []float64{0, 1, 2}
	return ArrivalCurves{
		Title:   "test",
		Caption: "caption",
		Limiters: []LimiterCurve{
			{Name: "a", Color: 0, D: d, Jobs: []float64{10, 11, 12}, Promise: []float64{10, 11, 12}, PromiseName: "b + r·d", PromiseColor: -1},
			{Name: "b", Color: 1, D: d, Jobs: []float64{5, 5.5, 6}, Promise: []float64{10, 11, 12}, PromiseName: "b + r·d", PromiseColor: -1},
			{Name: "w", Color: 2, D: d, Jobs: []float64{10, 20, 20}, Promise: []float64{10, 10, 10}, PromiseName: "L per W", PromiseColor: 6, PromiseStep: true},
		},
	}
}

// TestArrivalCurvesData: the top panel has one curve per limiter and one
// dashed promise per distinct promise name (2 here); the bottom panel has
// each limiter's ratio α*(d)/promise(d) and the line 1.
func TestArrivalCurvesData(t *testing.T) {
	st, err := limiterCurves().Figure()
	if err != nil {
		t.Fatal(err)
	}
	top, bottom := st.Panels[0], st.Panels[1]
	var labels []string
	for _, l := range top.Lines {
		labels = append(labels, l.Label)
	}
	// The limiters first, then each promise once.
	if want := []string{"a", "b", "w", "promise b + r·d", "promise L per W"}; !slices.Equal(labels, want) {
		t.Errorf("top panel lines %q, want %q", labels, want)
	}
	if !top.LogX || !top.LogY || !bottom.LogX {
		t.Error("want logarithmic d axes and a logarithmic α* axis")
	}
	want := map[string][]float64{"a": {1, 1, 1}, "b": {0.5, 0.5, 0.5}, "w": {1, 2, 2}, "1: promise just kept": {1, 1}}
	for _, l := range bottom.Lines {
		if !slices.Equal(l.Y, want[l.Label]) {
			t.Errorf("ratio %q = %v, want %v", l.Label, l.Y, want[l.Label])
		}
	}
	if one := bottom.Lines[len(bottom.Lines)-1]; !slices.Equal(one.X, []float64{1, 2}) {
		t.Errorf("line 1 spans %v, want the positive lengths [1, 2]", one.X)
	}
}

// TestLimiterFiguresSave writes each figure in each format and checks the
// files: a decodable PNG, an SVG document, a PDF.
func TestLimiterFiguresSave(t *testing.T) {
	curves, err := limiterCurves().Figure()
	if err != nil {
		t.Fatal(err)
	}
	zoom, err := BoundaryZoom{Title: "zoom", Caption: "c", From: 0, To: 4, Edges: []float64{2, 10},
		Streams: []ZoomSeries{{Name: "offered", Color: -1, T: []float64{1, 1, 3}}, {Name: "a", Color: 0, T: []float64{1, 3}}}}.Figure()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := Response{Title: "r", Curves: []ResponseCurve{
		{Name: "cliff", Deficit: []float64{0, 9, 9, 10}, P: []float64{1, 1, 0, 0}},
		{Name: "measured", Color: 4, Deficit: []float64{0.5, 9.5}, P: []float64{1, 0.25}, Measured: true},
	}}.Figure()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, f := range map[string]Figure{"curves": curves, "zoom": zoom, "response": resp} {
		for _, format := range Formats {
			path := filepath.Join(dir, name+"."+format)
			if err := f.Save(path); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			switch format {
			case "png":
				if _, err := png.Decode(bytes.NewReader(data)); err != nil {
					t.Errorf("%s: %v", path, err)
				}
			case "svg":
				if !bytes.Contains(data[:min(len(data), 512)], []byte("<svg")) {
					t.Errorf("%s does not start an SVG document", path)
				}
			case "pdf":
				if !bytes.HasPrefix(data, []byte("%PDF-")) {
					t.Errorf("%s does not start with %%PDF-", path)
				}
			}
		}
	}
}

// TestZoomData: the staircase of instants 1, 1, 3 over [0, 4] is (0, 0),
// (1, 2), (3, 3), (4, 3); the edge at 2 s is drawn, the one at 10 s (out of
// range) is not; the y axis ends at a round number above the largest count,
// 3·1.05 -> 4.
func TestZoomData(t *testing.T) {
	lp, err := BoundaryZoom{From: 0, To: 4, Edges: []float64{2, 10},
		Streams: []ZoomSeries{{Name: "offered", Color: -1, T: []float64{1, 1, 3}}}}.Figure()
	if err != nil {
		t.Fatal(err)
	}
	st := lp.Lines[0]
	if !slices.Equal(st.X, []float64{0, 1, 3, 4}) || !slices.Equal(st.Y, []float64{0, 2, 3, 3}) || !st.Step {
		t.Errorf("staircase %v, %v, want steps (0,0) (1,2) (3,3) (4,3)", st.X, st.Y)
	}
	if len(lp.Lines) != 2 || lp.Lines[1].Label != "window edge" || lp.Lines[1].X[0] != 2 {
		t.Errorf("lines %+v, want the staircase and one edge at 2 s", lp.Lines)
	}
	if lp.YRange != [2]float64{0, 4} {
		t.Errorf("y range %v, want [0, 4]", lp.YRange)
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{1, 1}, {1.05, 1.2}, {262.5, 300}, {3.15, 4}, {0.07, 0.08}, {9.5, 10}} {
		if got := niceCeil(c.x); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("niceCeil(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestLimiterFigureErrors(t *testing.T) {
	bad := limiterCurves()
	bad.Limiters[1].Jobs = bad.Limiters[1].Jobs[:2]
	if _, err := bad.Figure(); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("mismatched lengths: err = %v, want one naming limiter b", err)
	}
	bad = limiterCurves()
	bad.Limiters[0].Promise[1] = 0
	if _, err := bad.Figure(); err == nil {
		t.Error("a promise of 0 jobs: no error")
	}
	if _, err := (ArrivalCurves{}).Figure(); err == nil {
		t.Error("no limiter: no error")
	}
	if _, err := (BoundaryZoom{From: 2, To: 2}).Figure(); err == nil {
		t.Error("empty zoom range: no error")
	}
	if _, err := (BoundaryZoom{From: 0, To: 2, Streams: []ZoomSeries{{Name: "x", T: []float64{1, 0.5}}}}).Figure(); err == nil {
		t.Error("decreasing instants: no error")
	}
	if _, err := (Response{Curves: []ResponseCurve{{Name: "x", Deficit: []float64{0}, P: []float64{1.5}}}}).Figure(); err == nil {
		t.Error("probability 1.5: no error")
	}
	curves, _ := limiterCurves().Figure()
	if err := curves.Save(filepath.Join(t.TempDir(), "x.gif")); err == nil {
		t.Error("saving as .gif: no error")
	}
}
