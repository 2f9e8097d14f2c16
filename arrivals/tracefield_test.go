package arrivals

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestTrimSpace compares trimSpace with strings.TrimSpace.
func TestTrimSpace(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", " a ", "\t\r\n\v\f a b \f\v\n\r\t", "\u00a0x\u0085", "\u3000\u2028x\u2029\u205f",
		"\xffx\xff", " \xe3\x80 ", "\u00a0", "x\u00a0\u00a0", "é", " é ", "\x85",
	} {
		want := strings.TrimSpace(s)
		if got := trimSpace(s); got != want {
			t.Errorf("trimSpace(%q) = %q, want %q", s, got, want)
		}
		if got := string(trimSpace([]byte(s))); got != want {
			t.Errorf("trimSpace([]byte(%q)) = %q, want %q", s, got, want)
		}
	}
}

func TestParseIndex(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"007", 7, true}, {strconv.Itoa(math.MaxInt), math.MaxInt, true},
		{strconv.FormatUint(math.MaxInt+1, 10), 0, false}, {"", 0, false}, {"+1", 0, false}, {"-1", 0, false}, {"1 ", 0, false},
	} {
		if got, ok := parseIndex(tc.s); got != tc.want || ok != tc.ok {
			t.Errorf("parseIndex(%q) = %d, %v, want %d, %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
}
