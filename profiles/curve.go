package profiles

import (
	"math"
	"math/big"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// A Curver is a profile that states an exact arrival curve: a token bucket
// γ(r, b) (or, for the RFC 2698 marker rejecting yellow, the minimum of
// two) lying on or above its Promise at every window length, so that
// network-calculus bounds computed from it (netcalc.Delay, netcalc.Backlog)
// hold for everything the library lets pass. Its rate is the library's
// long-term rate exactly; its burst is the least b that covers the
// library's staircase, including its clock's rounding (a millisecond clock
// adds rate·1 ms, a truncated wait rate·1 ns), so that b is attained just
// after t = 0 wherever the Promise is (h(α, β) = T + b/R is then the same
// bound the staircase gives). ArrivalCurve returns false where the library
// keeps no finite bound (an infinite rate, red admitted, a Guava interval
// of 2 µs or less).
type Curver interface {
	ArrivalCurve() (netcalc.Arrival, bool)
}

// ArrivalCurve returns the exact arrival curve of profile p (see
// [Curver]), and false when p keeps none.
func ArrivalCurve(p Profile) (netcalc.Arrival, bool) {
	c, ok := p.New().(Curver)
	if !ok {
		return nil, false
	}
	return c.ArrivalCurve()
}

// ratUp returns z as an exact.Rat, rounded up to a multiple of 2^-62 when
// its denominator does not fit (a float64 rate with a tiny exponent), and
// false when it does not fit at all.
func ratUp(z *big.Rat) (exact.Rat, bool) {
	if !z.Denom().IsInt64() {
		q := new(big.Int).Lsh(z.Num(), 62)
		q, m := q.QuoRem(q, z.Denom(), new(big.Int))
		if m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		z = new(big.Rat).SetFrac(q, new(big.Int).Lsh(big.NewInt(1), 62))
	}
	n, ok := exact.FromBig(z.Num())
	if !ok {
		return exact.Rat{}, false
	}
	return exact.Frac(n, z.Denom().Int64()), true
}

// bucketOf returns γ(rate, burst) from big rationals.
func bucketOf(rate, burst *big.Rat) (netcalc.Arrival, bool) {
	r, ok1 := ratUp(rate)
	b, ok2 := ratUp(burst)
	if !ok1 || !ok2 {
		return nil, false
	}
	return netcalc.TokenBucket{Rate: r, Burst: b}, true
}

// frac returns n/d as a big.Rat.
func frac(n, d int64) *big.Rat { return big.NewRat(n, d) }

// add returns the sum of xs.
func add(xs ...*big.Rat) *big.Rat {
	z := new(big.Rat)
	for _, x := range xs {
		z.Add(z, x)
	}
	return z
}

// mul returns x·y.
func mul(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }

// perNs is one nanosecond in seconds.
var perNs = frac(1, int64(engine.Second))

// ArrivalCurve returns γ(limit, burst + limit·1 ns): the Promise's
// burst + floor(limit·(d + 1 ns)) without the floor, limit the float64
// taken exactly. A zero limit gives γ(0, burst) where the Promise is
// finite; XRateInf and a zero limit whose jobs are all released after
// rate.InfDuration give false.
func (x *XRate) ArrivalCurve() (netcalc.Arrival, bool) {
	if math.IsInf(x.Promise(0), 1) {
		return nil, false
	}
	if x.cfg.Burst == 0 {
		return bucketOf(new(big.Rat), new(big.Rat))
	}
	r := new(big.Rat).SetFloat64(x.cfg.Limit)
	return bucketOf(r, add(frac(int64(x.cfg.Burst), 1), mul(r, perNs)))
}

// ArrivalCurve returns γ(1/T, max_burst + 1), T the emission interval in
// nanoseconds: the Promise max_burst + 1 + floor(d/T) without the floor.
func (g *Throttled) ArrivalCurve() (netcalc.Arrival, bool) {
	return bucketOf(frac(int64(engine.Second), g.t), frac(int64(g.burst)+1, 1))
}

// ArrivalCurve returns γ(rate/period, burst + rate·1 µs/period) (plus 1/2
// with V9): the Promise with the microsecond clock's rounding D <= d + 1 µs.
// A zero burst, which admits nothing, gives γ(0, 0).
func (r *RedisRate) ArrivalCurve() (netcalc.Arrival, bool) {
	if r.cfg.Burst == 0 {
		return bucketOf(new(big.Rat), new(big.Rat))
	}
	rate := frac(int64(r.cfg.Rate)*int64(engine.Second), int64(r.cfg.Period))
	b := add(frac(int64(r.cfg.Burst), 1), mul(rate, frac(1, 1e6)))
	if r.cfg.V9 {
		b.Add(b, frac(1, 2))
	}
	return bucketOf(rate, b)
}

// ArrivalCurve returns γ(1/perRequest, slack + 1): the Promise slack + 1 +
// floor(d/perRequest) without the floor; false when perRequest truncates
// to 0.
func (u *Uber) ArrivalCurve() (netcalc.Arrival, bool) {
	if u.perRequest == 0 {
		return nil, false
	}
	return bucketOf(frac(int64(engine.Second), u.perRequest), frac(int64(u.cfg.Slack)+1, 1))
}

// ArrivalCurve returns γ(p/fill_interval, max_tokens + p), p =
// min(tokens_per_fill, max_tokens): the staircase max_tokens +
// p·ceil(d/fill_interval), whose first step (a window just across a fill)
// already holds max_tokens + p.
func (e *EnvoyLegacy) ArrivalCurve() (netcalc.Arrival, bool) {
	p := int64(min(e.cfg.TokensPerFill, e.cfg.MaxTokens))
	return bucketOf(frac(p*int64(engine.Second), int64(e.cfg.FillInterval)), frac(int64(e.cfg.MaxTokens)+p, 1))
}

// ArrivalCurve returns γ(fill_rate, max_tokens), fill_rate the float64
// Envoy computes, taken exactly (rounded up to a multiple of 2^-62 when it
// does not fit): the Promise without the floor.
func (e *EnvoyAtomic) ArrivalCurve() (netcalc.Arrival, bool) {
	return bucketOf(new(big.Rat).SetFloat64(e.fillRate), frac(int64(e.cfg.MaxTokens), 1))
}

// ArrivalCurve returns γ(1e6/(s - c), k + 1 + 2/(s - c)) with s the stable
// interval in µs and c = 1 (SmoothBursty, k = ceil(maxPermits)) or 2
// (SmoothWarmingUp, k = 0): the Promise with D <= d/1 µs + 2. False where
// the Promise is infinite (s <= c).
func (g *Guava) ArrivalCurve() (netcalc.Arrival, bool) {
	c := 1.0
	if g.warm {
		c = 2.0
	}
	if !(g.stable > c) {
		return nil, false
	}
	den := new(big.Rat).SetFloat64(g.stable)
	den.Sub(den, new(big.Rat).SetFloat64(c))
	b := add(frac(1, 1), new(big.Rat).Quo(frac(2, 1), den))
	if !g.warm {
		b.Add(b, frac(int64(math.Ceil(g.maxPermits)), 1))
	}
	return bucketOf(new(big.Rat).Quo(frac(1e6, 1), den), b)
}

// ArrivalCurve returns γ(rate, 1 + burst + rate·1 ms) when no request can
// be delayed, γ(rate, delay + 1 + rate·1 ms) otherwise, rate in requests
// per second as nginx stores it (thousandths): the Promise with the
// millisecond clock's rounding and its ceiling bounded by one request.
func (n *Nginx) ArrivalCurve() (netcalc.Arrival, bool) {
	rate := frac(n.cfg.Rate, 1000)
	b := frac(n.cfg.Delay+1, 1)
	if n.delay >= n.burst {
		b = frac(n.cfg.Burst+1, 1)
	}
	return bucketOf(rate, add(b, mul(rate, frac(1, 1000))))
}

// ArrivalCurve returns γ(k/P, C + c) with k refill tokens per period P,
// C = max(capacity, initial_tokens) and, for the meter's tick u (1 ns or
// 1 ms) and one more for a blocking call, c = 1 + k·(ticks)/P (greedy,
// whose ceiling adds less than one token) or k·(1 + ticks/P) (interval,
// a window across a refill getting a whole one): the Promise with D <= d
// + ticks.
func (b *Bucket4j) ArrivalCurve() (netcalc.Arrival, bool) {
	c := b.cfg
	tick := int64(1)
	if !c.Nanos {
		tick = int64(engine.Millisecond)
	}
	if c.Block {
		tick *= 2
	}
	k, p := c.RefillTokens, int64(c.RefillPeriod)
	rate := frac(k*int64(engine.Second), p)
	extra := mul(frac(k, 1), frac(tick, p))
	if c.Intervally {
		extra.Add(extra, frac(k, 1))
	} else {
		extra.Add(extra, frac(1, 1))
	}
	return bucketOf(rate, add(frac(max(c.Capacity, c.InitialTokens), 1), extra))
}

// ArrivalCurve returns γ(CIR/size, (CBS + EBS + 1)/size) when yellow is
// admitted and γ(CIR/size, (CBS + 1)/size) when only green is (the byte
// increments round up by less than one byte), and false when red is
// admitted.
func (m *SrTCM) ArrivalCurve() (netcalc.Arrival, bool) {
	if m.cfg.Map.Red == buckets.Admit {
		return nil, false
	}
	b := m.cfg.CBS + 1
	if m.cfg.Map.Yellow == buckets.Admit {
		b += m.cfg.EBS
	}
	size := frac(m.cfg.Size, 1)
	rate := new(big.Rat).Quo(m.cfg.CIR.Big(), size)
	return bucketOf(rate, frac(b, m.cfg.Size))
}

// ArrivalCurve returns γ(PIR/size, (PBS + 1)/size), and the minimum of it
// and γ(CIR/size, (CBS + 1)/size) when yellow is rejected; false when red
// is admitted.
func (m *TrTCM) ArrivalCurve() (netcalc.Arrival, bool) {
	if m.cfg.Map.Red == buckets.Admit {
		return nil, false
	}
	size := frac(m.cfg.Size, 1)
	p, ok := bucketOf(new(big.Rat).Quo(m.cfg.PIR.Big(), size), frac(m.cfg.PBS+1, m.cfg.Size))
	if !ok || m.cfg.Map.Yellow == buckets.Admit {
		return p, ok
	}
	c, ok := bucketOf(new(big.Rat).Quo(m.cfg.CIR.Big(), size), frac(m.cfg.CBS+1, m.cfg.Size))
	if !ok {
		return nil, false
	}
	return netcalc.Concave{p.(netcalc.TokenBucket), c.(netcalc.TokenBucket)}, true
}
