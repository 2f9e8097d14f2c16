package arrivals

import (
	"math"
	"math/bits"
)

// Conversions between integer nanoseconds and float64 seconds. Trace times
// are kept as int64 nanoseconds since the Unix epoch (the range of
// time.Duration: 1677-09-21 to 2262-04-11), and each arrival's offset from
// the first arrival is rounded to seconds exactly once.

// maxSecs is the largest whole second whose nanosecond count fits in int64.
const maxSecs = math.MaxInt64 / 1_000_000_000 // 9223372036

// nanosFromSecs returns secs·1e9 + frac as int64 nanoseconds, where
// 0 <= frac < 1e9. ok is false when the result is outside int64.
func nanosFromSecs(secs, frac int64) (ns int64, ok bool) {
	if secs > maxSecs || secs < -maxSecs-1 {
		return 0, false
	}
	if secs >= 0 {
		return addInt64(secs*1e9, frac)
	}
	// secs·1e9 itself overflows for secs = -maxSecs-1; (secs+1)·1e9 fits.
	return addInt64((secs+1)*1e9, frac-1e9)
}

// addInt64 returns a+b and whether it did not overflow.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// secondsFromNanos returns d nanoseconds as float64 seconds, correctly
// rounded (the float64 nearest d/1e9, ties to even).
//
// Special cases: for d <= 2^53 (about 104 days) both d and 1e9 are exact
// float64 values and one IEEE division rounds once. Above that float64(d)
// would already round, so the nearest float64 is found by comparing the
// candidates near float64(d)/1e9 in exact 128-bit integer arithmetic.
func secondsFromNanos(d uint64) float64 {
	if d <= 1<<53 {
		return float64(d) / 1e9
	}
	x := float64(d) / 1e9 // within 2 ulp of d/1e9: two roundings of 2^-53 each
	best := x
	bestHi, bestLo := nanosError(x, d)
	y := math.Nextafter(math.Nextafter(x, 0), 0)
	for range 5 {
		if y != x {
			hi, lo := nanosError(y, d)
			if hi < bestHi || hi == bestHi && (lo < bestLo || lo == bestLo && evenMantissa(y)) {
				best, bestHi, bestLo = y, hi, lo
			}
		}
		y = math.Nextafter(y, math.Inf(1))
	}
	return best
}

// nanosError returns |y·1e9 - d|·2^30 as a 128-bit integer (hi, lo), for
// 2^53/1e9 <= y < 2^65/1e9. In that range y = m·2^e with m < 2^53 and
// -30 <= e <= -17, so both terms are integers below 2^96 after scaling.
func nanosError(y float64, d uint64) (hi, lo uint64) {
	frac, exp := math.Frexp(y) // y = frac·2^exp, 0.5 <= frac < 1
	m := uint64(math.Ldexp(frac, 53))
	k := uint(exp - 53 + 30) // y·2^30 = m·2^k
	ahi, alo := bits.Mul64(m, 1e9)
	ahi, alo = ahi<<k|alo>>(64-k), alo<<k
	bhi, blo := d>>34, d<<30
	if ahi < bhi || ahi == bhi && alo < blo {
		ahi, alo, bhi, blo = bhi, blo, ahi, alo
	}
	lo, borrow := bits.Sub64(alo, blo, 0)
	hi, _ = bits.Sub64(ahi, bhi, borrow)
	return hi, lo
}

// evenMantissa reports whether y's last significand bit is 0.
func evenMantissa(y float64) bool {
	return math.Float64bits(y)&1 == 0
}
