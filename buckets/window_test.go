package buckets

import (
	"errors"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// TestFixedWindowSteps: L = 2 jobs per W = 10 s with the edges at 5 + 10k
// s, so the windows are [-5, 5), [5, 15), [15, 25), ... Two jobs by 4.5 s
// fill window [-5, 5); a third at 4.9 s is rejected. 5 s is an edge and
// starts window [5, 15): two more pass; 14.99 s is still in it: rejected.
// 15 s starts the next window, and 40 s one after two empty windows.
func TestFixedWindowSteps(t *testing.T) {
	f, err := NewFixedWindow(WindowParams{Limit: 2, Window: 10, Offset: 5})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "fixed window", Limiter[engine.Time](f), []offerStep[engine.Time]{
		{0, true, 0}, {4.5, true, 0}, {4.9, false, 0},
		{5, true, 0}, {5, true, 0}, {14.99, false, 0},
		{15, true, 0}, {40, true, 0},
	})
}

// TestWindowPromise: L·(floor(d/W) + 1) for L = 2, W = 10 s: 2 for any d
// shorter than W, 4 from d = W, 6 from 2W.
func TestWindowPromise(t *testing.T) {
	p := WindowParams{Limit: 2, Window: 10}
	for _, c := range []struct{ d, want float64 }{{0, 2}, {9.99, 2}, {10, 4}, {19.5, 4}, {25, 6}} {
		if got := p.Promise(c.d); got != c.want {
			t.Errorf("Promise(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}

// TestWindowEdgeRounding: edges are computed as FMA(k, W, Offset), one
// rounding. With W = 0.1 s the third edge is 3·0.1 =
// 0.30000000000000004 s, so the float64 0.3 (just below it) is still in
// window 2, and the computed edge itself starts window 3.
func TestWindowEdgeRounding(t *testing.T) {
	p := WindowParams{Limit: 1, Window: 0.1}
	edge3 := math.FMA(3, p.Window, 0) // 0.30000000000000004, not the constant 3 * 0.1 = 0.3
	for _, c := range []struct {
		t     float64
		k     float64
		start float64
	}{
		{0.3, 2, 0.2}, {edge3, 3, edge3}, {0.2, 2, 0.2}, {0.19999999999999998, 1, 0.1}, {0, 0, 0},
	} {
		if k, s := p.window(engine.Time(c.t)); k != c.k || float64(s) != c.start {
			t.Errorf("window(%v) = %v starting at %v, want %v starting at %v", c.t, k, s, c.k, c.start)
		}
	}
	if edge3 == 0.3 {
		t.Errorf("FMA(3, 0.1, 0) = %v, want 0.30000000000000004", edge3)
	}
}

func TestWindowParamErrors(t *testing.T) {
	for _, p := range []WindowParams{
		{Limit: 0, Window: 1}, {Limit: -1, Window: 1},
		{Limit: 1, Window: 0}, {Limit: 1, Window: -1}, {Limit: 1, Window: math.NaN()}, {Limit: 1, Window: math.Inf(1)},
		{Limit: 1, Window: 1, Offset: 1}, {Limit: 1, Window: 1, Offset: -0.5}, {Limit: 1, Window: 1, Offset: math.NaN()},
	} {
		_, e1 := NewFixedWindow(p)
		_, e2 := NewSlidingLog(p)
		_, e3 := NewSlidingCounter(p)
		for _, err := range []error{e1, e2, e3} {
			if !errors.Is(err, ErrParam) {
				t.Errorf("%+v: err = %v, want ErrParam", p, err)
			}
		}
	}
	f := mustFixed(t, WindowParams{Limit: 1, Window: 1})
	f.Offer(5)
	expectPanic(t, "fixed window Offer earlier than the last admitted job", func() { f.Offer(4.5) })
	c, _ := NewSlidingCounter(WindowParams{Limit: 1, Window: 1})
	c.Offer(5)
	expectPanic(t, "sliding counter Offer earlier than the last admitted job", func() { c.Offer(4.5) })
}

// drawGrid draws non-decreasing instants on a grid of 1/8 s (below 2^12 s),
// where every window computation with an integer W and an offset on the
// same grid is exact.
func drawGrid(t *rapid.T) []engine.Time {
	n := rapid.IntRange(1, 80).Draw(t, "jobs")
	ts := make([]engine.Time, n)
	var at engine.Time
	for i := range ts {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0: // tie
		case 1:
			at += engine.Time(rapid.IntRange(1, 8).Draw(t, "short gap")) / 8
		default:
			at += engine.Time(rapid.IntRange(1, 96).Draw(t, "gap")) / 8
		}
		ts[i] = at
	}
	return ts
}

// TestWindowArrivalCurves checks what each window limiter lets pass against
// its documented bound, on arbitrary arrivals (on a 1/8 s grid, so that the
// bounds, derived in exact arithmetic, apply exactly), for W of 1 to 8 s:
//
//	sliding log      α*(d) <= L·(floor(d/W) + 1)   (its promise, kept)
//	fixed window     α*(d) <= L·(floor(d/W) + 2)   (twice the promise for d < W)
//	sliding counter  α*(d) <= L + ceil(L·d/W)       for d < W
func TestWindowArrivalCurves(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := float64(rapid.IntRange(1, 8).Draw(rt, "window"))
		p := WindowParams{
			Limit:  int64(rapid.IntRange(1, 6).Draw(rt, "limit")),
			Window: w,
			Offset: float64(rapid.IntRange(0, int(8*w)-1).Draw(rt, "offset in 1/8 s")) / 8,
		}
		times := drawGrid(rt)
		var ds []engine.Time
		for d := engine.Time(0); d <= engine.Time(3*w); d += 0.125 {
			ds = append(ds, d)
		}
		l, _ := NewSlidingLog(p)
		f, _ := NewFixedWindow(p)
		c, _ := NewSlidingCounter(p)
		pl, _ := MeasureArrivalCurve(offerAll(l, times), ds)
		pf, _ := MeasureArrivalCurve(offerAll(f, times), ds)
		pc, _ := MeasureArrivalCurve(offerAll(c, times), ds)
		L := float64(p.Limit)
		for i, d := range ds {
			m := math.Floor(float64(d) / w)
			if float64(pl[i].Jobs) > L*(m+1) {
				rt.Fatalf("%+v: sliding log α*(%v) = %d > %v", p, d, pl[i].Jobs, L*(m+1))
			}
			if float64(pf[i].Jobs) > L*(m+2) {
				rt.Fatalf("%+v: fixed window α*(%v) = %d > %v", p, d, pf[i].Jobs, L*(m+2))
			}
			if bound := L + math.Ceil(L*float64(d)/w); float64(d) < w && float64(pc[i].Jobs) > bound {
				rt.Fatalf("%+v: sliding counter α*(%v) = %d > L + ceil(L·d/W) = %v", p, d, pc[i].Jobs, bound)
			}
		}
	})
}
