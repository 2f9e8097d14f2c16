package profiles

import (
	"fmt"
	"math"
	"math/big"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// ThrottledConfig describes a throttled GCRA rate limiter,
// throttled.NewGCRARateLimiterCtx(store, RateQuota{MaxRate, MaxBurst}),
// with MaxRate = PerDuration(MaxRate, Per) (PerSec when Per is 1 s).
type ThrottledConfig struct {
	MaxRate  int         // requests per Per, >= 1
	Per      engine.Time // nanoseconds, >= MaxRate (so that the emission interval is >= 1 ns)
	MaxBurst int         // requests that may exceed the rate in a burst, >= 0
}

// Throttled is the generic cell rate algorithm of
// github.com/throttled/throttled/v2, and of brandur/redis-cell, which ports
// it and keeps its convention: MaxBurst + 1 requests pass back to back.
//
// Source: github.com/throttled/throttled/v2 v2.15.0, rate.go
// (NewGCRARateLimiterCtx, RateLimitCtx) with store/memstore; redis-cell
// v0.5.0, src/cell/mod.rs (Rate::per_period, RateLimiter::rate_limit).
//
// With the emission interval T = Per / MaxRate (integer nanoseconds,
// truncated; redis-cell computes it as float64(period ns) / float64(count)
// truncated, which is the same for every period it accepts) and the delay
// variation tolerance τ = T · (MaxBurst + 1), a request at now with stored
// theoretical arrival time tat (now itself for the first request) is
//
//	newTat  = max(now, tat) + T
//	refused when now < newTat - τ, with RetryAfter = newTat - τ - now
//
// and otherwise stores newTat. Everything is integer nanoseconds
// (time.Time arithmetic; the in-memory store keeps UnixNano), so the profile
// is exact. A refused request stores nothing. Its RetryAfter is the
// library's: throttled's RateLimitResult.RetryAfter to the nanosecond;
// redis-cell's CL.THROTTLE reply in whole seconds (see [NewRedisCell]).
type Throttled struct {
	name  string
	clock clock
	t     int64 // emission interval T, ns
	tau   int64 // delay variation tolerance τ, ns
	burst int   // MaxBurst
	tat   int64
	set   bool
	// cell: redis-cell's CL.THROTTLE reply, whose retry_after is whole
	// seconds (see [NewRedisCell]).
	cell bool
}

// NewThrottled returns a throttled GCRA limiter at time 0 with an empty
// store.
func NewThrottled(c ThrottledConfig) (*Throttled, error) {
	if c.MaxRate < 1 || c.MaxBurst < 0 || c.Per < engine.Time(c.MaxRate) {
		return nil, fmt.Errorf("profiles: throttled: max_rate %d per %v s, max_burst %d: want max_rate >= 1, an interval per/max_rate >= 1 ns, max_burst >= 0", c.MaxRate, c.Per, c.MaxBurst)
	}
	return newGCRA("Throttled", int64(c.Per)/int64(c.MaxRate), c.MaxBurst)
}

// RedisCellConfig describes redis-cell's CL.THROTTLE key max_burst
// count period.
type RedisCellConfig struct {
	MaxBurst int   // >= 0
	Count    int64 // requests per Period, >= 1
	Period   int64 // seconds, >= 1
}

// NewRedisCell returns redis-cell's limiter: a [Throttled] whose emission
// interval is computed as redis-cell's Rate::per_period computes it, and
// whose refusals carry CL.THROTTLE's retry_after: whole seconds, rounded up
// when at least a millisecond remains beyond them (redis-cell v0.5.0
// src/lib.rs lines 112-115), [buckets.RetryNow] for 0.
func NewRedisCell(c RedisCellConfig) (*Throttled, error) {
	if c.Count < 1 || c.Period < 1 || c.MaxBurst < 0 || c.Period > math.MaxInt64/int64(engine.Second) {
		return nil, fmt.Errorf("profiles: redis-cell: max_burst %d, count %d, period %d s: want max_burst >= 0, count >= 1, period >= 1", c.MaxBurst, c.Count, c.Period)
	}
	ns := c.Period * int64(engine.Second)
	t := int64(float64(ns) / float64(c.Count)) // Rate::per_period: (ns as f64 / n as f64) as i64
	if t < 1 {
		return nil, fmt.Errorf("profiles: redis-cell: count %d per %d s: the emission interval truncates to 0 ns", c.Count, c.Period)
	}
	g, err := newGCRA("RedisCell", t, c.MaxBurst)
	if g != nil {
		g.cell = true
	}
	return g, err
}

// redisCellSeconds is CL.THROTTLE's retry_after for a wait of ns
// nanoseconds: whole seconds, rounded up when the wait has at least a
// whole millisecond beyond them (redis-cell v0.5.0 src/lib.rs, lines
// 112-115: `retry_after.as_seconds_f64() as i64`, plus 1 when
// `subsec_milliseconds() > 0`), so 0.9 s gives 1 s and 2.0005 s gives 2 s.
// A result of 0 s is [buckets.RetryNow].
func redisCellSeconds(ns int64) engine.Time {
	sec, sub := ns/1e9, ns%1e9
	s := int64(float64(sec) + float64(sub)/1e9) // as_seconds_f64() as i64
	if sub/1e6 > 0 {
		s++
	}
	if s == 0 {
		return buckets.RetryNow
	}
	return engine.Time(s) * engine.Second
}

func newGCRA(name string, t int64, burst int) (*Throttled, error) {
	tau, ok := mulOK(t, int64(burst)+1)
	if !ok {
		return nil, fmt.Errorf("profiles: %s: emission interval %d ns times max_burst + 1 overflows", name, t)
	}
	return &Throttled{name: name, t: t, tau: tau, burst: burst}, nil
}

// Offer decides one request arriving at t.
func (g *Throttled) Offer(t engine.Time, id int64) buckets.Decision {
	g.clock.advance(t, g.name)
	now := int64(t)
	tat := now
	if g.set {
		tat = g.tat
	}
	newTat := max(now, tat) + g.t
	allowAt := newTat - g.tau
	if diff := now - allowAt; diff < 0 {
		if g.cell {
			// src/cell/mod.rs: retry_after = -diff (increment <= τ
			// always holds here), then whole seconds (src/lib.rs).
			return buckets.Decision{Verdict: buckets.Reject, RetryAfter: redisCellSeconds(-diff)}
		}
		return rejected(engine.Time(-diff)) // throttled's RateLimitResult.RetryAfter
	}
	g.tat, g.set = newTat, true
	return admitted()
}

// Next returns engine.Forever: the GCRA never queues.
func (g *Throttled) Next() engine.Time { return engine.Forever }

// Release panics: the GCRA never queues.
func (g *Throttled) Release() buckets.Released { return noQueue(g.name) }

// Promise returns the most requests admitted in any closed window of d
// nanoseconds, MaxBurst + 1 + floor(d / T), attained from an empty store
// by a dense stream.
func (g *Throttled) Promise(d engine.Time) float64 {
	return float64(int64(g.burst) + 1 + int64(d)/g.t)
}

// RedisRateConfig describes a github.com/go-redis/redis_rate/v10 limit,
// redis_rate.Limit{Rate, Burst, Period}, used with Allow.
type RedisRateConfig struct {
	Rate   int         // requests per Period, >= 1
	Burst  int         // requests back to back, >= 0
	Period engine.Time // nanoseconds, > 0
	// Origin is the Unix time of the run's t = 0, in nanoseconds: the Lua
	// script reads Redis's TIME, so its float64 roundings depend on the
	// absolute instant.
	Origin int64
	// V9 reproduces redis_rate v9, whose script rounded: a request was
	// refused when floor((now - allowAt)/emission + 0.5) < 0, that is up to
	// half an emission interval earlier than v10 admits it.
	V9 bool
}

// RedisRate is go-redis/redis_rate's GCRA, which runs as a Lua script in
// Redis (allowN) and computes in Lua numbers, float64.
//
// Source: github.com/go-redis/redis_rate v10.0.1, lua.go (allowN; the
// script is unchanged since commit 78e4497, first released in v10.0.0;
// v9.x rounded, see V9) and
// rate.go (AllowN, which passes Burst, Rate, Period.Seconds() and the
// cost); Redis 7 script_lua.c for how a Lua number is stored (an integer
// string when integral, else the shortest string that reads back to the
// same float64, so the stored TAT round-trips exactly).
//
// The clock is Redis's TIME at microsecond resolution, turned into seconds
// since 2017-01-01 as a float64: now = (sec - 1483228800) + usec / 1e6.
// With emission = Period / Rate (float64), a request computes
//
//	tat      = max(stored tat or now, now)
//	newTat   = tat + emission
//	allowAt  = newTat - emission · Burst
//	refused when (now - allowAt) / emission < 0
//
// and, when admitted, stores newTat if newTat - now > 0 (with an expiry of
// ceil(newTat - now) seconds, after which now exceeds newTat, so the
// expiry never changes a decision). Exactly Burst requests pass back to
// back; Burst = 0 refuses everything. A refused request stores nothing.
// The profile repeats these float64 operations in this order, so its
// decisions are the script's.
type RedisRate struct {
	cfg      RedisRateConfig
	clock    clock
	emission float64
	offset   float64 // burst_offset
	tat      float64
	set      bool
}

// NewRedisRate returns a redis_rate limiter at time 0 with an empty key.
func NewRedisRate(c RedisRateConfig) (*RedisRate, error) {
	if c.Rate < 1 || c.Burst < 0 || c.Period <= 0 || c.Origin < 0 {
		return nil, fmt.Errorf("profiles: redis-rate: rate %d, burst %d, period %v s, origin %d ns: want rate >= 1, burst >= 0, period > 0, origin >= 0", c.Rate, c.Burst, c.Period, c.Origin)
	}
	period := durationSeconds(int64(c.Period)) // limit.Period.Seconds()
	emission := period / float64(c.Rate)
	return &RedisRate{
		cfg:      c,
		emission: emission,
		offset:   emission * float64(c.Burst),
	}, nil
}

// now is the script's clock at t.
func (r *RedisRate) now(t engine.Time) float64 {
	us := (r.cfg.Origin + int64(t)) / 1000
	sec, usec := us/1e6, us%1e6
	return float64(sec-1483228800) + float64(usec)/1e6
}

// decide is the script without its write: admitted, and the newTat to store.
func (r *RedisRate) decide(t engine.Time) (bool, float64, float64) {
	now := r.now(t)
	tat := now
	if r.set {
		tat = r.tat
	}
	if now > tat { // Lua 5.1 math.max(tat, now)
		tat = now
	}
	newTat := tat + r.emission // increment = emission * cost, cost 1
	allowAt := newTat - r.offset
	diff := now - allowAt
	remaining := diff / r.emission
	if r.cfg.V9 {
		remaining = math.Floor(remaining + 0.5)
	}
	return !(remaining < 0), newTat, diff
}

// Offer decides one request arriving at t.
func (r *RedisRate) Offer(t engine.Time, id int64) buckets.Decision {
	r.clock.advance(t, "RedisRate")
	ok, newTat, diff := r.decide(t)
	if !ok {
		if r.cfg.Burst == 0 {
			return rejected(0)
		}
		return rejected(firstAdmitted(t, ceilNanos(-diff), func(u engine.Time) bool {
			ok, _, _ := r.decide(u)
			return ok
		}))
	}
	if newTat-r.now(t) > 0 {
		r.tat, r.set = newTat, true
	}
	return admitted()
}

// Next returns engine.Forever: RedisRate never queues.
func (r *RedisRate) Next() engine.Time { return engine.Forever }

// Release panics: RedisRate never queues.
func (r *RedisRate) Release() buckets.Released { return noQueue("RedisRate") }

// Promise returns Burst + floor(D / emission), with D = ceil(d / 1 µs) µs
// the most the microsecond clock can advance within a window of d ns and
// emission = Period / Rate exactly: the most requests admitted in any
// closed window of d nanoseconds in exact arithmetic, attained from an
// empty key (with V9, half an interval more: floor(D / emission + 1/2)).
// The script's float64 roundings (about 1e-16 relative, on
// instants near 3e8 s since 2017) can move an admission by a few ulps.
func (r *RedisRate) Promise(d engine.Time) float64 {
	if r.cfg.Burst == 0 {
		return 0
	}
	dus := (int64(d) + 999) / 1000
	// floor(D·Rate / Period) with D in ns = dus·1000.
	x := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(dus*1000), big.NewInt(int64(r.cfg.Rate))), big.NewInt(int64(r.cfg.Period)))
	if r.cfg.V9 {
		x.Add(x, big.NewRat(1, 2)) // v9 admits up to half an emission interval early
	}
	x.Add(x, new(big.Rat).SetInt64(int64(r.cfg.Burst)))
	return floorRat(x)
}

