package arrivals

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ratesim/ratesim/engine"
)

// durationUnits are the units of [ParseDuration] in nanoseconds, longest
// names first so that "ms" is not read as "m".
var durationUnits = []struct {
	name string
	ns   int64
}{
	{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
}

// ParseDuration parses a duration exactly into an [engine.Time] count of
// nanoseconds. It accepts
//
//   - a decimal number of seconds: "0.1", "2", "1.5", "1e-3", "-0.25";
//   - Go duration syntax (as time.ParseDuration): an optional sign and a
//     sequence of decimal numbers, each with a unit, such as "500ms",
//     "1.5s", "1m", "2h", "1h30m" or "250us"; the units are ns, us (or µs),
//     ms, s, m and h.
//
// The value is computed in exact rational arithmetic, so "0.1" is
// 100000000 ns and "1.1m" is 66000000000 ns. Leading and trailing spaces
// are ignored.
//
// It returns an error naming s for anything else, for a duration that is
// not a whole number of nanoseconds ("1.5ns", "0.0000000001") and for one
// beyond the range of engine.Time (about ±292 years).
func ParseDuration(s string) (engine.Time, error) {
	text := strings.TrimSpace(s)
	bad := func(why string) (engine.Time, error) {
		return 0, fmt.Errorf("arrivals: duration %q is invalid: %s", s, why)
	}
	if text == "" {
		return bad("empty: want seconds such as 0.1 or a duration such as 500ms, 1.5s, 1m or 2h")
	}
	sum := new(big.Rat)
	if isPlainNumber(text) {
		if !smallExponent(text, 40) {
			return bad("its exponent is beyond ±40")
		}
		if _, ok := sum.SetString(text); !ok {
			return bad("want seconds such as 0.1 or a duration such as 500ms, 1.5s, 1m or 2h")
		}
		sum.Mul(sum, big.NewRat(1e9, 1))
	} else {
		rest, neg := text, false
		if rest[0] == '+' || rest[0] == '-' {
			neg, rest = rest[0] == '-', rest[1:]
		}
		if rest == "" {
			return bad("no number after the sign")
		}
		for rest != "" {
			n := 0
			for n < len(rest) && (rest[n] >= '0' && rest[n] <= '9' || rest[n] == '.') {
				n++
			}
			num := rest[:n]
			if n == 0 {
				return bad(fmt.Sprintf("want a number at %q: seconds such as 0.1 or a duration such as 500ms, 1.5s, 1m or 2h", rest))
			}
			if strings.Count(num, ".") > 1 || strings.Trim(num, ".") == "" {
				return bad(fmt.Sprintf("%q is not a decimal number", num))
			}
			rest = rest[n:]
			unit := int64(0)
			for _, u := range durationUnits {
				if strings.HasPrefix(rest, u.name) {
					unit, rest = u.ns, rest[len(u.name):]
					break
				}
			}
			if unit == 0 {
				return bad(fmt.Sprintf("the number %s has no unit: want ns, us, ms, s, m or h after it (or seconds alone, such as 0.1)", num))
			}
			x, ok := new(big.Rat).SetString(num)
			if !ok {
				return bad(fmt.Sprintf("%q is not a decimal number", num))
			}
			sum.Add(sum, x.Mul(x, big.NewRat(unit, 1)))
		}
		if neg {
			sum.Neg(sum)
		}
	}
	if !sum.IsInt() {
		return bad(fmt.Sprintf("%s ns is not a whole number of nanoseconds", sum.FloatString(3)))
	}
	if !sum.Num().IsInt64() {
		return bad("beyond the range of engine.Time (about ±292 years)")
	}
	return engine.Time(sum.Num().Int64()), nil
}

// isPlainNumber reports whether s is made of the characters of a decimal
// number with an optional exponent (digits, one '.', e or E, signs), with
// at least one digit: the seconds form of ParseDuration.
func isPlainNumber(s string) bool {
	return strings.Trim(s, "0123456789.eE+-") == "" && strings.ContainsAny(s, "0123456789")
}

// smallExponent reports whether the decimal exponent of s (after e or E),
// if any, is a number within ±limit, so that parsing s with math/big
// costs nothing unbounded: "1e999999999" would make a number of a billion
// digits.
func smallExponent(s string, limit int) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e := strings.TrimLeft(s[i+1:], "+-")
	if e == "" || len(e) > 6 {
		return e == "" // no digits: the parser rejects it
	}
	n := 0
	for _, c := range e {
		if c < '0' || c > '9' {
			return true // not a number: the parser rejects it
		}
		n = n*10 + int(c-'0')
	}
	return n <= limit
}
