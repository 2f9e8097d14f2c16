package arrivals

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// TestPeriodicExact: a spacing of 0.1 s is exactly 100000000 ns, so
// arrival n is at n·100000000 ns for every n (a float64 clock gives
// 0.30000000000000004 at n = 3).
func TestPeriodicExact(t *testing.T) {
	p, err := NewPeriodic(exact.MustParse("0.1"), exact.Rat{})
	if err != nil {
		t.Fatal(err)
	}
	for n := range 1_000_000 {
		a, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want := engine.Time(n) * 100 * engine.Millisecond; a.T != want {
			t.Fatalf("arrival %d: T = %d ns, want %d ns", n, a.T, want)
		}
		if a.Sub != -1 || a.Key != 0 || a.Line != 0 {
			t.Fatalf("arrival %d = %+v, want Key 0, Sub -1, Line 0", n, a)
		}
	}
}

// TestPeriodicOffset: spacing 0.25 s from 3 s: 3, 3.25, 3.5, 3.75, 4 s.
func TestPeriodicOffset(t *testing.T) {
	p, err := NewPeriodic(exact.MustParse("0.25"), exact.Int(3))
	if err != nil {
		t.Fatal(err)
	}
	const ms = engine.Millisecond
	for i, want := range []engine.Time{3000 * ms, 3250 * ms, 3500 * ms, 3750 * ms, 4000 * ms} {
		a, _ := p.Next()
		if a.T != want {
			t.Errorf("step %d: T = %v s, want %v s", i, a.T, want)
		}
	}
}

