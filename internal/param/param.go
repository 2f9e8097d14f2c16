package param

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Kind is the grammar of a parameter's values: one grammar per kind of
// value, shared by every flag and YAML key of that kind.
type Kind uint8

const (
	// Text is free text, checked by [Param.Check] only; the field is a
	// string.
	Text Kind = iota
	// Int is a whole number in Go's syntax (strconv.ParseInt, base 0 as
	// pflag reads it: 10, 0x10, 1_000); the field is an int, int64 or
	// uint64 and the value must fit it. The check receives an int64 (a
	// uint64 for a uint64 field).
	Int
	// Float is a finite decimal number (NaN and ±inf refused); the field
	// is a float64 and the check receives it.
	Float
	// Bool is true or false (strconv.ParseBool); the field is a bool.
	Bool
	// Duration is engine's one duration grammar (engine.ParseDuration:
	// plain seconds, decimals, fractions, 1h30m, 1.5ms, 1d, inf; finer
	// than 1 ns refused with the nearest values that fit). The field is a
	// string holding the text as written; the check receives the
	// engine.Time, engine.Forever for inf (refused unless
	// [Param.Inf]).
	Duration
	// Rat is an exact decimal or fraction p/q (exact.ParseRat); the
	// field is a string holding the text; the check receives the
	// exact.Rat.
	Rat
	// Enum is one of [Param.Choices]; the field is a string.
	Enum
	// Seconds is engine's duration grammar read exactly, as
	// engine.ParseSeconds reads it: a span that need not be a whole
	// number of nanoseconds (a window of 1/3 s). The field is a string
	// holding the text; the check receives the seconds as a *big.Rat, or
	// nil for inf (refused unless [Param.Inf]).
	Seconds
	// List is text that may be given more than once: a flag repeated, a
	// YAML sequence (a scalar is a list of one); the field is a []string
	// and the check receives each element as a string.
	List
)

var kindNames = [...]string{Text: "string", Int: "int", Float: "float", Bool: "bool", Duration: "duration", Rat: "rat", Enum: "string", Seconds: "seconds", List: "stringArray"}

// Param is the one declaration of a parameter.
type Param struct {
	// Key is the YAML key, the JSON echo's key and the name in errors
	// from YAML, in snake case ("sync_period"); the struct field whose
	// yaml tag is Key holds the value.
	Key string
	// Flag is the flag's name; "" is Key in kebab case ("sync-period").
	Flag string
	// Short is a one-letter shorthand of the flag, or "".
	Short string
	// Kind is the grammar of the values.
	Kind Kind
	// Unit is the unit of a value ("s", "tokens/s", "tokens", "jobs",
	// "" for none), for documentation and the derived tests.
	Unit string
	// Default is the value a user gets without giving one, as text in
	// the Kind's grammar; "" is the field's zero value (for a List, no
	// elements).
	Default string
	// Usage is the help line of the flag (and the comment of the key).
	Usage string
	// Choices are the values of an Enum.
	Choices []string
	// Inf allows inf (engine.Forever) for a Duration.
	Inf bool
	// Check, when not nil, checks a parsed value (see [Kind] for its
	// type) and returns "" when it fits, else what would fit ("a number
	// of nodes >= 1"): the message of every error for this parameter.
	Check func(v any) string
	// ReadBy names the models (designs, limiters) that read the
	// parameter; nil: every model. [Table.Unread] refuses a parameter
	// given when none of its readers runs.
	ReadBy []string
	// Sweep says the parameter can be a sweep axis.
	Sweep bool
}

// FlagName returns the flag's name: Flag, or Key in kebab case.
func (p *Param) FlagName() string {
	if p.Flag != "" {
		return p.Flag
	}
	return strings.ReplaceAll(p.Key, "_", "-")
}

// Error is a value refused for a parameter. Source says how the user gave
// it, which decides how the parameter is named: a flag ("--nodes 0: want
// ..."), a YAML key at a file's line ("spec.yaml:4: nodes 0: want ..."),
// or none ("nodes 0: want ...").
type Error struct {
	Key   string // the parameter's key
	Flag  string // the parameter's flag name
	Value string // the value as given
	Want  string // what would fit
	// File and Line locate a YAML key (Line 0: the flag or no source).
	File string
	Line int
	// FromFlag says the value came from the command line.
	FromFlag bool
}

// ErrParam is wrapped by every [*Error].
var ErrParam = errors.New("bad parameter value")

func (e *Error) Error() string {
	v := e.Value
	if v == "" {
		v = "''" // an empty value, shown as a shell would take it
	}
	switch {
	case e.FromFlag:
		return fmt.Sprintf("--%s %s: want %s", e.Flag, v, e.Want)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s %s: want %s", e.File, e.Line, e.Key, v, e.Want)
	}
	return fmt.Sprintf("%s %s: want %s", e.Key, v, e.Want)
}

// Unwrap returns [ErrParam].
func (e *Error) Unwrap() error { return ErrParam }

// AsFlag returns err with a parameter error renamed as its flag (a study
// checks parameters by key; the command line names them by flag).
func AsFlag(err error) error {
	var pe *Error
	if errors.As(err, &pe) && pe.Line == 0 && !pe.FromFlag {
		c := *pe
		c.FromFlag = true
		return &c
	}
	return err
}

