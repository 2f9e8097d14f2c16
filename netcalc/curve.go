package netcalc

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/exact"
)

// ErrUnbounded is wrapped by the errors of bounds that are infinite: a
// delay or backlog bound, or an output curve, for an arrival curve whose
// long-term rate exceeds the service rate.
var ErrUnbounded = errors.New("netcalc: unbounded")

// An Arrival is an arrival curve: a [TokenBucket], a [Concave] or a
// [Staircase]. See the package documentation for the conventions at t = 0
// and for windows.
type Arrival interface {
	// check validates the parameters.
	check() error
	// window returns α(d+), the most jobs any closed window of length d
	// seconds may hold, for d >= 0.
	window(d *big.Rat) *big.Rat
	// String describes the curve.
	String() string
}

// TokenBucket is the affine arrival curve γ_{r,b} (Le Boudec and Thiran
// §1.2.2): at most Burst + Rate·d jobs in any closed window of d seconds.
//
//	α(t) = Burst + Rate·t   for t > 0,   α(0) = 0.
//
// It is the curve a token bucket of rate Rate and depth Burst enforces.
// A unit job conforms only if Burst >= 1.
type TokenBucket struct {
	Rate  exact.Rat // jobs per second, >= 0
	Burst exact.Rat // jobs, >= 0
}

func (tb TokenBucket) check() error {
	if tb.Rate.Sign() < 0 {
		return fmt.Errorf("netcalc: token bucket rate %v jobs/s < 0", tb.Rate)
	}
	if tb.Burst.Sign() < 0 {
		return fmt.Errorf("netcalc: token bucket burst %v jobs < 0", tb.Burst)
	}
	return nil
}

func (tb TokenBucket) window(d *big.Rat) *big.Rat {
	z := new(big.Rat).Mul(tb.Rate.Big(), d)
	return z.Add(z, tb.Burst.Big())
}

// String returns "γ(r=1, b=4)" with the rate in jobs/s and the burst in jobs.
func (tb TokenBucket) String() string {
	return fmt.Sprintf("γ(r=%v, b=%v)", tb.Rate, tb.Burst)
}

// Concave is the concave piecewise-linear arrival curve given as the minimum
// of its token buckets (Le Boudec and Thiran §1.2.2, for example a peak rate
// and a sustained rate):
//
//	α(t) = min_i (Burst_i + Rate_i·t)   for t > 0,   α(0) = 0.
//
// Every concave piecewise-linear curve with α(0+) >= 0 is of this form. The
// order of the buckets does not matter and redundant ones are allowed;
// [Concave.Normalize] removes them. A Concave needs at least one bucket.
type Concave []TokenBucket

func (c Concave) check() error {
	if len(c) == 0 {
		return errors.New("netcalc: concave curve with no token bucket")
	}
	for _, tb := range c {
		if err := tb.check(); err != nil {
			return err
		}
	}
	return nil
}

func (c Concave) window(d *big.Rat) *big.Rat {
	var m *big.Rat
	for _, tb := range c {
		if v := tb.window(d); m == nil || v.Cmp(m) < 0 {
			m = v
		}
	}
	return m
}

// String returns "min(γ(r=3, b=1), γ(r=1, b=4))".
func (c Concave) String() string {
	s := "min("
	for i, tb := range c {
		if i > 0 {
			s += ", "
		}
		s += tb.String()
	}
	return s + ")"
}

// Normalize returns the buckets that form the curve's graph, ordered by
// decreasing rate (so by increasing start of the segment each one draws),
// without the ones that are nowhere the minimum for t > 0. It returns an
// error for an invalid curve.
func (c Concave) Normalize() (Concave, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	segs := envelope(c)
	out := make(Concave, len(segs))
	for i, s := range segs {
		out[i] = s.tb
	}
	return out, nil
}

// segment is one piece of a concave curve's graph: the line of tb, drawn for
// t >= x (up to the next segment's x), with value y = tb at x (at x = 0, the
// limit α(0+)).
type segment struct {
	tb   TokenBucket
	x, y *big.Rat // seconds, jobs
	b, r *big.Rat // tb's burst and rate
}

// envelope returns the segments of the lower envelope of c's lines on
// t >= 0, in order of x (and of decreasing rate). c must be valid.
//
// From t = 0 the lowest line is the one with the least burst (the least
// rate among equal bursts); after each breakpoint the next segment is the
// line of smaller rate that crosses the current one first (the least rate
// among lines crossing at the same point). O(m²) for m buckets.
func envelope(c Concave) []segment {
	lines := make([]segment, len(c))
	for i, tb := range c {
		lines[i] = segment{tb: tb, b: tb.Burst.Big(), r: tb.Rate.Big()}
	}
	cur := 0
	for i := range lines {
		if cb := lines[i].b.Cmp(lines[cur].b); cb < 0 || cb == 0 && lines[i].r.Cmp(lines[cur].r) < 0 {
			cur = i
		}
	}
	first := lines[cur]
	first.x, first.y = new(big.Rat), first.b
	out := []segment{first}
	for {
		c := lines[cur]
		next := -1
		var nx *big.Rat
		for j, l := range lines {
			if l.r.Cmp(c.r) >= 0 {
				continue
			}
			// The lines meet at x = (b_j − b_c)/(r_c − r_j); x is at or after
			// the current breakpoint because c is the lowest line there.
			x := new(big.Rat).Sub(l.b, c.b)
			x.Quo(x, new(big.Rat).Sub(c.r, l.r))
			if next < 0 || x.Cmp(nx) < 0 || x.Cmp(nx) == 0 && l.r.Cmp(lines[next].r) < 0 {
				next, nx = j, x
			}
		}
		if next < 0 {
			return out
		}
		s := lines[next]
		s.x = nx
		s.y = new(big.Rat).Mul(c.r, nx)
		s.y.Add(s.y, c.b)
		out = append(out, s)
		cur = next
	}
}

