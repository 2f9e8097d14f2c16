package plots

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestAxisRange: the special cases of axisRange, each derived by hand
// from its rule.
func TestAxisRange(t *testing.T) {
	for _, tc := range []struct {
		name           string
		lo, hi         float64
		log            bool
		wantLo, wantHi float64
	}{
		{"ordinary", 2, 5, false, 2, 5},
		{"one value", 1, 1, false, 0.5, 1.5},          // 1 ± 1/2
		{"one negative value", -4, -4, false, -6, -2}, // -4 ± 4/2
		{"zero", 0, 0, false, -1, 1},
		{"flat at 1e15", 1e15, 1e15 + 0.125, false, 5e14 + 0.03125, 1.5e15 + 0.09375}, // 0.125 <= 1e-13·1e15: v = 1e15 + 0.0625, ± v/2
		{"tiny", 0, 1e-310, false, 5e-311 - 1e-300, 5e-311 + 1e-300},                  // closer than minWidth: ± minWidth
		{"no values", math.Inf(1), math.Inf(-1), false, 0, 1},
		{"NaN", math.NaN(), 1, false, 0, 1},
		{"log one value", 1, 1, true, 0.1, 10}, // the b(r) = 1 curve: a decade each side
		{"log one value 0.5", 0.5, 0.5, true, 0.05, 5},
		{"log from 0", 0, 5, true, 0.05, 5},     // lo = hi/100
		{"log no positive", -2, 0, true, 1, 10}, // nothing a log axis shows
		{"log no values", math.Inf(1), math.Inf(-1), true, 1, 10},
		{"log largest", math.MaxFloat64, math.MaxFloat64, true, math.MaxFloat64 / 10, math.MaxFloat64}, // 10·v overflows: clamped
		{"largest", math.MaxFloat64, math.MaxFloat64, false, math.MaxFloat64 / 2, math.MaxFloat64},     // v + v/2 overflows: clamped
	} {
		lo, hi, err := axisRange(tc.lo, tc.hi, tc.log)
		if err != nil || !close(lo, tc.wantLo) || !close(hi, tc.wantHi) {
			t.Errorf("%s: axisRange(%v, %v, log %t) = [%v, %v], %v; want [%v, %v]", tc.name, tc.lo, tc.hi, tc.log, lo, hi, err, tc.wantLo, tc.wantHi)
		}
	}
	if _, _, err := axisRange(-math.MaxFloat64, math.MaxFloat64, false); err == nil || !strings.Contains(err.Error(), "too wide") {
		t.Errorf("[-max, max]: error %v, want one saying the range is too wide", err)
	}
}

// close reports whether a and b agree to 12 significant digits.
func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func tickLabels(ticks []plot.Tick) string {
	var s []string
	for _, tk := range ticks {
		if tk.Label != "" {
			s = append(s, readable(tk.Label))
		}
	}
	return strings.Join(s, " ")
}