// parse parses text in p's grammar and checks it, returning the value
// the check sees and what would fit ("" when it fits). bits and unsigned
// describe an Int field.
func (p *Param) parse(text string, bits int, unsigned bool) (any, string) {
	var v any
	switch p.Kind {
	case Text, List:
		v = text
	case Int:
		if unsigned {
			n, err := strconv.ParseUint(text, 0, bits)
			if err != nil {
				return nil, p.intWant(text, 0, fmt.Sprint(uint64(math.MaxUint64)>>(64-bits)))
			}
			v = n
			break
		}
		n, err := strconv.ParseInt(text, 0, bits)
		if err != nil {
			return nil, p.intWant(text, int64(-1)<<(bits-1), fmt.Sprint(int64(math.MaxInt64)>>(64-bits)))
		}
		v = n
	case Float:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, "a finite number"
		}
		v = x
	case Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, "true or false"
		}
		v = b
	case Duration:
		d, err := engine.ParseDuration(text)
		if err != nil {
			var de *engine.DurationError
			if errors.As(err, &de) && !de.Syntax {
				return nil, "a duration that fits (" + de.Why + ")"
			}
			return nil, "a duration: " + engine.DurationSyntax
		}
		if d == engine.Forever && !p.Inf {
			return nil, "a finite duration: " + engine.DurationSyntax
		}
		v = d
	case Seconds:
		secs, inf, err := engine.ParseSeconds(text)
		if err != nil {
			return nil, "a duration: " + engine.DurationSyntax
		}
		if inf && !p.Inf {
			return nil, "a finite duration: " + engine.DurationSyntax
		}
		v = secs // nil for inf
	case Rat:
		r, err := exact.ParseRat(text)
		if errors.Is(err, exact.ErrRange) {
			return nil, "a number whose exact value fits the model (a fraction with a denominator below 2^63, such as a decimal with at most 18 places)"
		}
		if err != nil {
			return nil, "a decimal or a fraction p/q"
		}
		v = r
	case Enum:
		if !slices.Contains(p.Choices, text) {
			return nil, "one of " + orList(p.Choices)
		}
		v = text
	}
	if p.Check != nil {
		if want := p.Check(v); want != "" {
			return nil, want
		}
	}
	return v, ""
}

// intWant is what fits an Int whose text does not parse in [lo, hi]: the
// check's own words when it bounds the value from below (the check of
// lo says what it wants), with hi; and, for a whole number written
// otherwise ("1e6"), the digits that would do.
func (p *Param) intWant(text string, lo int64, hi string) string {
	want := fmt.Sprintf("a whole number from %d to %s", lo, hi)
	if p.Check != nil && lo < 0 {
		if w := p.Check(lo); w != "" {
			want = fmt.Sprintf("%s, at most %s", w, hi)
		}
	}
	if x, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil && x == math.Trunc(x) && math.Abs(x) < 1e18 {
		want += fmt.Sprintf(", written in digits (%s is %.0f)", text, x)
	}
	return want
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// store parses text and stores it in field f (appending for a List).
func (p *Param) store(f reflect.Value, text string) string {
	bits, unsigned := 64, false
	switch f.Kind() {
	case reflect.Int:
		bits = strconv.IntSize
	case reflect.Uint64:
		unsigned = true
	}
	v, want := p.parse(text, bits, unsigned)
	if want != "" {
		return want
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(text)
	case reflect.Int, reflect.Int64:
		f.SetInt(v.(int64))
	case reflect.Uint64:
		f.SetUint(v.(uint64))
	case reflect.Float64:
		f.SetFloat(v.(float64))
	case reflect.Bool:
		f.SetBool(v.(bool))
	case reflect.Slice:
		f.Set(reflect.Append(f, reflect.ValueOf(text)))
	}
	return ""
}

// fieldKinds are the Go field kinds each Kind may be stored in.
var fieldKinds = map[Kind][]reflect.Kind{
	Text: {reflect.String}, Duration: {reflect.String}, Seconds: {reflect.String}, Rat: {reflect.String}, Enum: {reflect.String},
	Int:   {reflect.Int, reflect.Int64, reflect.Uint64},
	Float: {reflect.Float64}, Bool: {reflect.Bool}, List: {reflect.Slice},
}

// Common checks.

// AtLeast returns a check of an Int that is at least min.
func AtLeast(min int64) func(any) string {
	return func(v any) string {
		if n, ok := v.(int64); ok && n < min {
			return fmt.Sprintf("a whole number >= %d", min)
		}
		return ""
	}
}

// Positive checks that a Rat, Float or Duration is above zero.
func Positive(v any) string {
	switch x := v.(type) {
	case exact.Rat:
		if x.Sign() <= 0 {
			return "a number > 0 (a decimal or a fraction p/q)"
		}
	case float64:
		if x <= 0 {
			return "a finite number > 0"
		}
	case engine.Time:
		if x <= 0 {
			return "a duration > 0: " + engine.DurationSyntax
		}
	case *big.Rat:
		if x != nil && x.Sign() <= 0 {
			return "a duration > 0: " + engine.DurationSyntax
		}
	}
	return ""
}

// NonNegative checks that a Rat, Float, Int or Duration is not below
// zero.
func NonNegative(v any) string {
	switch x := v.(type) {
	case exact.Rat:
		if x.Sign() < 0 {
			return "a number >= 0 (a decimal or a fraction p/q)"
		}
	case float64:
		if x < 0 {
			return "a finite number >= 0"
		}
	case int64:
		if x < 0 {
			return "a whole number >= 0"
		}
	case engine.Time:
		if x < 0 {
			return "a duration >= 0: " + engine.DurationSyntax
		}
	case *big.Rat:
		if x != nil && x.Sign() < 0 {
			return "a duration >= 0: " + engine.DurationSyntax
		}
	}
	return ""
}
