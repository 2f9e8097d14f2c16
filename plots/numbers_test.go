package plots

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		v, res float64
		n      notation
		want   string
	}{
		{0.30000000000000004, 0.1, decimal, "0.3"}, // rounded to its precision
		{0.25, 0.05, decimal, "0.25"},
		{7.5, 2.5, decimal, "7.5"},
		{-0.0, 1, decimal, "0"},
		{-1e-20, 0.1, decimal, "0"}, // rounds to -0, written 0
		{750000, 50000, siPrefix, "750k"},
		{1.25e6, 250000, siPrefix, "1.25M"},
		{500, 500, siPrefix, "500"},       // below 1000: no prefix
		{107550, 100, siPrefix, "107.6k"}, // 4 significant digits
		{-2.5e9, 5e8, siPrefix, "-2.5G"},
		{5e-4, 1e-4, powers, "5×10^−4"},
		{1e-6, 1e-6, powers, "10^−6"},
		{-1e-6, 1e-6, powers, "-10^−6"},
		{2.5, 0.5, powers, "2.5"},             // 10^0 is not written
		{2.5e22, 1e21, siPrefix, "2.5×10^22"}, // beyond E: powers
		{9.9996e-5, 1e-7, powers, "10^−4"},    // rounds up into the next decade
		{5e-324, 0, powers, "5×10^−324"},      // subnormal: 10^-324 underflows
		{math.NaN(), 1, decimal, "NaN"},
		{math.Inf(1), 1, decimal, "∞"},
		{math.Inf(-1), 1, siPrefix, "-∞"},
	} {
		if got := readable(formatNumber(tc.v, tc.res, tc.n)); got != tc.want {
			t.Errorf("formatNumber(%v, %v, %d) = %q, want %q", tc.v, tc.res, tc.n, got, tc.want)
		}
	}
}

// TestOneNotationPerSet: the labels of one set never mix notations, so
// "1e+03" never sits next to "500".
func TestOneNotationPerSet(t *testing.T) {
	for _, tc := range []struct {
		vs, res []float64
		want    string
	}{
		{[]float64{0, 500, 1000, 1500}, []float64{500, 500, 500, 500}, "0 500 1000 1500"},
		{[]float64{0, 5000, 10000}, []float64{5000, 5000, 5000}, "0 5k 10k"}, // 10^4 reached: SI for all
		{[]float64{0.0005, 0.001}, []float64{1e-4, 1e-4}, "0.0005 0.001"},
		{[]float64{0.00005, 0.001}, []float64{1e-5, 1e-5}, "5×10^−5 10^−3"}, // below 10^-4: powers for all
		{[]float64{0.1, 1, 10}, []float64{0.1, 1, 10}, "0.1 1 10"},
		{[]float64{math.NaN(), 1e5}, []float64{1, 1}, "NaN 100k"}, // NaN does not choose
	} {
		var got []string
		for _, s := range formatAll(tc.vs, tc.res) {
			got = append(got, readable(s))
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("formatAll(%v) = %q, want %q", tc.vs, s, tc.want)
		}
	}
}

func TestDecimalsFor(t *testing.T) {
	for res, want := range map[float64]int{1: 0, 500: 0, 0.5: 1, 2.5: 1, 0.25: 2, 1e-4: 4, 0.1 + 0.2: 1} {
		if got := decimalsFor(res); got != want {
			t.Errorf("decimalsFor(%v) = %d, want %d", res, got, want)
		}
	}
}

// TestPowerTextBox: "5×10" then the exponent "−4" at 70% size is as wide
// as the two measured apart by text.Plain, and text without the mark is
// measured as text.Plain measures it.
func TestPowerTextBox(t *testing.T) {
	plain := text.Plain{Fonts: font.DefaultCache}
	fnt := font.From(plot.DefaultFont, vg.Points(9))
	small := fnt
	small.Size = vg.Points(9 * 0.7)
	wb, hb, db := plain.Box("5×10", fnt)
	we, he, _ := plain.Box("−4", small)
	w, h, d := numberText.Box("5×10"+expMark+"−4", fnt)
	if math.Abs(float64(w-(wb+we))) > 1e-9 || d != db {
		t.Errorf("box width %v depth %v, want %v + %v and %v", w, d, wb, we, db)
	}
	// The raised exponent reaches 0.4·9 points above the baseline plus its
	// own height.
	if want := max(hb, vg.Points(0.4*9)+he); math.Abs(float64(h-want)) > 1e-9 {
		t.Errorf("box height %v, want %v", h, want)
	}
	w1, h1, d1 := numberText.Box("S^(k)(t)", fnt)
	w2, h2, d2 := plain.Box("S^(k)(t)", fnt)
	if w1 != w2 || h1 != h2 || d1 != d2 {
		t.Errorf("a caret in a caller's text changed its box: %v %v %v, want %v %v %v", w1, h1, d1, w2, h2, d2)
	}
}
