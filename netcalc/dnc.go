package netcalc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"

	"github.com/ratesim/ratesim/exact"
)

// This file writes and reads the curve strings of the DiscoDNC (NetCal DNC)
// network calculator, as its Curve_Disco_PwAffine.toString writes them and
// its initializeCurve and LinearSegment_Disco(String) read them:
//
//	curve   = ["AC" | "SC" | "MSC"] "{" segment { ";" segment } "}"
//	segment = ["!"] "(" x "," y ")," slope
//
// A segment draws y + slope·(t − x) from x to the next segment's x; "!"
// marks it open on the left (the curve jumps at x). A number is an integer,
// "n / d" (spaces included), a decimal with a point, or Infinity, and the
// integers are read by Java's Integer.parseInt, so they must fit 32 bits.

// FormatDNCArrival returns the arrival curve a ([TokenBucket] or [Concave])
// as a DiscoDNC arrival curve string, time in seconds and amounts in jobs:
//
//	AC{(0,0),0;!(0,b),r}                   γ_{r,b}, b > 0
//	AC{(0,0),r}                            γ_{r,0}
//	AC{(0,0),0;!(0,b1),r1;(x2,y2),r2;...}  a concave curve, a segment per bucket
//
// These are the strings DiscoDNC itself prints for such curves, and its
// Curve.getFactory().createArrivalCurve(String) parses them, with the
// RATIONAL_BIGINTEGER number backend exactly (the default double backend
// rounds "1 / 3"). For example a token bucket of rate 1 job/s and burst 4
// jobs is "AC{(0,0),0;!(0,4),1}", and a rate of 1/3 is written "1 / 3".
//
// Checked against DiscoDNC 2.8.1 (testdata/discodnc.tsv): it prints the
// parsed curves back unchanged, and its CurveUtils.getMaxHorizontalDeviation,
// getMaxVerticalDeviation and MinPlus.deconvolve equal [Delay], [Backlog]
// and [Output]. Its Bounds.delayFIFO assumes a single token bucket and
// differs from [Delay] for other concave curves.
//
// Errors: a [Staircase] (its graph has infinitely many segments), an
// invalid curve, and numbers whose numerator or denominator exceed 32 bits
// (wrapping [exact.ErrRange]; change the unit of time to bring them in).
func FormatDNCArrival(a Arrival) (string, error) {
	if _, ok := a.(Staircase); ok {
		return "", errors.New("netcalc: a staircase has no DiscoDNC form (infinitely many segments)")
	}
	if err := checkArrival(a); err != nil {
		return "", err
	}
	segs := envelope(asConcave(a))
	var b strings.Builder
	b.WriteString("AC{")
	if segs[0].y.Sign() > 0 {
		b.WriteString("(0,0),0;!")
	}
	for i, s := range segs {
		if i > 0 {
			b.WriteByte(';')
		}
		if err := writeSegment(&b, s.x, s.y, s.r); err != nil {
			return "", err
		}
	}
	b.WriteByte('}')
	return b.String(), nil
}

