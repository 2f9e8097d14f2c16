package arrivals

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// The helpers below read a field's text without allocating, whether it is
// a string from encoding/csv or bytes in the TSV reader's buffer.

// byteText is a field's text: a string, or bytes in a reused buffer.
type byteText interface{ ~string | ~[]byte }

// hashKey returns the 64-bit FNV-1a hash of s's bytes (as hash/fnv's
// New64a), without allocating.
func hashKey[T byteText](s T) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// trimSpace is strings.TrimSpace (and bytes.TrimSpace) for either kind of
// text, without allocating.
func trimSpace[T byteText](s T) T {
	for len(s) > 0 {
		n := 1
		if c := s[0]; c >= utf8.RuneSelf {
			var r rune
			// DecodeRuneInString reads at most utf8.UTFMax bytes.
			if r, n = utf8.DecodeRuneInString(string(s[:min(len(s), utf8.UTFMax)])); !unicode.IsSpace(r) {
				break
			}
		} else if !asciiSpace(c) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		n := 1
		if c := s[len(s)-1]; c >= utf8.RuneSelf {
			var r rune
			// DecodeLastRuneInString reads at most utf8.UTFMax bytes.
			if r, n = utf8.DecodeLastRuneInString(string(s[max(0, len(s)-utf8.UTFMax):])); !unicode.IsSpace(r) {
				break
			}
		} else if !asciiSpace(c) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// asciiSpace reports whether c is an ASCII space as unicode.IsSpace sees it.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// parseIndex parses a non-empty run of ASCII digits as an int. ok is false
// for any other text and for a value beyond math.MaxInt.
func parseIndex[T byteText](s T) (n int, ok bool) {
	if len(s) == 0 || countDigits(s) != len(s) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		d := int(s[i] - '0')
		if n > (math.MaxInt-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
