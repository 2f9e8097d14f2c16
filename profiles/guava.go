package profiles

import (
	"fmt"
	"math"
	"math/big"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// GuavaCall is the Guava RateLimiter method a job calls.
type GuavaCall uint8

const (
	// GuavaAcquire is acquire(): reserve and sleep; never refuses.
	GuavaAcquire GuavaCall = iota
	// GuavaTryAcquire is tryAcquire(Timeout): refuse at once when the
	// next free ticket is later than now + Timeout, else reserve and
	// sleep.
	GuavaTryAcquire
)

// GuavaConfig describes a com.google.common.util.concurrent.RateLimiter:
// RateLimiter.create(PermitsPerSecond) (SmoothBursty), or, with a positive
// WarmupPeriod, RateLimiter.create(PermitsPerSecond, WarmupPeriod)
// (SmoothWarmingUp, cold factor 3).
type GuavaConfig struct {
	PermitsPerSecond float64     // > 0, finite
	WarmupPeriod     engine.Time // nanoseconds; 0 for SmoothBursty, > 0 (at least 1 µs) for SmoothWarmingUp
	Call             GuavaCall
	Timeout          engine.Time // tryAcquire's timeout, nanoseconds >= 0
}

// Guava is Guava's RateLimiter, SmoothBursty or SmoothWarmingUp, created at
// the run's t = 0 and called with acquire() or tryAcquire(timeout).
//
// Source: google/guava at commit 07212fe (2025; Guava 33.x),
// guava/src/com/google/common/util/concurrent/SmoothRateLimiter.java
// (resync, reserveEarliestAvailable, SmoothBursty, SmoothWarmingUp) and
// RateLimiter.java (acquire, tryAcquire, canAcquire, SleepingStopwatch).
// Older releases share this arithmetic for many years (the cold factor 3
// was once hard-coded, with the same result), but only this source was
// read; RateLimiterTest's scenarios at the same commit are the hand tests.
//
// # Clock and state
//
// The clock is a Stopwatch started at creation read in whole microseconds
// (elapsed nanoseconds / 1000, truncated): nowMicros = floor(t / 1 µs).
// The state is storedPermits (double), nextFreeTicketMicros (long) and,
// fixed at creation, stableIntervalMicros = 1e6 / PermitsPerSecond
// (double) and maxPermits. A request
//
//  1. resyncs: when nowMicros > nextFree, storedPermits = min(maxPermits,
//     storedPermits + (nowMicros - nextFree) / coolDownIntervalMicros) and
//     nextFree = nowMicros;
//  2. is granted at the old nextFree (so it waits max(nextFree - now, 0)
//     µs) and pays for itself by moving nextFree on: it spends min(1,
//     storedPermits) stored permits, whose cost is 0 for SmoothBursty and
//     the integral of the warm-up line for SmoothWarmingUp, plus
//     (long)(fresh · stableIntervalMicros) for the rest.
//
// A request therefore pays the previous one's cost, and the first request
// is free. Java's double arithmetic and (long) casts (truncation, NaN to 0,
// saturation) are repeated in the same order, so decisions and waits equal
// the library's. The wait of a Delay is the sleep, microsToWait µs, from the
// call.
//
// # SmoothBursty
//
// maxPermits = 1.0 · PermitsPerSecond (maxBurstSeconds is 1 s in
// RateLimiter.create), storedPermits starts at 0 (empty), and stored
// permits cost nothing: after an idle second, PermitsPerSecond + 1
// requests pass at once.
//
// # SmoothWarmingUp
//
// With the cold factor 3, coldInterval = 3 · stableInterval,
// thresholdPermits = 0.5 · warmup / stableInterval, maxPermits =
// thresholdPermits + 2 · warmup / (stableInterval + coldInterval), and
// storedPermits starts at maxPermits (cold). Permits above the threshold
// cost from stableInterval up to coldInterval each, so a cold limiter
// starts at a third of its rate and reaches the stable rate after the
// warm-up period of saturated demand; idle time refills at maxPermits per
// warm-up period. A warm-up period under 1 µs is refused: Guava accepts
// it, truncates it to 0 µs and then divides 0 by 0, so that every request
// after the first resync is free (google/guava issues #2730 and #6475).
//
// tryAcquire refuses without changing the state (canAcquire reads
// nextFree without resyncing). It returns a boolean and no hint, so a
// refusal's RetryAfter is 0 (none); the first nanosecond at which
// nowMicros >= nextFree - timeout is [Guava.FirstAdmitted].
type Guava struct {
	cfg        GuavaConfig
	clock      clock
	warm       bool
	stable     float64 // stableIntervalMicros
	maxPermits float64
	threshold  float64
	slope      float64
	warmup     int64 // warmupPeriodMicros
	coolDown   float64
	timeout    int64 // µs
	stored     float64
	nextFree   int64
	name       string
}

// NewGuava returns a Guava RateLimiter created at time 0.
func NewGuava(c GuavaConfig) (*Guava, error) {
	if !(c.PermitsPerSecond > 0) || math.IsInf(c.PermitsPerSecond, 0) {
		return nil, fmt.Errorf("profiles: guava: permits_per_second %g: want a finite number > 0", c.PermitsPerSecond)
	}
	if c.WarmupPeriod < 0 || c.Timeout < 0 || c.Call > GuavaTryAcquire {
		return nil, fmt.Errorf("profiles: guava: warmup_period %v s, timeout %v s: want >= 0", c.WarmupPeriod, c.Timeout)
	}
	g := &Guava{cfg: c, name: "GuavaBursty", timeout: int64(c.Timeout) / 1000}
	// RateLimiter.setRate -> SmoothRateLimiter.doSetRate(permitsPerSecond, nowMicros = 0):
	// resync(0) does nothing (nextFree is 0).
	g.stable = 1e6 / c.PermitsPerSecond // SECONDS.toMicros(1L) / permitsPerSecond
	if c.WarmupPeriod == 0 {
		g.maxPermits = 1.0 * c.PermitsPerSecond
		g.coolDown = g.stable
		g.stored = 0 // oldMaxPermits == 0.0: initial state
		return g, nil
	}
	// create(permitsPerSecond, Duration) -> toNanosSaturated -> NANOSECONDS.toMicros.
	g.warmup = int64(c.WarmupPeriod) / 1000
	if g.warmup == 0 {
		return nil, fmt.Errorf("profiles: guava-warmup: warmup_period %v s truncates to 0 µs; Guava then divides 0 by 0", c.WarmupPeriod)
	}
	g.warm, g.name = true, "GuavaWarmup"
	w := float64(g.warmup)
	cold := g.stable * 3.0
	g.threshold = 0.5 * w / g.stable
	g.maxPermits = g.threshold + 2.0*w/(g.stable+cold)
	g.slope = (cold - g.stable) / (g.maxPermits - g.threshold)
	g.stored = g.maxPermits // oldMaxPermits == 0.0: initial state is cold
	g.coolDown = w / g.maxPermits
	return g, nil
}

// StoredPermits returns the stored permits, as the library keeps them.
func (g *Guava) StoredPermits() float64 { return g.stored }

// Offer decides one call arriving at t.
func (g *Guava) Offer(t engine.Time, id int64) buckets.Decision {
	g.clock.advance(t, g.name)
	now := int64(t) / 1000
	if g.cfg.Call == GuavaTryAcquire && !(g.nextFree-g.timeout <= now) { // canAcquire
		return rejected(0) // tryAcquire's false carries no hint
	}
	// reserveAndGetWaitLength(1, now) -> reserveEarliestAvailable.
	if now > g.nextFree { // resync
		newPermits := float64(now-g.nextFree) / g.coolDown
		g.stored = math.Min(g.maxPermits, g.stored+newPermits)
		g.nextFree = now
	}
	returnValue := g.nextFree
	spend := math.Min(1, g.stored)
	fresh := 1 - spend
	waitMicros := g.storedToWait(g.stored, spend) + javaLong(float64(fresh*g.stable))
	g.nextFree = saturatedAdd(g.nextFree, waitMicros)
	g.stored -= spend
	wait, ok := mulOK(max(returnValue-now, 0), 1000)
	if !ok {
		wait = math.MaxInt64
	}
	return delayed(wait)
}

// FirstAdmitted returns how long after t a tryAcquire refused at t would
// succeed with nothing offered in between, the first nanosecond at which
// nowMicros >= nextFree - timeout; 0 when it would succeed at t. The
// library does not tell its caller this (see [Guava]).
func (g *Guava) FirstAdmitted(t engine.Time) engine.Time {
	at := (g.nextFree - g.timeout) * 1000
	return max(0, engine.Time(at-int64(t)))
}

// storedToWait is storedPermitsToWaitTime: 0 for SmoothBursty, the
// integral of the warm-up function for SmoothWarmingUp.
func (g *Guava) storedToWait(stored, take float64) int64 {
	if !g.warm {
		return 0
	}
	above := stored - g.threshold
	var micros int64
	if above > 0.0 {
		aboveTake := math.Min(above, take)
		length := g.permitsToTime(above) + g.permitsToTime(above-aboveTake)
		micros = javaLong(float64(aboveTake*length) / 2.0)
		take -= aboveTake
	}
	micros += javaLong(float64(g.stable * take))
	return micros
}

func (g *Guava) permitsToTime(permits float64) float64 {
	return g.stable + float64(permits*g.slope)
}

// javaLong is Java's (long) cast of a double: truncation toward zero, NaN
// to 0, saturation at the long range.
func javaLong(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 0x1p63:
		return math.MaxInt64
	case x <= -0x1p63:
		return math.MinInt64
	}
	return int64(x)
}

