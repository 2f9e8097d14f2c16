package drl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/profiles"
)

// ParamError is an invalid parameter: its name (the YAML key, the flag
// in snake case), the value given and what would fit.
type ParamError struct {
	Param string
	Value any
	Want  string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("drl: %s %v: want %s", e.Param, e.Value, e.Want)
}

// Message is the error without the package and parameter: "VALUE: want
// WHAT", for a caller that names the parameter its own way (a flag, a
// file's line and key).
func (e *ParamError) Message() string { return fmt.Sprintf("%v: want %s", e.Value, e.Want) }

func (e *ParamError) Unwrap() error { return ErrSpec }

func bad(param string, value any, want string) error {
	return &ParamError{Param: param, Value: value, Want: want}
}

// Values gives the value of each parameter as the user gave it, by its
// key (a YAML key of the drl study): a string, an int, a float64, a bool
// or a []string, as the parameter's declaration (Design.Params) says.
type Values func(key string) any

func (v Values) text(key string) string {
	s, _ := v(key).(string)
	return s
}

func (v Values) list(key string) []string {
	s, _ := v(key).([]string)
	return s
}

// WantDuration is want, followed by what the duration grammar said of
// the text when it is not a duration that fits ("1.5ns": finer than 1
// ns, 1ns or 2ns fit).
func WantDuration(err error, want string) string {
	var de *engine.DurationError
	if errors.As(err, &de) {
		return want + " (" + de.Why + ")"
	}
	return want
}

// wantDelay is what a delay parameter wants, with why ParseDelay refused
// the value (a trace file's line, say).
func wantDelay(err error) string {
	why := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+ErrSpec.Error())
	return "a delay: 2ms, uniform:1ms:3ms, lognormal:2ms:0.5 or trace:FILE:COL (" + why + ")"
}

// profileParam reads the library profile of parameter key, which wants
// what (the start of the message of its error).
func profileParam(key, text, want string) (profiles.Profile, error) {
	prof, err := profiles.Parse(text)
	if err != nil {
		return prof, bad(key, text, want+" NAME:key=value,... as in ratesim limiters --profile ("+strings.TrimPrefix(err.Error(), "profiles: ")+")")
	}
	return prof, nil
}

// ParseParams sets each design's group of parameters in s from v
// (Design.Parse, in registry order), and returns the first error.
func ParseParams(s *Spec, v Values) error {
	for _, d := range registry {
		if err := d.Parse(s, v); err != nil {
			return err
		}
	}
	return nil
}