// FormatDNCService returns the rate-latency curve s as a DiscoDNC service
// curve string, time in seconds and amounts in jobs, as DiscoDNC's
// createRateLatency prints it:
//
//	SC{(0,0),0;!(T,0),R}   T > 0
//	SC{(0,0),R}            T = 0
//
// Errors: an invalid s and numbers beyond 32 bits, as [FormatDNCArrival].
func FormatDNCService(s RateLatency) (string, error) {
	if err := s.check(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("SC{")
	zero := new(big.Rat)
	if s.Latency.Sign() > 0 {
		b.WriteString("(0,0),0;!")
		if err := writeSegment(&b, s.Latency.Big(), zero, s.Rate.Big()); err != nil {
			return "", err
		}
	} else if err := writeSegment(&b, zero, zero, s.Rate.Big()); err != nil {
		return "", err
	}
	b.WriteByte('}')
	return b.String(), nil
}

func writeSegment(b *strings.Builder, x, y, r *big.Rat) error {
	b.WriteByte('(')
	for i, z := range []*big.Rat{x, y, r} {
		if !fitsInt32(z.Num()) || !fitsInt32(z.Denom()) {
			return fmt.Errorf("netcalc: %v does not fit DiscoDNC's 32-bit n / d: %w", z.RatString(), exact.ErrRange)
		}
		switch i {
		case 1:
			b.WriteByte(',')
		case 2:
			b.WriteString("),")
		}
		b.WriteString(z.Num().String())
		if !z.IsInt() {
			b.WriteString(" / ")
			b.WriteString(z.Denom().String())
		}
	}
	return nil
}

func fitsInt32(z *big.Int) bool {
	return z.IsInt64() && z.Int64() >= math.MinInt32 && z.Int64() <= math.MaxInt32
}

// dncSegment is one parsed segment.
type dncSegment struct {
	open        bool
	x, y, slope *big.Rat
}

// parseDNC parses a curve string with an optional prefix.
func parseDNC(s, prefix string) ([]dncSegment, error) {
	body := s
	switch {
	case strings.HasPrefix(s, prefix):
		body = s[len(prefix):]
	case strings.HasPrefix(s, "AC"), strings.HasPrefix(s, "SC"), strings.HasPrefix(s, "MSC"):
		return nil, fmt.Errorf("netcalc: DiscoDNC curve %q is not of kind %s", s, prefix)
	}
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, fmt.Errorf("netcalc: DiscoDNC curve %q is not {...}", s)
	}
	var segs []dncSegment
	for i, str := range strings.Split(body[1:len(body)-1], ";") {
		var sg dncSegment
		str, sg.open = strings.CutPrefix(str, "!")
		xy, slope, ok := strings.Cut(strings.TrimPrefix(str, "("), "),")
		x, y, ok2 := strings.Cut(xy, ",")
		if !strings.HasPrefix(str, "(") || !ok || !ok2 {
			return nil, fmt.Errorf("netcalc: DiscoDNC segment %d %q is not (x,y),slope", i, str)
		}
		for _, f := range []struct {
			dst **big.Rat
			src string
		}{{&sg.x, x}, {&sg.y, y}, {&sg.slope, slope}} {
			v, err := parseDNCNumber(f.src)
			if err != nil {
				return nil, fmt.Errorf("netcalc: DiscoDNC segment %d %q: %w", i, str, err)
			}
			*f.dst = v
		}
		if i > 0 && sg.x.Cmp(segs[i-1].x) < 0 {
			return nil, fmt.Errorf("netcalc: DiscoDNC segment %d %q starts before segment %d", i, str, i-1)
		}
		segs = append(segs, sg)
	}
	if segs[0].x.Sign() != 0 || segs[0].open {
		return nil, fmt.Errorf("netcalc: DiscoDNC curve %q does not start with a closed segment at 0", s)
	}
	return segs, nil
}

// parseDNCNumber reads a number as DiscoDNC's number backends do: "n / d"
// with both sides integers, a decimal with a point (its double backend
// prints 4.0, 4.333333333333333 and 1.0E-4; read exactly as written), or an
// integer. Anything else, including Infinity, NaN and "1/2", is an error.
func parseDNCNumber(s string) (*big.Rat, error) {
	var ok bool
	if n, d, frac := strings.Cut(s, " / "); frac {
		ok = dncInteger.MatchString(n) && dncInteger.MatchString(d)
		s = n + "/" + d
	} else {
		ok = dncInteger.MatchString(s) || dncDecimal.MatchString(s)
	}
	if !ok {
		return nil, fmt.Errorf("%q is not an integer, n / d or a decimal", s)
	}
	r, err := exact.ParseRat(s)
	if err != nil {
		return nil, err
	}
	return r.Big(), nil
}

var (
	dncInteger = regexp.MustCompile(`^-?[0-9]+$`)
	dncDecimal = regexp.MustCompile(`^-?[0-9]*\.[0-9]+(E-?[0-9]+)?$`)
)