// TestLinearTicks: the smallest step m·10^n (m = 1, 2, 2.5, 5) labelling at
// most six values. For [0, 1]: 0.1 labels 11, 0.2 labels 6. For [0,
// 500000]: 100k labels 6. For [0, 107550]: 10k labels 11, 20k labels 6.
// For [0, 1500]: 250 labels 7, 500 labels 4. For [0, 0.002]: 2.5e-4
// labels 9, 5e-4 labels 5. For [0, 5e-5]: 1e-5 labels 6. For [-1, 1]: 0.25
// labels 9, 0.5 labels 5.
func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 500000, "0 100k 200k 300k 400k 500k"},
		{0, 107550, "0 20k 40k 60k 80k 100k"},
		{0, 1500, "0 500 1000 1500"},
		{0, 0.002, "0 0.0005 0.001 0.0015 0.002"},
		{0, 5e-5, "0 10^−5 2×10^−5 3×10^−5 4×10^−5 5×10^−5"},
		{-1, 1, "-1 -0.5 0 0.5 1"},
		{1e15, 1e15 + 0.125, "1P 1P"}, // flat for its magnitude: the two ends
	} {
		if got := tickLabels(linearTickValues(tc.lo, tc.hi)); got != tc.want {
			t.Errorf("ticks on [%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	// Minor ticks: a fifth of the step, a quarter for m = 2: on [0, 1]
	// (step 0.2) every 0.05, 21 ticks in all.
	if n := len(linearTickValues(0, 1)); n != 21 {
		t.Errorf("%d ticks on [0, 1], want 21 (every 0.05)", n)
	}
	for _, r := range [][2]float64{{1, 1}, {2, 1}, {math.NaN(), 1}, {0, math.Inf(1)}, {-math.MaxFloat64, math.MaxFloat64}} {
		if ticks := linearTickValues(r[0], r[1]); ticks != nil {
			t.Errorf("ticks on [%v, %v] = %v, want none", r[0], r[1], ticks)
		}
	}
}

// TestLogTicksWide: over more than twelve decades the exponents are
// ticked as a linear axis: on [10^-300, 10^300], 600/6 = 100 labels 7,
// so 200 (labels 3: -200, 0, 200), with a tick every 50 decades.
func TestLogTicksWide(t *testing.T) {
	ticks := logTickValues(1e-300, 1e300)
	if got := tickLabels(ticks); got != "10^−200 1 10^200" {
		t.Errorf("labels %q, want 10^−200 1 10^200", got)
	}
	if len(ticks) != 13 { // -300, -250, ..., 300
		t.Errorf("%d ticks, want 13", len(ticks))
	}
	if ticks := logTickValues(0, 2); ticks != nil {
		t.Errorf("log ticks from 0: %v, want none (the range is not one a log axis shows)", ticks)
	}
}

// TestCheckedTicks: ticks outside the range, not finite, or (on a log
// axis) below minLog never reach gonum, which would place them anyway
// (and panic on a log axis).
func TestCheckedTicks(t *testing.T) {
	given := plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		return []plot.Tick{{Value: -1}, {Value: 0}, {Value: 1e-320}, {Value: 1}, {Value: 5}, {Value: math.NaN()}, {Value: 20}}
	})
	var got []float64
	for _, tk := range (checkedTicks{Ticker: given, log: true}).Ticks(0.5, 10) {
		got = append(got, tk.Value)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 5 {
		t.Errorf("log ticks on [0.5, 10]: %v, want [1 5]", got)
	}
	if ticks := (checkedTicks{Ticker: given, log: true}).Ticks(0, 10); ticks != nil {
		t.Errorf("log ticks on [0, 10]: %v, want none", ticks)
	}
}

func TestCentreTicksLabels(t *testing.T) {
	// 5 significant digits, one notation: 107550 -> 107.55k.
	if got := tickLabels(centreTickList([]float64{100000, 107550, 500000})); got != "100k 107.55k 500k" {
		t.Errorf("labels %q, want 100k 107.55k 500k", got)
	}
	// 25 values 0.1 ... 2.5: every third labelled (k = ceil(25/10)), the
	// third with the shortest labels on average: from 0.2 (0.2 0.5 0.8
	// 1.1 1.4 1.7 2 2.3: 22 characters for 8, 2.75) rather than from 0.1
	// (25 for 9, 2.78) or 0.3 (24 for 8, 3).
	var c []float64
	for i := 1; i <= 25; i++ {
		c = append(c, float64(i)/10)
	}
	if got := tickLabels(centreTickList(c)); got != "0.2 0.5 0.8 1.1 1.4 1.7 2 2.3" {
		t.Errorf("labels %q, want every third from 0.2", got)
	}
}

// FuzzTicks: for any range, axisRange either refuses it or returns one
// that the tickers mark with finite ticks inside it, and at most a few
// hundred of them.
func FuzzTicks(f *testing.F) {
	for _, r := range [][2]float64{{1, 1}, {0, 2}, {0.5, 0.5}, {-1, 1}, {1e-300, 1e300}, {5e-324, 1e-323}, {1e15, 1e15 + 0.125}, {-math.MaxFloat64, math.MaxFloat64}, {math.NaN(), 0}} {
		f.Add(r[0], r[1], false)
		f.Add(r[0], r[1], true)
	}
	f.Fuzz(func(t *testing.T, lo, hi float64, log bool) {
		lo, hi, err := axisRange(lo, hi, log)
		if err != nil {
			return
		}
		if !finite(lo, hi) || !(lo < hi) || (log && !logable(lo)) {
			t.Fatalf("axisRange gave [%v, %v] (log %t)", lo, hi, log)
		}
		var ticker plot.Ticker = linearTicks{}
		if log {
			ticker = logTicks{}
		}
		ticks := checkedTicks{Ticker: ticker, log: log}.Ticks(lo, hi)
		if len(ticks) > 500 {
			t.Fatalf("%d ticks on [%v, %v]", len(ticks), lo, hi)
		}
		for _, tk := range ticks {
			if !(tk.Value >= lo && tk.Value <= hi) {
				t.Fatalf("tick %v outside [%v, %v]", tk.Value, lo, hi)
			}
		}
	})
}
