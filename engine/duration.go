package engine

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// DurationSyntax describes the text [ParseDuration] and [ParseSeconds]
// read, for flag help and error messages.
const DurationSyntax = "seconds (60, 0.5, 1/3) or with units (500ms, 1.5s, 1h30m, 1d)"

// ErrDuration is wrapped by every error of [ParseDuration] and
// [ParseSeconds].
var ErrDuration = errors.New("invalid duration")

// DurationError is the error of [ParseSeconds], [ParseDuration] and
// [SecondsToTime]: the text and why it is not a duration that fits, such
// as "finer than 1 ns: 1ns or 2ns fit". It wraps [ErrDuration].
type DurationError struct {
	Text   string // the text as given
	Why    string // what is wrong and, where possible, what would fit
	Syntax bool   // not in the grammar at all: Error adds DurationSyntax
}

func (e *DurationError) Error() string {
	if e.Syntax {
		return fmt.Sprintf("%q is %s: want %s", e.Text, e.Why, DurationSyntax)
	}
	return fmt.Sprintf("%q is %s", e.Text, e.Why)
}

// Unwrap returns [ErrDuration].
func (e *DurationError) Unwrap() error { return ErrDuration }

// durationUnits are the units of the duration grammar, in nanoseconds,
// with names that are a prefix of another tried after it ("ms" before
// "m", "ns" before nothing).
var durationUnits = []struct {
	name string
	ns   int64
}{
	{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6},
	{"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9},
}

// ParseSeconds parses a span of time exactly, into seconds as an exact
// rational, or reports inf. It is the one duration grammar of ratesim,
// used by every flag and YAML key that takes a duration:
//
//   - plain seconds: a decimal ("60", "0.5", "1e-3") or a fraction p/q
//     ("1/3");
//   - a sum of numbers each with a unit, Go style: "500ms", "1.5s",
//     "1h30m", "250us" (or µs), "1d"; units ns, us, µs, ms, s, m, h and
//     d (86400 s); each number is a decimal or a fraction ("1/3ms");
//   - "inf" (or "never"): infinity, returned as inf = true, for the
//     parameters where infinity means something (a caller refuses it
//     elsewhere);
//   - an optional sign before the whole text.
//
// Spaces around the text, and between a number and its unit or between
// two terms, are allowed: "2 s" is 2 s, "1h 30m" is 1h30m, as SI writes
// "2 s". A number is never split by a space ("1 0s" is refused).
//
// It returns an error wrapping [ErrDuration] that quotes s and says what
// was expected. Exponents are limited to ±40 so that no text costs an
// unbounded amount of arithmetic.
func ParseSeconds(s string) (secs *big.Rat, inf bool, err error) {
	bad := func(why string) (*big.Rat, bool, error) {
		return nil, false, &DurationError{Text: s, Why: "not a duration: " + why, Syntax: true}
	}
	text := strings.TrimSpace(s)
	if text == "" {
		return bad("empty")
	}
	neg := false
	if text[0] == '+' || text[0] == '-' {
		neg, text = text[0] == '-', strings.TrimSpace(text[1:])
	}
	if text == "" {
		return bad("no number after the sign")
	}
	if text == "inf" || text == "never" {
		if neg {
			return bad("a negative infinity")
		}
		return nil, true, nil
	}
	sum := new(big.Rat)
	for terms := 0; text != ""; terms++ {
		n := numberEnd(text)
		if n == 0 {
			return bad(fmt.Sprintf("want a number at %q", text))
		}
		x, ok := parseNumber(text[:n])
		if !ok {
			return bad(fmt.Sprintf("%q is not a decimal or a fraction p/q", text[:n]))
		}
		rest := strings.TrimLeft(text[n:], " \t")
		if rest == "" && terms == 0 {
			sum.Mul(x, big.NewRat(1e9, 1)) // plain seconds
			text = ""
			break
		}
		unit := int64(0)
		for _, u := range durationUnits {
			if strings.HasPrefix(rest, u.name) {
				unit, rest = u.ns, rest[len(u.name):]
				break
			}
		}
		if unit == 0 {
			return bad(fmt.Sprintf("the number %s has no unit (ns, us, ms, s, m, h or d)", text[:n]))
		}
		sum.Add(sum, x.Mul(x, big.NewRat(unit, 1)))
		text = strings.TrimLeft(rest, " \t")
	}
	if neg {
		sum.Neg(sum)
	}
	return sum.Quo(sum, big.NewRat(1e9, 1)), false, nil
}

// numberEnd returns the length of the number at the start of s: digits,
// '.', '/', and an exponent e±n after a digit.
func numberEnd(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		switch {
		case c >= '0' && c <= '9' || c == '.' || c == '/':
			n++
		case (c == 'e' || c == 'E') && n > 0 && n+1 < len(s) && (s[n+1] >= '0' && s[n+1] <= '9' || (s[n+1] == '+' || s[n+1] == '-') && n+2 < len(s) && s[n+2] >= '0' && s[n+2] <= '9'):
			n += 2
		default:
			return n
		}
	}
	return n
}