// ParseDNCArrival reads a DiscoDNC arrival curve string (with or without
// the "AC" prefix) such as DiscoDNC prints, into a normalized [Concave]. It
// is the inverse of [FormatDNCArrival] and also reads decimals ("4.0"),
// exactly as written.
//
// As in DiscoDNC, the curve is 0 at t = 0 whatever its first segment says
// ("{(0,3),0}" is γ_{0,3}).
//
// Errors: malformed strings, Infinity and NaN, negative values, and curves
// that are not nondecreasing, continuous and concave for t > 0 (only those
// are minima of token buckets).
func ParseDNCArrival(s string) (Concave, error) {
	segs, err := parseDNC(s, "AC")
	if err != nil {
		return nil, err
	}
	// A first segment above 0, as in "{(0,3),0}", is read as DiscoDNC's
	// ArrivalCurve constructor reads it (forceThroughOrigin): α(0) = 0 and
	// α(0+) = 3.
	//
	// A segment followed by one at the same x draws nothing; DiscoDNC
	// writes such segments at 0 (α(0) = 0 before the jump to α(0+)) and
	// sometimes elsewhere.
	kept := segs[:0:0]
	for i, sg := range segs {
		if i+1 == len(segs) || segs[i+1].x.Cmp(sg.x) > 0 {
			kept = append(kept, sg)
		}
	}
	segs = kept
	var c Concave
	for i, sg := range segs {
		if sg.slope.Sign() < 0 {
			return nil, fmt.Errorf("netcalc: DiscoDNC arrival curve %q decreases", s)
		}
		if i > 0 {
			p := segs[i-1]
			at := new(big.Rat).Sub(sg.x, p.x)
			at.Mul(at, p.slope)
			if at.Add(at, p.y).Cmp(sg.y) != 0 || sg.slope.Cmp(p.slope) > 0 {
				return nil, fmt.Errorf("netcalc: DiscoDNC arrival curve %q is not continuous and concave for t > 0", s)
			}
		}
		b := new(big.Rat).Mul(sg.slope, sg.x)
		tb, err := tokenBucketOf(b.Sub(sg.y, b), sg.slope)
		if err != nil {
			return nil, err
		}
		c = append(c, tb)
	}
	return c.Normalize()
}

// ParseDNCService reads a DiscoDNC rate-latency service curve string (with
// or without the "SC" prefix): "SC{(0,0),0;!(T,0),R}" or "SC{(0,0),R}",
// the latency segment open or closed, numbers as in [ParseDNCArrival].
//
// Errors: malformed strings and curves that are not rate-latency with
// R > 0.
func ParseDNCService(s string) (RateLatency, error) {
	segs, err := parseDNC(s, "SC")
	if err != nil {
		return RateLatency{}, err
	}
	bad := fmt.Errorf("netcalc: DiscoDNC service curve %q is not rate-latency", s)
	if segs[0].y.Sign() != 0 {
		return RateLatency{}, bad
	}
	var T, R *big.Rat
	switch {
	case len(segs) == 1:
		T, R = segs[0].x, segs[0].slope
	case len(segs) == 2 && segs[0].slope.Sign() == 0 && segs[1].y.Sign() == 0:
		T, R = segs[1].x, segs[1].slope
	default:
		return RateLatency{}, bad
	}
	if R.Sign() <= 0 {
		return RateLatency{}, bad
	}
	rate, err := ratOf(R)
	if err != nil {
		return RateLatency{}, err
	}
	lat, err := ratOf(T)
	if err != nil {
		return RateLatency{}, err
	}
	return RateLatency{Rate: rate, Latency: lat}, nil
}

func tokenBucketOf(b, r *big.Rat) (TokenBucket, error) {
	burst, err := ratOf(b)
	if err != nil {
		return TokenBucket{}, err
	}
	rate, err := ratOf(r)
	if err != nil {
		return TokenBucket{}, err
	}
	return TokenBucket{Rate: rate, Burst: burst}, nil
}
