package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
)

// Every axis goes through axisRange before it is drawn, so that gonum
// never widens a range by itself (it turns [1, 1] into [0, 2], which a log
// axis cannot show) and every ticker is handed a range it can mark.

// flatRel is the relative width below which a range counts as a single
// value: a few hundred float64 steps, too narrow to place ticks on; and
// minWidth the absolute width below which it does, far from underflow.
const (
	flatRel  = 1e-13
	minWidth = 1e-300
)

// minLog is the smallest value a log axis shows: the smallest normal
// float64, 2^-1022 ≈ 2.2×10^-308. math.Log is not accurate below it.
const minLog = 0x1p-1022

// logable reports whether a log axis can show v: v >= minLog and finite.
func logable(v float64) bool { return v >= minLog && !math.IsInf(v, 1) }

// axisRange returns the range an axis shows for values in [lo, hi] (on a
// log axis, the positive ones): finite, lo < hi, and lo > 0 on a log
// axis. ok is false when there are no such values (lo > hi, or a NaN).
//
// Special cases:
//
//	no values                    [0, 1], log [1, 10]
//	one value v (or lo, hi within flatRel of each other, or closer than minWidth)
//	                             v ± max(|v|/2, minWidth), or ± 1 for v = 0; log [v/10, 10·v]
//	log axis and lo < minLog     lo = hi/100 (values below minLog count as 0 there)
//	hi − lo overflows            an error: the range is too wide to draw
func axisRange(lo, hi float64, log bool) (float64, float64, error) {
	if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi || math.IsInf(lo, 1) || math.IsInf(hi, -1) {
		if log {
			return 1, 10, nil
		}
		return 0, 1, nil
	}
	lo = math.Max(lo, -math.MaxFloat64)
	hi = math.Min(hi, math.MaxFloat64)
	if log {
		if !logable(hi) {
			return 1, 10, nil
		}
		if !logable(lo) {
			lo = math.Max(hi/100, minLog)
		}
		if hi-lo <= flatRel*hi {
			v := math.Sqrt(lo) * math.Sqrt(hi)
			// Clamped so that neither end leaves the float64 range.
			return math.Max(v/10, math.SmallestNonzeroFloat64), math.Min(v*10, math.MaxFloat64), nil
		}
		return lo, hi, nil
	}
	if !finite(hi - lo) {
		return 0, 0, fmt.Errorf("values span [%g, %g], too wide to draw", lo, hi)
	}
	if hi-lo <= flatRel*math.Max(math.Abs(lo), math.Abs(hi)) || hi-lo < minWidth {
		v := lo/2 + hi/2
		h := math.Max(math.Abs(v)/2, minWidth)
		if v == 0 {
			h = 1
		}
		return math.Max(v-h, -math.MaxFloat64), math.Min(v+h, math.MaxFloat64), nil
	}
	return lo, hi, nil
}

// checkedTicks wraps a ticker so that an axis only ever gets ticks it can
// draw: finite values in [lo, hi] (positive on a log axis), and none when
// the range itself is not drawable. gonum places every tick it is given,
// and a log axis panics on a tick <= 0.
type checkedTicks struct {
	plot.Ticker
	log bool
}

func (t checkedTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo, hi) || !(lo < hi) || (t.log && !logable(lo)) {
		return nil
	}
	var out []plot.Tick
	for _, tk := range t.Ticker.Ticks(lo, hi) {
		if finite(tk.Value) && tk.Value >= lo && tk.Value <= hi && !(t.log && !logable(tk.Value)) {
			out = append(out, tk)
		}
	}
	return out
}

// linearTicks is the tick marker of linear axes (see linearTickValues).
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick { return linearTickValues(lo, hi) }

// maxLabels is the most labelled ticks linearTickValues puts on an axis.
const maxLabels = 6

// linearTickValues returns ticks in [lo, hi]: labelled at the multiples
// of the smallest step of the form m·10^n (m = 1, 2, 2.5 or 5) that labels
// at most maxLabels values, unlabelled at the multiples of a fifth of it
// (a half, for m = 2), labelled in one notation (see formatAll). A range
// that is not finite and increasing gets no ticks; one too narrow for its
// magnitude (see flatRel) gets its two ends.
func linearTickValues(lo, hi float64) []plot.Tick {
	width := hi - lo
	if !finite(lo, hi, width) || !(lo < hi) {
		return nil
	}
	if width <= flatRel*math.Max(math.Abs(lo), math.Abs(hi)) || width < minWidth {
		return labelled([]float64{lo, hi}, []float64{sigRes(lo, 4), sigRes(hi, 4)})
	}
	// The candidate steps from a tenth of the width/maxLabels upwards;
	// the loop ends by the third decade at the latest.
	e := int(math.Floor(math.Log10(width/maxLabels))) - 1
	var step, mult float64
search:
	for ; ; e++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step, mult = m*math.Pow10(e), m
			if _, n := multiples(lo, hi, step); n <= maxLabels {
				break search
			}
		}
	}
	var vals, res []float64
	n0, count := multiples(lo, hi, step)
	for i := range count {
		vals = append(vals, (n0+float64(i))*step)
		res = append(res, step)
	}
	ticks := labelled(vals, res)
	per := 5
	if mult == 2 {
		per = 4
	}
	minor := step / float64(per)
	n0, count = multiples(lo, hi, minor)
	for i := range count {
		if n := n0 + float64(i); math.Mod(n, float64(per)) != 0 {
			ticks = append(ticks, plot.Tick{Value: n * minor})
		}
	}
	return ticks
}