// Staircase is the arrival curve of a window limiter that admits at most
// Jobs jobs in any window of Window seconds: at most Jobs·(floor(d/W)+1)
// jobs in any closed window of d seconds. In Le Boudec and Thiran's form
// (a staircase function, §3.1):
//
//	α(t) = Jobs·ceil(t/Window)   for t > 0,   α(0) = 0.
//
// A fixed-window limiter, whose windows are aligned to the clock, does not
// satisfy this curve (it may admit 2·Jobs jobs in a window shorter than
// Window); a sliding-window limiter does.
type Staircase struct {
	Jobs   int64     // jobs per window, >= 1
	Window exact.Rat // seconds, > 0
}

func (s Staircase) check() error {
	if s.Jobs < 1 {
		return fmt.Errorf("netcalc: staircase with %d jobs per window < 1", s.Jobs)
	}
	if s.Window.Sign() <= 0 {
		return fmt.Errorf("netcalc: staircase window %v s <= 0", s.Window)
	}
	return nil
}

func (s Staircase) window(d *big.Rat) *big.Rat {
	q := new(big.Rat).Quo(d, s.Window.Big())
	k := new(big.Int).Quo(q.Num(), q.Denom()) // floor, as d >= 0
	k.Add(k, big.NewInt(1))
	k.Mul(k, big.NewInt(s.Jobs))
	return new(big.Rat).SetInt(k)
}

// String returns "stair(L=10, W=1)" with W in seconds.
func (s Staircase) String() string {
	return fmt.Sprintf("stair(L=%d, W=%v)", s.Jobs, s.Window)
}

// RateLatency is the service curve β_{R,T} (Le Boudec and Thiran §1.3.1)
// and the server [RateLatency.Serve] simulates: a fixed latency of Latency
// seconds followed by a FIFO server of Rate jobs per second.
//
//	β(t) = Rate·(t − Latency)^+
type RateLatency struct {
	Rate    exact.Rat // jobs per second, > 0
	Latency exact.Rat // seconds, >= 0
}

func (s RateLatency) check() error {
	if s.Rate.Sign() <= 0 {
		return fmt.Errorf("netcalc: service rate %v jobs/s <= 0", s.Rate)
	}
	if s.Latency.Sign() < 0 {
		return fmt.Errorf("netcalc: service latency %v s < 0", s.Latency)
	}
	return nil
}

// String returns "β(R=3, T=3)" with R in jobs/s and T in seconds.
func (s RateLatency) String() string {
	return fmt.Sprintf("β(R=%v, T=%v)", s.Rate, s.Latency)
}

// ratOf returns z as an exact.Rat, or an error wrapping exact.ErrRange.
func ratOf(z *big.Rat) (exact.Rat, error) {
	n, ok := exact.FromBig(z.Num())
	if !ok || !z.Denom().IsInt64() {
		return exact.Rat{}, fmt.Errorf("netcalc: %v does not fit exact.Rat: %w", z.RatString(), exact.ErrRange)
	}
	return exact.Frac(n, z.Denom().Int64()), nil // big.Rat is in lowest terms
}

// tokenBuckets returns the token buckets whose minimum a is, or nil for
// another kind of curve.
func tokenBuckets(a Arrival) []TokenBucket {
	switch a := a.(type) {
	case TokenBucket:
		return []TokenBucket{a}
	case Concave:
		return a
	}
	return nil
}

// LongTermRate returns lim α(d)/d of a token bucket or concave arrival
// curve, jobs/s: the least rate of its token buckets (0 for another kind
// of curve).
func LongTermRate(a Arrival) exact.Rat {
	var r exact.Rat
	for i, tb := range tokenBuckets(a) {
		if i == 0 || tb.Rate.Cmp(r) < 0 {
			r = tb.Rate
		}
	}
	return r
}

// InitialBurst returns α(0+) of a token bucket or concave arrival curve,
// jobs: the least burst of its token buckets (0 for another kind of
// curve).
func InitialBurst(a Arrival) exact.Rat {
	var b exact.Rat
	for i, tb := range tokenBuckets(a) {
		if i == 0 || tb.Burst.Cmp(b) < 0 {
			b = tb.Burst
		}
	}
	return b
}
