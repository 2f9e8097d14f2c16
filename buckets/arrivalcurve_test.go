package buckets

import (
	"errors"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// TestArrivalCurveHand: instants 0, 0, 1, 3, 3, 3, 7 s.
//
//	d = 0  the three at 3 s                      3 in [3, 3]
//	d = 1  0, 0, 1 (ends earlier than 3, 3, 3)   3 in [0, 1]
//	d = 2  1, 3, 3, 3                            4 in [1, 3]
//	d = 3  0, 0, 1, 3, 3, 3                      6 in [0, 3]
//	d = 4  still [0, 3] (3, 3, 3, 7 is only 4)   6 in [0, 3]
//	d = 7  all                                   7 in [0, 7]
func TestArrivalCurveHand(t *testing.T) {
	xs := []engine.Time{0, 0, 1, 3, 3, 3, 7}
	want := []CurvePoint{
		{D: 0, Jobs: 3, From: 3, To: 3},
		{D: 1, Jobs: 3, From: 0, To: 1},
		{D: 2, Jobs: 4, From: 1, To: 3},
		{D: 3, Jobs: 6, From: 0, To: 3},
		{D: 4, Jobs: 6, From: 0, To: 3},
		{D: 7, Jobs: 7, From: 0, To: 7},
	}
	ds := make([]engine.Time, len(want))
	for i, w := range want {
		ds[i] = w.D
	}
	got, err := MeasureArrivalCurve(xs, ds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if pts, _ := MeasureArrivalCurve(nil, []engine.Time{1}); pts[0] != (CurvePoint{D: 1}) {
		t.Errorf("empty stream: %+v, want zero jobs", pts[0])
	}
}

// TestArrivalCurveBruteForce compares the two-pointer sweep with the
// definition evaluated over every start instant, O(n²), on random instants
// with ties.
func TestArrivalCurveBruteForce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 50).Draw(rt, "n")
		xs := make([]engine.Time, n)
		at := 0.0
		for i := range xs {
			at += float64(rapid.IntRange(0, 20).Draw(rt, "gap")) * rapid.Float64Range(0, 1).Draw(rt, "scale")
			xs[i] = engine.Time(at)
		}
		ds := []engine.Time{0, engine.Time(rapid.Float64Range(0, 30).Draw(rt, "d")), 1, 5}
		pts, err := MeasureArrivalCurve(xs, ds)
		if err != nil {
			rt.Fatal(err)
		}
		for k, d := range ds {
			best := 0
			for i := range xs {
				c := 0
				for j := i; j < len(xs) && xs[j]-xs[i] <= d; j++ {
					c++
				}
				best = max(best, c)
			}
			if pts[k].Jobs != best {
				rt.Fatalf("α*(%v) = %d, brute force %d", d, pts[k].Jobs, best)
			}
			if best > 0 && (pts[k].To-pts[k].From > d || pts[k].From > pts[k].To) {
				rt.Fatalf("α*(%v) interval [%v, %v] longer than d", d, pts[k].From, pts[k].To)
			}
		}
	})
}

func TestArrivalCurveErrors(t *testing.T) {
	if _, err := MeasureArrivalCurve([]engine.Time{0, 2, 1}, []engine.Time{1}); !errors.Is(err, ErrOrder) {
		t.Errorf("decreasing instants: err = %v, want ErrOrder", err)
	}
	for _, d := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := MeasureArrivalCurve(nil, []engine.Time{engine.Time(d)}); !errors.Is(err, ErrParam) {
			t.Errorf("length %v: err = %v, want ErrParam", d, err)
		}
	}
}
