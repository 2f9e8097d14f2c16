package arrivals

import (
	"math"

	"github.com/ratesim/ratesim/engine"
)

// Integer nanosecond arithmetic. Trace times are kept as int64
// nanoseconds since the Unix epoch (the range of time.Duration: 1677-09-21
// to 2262-04-11), and every clock of the package is an [engine.Time]: sums
// are exact or reported as overflow, never rounded.

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

// addTime returns t+d and whether it fits in an [engine.Time].
func addTime(t, d engine.Time) (engine.Time, bool) {
	s, ok := addInt64(int64(t), int64(d))
	return engine.Time(s), ok
}

// afterSeconds returns t plus s seconds rounded to the nearest nanosecond
// ([engine.FromSeconds]), and false when s is NaN or the sum leaves the
// range of [engine.Time]. It is how a generator adds a random gap to its
// clock: one rounding per gap, and an exact integer sum.
func afterSeconds(t engine.Time, s float64) (engine.Time, bool) {
	d, ok := engine.FromSeconds(s)
	if !ok {
		return 0, false
	}
	return addTime(t, d)
}

// subTime returns a-b and whether it fits in an [engine.Time].
func subTime(a, b int64) (engine.Time, bool) {
	c := a - b
	if (c < a) != (b > 0) {
		return 0, false
	}
	return engine.Time(c), true
}
