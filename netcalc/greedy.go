package netcalc

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/exact"
)

// Greedy returns the instants, in seconds from 0, of the first n jobs of
// the greedy source for a: each job as early as the curve allows, so that
// the number of jobs in [0, t] is floor(α(t+)) for every t (Le Boudec and
// Thiran §1.4.2 use the greedy source to show the bounds are tight).
//
//   - [TokenBucket] γ_{r,b}: floor(b) jobs at 0, then job j (counting from
//     1) at (j − b)/r.
//   - [Concave]: job j at max(0, max_i (j − b_i)/r_i).
//   - [Staircase]: L jobs at 0, L at W, L at 2W, ...
//
// The stream conforms to a: for a concave curve, α(s+d) − α(s) <=
// α(d+) − α(0+) and α(0+) >= 1 give floor(α(s+d)) − floor(α(s)) <= floor(α(d+)).
// The instants are exact and need not be whole
// nanoseconds; feed them to [RateLatency.ServeSeconds].
//
// Errors: n < 0, an invalid curve, α(0+) < 1 (no unit job conforms), a
// curve that allows fewer than n jobs in all (a bucket of rate 0), and
// instants that do not fit an [exact.Rat].
func Greedy(a Arrival, n int) ([]exact.Rat, error) {
	if n < 0 {
		return nil, fmt.Errorf("netcalc: Greedy of %d jobs", n)
	}
	if a == nil {
		return nil, errors.New("netcalc: nil arrival curve")
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	out := make([]exact.Rat, n)
	if st, ok := a.(Staircase); ok {
		W := st.Window.Big()
		for j := range out {
			t := new(big.Rat).Mul(W, big.NewRat(int64(j)/st.Jobs, 1))
			var err error
			if out[j], err = ratOf(t); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	c := asConcave(a)
	if b0 := envelope(c)[0].y; b0.Cmp(big.NewRat(1, 1)) < 0 {
		return nil, fmt.Errorf("netcalc: %v allows %v jobs at one instant, so no unit job conforms", a, b0.RatString())
	}
	lines := make([]segment, len(c))
	for i, tb := range c {
		lines[i] = segment{b: tb.Burst.Big(), r: tb.Rate.Big()}
	}
	for j := range out {
		jobs := big.NewRat(int64(j)+1, 1)
		t := new(big.Rat)
		for i, l := range lines {
			if l.b.Cmp(jobs) >= 0 {
				continue
			}
			if l.r.Sign() == 0 {
				most := new(big.Int).Quo(l.b.Num(), l.b.Denom())
				return nil, fmt.Errorf("netcalc: %v allows at most %v jobs in all (bucket %d has rate 0), fewer than %d", a, most, i, n)
			}
			u := new(big.Rat).Sub(jobs, l.b)
			if u.Quo(u, l.r); u.Cmp(t) > 0 {
				t = u
			}
		}
		var err error
		if out[j], err = ratOf(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}
