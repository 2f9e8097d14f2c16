package experiments

import (
	"context"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/exact"
)

// TestBuildArrivalsPeriodicExact: the periodic process takes the default
// rate exactly: load 0.7 at r = 3 is λ = 21/10 jobs/s (in float64, 0.7·3
// is 2.0999999999999996), which the canonical spec records; the spacing
// 1/2.1 s = 476190476.19 ns is rounded up to 476190477 ns
// (arrivals.NewPeriodic), so the 22nd arrival, the first at 0, is at
// 21·476190477 = 10000000017 ns.
func TestBuildArrivalsPeriodicExact(t *testing.T) {
	a, err := BuildArrivals(context.Background(), ArrivalsSpec{Spec: "periodic", Load: 0.7, Rate: exact.Int(3)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var last arrivals.Arrival
	for range 22 {
		if last, err = a.Process.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if last.T != 10_000_000_017 {
		t.Errorf("22nd arrival at %d ns, want 10000000017", last.T)
	}
	if got, want := a.Generated.Spec, "periodic:rate=2.1,offset=0"; got != want {
		t.Errorf("canonical spec %q, want %q", got, want)
	}
	if _, ok := a.PoissonRate(); ok {
		t.Error("periodic arrivals reported Poisson")
	}
	if _, err := BuildArrivals(context.Background(), ArrivalsSpec{Spec: "poisson", Load: 0, Rate: exact.Int(1)}, 1); err == nil || !strings.Contains(err.Error(), "rate= is required") {
		t.Errorf("load 0: error %v, want one saying rate= is required", err)
	}
}
