package arrivals

import (
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		s       string
		unit    int // digits of ns per unit: 9 s, 6 ms, 3 µs, 0 ns
		want    int64
		wantErr string // substring; "" for success
	}{
		{"0", 9, 0, ""},
		{"1700000000", 9, 1_700_000_000_000_000_000, ""},
		{"1700000000.3", 9, 1_700_000_000_300_000_000, ""},
		{"1700000000.123456789", 9, 1_700_000_000_123_456_789, ""},
		{"-1.5", 9, -1_500_000_000, ""},
		{"+2", 9, 2_000_000_000, ""},
		{"5.", 9, 5_000_000_000, ""},
		{".5", 9, 500_000_000, ""},
		{"1700000000300", 6, 1_700_000_000_300_000_000, ""},
		{"1.5", 6, 1_500_000, ""},
		{"1.123456", 6, 1_123_456, ""},
		{"1.5", 3, 1500, ""},
		{"1700000000000000000", 0, 1_700_000_000_000_000_000, ""},
		{"9223372036.854775807", 9, math.MaxInt64, ""},
		{"-9223372036.854775808", 9, math.MinInt64, ""},
		{"9223372036854775807", 0, math.MaxInt64, ""},
		{"-9223372036854775808", 0, math.MinInt64, ""},
		{"9223372036.854775808", 9, 0, "outside the range"},
		{"9223372037", 9, 0, "outside the range"},
		{"-9223372036.854775809", 9, 0, "outside the range"},
		{"9223372036854775808", 0, 0, "outside the range"},
		{"99999999999999999999999", 9, 0, "outside the range"},
		{"1.1234567891", 9, 0, "10 fractional digits: at most 9"},
		{"1.1234567", 6, 0, "7 fractional digits: at most 6"},
		{"1.5", 0, 0, "1 fractional digits: at most 0"},
		{"", 9, 0, "not a decimal number"},
		{"-", 9, 0, "not a decimal number"},
		{".", 9, 0, "not a decimal number"},
		{"1e9", 9, 0, "not a decimal number"},
		{"1,5", 9, 0, "not a decimal number"},
		{"1_000", 9, 0, "not a decimal number"},
		{"--1", 9, 0, "not a decimal number"},
		{"1.2.3", 9, 0, "not a decimal number"},
		{"99999999999999999999x", 9, 0, "not a decimal number"}, // syntax beats range
	} {
		got, err := parseDecimal(tc.s, tc.unit)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("parseDecimal(%q, %d) = %d, %v, want %d", tc.s, tc.unit, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseDecimal(%q, %d) error = %v, want one containing %q", tc.s, tc.unit, err, tc.wantErr)
		}
	}
}

func TestParseDatetime(t *testing.T) {
	for _, tc := range []struct {
		s       string
		want    int64
		wantErr string
	}{
		{"1970-01-01 00:00:00", 0, ""},
		{"1970-01-01 00:00:00.000000001", 1, ""},
		{"2024-11-15 16:57:50", 1_731_689_870_000_000_000, ""},
		{"2023-11-16 18:17:03.9799600", 1_700_158_623_979_960_000, ""},
		{"1969-12-31 23:59:59.5", -500_000_000, ""},
		{"2000-02-29 12:00:00", 951_825_600_000_000_000, ""},
		{"2262-04-11 23:47:16.854775807", math.MaxInt64, ""},
		{"1677-09-21 00:12:43.145224192", math.MinInt64, ""},
		{"2262-04-11 23:47:16.854775808", 0, "outside the range"},
		{"1677-09-21 00:12:43.145224191", 0, "outside the range"},
		{"9999-12-31 23:59:59", 0, "outside the range"},
		{"0000-01-01 00:00:00", 0, "outside the range"},
		{"2023-02-29 00:00:00", 0, "no such date"},
		{"1900-02-29 00:00:00", 0, "no such date"},
		{"2024-13-01 00:00:00", 0, "no such date"},
		{"2024-00-01 00:00:00", 0, "no such date"},
		{"2024-04-31 00:00:00", 0, "no such date"},
		{"2024-01-01 24:00:00", 0, "no such date"},
		{"2024-01-01 00:60:00", 0, "no such date"},
		{"2024-01-01 00:00:60", 0, "no such date"},
		{"2024-01-01 00:00:00.1234567890", 0, "10 fractional digits: at most 9"},
		{"2024-11-15T16:57:50", 0, "not of the form"},
		{"2024-11-15 16:57", 0, "not of the form"},
		{"2024-11-15 16:57:50.", 0, "not of the form"},
		{"2024-11-15 16:57:50Z", 0, "not of the form"},
		{"2024-11-15 16:57:50.5Z", 0, "not of the form"},
		{"24-11-15 16:57:50", 0, "not of the form"},
		{"2024-1a-15 16:57:50", 0, "not of the form"},
		{"+024-11-15 16:57:50", 0, "not of the form"},
	} {
		got, err := parseDatetime(tc.s)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("parseDatetime(%q) = %d, %v, want %d", tc.s, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseDatetime(%q) error = %v, want one containing %q", tc.s, err, tc.wantErr)
		}
	}
}

