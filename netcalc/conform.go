package netcalc

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Violation is a window in which a stream has more jobs than its arrival
// curve allows: the closed interval from the instant of job First to the
// instant of job Last, which holds exactly the jobs First..Last.
type Violation struct {
	First, Last int       // indexes of the first and last jobs in the window
	Length      exact.Rat // seconds: instant of Last minus instant of First
	Jobs        int       // Last − First + 1
	Bound       exact.Rat // jobs: α(Length+), which Jobs exceeds
}

// Conforms reports whether the stream of jobs at the instants ts
// (nanoseconds, non-decreasing) conforms to the arrival curve a: whether
// every closed window [s, s+d] holds at most α(d+) jobs (b + r·d for a
// token bucket; see the package documentation). This is Le Boudec and
// Thiran's R(t) − R(s) <= α(t − s) (§1.2.1), exactly.
//
// When the stream does not conform, Conforms returns false and the first
// violating window: the one that ends earliest, and among those the
// shortest.
//
// Cost: O(n·m) for a concave curve of m buckets (a running minimum per
// bucket) and O(n) for a staircase (a sliding window), plus O(n) to find
// the window's start.
//
// A stream rounded up to whole nanoseconds from exact instants that conform
// to γ_{r,b} (as the engine delivers a limiter's events) may need one
// nanosecond of slack: check it against γ_{r, b + r·1e-9}.
//
// Errors: an invalid curve and instants out of order (the error names the
// index).
func Conforms(ts []engine.Time, a Arrival) (Violation, bool, error) {
	if err := checkArrival(a); err != nil {
		return Violation{}, false, err
	}
	st, err := nanoStream(ts)
	if err != nil {
		return Violation{}, false, err
	}
	return conforms(st, a)
}

// ConformsSeconds is [Conforms] for exact instants in seconds, such as the
// departures of [RateLatency.ServeSeconds].
func ConformsSeconds(ts []exact.Rat, a Arrival) (Violation, bool, error) {
	if err := checkArrival(a); err != nil {
		return Violation{}, false, err
	}
	st, err := ratStream(ts)
	if err != nil {
		return Violation{}, false, err
	}
	return conforms(st, a)
}

func checkArrival(a Arrival) error {
	if a == nil {
		return errors.New("netcalc: nil arrival curve")
	}
	return a.check()
}

func conforms(st stream, a Arrival) (Violation, bool, error) {
	var c int
	if s, ok := a.(Staircase); ok {
		c = scanStaircase(st, s)
	} else {
		c = scanConcave(st, asConcave(a))
	}
	if c < 0 {
		return Violation{}, true, nil
	}
	v, err := window(st, a, c)
	return v, false, err
}

// scanConcave returns the least index c such that some window ending at
// job c (counting jobs up to c) violates c, or -1.
//
// For one bucket (b, r) = (u/w, p/q) and instants x/L seconds, the jobs
// a..c violate it when c − a + 1 > b + r·(x_c − x_a)/L; multiplied by
// M = w·q·L that is X_c − Y_a > u·q·L with X_c = M·(c+1) − p·w·x_c and
// Y_a = M·a − p·w·x_a, so a running minimum of Y decides each c.
func scanConcave(st stream, cv Concave) int {
	type state struct {
		m, pw, lim, minY *big.Int
	}
	bs := make([]state, len(cv))
	for i, tb := range cv {
		b, r := tb.Burst.Big(), tb.Rate.Big()
		m := new(big.Int).Mul(b.Denom(), r.Denom())
		m.Mul(m, st.den)
		lim := new(big.Int).Mul(b.Num(), r.Denom())
		bs[i] = state{m: m, pw: new(big.Int).Mul(r.Num(), b.Denom()), lim: lim.Mul(lim, st.den)}
	}
	y, x, t := new(big.Int), new(big.Int), new(big.Int)
	for c, xc := range st.x {
		for i := range bs {
			s := &bs[i]
			y.Mul(s.m, big.NewInt(int64(c)))
			y.Sub(y, t.Mul(s.pw, xc))
			if s.minY == nil || y.Cmp(s.minY) < 0 {
				s.minY = new(big.Int).Set(y)
			}
			x.Add(y, s.m) // X_c = Y_c + M
			if x.Sub(x, s.minY).Cmp(s.lim) > 0 {
				return c
			}
		}
	}
	return -1
}

// scanStaircase returns the least index c such that the jobs in
// (x_c − W, x_c], up to c, number more than L, or -1. That condition for
// every c is equivalent to the curve: a window shorter than kW splits into k
// windows shorter than W.
func scanStaircase(st stream, s Staircase) int {
	W := s.Window.Big()
	span := new(big.Int).Mul(W.Num(), st.den) // W·L·Wd, compared with x·Wd
	a := 0
	lhs, rhs := new(big.Int), new(big.Int)
	for c, xc := range st.x {
		rhs.Mul(xc, W.Denom())
		for a < c && lhs.Add(lhs.Mul(st.x[a], W.Denom()), span).Cmp(rhs) <= 0 {
			a++
		}
		if int64(c-a+1) > s.Jobs {
			return c
		}
	}
	return -1
}

// window returns the first violating window, given that a window ending at
// job c violates a and none ending at an earlier instant does: it ends with
// the last job at c's instant and starts at the latest instant that still
// violates.
func window(st stream, a Arrival, c int) (Violation, error) {
	last := c
	for last+1 < len(st.x) && st.x[last+1].Cmp(st.x[c]) == 0 {
		last++
	}
	end := st.x[last]
	d := new(big.Rat)
	for f := last; f >= 0; f-- {
		if f > 0 && st.x[f-1].Cmp(st.x[f]) == 0 {
			continue // not the first job at its instant
		}
		d.SetFrac(new(big.Int).Sub(end, st.x[f]), st.den)
		jobs := last - f + 1
		bound := a.window(d)
		if big.NewRat(int64(jobs), 1).Cmp(bound) <= 0 {
			continue
		}
		length, err := ratOf(d)
		if err != nil {
			return Violation{}, err
		}
		b, err := ratOf(bound)
		if err != nil {
			return Violation{}, err
		}
		return Violation{First: f, Last: last, Length: length, Jobs: jobs, Bound: b}, nil
	}
	panic(fmt.Sprintf("netcalc: no violating window ends at job %d", c))
}
