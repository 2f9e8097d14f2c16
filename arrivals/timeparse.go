package arrivals

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// timeKind is the kind of a trace's time format.
type timeKind int

const (
	kindDecimal  timeKind = iota // unix, unix-ms, unix-us, unix-ns
	kindDatetime                 // YYYY-MM-DD HH:MM:SS[.f], UTC
	kindRFC3339                  // RFC 3339 with optional fraction
	kindLayout                   // a Go time layout
)

// timeFormat is a parsed TraceOptions.TimeFormat. Its parse method turns a
// field's text into int64 nanoseconds since the Unix epoch.
type timeFormat struct {
	kind   timeKind
	unit   int    // kindDecimal: decimal digits of nanoseconds per unit (9 for s, 0 for ns)
	layout string // kindLayout: the Go layout
	want   string // the expected form, for error messages
}

// parseTimeFormat interprets TraceOptions.TimeFormat ("" means "unix").
func parseTimeFormat(s string) (timeFormat, error) {
	switch s {
	case "", "unix":
		return timeFormat{unit: 9, want: "Unix seconds such as 1700000000 or 1700000000.25"}, nil
	case "unix-ms":
		return timeFormat{unit: 6, want: "Unix milliseconds such as 1700000000000 or 1700000000000.5"}, nil
	case "unix-us":
		return timeFormat{unit: 3, want: "Unix microseconds such as 1700000000000000 or 1700000000000000.5"}, nil
	case "unix-ns":
		return timeFormat{unit: 0, want: "Unix nanoseconds such as 1700000000000000000"}, nil
	case "datetime":
		return timeFormat{kind: kindDatetime, want: "YYYY-MM-DD HH:MM:SS with an optional fraction of 1 to 9 digits, such as 2023-11-16 18:17:03.9799600 (UTC)"}, nil
	case "rfc3339":
		return timeFormat{kind: kindRFC3339, want: "RFC 3339 such as 2023-11-16T18:17:03.98Z or 2023-11-16T18:17:03+01:00"}, nil
	}
	// A layout must contain at least one element; a time that matches no
	// reference value (2006-01-02 15:04:05 PM -0700 MST) shows whether it does.
	probe := time.Date(1999, 12, 28, 9, 58, 59, 0, time.UTC)
	if probe.Format(s) == s {
		return timeFormat{}, fmt.Errorf("unknown time format %q: want unix, unix-ms, unix-us, unix-ns, datetime, rfc3339 or a Go time layout such as %q", s, "02/Jan/2006:15:04:05 -0700")
	}
	return timeFormat{kind: kindLayout, layout: s, want: fmt.Sprintf("the Go time layout %q", s)}, nil
}

// Reasons a time text is rejected; the trace reader adds the text and the
// expected form.
var (
	errNotNumber  = errors.New("not a decimal number")
	errRange      = errors.New("outside the range of int64 nanoseconds since 1970 (1677-09-21 to 2262-04-11 UTC)")
	errDatetime   = errors.New("not of the form YYYY-MM-DD HH:MM:SS[.fffffffff]")
	errNoSuchDate = errors.New("no such date or time of day")
)

// parse returns the instant written in s as nanoseconds since the Unix
// epoch. s has no surrounding spaces. It does not allocate unless s is bad
// (kindLayout and kindRFC3339 allocate what time.Parse allocates).
func (f *timeFormat) parse(s string) (int64, error) { return parseTime(f, s) }

// parseTime is [timeFormat.parse] for a string or a byte slice; it does not
// keep s. For a byte slice, kindLayout and kindRFC3339 also copy s to a
// string for time.Parse.
func parseTime[T byteText](f *timeFormat, s T) (int64, error) {
	switch f.kind {
	case kindDecimal:
		return parseDecimal(s, f.unit)
	case kindDatetime:
		return parseDatetime(s)
	case kindRFC3339:
		// time.Parse silently truncates fractions beyond 9 digits; refuse them.
		if len(s) > 20 && (s[19] == '.' || s[19] == ',') {
			if n := countDigits(s[20:]); n > 9 {
				return 0, fracError(n, 9)
			}
		}
		return parseLayout(time.RFC3339Nano, string(s))
	default:
		return parseLayout(f.layout, string(s))
	}
}

