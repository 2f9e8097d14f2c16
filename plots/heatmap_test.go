package plots

import (
	"image/color"
	"math"
	"strings"
	"testing"
)

func TestEdges(t *testing.T) {
	got := edges([]float64{0.1, 0.2, 0.4})
	want := []float64{0.05, 0.15, 0.3, 0.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("edges = %v, want %v", got, want)
		}
	}
	if e := edges([]float64{3}); e[0] >= 3 || e[1] <= 3 {
		t.Errorf("edges of one cell %v do not contain it", e)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
		var s []string
		for _, tk := range logTickValues(lo, hi) {
			if tk.Label != "" {
				s = append(s, readable(tk.Label))
			}
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{1, 100, "1 2 5 10 20 50 100"},
		{1.5, 7, "2 3 4 5 6 7"}, // less than a decade: every integer
		// One notation per axis: powers of ten as soon as one label is
		// below 10^-4 (see readable for the caret).
		{1e-6, 1, "10^−6 10^−5 10^−4 10^−3 10^−2 10^−1 1"},
		{1e-3, 10, "0.001 0.01 0.1 1 10"},
		{1, 1e6, "1 10 100 1k 10k 100k 1M"},
	} {
		if got := labels(tc.lo, tc.hi); got != tc.want {
			t.Errorf("log ticks on [%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestCentreTicks(t *testing.T) {
	var c []float64
	for i := 1; i <= 19; i++ {
		c = append(c, float64(i)*0.05)
	}
	var got []string
	for _, tk := range centreTickList(c) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if s := strings.Join(got, " "); s != "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9" {
		t.Errorf("labels %q, want the tenths", s)
	}
}

// TestHeatMapCells: labels and colours of the special cells, and colours
// darkening as the value grows.
func TestHeatMapCells(t *testing.T) {
	h := figures()["heat"].(*HeatMap)
	for _, tc := range []struct {
		i, j int
		want string
	}{{0, 0, "1.5"}, {2, 0, ""}, {0, 1, "∞"}, {1, 1, "2"}} {
		if got := h.labels()[tc.j][tc.i]; got != tc.want {
			t.Errorf("label(%d, %d) = %q, want %q", tc.i, tc.j, got, tc.want)
		}
	}
	h.Masked = nil
	if got := h.labels()[0][2]; got != "–" {
		t.Errorf("NaN cell label %q, want –", got)
	}
	lo, hi, ok, _ := h.zRange()
	if !ok || math.Abs(lo-math.Log10(1.2)) > 1e-15 || math.Abs(hi-math.Log10(3)) > 1e-15 {
		t.Errorf("colour range [%v, %v], want [log10 1.2, log10 3]", lo, hi)
	}
	cm := colorMap()
	cm.SetMin(lo)
	cm.SetMax(hi)
	prev := 2.0
	for _, z := range []float64{1.2, 1.5, 2, 3} {
		h.Z[0][0] = z
		c, _ := h.cellColor(cm, 0, 0)
		if l := luminance(c); l >= prev {
			t.Errorf("value %v: luminance %v not below %v", z, l, prev)
		} else {
			prev = l
		}
	}
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// TestColorMapEnds: every value in the colour scale's range, its ends
// included, gets a colour of the map, never the white of a failed lookup,
// for ranges whose reflection max - v + min rounds outside [min, max]
// (the largest ratio of the built-in study at b = 2, load 0.7, 122.56, was drawn white: its log is the first range here).
func TestColorMapEnds(t *testing.T) {
	white := color.RGBAModel.Convert(color.White)
	for _, r := range [][2]float64{{0.43445166513496647, 2.088341044417248}, {0.3010299956639812, 2.0883243823379283}, {0, 1}, {1e-9, 3}, {-2.5, 7.1}, {0.1, 0.30000000000000004}} {
		cm := colorMap()
		cm.SetMin(r[0])
		cm.SetMax(r[1])
		for i := 0; i <= 1000; i++ {
			v := r[0] + (r[1]-r[0])*float64(i)/1000
			if i == 1000 {
				v = r[1]
			}
			c, err := cm.At(v)
			if err != nil || color.RGBAModel.Convert(c) == white {
				t.Fatalf("range %v: value %v has colour %v (err %v)", r, v, c, err)
			}
		}
		lo, _ := cm.At(r[0])
		hi, _ := cm.At(r[1])
		if lo == hi {
			t.Errorf("range %v: both ends have colour %v", r, lo)
		}
	}
}