// TestParseDatetimeOracle compares the hand-written parser with time.Parse
// on random instants across its whole range.
func TestParseDatetimeOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20_000 {
		ns := int64(rng.Uint64())
		s := time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000000000")
		got, err := parseDatetime(s)
		if err != nil || got != ns {
			t.Fatalf("parseDatetime(%q) = %d, %v, want %d", s, got, err, ns)
		}
	}
}

func TestParseTimeFormat(t *testing.T) {
	for _, s := range []string{"", "unix", "unix-ms", "unix-us", "unix-ns", "datetime", "rfc3339",
		"02/Jan/2006:15:04:05 -0700", time.DateTime, "15:04", "1", "PM"} {
		if _, err := parseTimeFormat(s); err != nil {
			t.Errorf("parseTimeFormat(%q) error = %v, want nil", s, err)
		}
	}
	for _, s := range []string{"unixms", "seconds", "UNIX", "iso"} {
		_, err := parseTimeFormat(s)
		if err == nil || !strings.Contains(err.Error(), "unknown time format") {
			t.Errorf("parseTimeFormat(%q) error = %v, want an unknown time format error", s, err)
		}
	}
}

func TestParseRFC3339(t *testing.T) {
	f, _ := parseTimeFormat("rfc3339")
	for _, tc := range []struct {
		s       string
		want    int64
		wantErr string
	}{
		{"1970-01-01T00:00:01Z", 1e9, ""},
		{"1970-01-01T01:00:01.25+01:00", 1_250_000_000, ""},
		{"1970-01-01T00:00:00.123456789Z", 123_456_789, ""},
		{"1970-01-01T00:00:00.1234567891Z", 0, "10 fractional digits"},
		{"1970-01-01 00:00:00Z", 0, "cannot parse"},
		{"2262-04-12T00:00:00Z", 0, "outside the range"},
	} {
		got, err := f.parse(tc.s)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("rfc3339 parse(%q) = %d, %v, want %d", tc.s, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("rfc3339 parse(%q) error = %v, want one containing %q", tc.s, err, tc.wantErr)
		}
	}
}

// TestParseNoAlloc guards the per-line cost of the hand-written parsers.
func TestParseNoAlloc(t *testing.T) {
	for _, tc := range []struct{ format, s string }{
		{"unix", "1700000000.3"},
		{"unix-ms", "1700000000300"},
		{"datetime", "2023-11-16 18:17:03.9799600"},
		{"rfc3339", "2023-11-16T18:17:03.98+01:00"},
	} {
		f, _ := parseTimeFormat(tc.format)
		if n := testing.AllocsPerRun(100, func() { f.parse(tc.s) }); n != 0 {
			t.Errorf("%s parse(%q): %v allocations, want 0", tc.format, tc.s, n)
		}
	}
}

// FuzzParseDecimal compares parseDecimal with math/big: a string of the
// grammar (sign, digits, point, digits) parses to its exact value times
// 10^unit when it has at most unit fractional digits (finer digits are
// refused even when zero) and fits in int64, and fails otherwise.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"1700000000.25", "-5", "+.5", "5.", "9223372036.854775807", "-9223372036.854775808",
		"9223372036.854775808", "99999999999999999999", "0.0000000001", "1e5", "", "."} {
		f.Add(s, uint8(9))
	}
	grammar := regexp.MustCompile(`^[+-]?[0-9]*\.?[0-9]*$`)
	f.Fuzz(func(t *testing.T, s string, u uint8) {
		unit := int(u % 10)
		got, err := parseDecimal(s, unit)
		_, fraction, _ := strings.Cut(s, ".")
		ok := grammar.MatchString(s) && strings.ContainsAny(s, "0123456789") && len(fraction) <= unit
		var want *big.Int
		if ok {
			text := strings.TrimPrefix(s, "+")
			if strings.HasSuffix(text, ".") {
				text += "0" // "5." is 5
			}
			r, _ := new(big.Rat).SetString(text)
			if r == nil {
				t.Fatalf("math/big cannot parse %q", s)
			}
			r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(unit)), nil)))
			if r.IsInt() && r.Num().IsInt64() {
				want = r.Num()
			}
		}
		switch {
		case want == nil && err == nil:
			t.Errorf("parseDecimal(%q, %d) = %d, want an error", s, unit, got)
		case want != nil && (err != nil || got != want.Int64()):
			t.Errorf("parseDecimal(%q, %d) = %d, %v, want %v", s, unit, got, err, want)
		}
	})
}