var throttledInfo = Info{
	Name:     "throttled",
	Library:  "github.com/throttled/throttled/v2 (GCRARateLimiterCtx, memstore)",
	Versions: "v2.9.0 to v2.15.0 (read at v2.15.0; v2.9.0's RateLimit decides alike for quantity 1)",
	Doc:      "GCRA on a nanosecond clock: max_burst + 1 back to back, then one per 1/max_rate; refused requests change nothing",
	Keys: []Key{
		{Name: "max_rate", Default: "10", Unit: "requests per per", Doc: "RateQuota.MaxRate: PerSec(n) with per=1s, PerMin with per=1m, PerDuration(n, per) otherwise"},
		{Name: "per", Default: "1s", Unit: "duration", Doc: "the period of max_rate"},
		{Name: "max_burst", Default: "0", Unit: "requests", Doc: "RateQuota.MaxBurst, >= 0; max_burst + 1 pass back to back"},
	},
	build: func(a *args) (func() buckets.Limiter, error) {
		c := ThrottledConfig{
			MaxRate:  int(a.int("max_rate", 1, math.MaxInt32)),
			Per:      a.duration("per", 1, engine.Forever, false),
			MaxBurst: int(a.int("max_burst", 0, math.MaxInt32)),
		}
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewThrottled(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewThrottled(c); return l }, nil
	},
}

