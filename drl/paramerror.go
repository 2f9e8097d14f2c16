package drl

import "fmt"

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