// saturatedAdd is Guava's LongMath.saturatedAdd.
func saturatedAdd(a, b int64) int64 {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		if a > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// Next returns engine.Forever: Guava never queues.
func (g *Guava) Next() engine.Time { return engine.Forever }

// Release panics: Guava never queues.
func (g *Guava) Release() buckets.Released { return noQueue(g.name) }

// Promise bounds the calls that return (acquire, or tryAcquire granted) in
// any closed window of d nanoseconds. With D = ceil(d / 1 µs) + 1, the most
// the microsecond clock and a sleep's truncation can stretch the window,
// and s = stableIntervalMicros:
//
//	SmoothBursty:     ceil(maxPermits) + 1 + floor(D / (s - 1))
//	SmoothWarmingUp:  1 + floor(D / (s - 2))
//
// Each grant moves nextFreeTicket on by its cost, at least s - 1 µs per
// permit for fresh permits ((long) truncates) and s - 2 µs for warm-up
// permits (two truncations), and SmoothBursty's stored permits, at most
// maxPermits, are free. The SmoothBursty bound is attained within one call
// after an idle second; SmoothWarmingUp, which starts cold at a third of
// its rate, stays well below its bound until it is warm.
// It is +Inf when s <= 2 µs (more than 500000 permits per second).
func (g *Guava) Promise(d engine.Time) float64 {
	slack := 1.0
	if g.warm {
		slack = 2.0
	}
	if !(g.stable > slack) {
		return math.Inf(1)
	}
	dus := (int64(d)+999)/1000 + 1
	den := new(big.Rat).SetFloat64(g.stable)
	den.Sub(den, new(big.Rat).SetFloat64(slack))
	x := new(big.Rat).SetInt64(dus)
	x.Quo(x, den)
	n := floorRat(x) + 1
	if !g.warm {
		n += math.Ceil(g.maxPermits)
	}
	return n
}

var guavaBurstyInfo = Info{
	Name:     "guava-bursty",
	Library:  "Guava RateLimiter.create(permitsPerSecond) (SmoothBursty), acquire() or tryAcquire(timeout)",
	Versions: "Guava 33.x (read at commit 07212fe; older releases not checked)",
	Doc:      "microsecond clock, starts empty, stores up to 1 s of permits, first request free, each request pays for the previous one",
	Keys: []Key{
		{Name: "permits_per_second", Default: "10", Unit: "permits/s", Doc: "the stable rate, > 0"},
		{Name: "call", Default: "acquire", Unit: "acquire|try_acquire", Doc: "acquire() sleeps (Delay); tryAcquire(timeout) refuses when the wait would exceed timeout"},
		{Name: "timeout", Default: "0s", Unit: "duration", Doc: "tryAcquire's timeout, truncated to whole µs"},
	},
	build: func(a *args) (func() buckets.Limiter, error) { return buildGuava(a, false) },
}

var guavaWarmupInfo = Info{
	Name:     "guava-warmup",
	Library:  "Guava RateLimiter.create(permitsPerSecond, warmupPeriod) (SmoothWarmingUp, cold factor 3)",
	Versions: "Guava 33.x (read at commit 07212fe; older releases not checked)",
	Doc:      "microsecond clock, starts cold (maxPermits stored), stored permits cost up to 3x the stable interval",
	Keys: []Key{
		{Name: "permits_per_second", Default: "10", Unit: "permits/s", Doc: "the stable rate, > 0"},
		{Name: "warmup_period", Default: "1s", Unit: "duration", Doc: "time from cold to the stable rate under saturated demand, >= 1 µs"},
		{Name: "call", Default: "acquire", Unit: "acquire|try_acquire", Doc: "acquire() sleeps (Delay); tryAcquire(timeout) refuses when the wait would exceed timeout"},
		{Name: "timeout", Default: "0s", Unit: "duration", Doc: "tryAcquire's timeout, truncated to whole µs"},
	},
	build: func(a *args) (func() buckets.Limiter, error) { return buildGuava(a, true) },
}

func buildGuava(a *args, warm bool) (func() buckets.Limiter, error) {
	c := GuavaConfig{PermitsPerSecond: a.float("permits_per_second", 0, true)}
	if warm {
		c.WarmupPeriod = a.duration("warmup_period", engine.Microsecond, engine.Forever, false)
	}
	if a.choice("call", "acquire", "try_acquire") == "try_acquire" {
		c.Call = GuavaTryAcquire
	}
	c.Timeout = a.duration("timeout", 0, engine.Forever, false)
	if a.changed("timeout") && c.Call != GuavaTryAcquire {
		a.failf("timeout applies to call=try_acquire only")
	}
	if a.err != nil {
		return nil, a.err
	}
	if _, err := NewGuava(c); err != nil {
		return nil, err
	}
	return func() buckets.Limiter { l, _ := NewGuava(c); return l }, nil
}