// TestPeriodicRateThree: rate 3 is a spacing of 1/3 s, rounded up to
// 333333334 ns on the clock: arrivals at 0, 333333334, 666666668,
// 1000000002 ns, equal gaps. An offset of 1/3 s is rounded up too.
func TestPeriodicRateThree(t *testing.T) {
	p, err := NewPeriodicRate(exact.Int(3), exact.Rat{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []engine.Time{0, 333_333_334, 666_666_668, 1_000_000_002, 1_333_333_336} {
		if a, _ := p.Next(); a.T != want {
			t.Errorf("arrival %d at %d ns, want %d ns", i, a.T, want)
		}
	}
	if p.Spacing() != 333_333_334 {
		t.Errorf("Spacing = %d ns, want 333333334", p.Spacing())
	}
	q, _ := NewPeriodicRate(exact.Int(3), exact.NewRat(1, 3))
	for i, want := range []engine.Time{333_333_334, 666_666_668, 1_000_000_002} {
		if a, _ := q.Next(); a.T != want {
			t.Errorf("offset 1/3 s: arrival %d at %d ns, want %d ns", i, a.T, want)
		}
	}
}

// TestPeriodicCeil checks the contract against math/big: with rate r (a
// decimal or p/q) and offset o, arrival n is at ceil(o·1e9) +
// n·ceil(1e9/r) ns, for the first arrivals and for n near 2^40 (through
// the grid directly) where repeated float64 addition would have drifted by
// milliseconds; the gaps are never shorter than 1/r.
func TestPeriodicCeil(t *testing.T) {
	ceil := func(x *big.Rat) *big.Int {
		q, m := new(big.Int).DivMod(x.Num(), x.Denom(), new(big.Int))
		if m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	for _, tc := range []struct{ rate, offset string }{
		{"3", "0"}, {"10/13", "0"}, {"0.7", "0"}, {"7", "0.5"}, {"123456.789", "1/3"},
		{"2/3", "0"}, {"0.001", "0"}, {"999999937", "0"}, {"999999999/1000000000", "2.000000001"},
	} {
		rate, off := exact.MustParse(tc.rate), exact.MustParse(tc.offset)
		p, err := NewPeriodicRate(rate, off)
		if err != nil {
			t.Fatalf("rate %s: %v", tc.rate, err)
		}
		o := ceil(new(big.Rat).Mul(off.Big(), big.NewRat(1e9, 1)))
		sp := ceil(new(big.Rat).Quo(big.NewRat(1e9, 1), rate.Big()))
		if new(big.Rat).SetInt(sp).Cmp(new(big.Rat).Quo(big.NewRat(1e9, 1), rate.Big())) < 0 {
			t.Fatalf("rate %s: spacing %v ns shorter than 1/r", tc.rate, sp)
		}
		want := func(n int64) *big.Int { return new(big.Int).Add(o, new(big.Int).Mul(big.NewInt(n), sp)) }
		check := func(n int64, got engine.Time) {
			t.Helper()
			if w := want(n); !w.IsInt64() || w.Int64() != int64(got) {
				t.Fatalf("rate %s offset %s: arrival %d at %d ns, want %v", tc.rate, tc.offset, n, got, w)
			}
		}
		for n := range int64(2000) {
			a, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			check(n, a.T)
		}
		for n := int64(1<<40 - 1000); n < 1<<40; n++ {
			got, ok := p.g.at(n)
			if w := want(n); !w.IsInt64() {
				if ok {
					t.Fatalf("rate %s: arrival %d is beyond the range, but at() gave %d", tc.rate, n, got)
				}
				break
			}
			if !ok {
				t.Fatalf("rate %s: at(%d) failed", tc.rate, n)
			}
			check(n, got)
		}
	}
}

func TestNewPeriodicInvalid(t *testing.T) {
	huge := exact.MustParse("1e30") // 1e39 ns: beyond 128 bits
	for _, tc := range []struct {
		spacing, offset exact.Rat
		want            string
	}{
		{exact.Rat{}, exact.Rat{}, "spacing 0 s "},
		{exact.Int(-1), exact.Rat{}, "spacing -1 s "},
		{exact.Int(1), exact.NewRat(-1, 4), "offset -0.25 s "},
		{huge, exact.Rat{}, "spacing 1000000000000000000000000000000 s with offset 0 s does not fit"},
		{exact.MustParse("2e29"), exact.NewRat(1, 3), "does not fit exact nanosecond arithmetic"},
	} {
		_, err := NewPeriodic(tc.spacing, tc.offset)
		if err == nil {
			t.Errorf("NewPeriodic(%v, %v) error = nil, want one containing %q", tc.spacing, tc.offset, tc.want)
			continue
		}
		if got := err.Error(); !strings.HasPrefix(got, "arrivals: ") || !strings.Contains(got, tc.want) {
			t.Errorf("NewPeriodic(%v, %v) error = %q, want prefix \"arrivals: \" and %q", tc.spacing, tc.offset, got, tc.want)
		}
	}
	for _, r := range []exact.Rat{{}, exact.Int(-2)} {
		if _, err := NewPeriodicRate(r, exact.Rat{}); err == nil || !strings.Contains(err.Error(), "rate "+r.String()+" jobs/s") {
			t.Errorf("NewPeriodicRate(%v) error = %v, want one naming the rate", r, err)
		}
	}
}

// TestPeriodicOverflow: with a spacing of 1e9 s, arrival 9 is at 9e18 ns,
// inside the range (2^63 - 1 ≈ 9.22e18), and arrival 10 at 1e19 ns is not.
func TestPeriodicOverflow(t *testing.T) {
	p, _ := NewPeriodic(exact.Int(1e9), exact.Rat{})
	for range 9 {
		p.Next()
	}
	if a, err := p.Next(); err != nil || a.T != 9e18 {
		t.Fatalf("arrival 9 = %v, %v; want 9e18 ns", a.T, err)
	}
	_, err := p.Next()
	if err == nil || !strings.Contains(err.Error(), "arrival 10 at 0 s + 10·1000000000 s is beyond the range of engine.Time") {
		t.Fatalf("arrival 10 error = %v, want one beyond the range", err)
	}
	if _, err2 := p.Next(); err2 == nil {
		t.Errorf("Next after the overflow error = nil, want the error again")
	}
}

func BenchmarkPeriodic(b *testing.B) {
	p, _ := NewPeriodicRate(exact.Int(3), exact.Rat{})
	b.ReportAllocs()
	for b.Loop() {
		p.Next()
	}
}

// TestPeriodicBelowClock: a spacing under the clock's 1 ns (rate 10^12)
// is refused, naming the spacing and the largest rate, rather than run at
// 10^9 jobs/s under a header that says 10^12; 1 ns itself is accepted.
func TestPeriodicBelowClock(t *testing.T) {
	_, err := NewPeriodicRate(exact.Int(1e12), exact.Rat{})
	if err == nil || !strings.Contains(err.Error(), "0.000000000001 s") || !strings.Contains(err.Error(), "rate <= 1e9 jobs/s") {
		t.Errorf("rate 1e12: err = %v, want a refusal naming the spacing and the bound", err)
	}
	p, err := NewPeriodicRate(exact.Int(1e9), exact.Rat{})
	if err != nil {
		t.Fatal(err)
	}
	for want := range engine.Time(3) {
		if a, _ := p.Next(); a.T != want {
			t.Errorf("rate 1e9: arrival at %d ns, want %d", a.T, want)
		}
	}
}
