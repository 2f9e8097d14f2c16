package buckets

import (
	"errors"
	"fmt"
	"math"
)

// Params describes a token bucket (r, b): tokens accrue at Rate up to
// Burst, and each job takes one whole token.
type Params struct {
	Rate  float64 // token rate r in tokens/s; finite and > 0
	Burst float64 // capacity b in tokens (the largest burst); finite and >= 1
}

// ErrParam is wrapped by every error about an invalid rate, burst or split.
var ErrParam = errors.New("invalid parameter")

// ParamError reports an invalid parameter: which one and its value.
type ParamError struct {
	Name  string  // the parameter, e.g. "rate" or "sub-bucket 2 burst"
	Value float64 // the offending value
	Want  string  // what was expected, e.g. "> 0"
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("buckets: %s = %v, want %s", e.Name, e.Value, e.Want)
}

// Unwrap makes errors.Is(err, ErrParam) true.
func (e *ParamError) Unwrap() error { return ErrParam }

// Validate returns a *ParamError naming the first invalid field, or nil.
//
// Special cases:
//
//	Rate = 0, < 0, NaN or ±Inf   error ("rate ... want finite and > 0")
//	Burst < 1, NaN or ±Inf       error (a job needs one whole token, so a
//	                             bucket of less than one token never
//	                             releases a job)
//	b/r not finite               error: the rate is so small (below about
//	                             b·5.6e-309 tokens/s) that the time to
//	                             fill the bucket overflows float64
func (p Params) Validate() error {
	return p.validate("")
}

func (p Params) validate(prefix string) error {
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		return &ParamError{Name: prefix + "rate", Value: p.Rate, Want: "finite and > 0 tokens/s"}
	}
	if !(p.Burst >= 1) || math.IsInf(p.Burst, 0) {
		return &ParamError{Name: prefix + "burst", Value: p.Burst, Want: "finite and >= 1 token"}
	}
	if math.IsInf(1/p.Rate, 0) || math.IsInf(p.Burst/p.Rate, 0) {
		return &ParamError{Name: prefix + "rate", Value: p.Rate,
			Want: fmt.Sprintf("large enough that burst/rate = %v/rate is a finite number of seconds", p.Burst)}
	}
	return nil
}

// SumTolerance is the relative tolerance within which the sub-buckets' rates
// and bursts must add up to the one bucket's: |Σ r_l - r| <= 1e-9·r, and the
// same for b.
const SumTolerance = 1e-9

// ValidateSplit checks a split of one into subs: at least one sub-bucket,
// every sub-bucket valid (r_l > 0, b_l >= 1), and, unless allowUnequal,
// Σ r_l = r and Σ b_l = b within [SumTolerance] (relative). allowUnequal
// lifts only the two sum checks; it exists for negative controls, where the
// theorem's hypotheses are broken on purpose.
func ValidateSplit(one Params, subs []Params, allowUnequal bool) error {
	if err := one.Validate(); err != nil {
		return err
	}
	if len(subs) < 1 {
		return &ParamError{Name: "number of sub-buckets k", Value: 0, Want: ">= 1"}
	}
	var sr, sb float64
	for l, s := range subs {
		if err := s.validate(fmt.Sprintf("sub-bucket %d ", l)); err != nil {
			return err
		}
		sr += s.Rate
		sb += s.Burst
	}
	if allowUnequal {
		return nil
	}
	if math.Abs(sr-one.Rate) > SumTolerance*one.Rate {
		return fmt.Errorf("buckets: sum of sub-bucket rates %v != rate %v (relative tolerance %g): %w", sr, one.Rate, SumTolerance, ErrParam)
	}
	if math.Abs(sb-one.Burst) > SumTolerance*one.Burst {
		return fmt.Errorf("buckets: sum of sub-bucket bursts %v != burst %v (relative tolerance %g): %w", sb, one.Burst, SumTolerance, ErrParam)
	}
	return nil
}

// EqualSplit splits one into k sub-buckets of rate r/k and burst b/k each.
// It returns an error when k < 1 or when b/k < 1 (a sub-bucket needs at
// least one token).
func EqualSplit(one Params, k int) ([]Params, error) {
	if k < 1 {
		return nil, &ParamError{Name: "k", Value: float64(k), Want: ">= 1"}
	}
	if err := one.Validate(); err != nil {
		return nil, err
	}
	sub := Params{Rate: one.Rate / float64(k), Burst: one.Burst / float64(k)}
	if sub.Burst < 1 {
		return nil, fmt.Errorf("buckets: k = %d splits burst %v into %v tokens per sub-bucket, want >= 1 (use k <= %d): %w",
			k, one.Burst, sub.Burst, int(math.Floor(one.Burst)), ErrParam)
	}
	subs := make([]Params, k)
	for l := range subs {
		subs[l] = sub
	}
	return subs, nil
}
