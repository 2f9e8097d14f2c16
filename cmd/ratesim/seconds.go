package main

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// parseSeconds parses a time flag exactly in the one duration grammar
// (engine.ParseSeconds): plain seconds as a decimal or a fraction ("60",
// "0.5", "1/3"), or numbers with units ("500ms", "1h30m", "2 s", "1d").
// It returns seconds as an exact rational and an error naming the flag
// and what fits; "inf" is refused.
func parseSeconds(flag, s string) (exact.Rat, error) {
	secs, inf, err := engine.ParseSeconds(s)
	var r exact.Rat
	if err == nil && !inf {
		r, err = exact.ParseRat(secs.RatString())
	}
	if err != nil || inf {
		return exact.Rat{}, flagError(flag, s, "a time in seconds (60, 0.5, 1/3) or with a unit (500ms, 1m, 2h, 10us, 1d)")
	}
	return r, nil
}

// nanos converts exact seconds to an instant or span on the clock, which
// must be a whole number of nanoseconds within its range; the error names
// the two nearest values that fit.
func nanos(flag, text string, secs exact.Rat) (engine.Time, error) {
	d, err := engine.SecondsToTime(text, secs.Big())
	var de *engine.DurationError
	if errors.As(err, &de) {
		return 0, flagError(flag, text, "a whole number of nanoseconds within ±292 years: "+de.Why)
	}
	return d, err
}

// durationFlag is a pflag.Value for a duration flag in the one grammar
// (engine.ParseDuration), finite and >= 0. It keeps pflag's type name
// and time.Duration's text for its default, so --help reads as before.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }
func (d *durationFlag) Type() string   { return "duration" }

// Set parses s; pflag names the flag in the error.
func (d *durationFlag) Set(s string) error {
	t, err := engine.ParseDuration(s)
	want := "want a finite duration >= 0, " + engine.DurationSyntax
	var de *engine.DurationError
	if errors.As(err, &de) {
		return errors.New(want + " (" + de.Why + ")")
	}
	if err != nil || t == engine.Forever || t < 0 {
		return errors.New(want)
	}
	*d = durationFlag(t)
	return nil
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

// exactFloatFlag is a pflag.Value for a rate or burst of a sweep: an
// exact decimal or fraction p/q, kept as its float64 and, for a fraction
// a float64 cannot hold, as its exact text (splitstudy.Spec.RateExact).
// It keeps pflag's float64 type name and text, so --help reads as before.
type exactFloatFlag struct {
	f    *float64
	text *string
}

func (x *exactFloatFlag) String() string {
	if x.f == nil {
		return "0"
	}
	return strconv.FormatFloat(*x.f, 'g', -1, 64)
}
func (x *exactFloatFlag) Type() string { return "float64" }

// Set parses s; pflag names the flag in the error.
func (x *exactFloatFlag) Set(s string) error {
	r, err := exact.ParseRat(s)
	if err != nil {
		return errors.New("want a decimal such as 0.7 or a fraction such as 10/13")
	}
	*x.f, *x.text = r.Float64(), ""
	if strings.Contains(s, "/") {
		*x.text = r.String()
	}
	return nil
}
