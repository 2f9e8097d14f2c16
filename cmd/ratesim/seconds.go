package main

import (
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// parseSeconds parses a time flag exactly (experiments.ParseSeconds):
// plain seconds as a decimal or a fraction ("60", "0.5", "1/3"), or a
// number with a unit ("500ms", "1m", "2h", "1.5s", "10us"). It returns
// seconds as an exact rational and an error naming the flag and what fits.
func parseSeconds(flag, s string) (exact.Rat, error) {
	r, ok := experiments.ParseSeconds(s)
	if !ok {
		return exact.Rat{}, flagError(flag, s, "a time in seconds (60, 0.5, 1/3) or with a unit (500ms, 1m, 2h, 10us, 1d)")
	}
	return r, nil
}

// nanos converts exact seconds to an instant or span on the clock, which
// must be a whole number of nanoseconds within its range.
func nanos(flag, text string, secs exact.Rat) (engine.Time, error) {
	ns, err := secs.Mul(exact.Int(1e9))
	if err != nil || !ns.IsInt() || !ns.Num().IsInt64() {
		return 0, flagError(flag, text, "a whole number of nanoseconds within ±292 years")
	}
	return engine.Time(ns.Num().Int64()), nil
}

// lambdaOf returns λ = load·rate jobs/s exactly, load standing for its
// shortest decimal.
func lambdaOf(load float64, rate exact.Rat) (exact.Rat, error) {
	l, err := exact.FromFloat64(load)
	if err == nil {
		l, err = l.Mul(rate)
	}
	if err != nil || l.Sign() <= 0 {
		return exact.Rat{}, flagError("load", load, "a load > 0 whose arrival rate load·rate fits the exact model")
	}
	return l, nil
}
