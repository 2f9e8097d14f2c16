package clientstudy

import (
	"errors"
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/specfile"
)

// ParamError is an invalid parameter of [ClientsParams]: its name (the
// YAML key), the value given and what would fit; or, when Value is nil,
// a parameter given where it does not apply.
type ParamError struct {
	Param string
	Value any
	Want  string
	Err   error  // the underlying error, if any (a profile's)
	text  string // the message, the parameters named by ClientsParams.Name
}

func (e *ParamError) Error() string {
	if e.text == "" {
		return fmt.Sprintf("%s %v: want %s", e.Param, e.Value, e.Want)
	}
	return e.text
}

// Unwrap returns ErrSpec, and the underlying error.
func (e *ParamError) Unwrap() []error {
	if e.Err != nil {
		return []error{specfile.ErrSpec, e.Err}
	}
	return []error{specfile.ErrSpec}
}

// name writes param as the caller's user knows it.
func (p *ClientsParams) name(param string) string {
	if p.Name != nil {
		return p.Name(param)
	}
	return param
}

func (p *ClientsParams) given(param string) bool { return p.Given != nil && p.Given(param) }

// bad returns a *ParamError: "NAME VALUE: want WANT".
func (p *ClientsParams) bad(param string, value any, want string) error {
	v := value
	if v == "" {
		v = "''" // an empty value, shown as a shell would take it
	}
	return &ParamError{Param: param, Value: value, Want: want, text: fmt.Sprintf("%s %v: want %s", p.name(param), v, want)}
}

// misplaced returns a *ParamError for param given where it does not
// apply; format names the parameters it refers to with %[n]s, where
// names are written by ClientsParams.Name.
func (p *ClientsParams) misplaced(param, format string, names ...string) error {
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = p.name(n)
	}
	return &ParamError{Param: param, text: fmt.Sprintf(format, args...)}
}

// ParseSeconds parses a time exactly in the one duration grammar
// ([engine.ParseSeconds]): plain seconds as a decimal or a fraction
// ("60", "0.5", "1/3"), or numbers with units ("500ms", "1h30m", "1.5s",
// "10us", "1d"). It reports false for anything else, "inf" included.
func ParseSeconds(s string) (exact.Rat, bool) {
	secs, inf, err := engine.ParseSeconds(s)
	if err != nil || inf {
		return exact.Rat{}, false
	}
	r, err := exact.ParseRat(secs.RatString())
	return r, err == nil
}

// seconds parses a time parameter exactly.
func (p *ClientsParams) seconds(param, text string) (exact.Rat, error) {
	r, ok := ParseSeconds(text)
	if !ok {
		return r, p.bad(param, text, "a time in seconds (60, 0.5, 1/3) or with a unit (500ms, 1m, 2h, 10us, 1d)")
	}
	return r, nil
}

// span parses a time parameter into whole nanoseconds >= 0 (> 0 when
// positive is set).
func (p *ClientsParams) span(param, text string, positive bool) (engine.Time, error) {
	secs, err := p.seconds(param, text)
	if err != nil {
		return 0, err
	}
	if secs.Sign() < 0 || positive && secs.Sign() == 0 {
		want := "a time >= 0 s"
		if positive {
			want = "a time > 0 s"
		}
		return 0, p.bad(param, text, want)
	}
	if secs.Cmp(exact.NewRat(int64(MaxClientSpan), 1e9)) > 0 {
		return 0, p.bad(param, text, fmt.Sprintf("a time <= %s s (a quarter of the clock's range: an instant of a run adds an arrival, a think time or backoff, a service and a control period, and must stay within engine.Time's 292 years)", MaxClientSpan))
	}
	d, err := engine.SecondsToTime(text, secs.Big())
	if err != nil {
		return 0, p.bad(param, text, "a whole number of nanoseconds within ±292 years: "+err.(*engine.DurationError).Why)
	}
	return d, nil
}

// MinUnboundedSleep is the least sleep a backoff settles to (Base for
// constant, Cap for the others) with no bound on attempts: 1 ms, at most
// 1000 attempts per second a request is refused, so that the work of a run
// is bounded by its time.
const MinUnboundedSleep = engine.Time(1e6)

// MaxClientSpan is the longest time a clients parameter takes (think,
// horizon, base, cap, deadline, jitters, bin, backfill target and
// interval): 2^61 ns, about 73 years, a quarter of engine.Time's range,
// so that an arrival plus a span plus a service plus a control period
// stays within the clock.
const MaxClientSpan = engine.Time(1 << 61)

// rat parses an exact parameter: a decimal or a fraction p/q.
func (p *ClientsParams) rat(param, s, unit string) (exact.Rat, error) {
	r, err := exact.ParseRat(s)
	if errors.Is(err, exact.ErrRange) {
		return r, p.bad(param, s, "a number whose exact value fits the model (a fraction with a denominator below 2^63, such as a decimal with at most 18 places), "+unit)
	}
	if err != nil {
		return r, p.bad(param, s, "a decimal such as 0.7 or a fraction such as 10/13, "+unit)
	}
	return r, nil
}
