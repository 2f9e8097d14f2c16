package buckets

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Params describes a token bucket (r, b): tokens accrue at Rate up to
// Burst, and each job takes one whole token. Both are exact rationals, so
// a rate written 0.7 is 7/10 tokens/s and a split's sums are compared
// exactly.
type Params struct {
	Rate  exact.Rat // token rate r in tokens/s, > 0
	Burst exact.Rat // capacity b in tokens (the largest burst), >= 1
}

// ParseParams returns the bucket whose rate and burst are written rate and
// burst (decimals such as "0.7" or fractions such as "10/13"), validated.
func ParseParams(rate, burst string) (Params, error) {
	r, err := exact.ParseRat(rate)
	if err != nil {
		return Params{}, &ParamError{Name: "rate", Value: rate, Want: "a decimal or p/q number of tokens/s"}
	}
	b, err := exact.ParseRat(burst)
	if err != nil {
		return Params{}, &ParamError{Name: "burst", Value: burst, Want: "a decimal or p/q number of tokens"}
	}
	p := Params{Rate: r, Burst: b}
	return p, p.Validate()
}

// String returns "(r, b)" with both numbers exact.
func (p Params) String() string { return fmt.Sprintf("(%v, %v)", p.Rate, p.Burst) }

// ErrParam is wrapped by every error about an invalid parameter.
var ErrParam = errors.New("invalid parameter")

// ParamError reports an invalid parameter: which one, its value and what
// would fit.
type ParamError struct {
	Name  string // the parameter, e.g. "rate" or "sub-bucket 2 burst"
	Value any    // the offending value
	Want  string // what was expected, e.g. "> 0 tokens/s"
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
//	Rate <= 0    error
//	Burst < 1    error (a job needs one whole token, so a bucket of less
//	             than one token never releases a job)
//
// A rate so small, or a rate and burst so finely divided, that one token's
// work does not fit the exact model is reported by [NewTokenBucket].
func (p Params) Validate() error {
	return p.validate("")
}

func (p Params) validate(prefix string) error {
	if p.Rate.Sign() <= 0 {
		return &ParamError{Name: prefix + "rate", Value: p.Rate, Want: "> 0 tokens/s"}
	}
	if p.Burst.Cmp(exact.Int(1)) < 0 {
		return &ParamError{Name: prefix + "burst", Value: p.Burst, Want: ">= 1 token"}
	}
	return nil
}

// Promise returns b + r·d, the most jobs a token bucket (r, b) lets pass,
// or releases after shaping, in any closed interval of length d
// nanoseconds: at most b tokens at its start and r·d accrued during it.
func (p Params) Promise(d engine.Time) float64 {
	return p.Burst.Float64() + p.Rate.Float64()*d.Seconds()
}

// ValidateSplit checks a split of one into subs: at least one sub-bucket,
// every sub-bucket valid (r_l > 0, b_l >= 1), and, unless allowUnequal,
// Σ r_l = r and Σ b_l = b exactly. allowUnequal lifts only the two sum
// checks; it exists for negative controls, where the theorem's hypotheses
// are broken on purpose.
func ValidateSplit(one Params, subs []Params, allowUnequal bool) error {
	if err := one.Validate(); err != nil {
		return err
	}
	if len(subs) < 1 {
		return &ParamError{Name: "number of sub-buckets k", Value: 0, Want: ">= 1"}
	}
	// Sums in exact.Rat while they fit (no allocation), in math/big
	// beyond.
	var r, b exact.Rat
	var err error
	for l, s := range subs {
		if err := s.validate(fmt.Sprintf("sub-bucket %d ", l)); err != nil {
			return err
		}
		if err == nil {
			r, err = r.Add(s.Rate)
		}
		if err == nil {
			b, err = b.Add(s.Burst)
		}
	}
	sr, sb := r.Big(), b.Big()
	if err != nil {
		sr, sb = new(big.Rat), new(big.Rat)
		for _, s := range subs {
			sr.Add(sr, s.Rate.Big())
			sb.Add(sb, s.Burst.Big())
		}
	}
	if allowUnequal {
		return nil
	}
	if sr.Cmp(one.Rate.Big()) != 0 {
		return fmt.Errorf("buckets: sum of sub-bucket rates %v != rate %v tokens/s: %w", ratString(sr), one.Rate, ErrParam)
	}
	if sb.Cmp(one.Burst.Big()) != 0 {
		return fmt.Errorf("buckets: sum of sub-bucket bursts %v != burst %v tokens: %w", ratString(sb), one.Burst, ErrParam)
	}
	return nil
}

// ratString writes a big.Rat as exact.Rat.String does, when it fits.
func ratString(z *big.Rat) string {
	if r, err := exact.ParseRat(z.RatString()); err == nil {
		return r.String()
	}
	return z.RatString()
}

// EqualSplit splits one into k sub-buckets of rate r/k and burst b/k each,
// exactly. It returns an error when k < 1 or when b/k < 1 (a sub-bucket
// needs at least one token).
func EqualSplit(one Params, k int) ([]Params, error) {
	if k < 1 {
		return nil, &ParamError{Name: "k", Value: k, Want: ">= 1"}
	}
	if err := one.Validate(); err != nil {
		return nil, err
	}
	kk := exact.Int(int64(k))
	r, err1 := one.Rate.Quo(kk)
	b, err2 := one.Burst.Quo(kk)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("buckets: splitting %v into k = %d: %w (%w)", one, k, err, ErrParam)
	}
	if b.Cmp(exact.Int(1)) < 0 {
		return nil, fmt.Errorf("buckets: k = %d splits burst %v into %v tokens per sub-bucket, want >= 1 (use k <= %v): %w",
			k, one.Burst, b, one.Burst.Floor(), ErrParam)
	}
	subs := make([]Params, k)
	for l := range subs {
		subs[l] = Params{Rate: r, Burst: b}
	}
	return subs, nil
}
