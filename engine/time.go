package engine

import (
	"math"
	"math/bits"
)

// Time is simulated time as an integer count of nanoseconds: an instant
// (nanoseconds since the run's origin, t = 0) or a span between two
// instants. See the package documentation for why it is an integer.
//
// Range: ±2^63 ns, about ±292 years, the range of [time.Duration].
type Time int64

// Units of [Time].
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000
	Millisecond Time = 1000000
	Second      Time = 1000000000
)

// Forever is an instant later than every other; a component with nothing
// to do reports it as its next event time.
const Forever = Time(math.MaxInt64)

// Seconds returns t in seconds, the float64 nearest t/1e9 (ties to even).
//
// Special cases: for |t| <= 2^53 ns (about 104 days) both t and 1e9 are
// exact float64 values and one IEEE division rounds once. Beyond that
// float64(t) would already round, so the nearest float64 is found by
// comparing the candidates near float64(t)/1e9 in exact 128-bit integer
// arithmetic.
func (t Time) Seconds() float64 {
	if t >= -1<<53 && t <= 1<<53 {
		return float64(t) / 1e9
	}
	if t < 0 {
		if t == math.MinInt64 {
			return -secondsFromNanos(1 << 63)
		}
		return -secondsFromNanos(uint64(-t))
	}
	return secondsFromNanos(uint64(t))
}

// String returns t as an exact decimal number of seconds with no trailing
// zeros, for example "0.3", "-1.5" or "1700000000.000000001".
func (t Time) String() string {
	b, _ := t.AppendText(make([]byte, 0, 24))
	return string(b)
}

// AppendText appends String's text to b without allocating beyond b's
// growth (encoding.TextAppender); the error is always nil. It writes two
// digits at a time from integers (the per-job CSV calls it for every
// row).
func (t Time) AppendText(b []byte) ([]byte, error) {
	u := uint64(t)
	if t < 0 {
		b = append(b, '-')
		u = -u // MinInt64 is its own negation, and 2^63 as uint64
	}
	var buf [32]byte // 20 integer digits, '.', 9 fractional digits
	const point = 20
	s, f := u/1e9, uint32(u%1e9)
	i := point
	for s >= 100 {
		q := s / 100
		d := (s - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digits2[d], digits2[d+1]
		s = q
	}
	if s >= 10 {
		i -= 2
		buf[i], buf[i+1] = digits2[s*2], digits2[s*2+1]
	} else {
		i--
		buf[i] = byte('0' + s)
	}
	if f == 0 {
		return append(b, buf[i:point]...), nil
	}
	buf[point] = '.'
	// Nine fractional digits: f = d0·10^8 + four pairs.
	for j := point + 8; j > point+1; j -= 2 {
		q := f / 100
		d := (f - q*100) * 2
		buf[j], buf[j+1] = digits2[d], digits2[d+1]
		f = q
	}
	buf[point+1] = byte('0' + f)
	end := point + 10
	for buf[end-1] == '0' {
		end--
	}
	return append(b, buf[i:end]...), nil
}

// digits2 is "00", "01", ... "99" end to end.
const digits2 = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// FromSeconds returns the instant nearest s seconds (ties away from zero)
// and true, or false when s is NaN or outside the range of [Time]. It is
// the conversion for quantities that are continuous by nature (a random
// gap, a float64 parameter); decimal inputs are parsed exactly instead.
//
// The result is within one nanosecond of s·1e9 (the product itself rounds
// once before math.Round).
func FromSeconds(s float64) (Time, bool) {
	x := math.Round(s * 1e9)
	if !(x >= -0x1p63 && x < 0x1p63) {
		return 0, false
	}
	return Time(x), true
}

// secondsFromNanos returns d nanoseconds as float64 seconds, correctly
// rounded, for d > 2^53.
func secondsFromNanos(d uint64) float64 {
	x := float64(d) / 1e9 // within 2 ulp of d/1e9: two roundings of 2^-53 each
	best := x
	bestHi, bestLo := nanosError(x, d)
	y := math.Nextafter(math.Nextafter(x, 0), 0)
	for range 5 {
		if y != x {
			hi, lo := nanosError(y, d)
			if hi < bestHi || hi == bestHi && (lo < bestLo || lo == bestLo && math.Float64bits(y)&1 == 0) {
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