// multiples returns the first multiple n0 of step in [lo, hi] (as n0·step)
// and how many there are, at most 100: counting with an int, as a float
// n0 + 1 may equal n0.
func multiples(lo, hi, step float64) (n0 float64, count int) {
	n0 = math.Ceil(lo / step)
	c := math.Floor(hi/step) - n0 + 1
	if !(c > 0) {
		return n0, 0
	}
	return n0, int(math.Min(c, 100))
}

// labelled returns ticks at vals, labelled in one notation, each to its
// precision res[i].
func labelled(vals, res []float64) []plot.Tick {
	labels := formatAll(vals, res)
	ticks := make([]plot.Tick, len(vals))
	for i, v := range vals {
		ticks[i] = plot.Tick{Value: v, Label: labels[i]}
	}
	return ticks
}

// maxDecades is the most decades a log axis marks with minor ticks at
// every m·10^n; a wider axis is marked as a linear axis of the exponents.
const maxDecades = 12

// logTickValues returns tick values in [lo, hi] (lo > 0) for a log axis:
// every m·10^n, labelled at m = 1, 2, 5 (at m = 1 only over more than three
// decades), or at every m when that would label fewer than three ticks.
// Over more than maxDecades decades, the ticks are the powers of ten
// whose exponents linearTickValues picks on [log10 lo, log10 hi] (10^-300,
// 10^-200, ... labelled, every 20th power marked). A range narrower than
// a factor of 3 gets linear ticks, and an invalid range none.
func logTickValues(lo, hi float64) []plot.Tick {
	if !finite(lo, hi) || !(logable(lo) && lo < hi) {
		return nil
	}
	if hi < 3*lo {
		return linearTickValues(lo, hi)
	}
	e0 := int(math.Floor(math.Log10(lo)))
	e1 := int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return logable(v) && v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	var vals []float64
	var lab []bool
	if e1-e0 > maxDecades {
		for _, tk := range linearTickValues(math.Log10(lo), math.Log10(hi)) {
			e := math.Round(tk.Value)
			if v := math.Pow(10, e); e == tk.Value && in(v) {
				vals = append(vals, math.Min(math.Max(v, lo), hi))
				lab = append(lab, tk.Label != "")
			}
		}
	} else {
		wide := hi/lo > 1e3
		for e := e0; e <= e1; e++ {
			p := math.Pow10(e)
			for m := 1; m <= 9; m++ {
				v := float64(m) * p
				if !in(v) {
					continue
				}
				vals = append(vals, math.Min(math.Max(v, lo), hi))
				lab = append(lab, m == 1 || (!wide && (m == 2 || m == 5)))
			}
		}
		count := 0
		for _, l := range lab {
			if l {
				count++
			}
		}
		if count < 3 {
			for i := range lab {
				lab[i] = true
			}
		}
	}
	var lv, res []float64
	for i, v := range vals {
		if lab[i] {
			lv = append(lv, v)
			res = append(res, math.Pow10(int(math.Floor(math.Log10(v)))))
		}
	}
	labels := formatAll(lv, res)
	ticks := make([]plot.Tick, len(vals))
	j := 0
	for i, v := range vals {
		ticks[i] = plot.Tick{Value: v}
		if lab[i] {
			ticks[i].Label = labels[j]
			j++
		}
	}
	return ticks
}

// logTicks is the tick marker of log-scaled axes (see logTickValues).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick { return logTickValues(lo, hi) }

// logLabelTicks labels an axis in log10 units (a colour bar of log10 Z)
// with the values themselves.
type logLabelTicks struct{}

func (logLabelTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := logTickValues(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ticks {
		ticks[i].Value = math.Log10(ticks[i].Value)
	}
	return ticks
}

// centreTicks marks the values c (cell centres, swept values), labelled
// with 5 significant digits (107550 is 107.55k) in one notation. With more than ten, every
// k-th is labelled (k = ceil(n/10)): the k-th whose labels are shortest
// (0.1, 0.2, ... rather than 0.05, 0.15, ...).
func centreTicks(c []float64) plot.Ticker {
	return plot.TickerFunc(func(_, _ float64) []plot.Tick {
		return centreTickList(c)
	})
}

func centreTickList(c []float64) []plot.Tick {
	var vals []float64
	for _, x := range c {
		if finite(x) {
			vals = append(vals, x)
		}
	}
	labels := formatSig(vals, 5)
	ticks := make([]plot.Tick, len(vals))
	for i, x := range vals {
		ticks[i] = plot.Tick{Value: x, Label: labels[i]}
	}
	if len(vals) <= 10 {
		return ticks
	}
	k := (len(vals) + 9) / 10
	best, bestLen := 0, math.Inf(1)
	for off := range k {
		n, total := 0, 0
		for i := off; i < len(vals); i += k {
			n++
			total += len(labels[i])
		}
		if mean := float64(total) / float64(n); mean < bestLen {
			best, bestLen = off, mean
		}
	}
	for i := range ticks {
		if i%k != best {
			ticks[i].Label = ""
		}
	}
	return ticks
}