// parseDecimal parses an optionally signed decimal number of units, each
// 10^unit nanoseconds, exactly into int64 nanoseconds: "1700000000.3" with
// unit 9 is 1700000000300000000 ns. It accepts "5", "-5", "+5", "5.", ".5";
// no exponents, no digit separators.
func parseDecimal[T byteText](s T, unit int) (int64, error) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	const limit = 1 << 63 // magnitude of math.MinInt64
	start := i
	var mag uint64                      // magnitude of the integer part, in units
	for i+8 <= len(s) && i-start < 16 { // 16 digits are below 2^63
		v, ok := eightDigits(s[i : i+8])
		if !ok {
			break
		}
		mag = mag*1e8 + v
		i += 8
	}
	done := i // digits before done are in mag
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	digits := i - start
	overflow := false
	if digits <= 18 { // below 10^18 < 2^63: no digit can overflow
		for _, c := range []byte(s[done:i]) {
			mag = mag*10 + uint64(c-'0')
		}
	} else {
		mag = 0
		for _, c := range []byte(s[start:i]) {
			d := uint64(c - '0')
			if overflow || mag > limit/10 || mag*10 > limit-d {
				overflow = true // keep scanning so that syntax errors win
			} else {
				mag = mag*10 + d
			}
		}
	}
	frac, nfrac := uint64(0), 0
	if i < len(s) && s[i] == '.' {
		i++
		if n := len(s) - i; unit == 9 && n > 0 && n <= 8 {
			// The usual fraction of seconds (one to eight digits): its
			// digits padded with zeros to eight, converted at once.
			pad := [8]byte{'0', '0', '0', '0', '0', '0', '0', '0'}
			copy(pad[:], s[i:])
			if v, ok := digits8(binary.LittleEndian.Uint64(pad[:])); ok && !overflow && mag <= (limit-1_000_000_000)/1_000_000_000 {
				m := mag*1e9 + v*10 // below 2^63
				if neg {
					return -int64(m), nil
				}
				return int64(m), nil
			}
		}
		for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			if nfrac < 19 {
				frac = frac*10 + uint64(s[i]-'0')
			}
			nfrac++
		}
	}
	if i != len(s) || digits+nfrac == 0 {
		return 0, errNotNumber
	}
	if nfrac > unit {
		return 0, fracError(nfrac, unit)
	}
	p := pow10[unit] // unit <= 9 (nanoseconds)
	if mag > limit/p {
		overflow = true
	}
	mag = mag*p + frac*pow10[unit-nfrac]
	if overflow || mag > limit || !neg && mag == limit {
		return 0, errRange
	}
	if neg {
		return -int64(mag), nil // int64(1<<63) is MinInt64, its own negation
	}
	return int64(mag), nil
}

// eightDigits returns the value of s, 8 bytes, if they are all ASCII
// digits (see digits8).
func eightDigits[T byteText](s T) (uint64, bool) {
	_ = s[7] // one bounds check
	return digits8(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
}

// digits8 returns the value of the eight ASCII digits in x, the first in
// its low byte, if they are all digits: the SWAR conversion of Lemire
// ("Faster integer parsing", 2022), three multiplications for eight
// digits.
func digits8(x uint64) (uint64, bool) {
	// Every byte in '0'..'9': high nibble 3, and adding 6 keeps it 3.
	if x&0xF0F0F0F0F0F0F0F0 != 0x3030303030303030 || (x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 != 0x3030303030303030 {
		return 0, false
	}
	x -= 0x3030303030303030
	x = (x*10 + x>>8) & 0x00FF00FF00FF00FF
	x = (x*100 + x>>16) & 0x0000FFFF0000FFFF
	return (x*10000 + x>>32) & 0xFFFFFFFF, true
}

// pow10[n] is 10^n, for the units of parseDecimal.
var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// fracError explains a fraction finer than a nanosecond.
func fracError(n, max int) error {
	return fmt.Errorf("%d fractional digits: at most %d fit in whole nanoseconds", n, max)
}

// countDigits returns the number of leading ASCII digits of s.
func countDigits[T byteText](s T) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// parseDatetime parses "YYYY-MM-DD HH:MM:SS" with an optional fraction
// ".f" of 1 to 9 digits, in UTC, into nanoseconds since the Unix epoch.
func parseDatetime[T byteText](s T) (int64, error) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return 0, errDatetime
	}
	num := func(i, n int) int64 {
		if countDigits(s[i:i+n]) != n {
			return -1
		}
		v := int64(0)
		for j := i; j < i+n; j++ {
			v = v*10 + int64(s[j]-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0 {
		return 0, errDatetime
	}
	var frac int64
	if len(s) > 19 {
		n := countDigits(s[20:])
		if s[19] != '.' || n == 0 || 20+n != len(s) {
			return 0, errDatetime
		}
		if n > 9 {
			return 0, fracError(n, 9)
		}
		frac = num(20, n)
		for range 9 - n {
			frac *= 10
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, errNoSuchDate
	}
	secs := daysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + sec
	ns, ok := nanosFromSecs(secs, frac)
	if !ok {
		return 0, errRange
	}
	return ns, nil
}

// daysIn returns the number of days in month mo (1-12) of year y.
func daysIn(y, mo int64) int64 {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days from 1970-01-01 to the proleptic Gregorian
// date y-mo-d.
func daysFromCivil(y, mo, d int64) int64 {
	// Algorithm: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
	// days_from_civil, https://howardhinnant.github.io/date_algorithms.html
	if mo <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400  // [0, 399]
	mp := (mo + 9) % 12 // March = 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// parseLayout parses s with a Go time layout (UTC unless s has a zone) into
// nanoseconds since the Unix epoch.
func parseLayout(layout, s string) (int64, error) {
	t, err := time.Parse(layout, s)
	if err != nil {
		// time.ParseError repeats the layout and value; keep its reason only.
		var pe *time.ParseError
		if errors.As(err, &pe) && pe.Message != "" {
			return 0, errors.New(strings.TrimPrefix(pe.Message, ": "))
		}
		if errors.As(err, &pe) {
			return 0, fmt.Errorf("cannot parse %q as %q", pe.ValueElem, pe.LayoutElem)
		}
		return 0, err
	}
	ns, ok := nanosFromSecs(t.Unix(), int64(t.Nanosecond()))
	if !ok {
		return 0, errRange
	}
	return ns, nil
}