// parseNumber reads a decimal (with an exponent within ±40) or a fraction
// p/q of two unsigned decimals, q != 0.
func parseNumber(s string) (*big.Rat, bool) {
	if p, q, ok := strings.Cut(s, "/"); ok {
		a, ok1 := parseDecimal(p)
		b, ok2 := parseDecimal(q)
		if !ok1 || !ok2 || b.Sign() == 0 {
			return nil, false
		}
		return a.Quo(a, b), true
	}
	return parseDecimal(s)
}

func parseDecimal(s string) (*big.Rat, bool) {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], strings.TrimLeft(s[i+1:], "+-")
		if len(exp) > 2 || exp > "40" && len(exp) == 2 {
			return nil, false
		}
	}
	if strings.Count(mant, ".") > 1 || strings.Trim(mant, ".") == "" || strings.ContainsAny(mant, "/") {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// ParseDuration parses a duration in the grammar of [ParseSeconds] into
// whole nanoseconds; "inf" (or "never") is [Forever], which a caller for
// whom infinity means nothing refuses.
//
// A value that is not a whole number of nanoseconds is refused with the
// two nearest values that are ("1.5ns" names 1ns and 2ns; "1/3" names
// 333.333333ms and 333.333334ms), as is one beyond the range of Time
// (about ±292 years) or Forever itself. Errors wrap [ErrDuration].
func ParseDuration(s string) (Time, error) {
	secs, inf, err := ParseSeconds(s)
	if err != nil {
		return 0, err
	}
	if inf {
		return Forever, nil
	}
	return SecondsToTime(s, secs)
}

// SecondsToTime converts exact seconds, parsed from text s, to whole
// nanoseconds, refusing (with the nearest values that fit, in
// [FormatDuration]'s text) a value finer than 1 ns or beyond the range of
// Time. Errors wrap [ErrDuration].
func SecondsToTime(s string, secs *big.Rat) (Time, error) {
	ns := new(big.Rat).Mul(secs, big.NewRat(1e9, 1))
	lo := new(big.Int).Div(ns.Num(), ns.Denom()) // floor: Euclidean division by a positive denominator
	if !lo.IsInt64() || lo.Int64() == int64(Forever) || !ns.IsInt() && lo.Int64() == int64(Forever)-1 {
		return 0, &DurationError{Text: s, Why: "beyond the range of durations (about ±292 years)"}
	}
	if !ns.IsInt() {
		return 0, &DurationError{Text: s, Why: fmt.Sprintf("finer than 1 ns: %s or %s fit",
			FormatDuration(Time(lo.Int64())), FormatDuration(Time(lo.Int64()+1)))}
	}
	return Time(lo.Int64()), nil
}

// FormatDuration writes t as Go's time.Duration does ("1ns", "1.5s",
// "1h30m0s"), text that [ParseDuration] reads back to t; Forever is
// "inf".
func FormatDuration(t Time) string {
	if t == Forever {
		return "inf"
	}
	return time.Duration(t).String()
}
