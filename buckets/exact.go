package buckets

import (
	"fmt"
	"math/big"
)

// ExactParams describes a token bucket of the exact model, where time is a
// whole number of ticks and work a whole number of quanta. With Q =
// Quantum quanta per token and P = Period ticks per quantum:
//
//	rate  r = 1/(Q·P) tokens per tick   (a token accrues in Q·P ticks)
//	burst b = Burst/Q tokens
//
// Every instant the model computes, B + (m - n - b)·P, is then an integer,
// so a Bucket[Tick] is exact: any arrival sequence given in whole ticks is
// simulated with no rounding at all. A rate r_l = w_l·r (with w_l rational)
// and a fractional burst such as 2.5 tokens are expressed by choosing the
// tick and the quantum small enough.
type ExactParams struct {
	Quantum int64 // quanta per token, >= 1
	Period  int64 // ticks per quantum, >= 1
	Burst   int64 // capacity in quanta, >= Quantum (at least one token)
}

// Params returns the bucket's rate in tokens per tick and burst in tokens,
// as float64 (for reports and for replaying on the float64 model).
func (e ExactParams) Params() Params {
	return Params{Rate: 1 / (float64(e.Quantum) * float64(e.Period)), Burst: float64(e.Burst) / float64(e.Quantum)}
}

// Validate returns a *ParamError naming the first invalid field, or nil.
func (e ExactParams) Validate() error {
	switch {
	case e.Quantum < 1:
		return &ParamError{Name: "quantum", Value: float64(e.Quantum), Want: ">= 1 quantum per token"}
	case e.Period < 1:
		return &ParamError{Name: "period", Value: float64(e.Period), Want: ">= 1 tick per quantum"}
	case e.Burst < e.Quantum:
		return &ParamError{Name: "burst", Value: float64(e.Burst), Want: fmt.Sprintf(">= %d quanta (one token)", e.Quantum)}
	}
	return nil
}

// NewExactBucket returns an exact token bucket (see [Bucket] and
// [ExactParams]), full at time 0 and FCFS unless opts say otherwise. Its
// Lemma 1 weight is set when it joins a comparison
// ([NewExactComparison]).
func NewExactBucket(e ExactParams, opts ...Option) (*Bucket[Tick], error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return newBucket(e.Params(), Tick(e.Period), Tick(e.Burst), Tick(e.Quantum), 1, opts)
}

// NewExactComparison is [NewCompare] for exact buckets. All buckets must
// share one quantum. Unless allowUnequal, the split must satisfy the
// theorem's hypotheses exactly: Σ_l 1/P_l = 1/P (rates, compared as
// rationals) and Σ_l B_l = B (bursts). It sets each bucket's Lemma 1 weight
// to L/P_x, with L the least common multiple of all periods, so that
// Bucket.Work compares r·U(t) across buckets in whole units (L·quanta); it
// returns an error if L does not fit in an int64.
func NewExactComparison(one *Bucket[Tick], subs []*Bucket[Tick], disp Dispatch[Tick], rec Observer[Tick], allowUnequal bool) (*Comparison[Tick], error) {
	if len(subs) < 1 {
		return nil, &ParamError{Name: "number of sub-buckets k", Value: 0, Want: ">= 1"}
	}
	lcm := big.NewInt(int64(one.inv))
	rateSum := new(big.Rat)
	var burstSum Tick
	for l, s := range subs {
		if s.one != one.one {
			return nil, fmt.Errorf("buckets: sub-bucket %d has quantum %d, the one bucket %d: an exact comparison needs one quantum: %w", l, s.one, one.one, ErrParam)
		}
		p := big.NewInt(int64(s.inv))
		g := new(big.Int).GCD(nil, nil, lcm, p)
		lcm.Mul(lcm, p.Div(p, g))
		rateSum.Add(rateSum, big.NewRat(1, int64(s.inv)))
		burstSum += s.burst
	}
	if !lcm.IsInt64() {
		return nil, fmt.Errorf("buckets: least common multiple of the periods %v overflows int64: %w", lcm, ErrParam)
	}
	if !allowUnequal {
		if rateSum.Cmp(big.NewRat(1, int64(one.inv))) != 0 {
			return nil, fmt.Errorf("buckets: Σ 1/P_l = %v != 1/P = 1/%d (sub-bucket rates do not add up to the rate): %w", rateSum, one.inv, ErrParam)
		}
		if burstSum != one.burst {
			return nil, fmt.Errorf("buckets: Σ B_l = %d != B = %d quanta (sub-bucket bursts do not add up to the burst): %w", burstSum, one.burst, ErrParam)
		}
	}
	L := Tick(lcm.Int64())
	one.weight = L / one.inv
	for _, s := range subs {
		s.weight = L / s.inv
	}
	if disp == nil {
		return nil, fmt.Errorf("buckets: NewExactComparison needs a dispatch policy")
	}
	// The exact sums were checked above; skip the float64 tolerance check.
	return newComparison(one, subs, disp, rec, true)
}