var redisCellInfo = Info{
	Name:     "redis-cell",
	Library:  "brandur/redis-cell (CL.THROTTLE key max_burst count period)",
	Versions: "v0.5.0 (read there; older releases not checked)",
	Doc:      "throttled's GCRA in a Redis module: max_burst + 1 back to back, then count per period",
	Keys: []Key{
		{Name: "max_burst", Default: "0", Unit: "requests", Doc: "CL.THROTTLE max_burst, >= 0; max_burst + 1 pass back to back"},
		{Name: "count", Default: "10", Unit: "requests per period", Doc: "CL.THROTTLE count per period, >= 1"},
		{Name: "period", Default: "1", Unit: "seconds", Doc: "CL.THROTTLE period, whole seconds >= 1"},
	},
	build: func(a *args) (func() buckets.Limiter, error) {
		c := RedisCellConfig{
			MaxBurst: int(a.int("max_burst", 0, math.MaxInt32)),
			Count:    a.int("count", 1, math.MaxInt64),
			Period:   a.int("period", 1, math.MaxInt64/int64(engine.Second)),
		}
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewRedisCell(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewRedisCell(c); return l }, nil
	},
}

var redisRateInfo = Info{
	Name:     "redis-rate",
	Library:  "github.com/go-redis/redis_rate/v10 (Limiter.Allow, Lua GCRA in Redis)",
	Versions: "v10.0.0 to v10.0.1 (version=v9 for v9.x's rounded comparison)",
	Doc:      "GCRA in Lua float64 on Redis's microsecond TIME: exactly burst back to back; refused requests change nothing",
	Keys: []Key{
		{Name: "rate", Default: "10", Unit: "requests per period", Doc: "Limit.Rate, integer >= 1"},
		{Name: "burst", Default: "10", Unit: "requests", Doc: "Limit.Burst, >= 0 (PerSecond(n) sets burst = n)"},
		{Name: "period", Default: "1s", Unit: "duration", Doc: "Limit.Period"},
		{Name: "origin", Default: "1767225600", Unit: "Unix seconds", Doc: "Redis TIME at the run's t = 0 (default 2026-01-01T00:00:00Z); the script's float64 roundings depend on it"},
		{Name: "version", Default: "v10", Unit: "v10|v9", Doc: "redis_rate major version"},
	},
	build: func(a *args) (func() buckets.Limiter, error) {
		c := RedisRateConfig{
			Rate:   int(a.int("rate", 1, math.MaxInt32)),
			Burst:  int(a.int("burst", 0, math.MaxInt32)),
			Period: a.duration("period", 1, engine.Forever, false),
			Origin: int64(a.seconds("origin")),
			V9:     a.choice("version", "v10", "v9") == "v9",
		}
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewRedisRate(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewRedisRate(c); return l }, nil
	},
}
