package buckets

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestArrivalCurveMeterMatches feeds random streams (bursts of equal
// instants, gaps from 0 to 3 ns and to 1000 ns) to the meter and compares
// every point with MeasureArrivalCurve's on the whole slice, and checks the
// memory bound: the meter never holds more than α*(max d) instants.
func TestArrivalCurveMeterMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		n := r.IntN(300)
		span := []int64{3, 1000}[trial%2]
		xs := make([]engine.Time, n)
		var x engine.Time
		for i := range xs {
			if r.IntN(4) != 0 {
				x += engine.Time(r.Int64N(span + 1))
			}
			xs[i] = x
		}
		ds := []engine.Time{0, 1, 2, 5, 17, 100, 999, 5000}
		r.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		ds = ds[:1+r.IntN(len(ds))]
		want, err := MeasureArrivalCurve(xs, ds)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewArrivalCurveMeter(ds)
		if err != nil {
			t.Fatal(err)
		}
		dmax := slices.Max(ds)
		bound, _ := MeasureArrivalCurve(xs, []engine.Time{dmax})
		for _, x := range xs {
			if err := m.Add(x); err != nil {
				t.Fatal(err)
			}
			if m.Kept() > bound[0].Jobs {
				t.Fatalf("trial %d: the meter holds %d instants, more than α*(%v) = %d", trial, m.Kept(), dmax, bound[0].Jobs)
			}
		}
		got, err := m.Result()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: meter %v, MeasureArrivalCurve %v (ds %v, xs %v)", trial, got, want, ds, xs)
		}
	}
}

// TestArrivalCurveMeterOrder: an instant before the previous one is the
// error MeasureArrivalCurve gives (same indices), kept after.
func TestArrivalCurveMeterOrder(t *testing.T) {
	xs := []engine.Time{5, 7, 6}
	_, want := MeasureArrivalCurve(xs, []engine.Time{1})
	m, _ := NewArrivalCurveMeter([]engine.Time{1})
	var err error
	for _, x := range xs {
		err = m.Add(x)
	}
	if err == nil || err.Error() != want.Error() || !errors.Is(err, ErrOrder) {
		t.Fatalf("got %v, want %v", err, want)
	}
	if _, err := m.Result(); err == nil {
		t.Fatal("Result after an order error returned no error")
	}
	if _, err := NewArrivalCurveMeter([]engine.Time{-1}); err == nil {
		t.Fatal("a negative length was accepted")
	}
}
