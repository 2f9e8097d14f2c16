package profiles

import (
	"fmt"
	"math"
	"math/big"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// Bucket4jConfig describes a local Bucket4j bucket with one limit,
// Bucket.builder().addLimit(limit -> limit.capacity(Capacity)
// .refillGreedy(RefillTokens, RefillPeriod).initialTokens(InitialTokens))
// (refillIntervally when Intervally is set), built with the builder's
// default time meter or withNanosecondPrecision().
type Bucket4jConfig struct {
	Capacity      int64       // tokens, >= 1
	RefillTokens  int64       // tokens per RefillPeriod, 1 to RefillPeriod in ns
	RefillPeriod  engine.Time // nanoseconds, >= 1
	InitialTokens int64       // tokens at creation, >= 0; the library's default is Capacity
	Intervally    bool        // refillIntervally instead of refillGreedy
	// Nanos selects TimeMeter.SYSTEM_NANOTIME (withNanosecondPrecision);
	// the default meter is SYSTEM_MILLISECONDS, a millisecond clock.
	Nanos bool
	// Block calls asBlocking().tryConsume(1, MaxWait) (consume(1) when
	// MaxWait is engine.Forever) instead of tryConsume(1): the job is
	// delayed by the library's sleep rather than refused.
	Block   bool
	MaxWait engine.Time // nanoseconds >= 0; used with Block
}

// Bucket4j is a local Bucket4j bucket (LockFreeBucket over
// BucketState64BitsInteger, the default integer math) with one bandwidth,
// greedy or interval refill.
//
// Source: bucket4j 8.19.0 (commit 731354a7),
// bucket4j-core/src/main/java/io/github/bucket4j/BucketState64BitsInteger.java
// (refill, calculateDelayNanosAfterWillBePossibleToConsume*),
// local/LockFreeBucket.java (tryConsumeImpl,
// reserveAndCalculateTimeToSleepImpl), TimeMeter.java,
// local/LocalBucketBuilder.java (default meter SYSTEM_MILLISECONDS) and
// BandwidthBuilder.java (validation). The builder API dates from 8.5.0;
// the refill arithmetic of BucketState64BitsInteger was last changed in
// 2018 (git log of the function), so earlier releases configured through
// Bandwidth.classic decide alike, but only 8.19.0 was read.
//
// # Clock
//
// The default time meter is System.currentTimeMillis() · 1e6: nanoseconds
// on a millisecond grid, here floor(t / 1 ms) · 1 ms, aligned with the
// run's origin. With Nanos the clock is t. The bucket is created at t = 0
// with InitialTokens tokens (full by default) and lastRefill = 0.
//
// # Refill
//
// Tokens are a long. Greedy refill adds, on each request, the whole
// periods elapsed times RefillTokens and then floor((RefillTokens ·
// remainder + roundingError) / RefillPeriod), carrying the remainder of that
// division as roundingError, so no fraction of a token is lost while the
// bucket is not full; reaching Capacity resets the carried remainder to 0.
// Interval refill moves lastRefill to the last whole period boundary and
// adds RefillTokens per whole period, a staircase. A request that finds
// the bucket at or above Capacity still moves lastRefill to now.
//
// # Requests
//
// tryConsume(1) refills a copy of the state, refuses when fewer than 1
// token remains and otherwise consumes one; a refusal discards the copy, so
// the state is unchanged. The blocking call consumes one token even when
// the bucket is empty (the count goes negative) and sleeps the library's
// computed delay from the call, unless that delay exceeds MaxWait, which
// refuses without change. Delays are whole nanoseconds computed from the
// meter's clock (greedy: (deficit · RefillPeriod - roundingError) /
// RefillTokens, truncated).
type Bucket4j struct {
	cfg   Bucket4jConfig
	clock clock
	st    b4jState
	name  string
}

// b4jState is the BucketState64BitsInteger of one bandwidth.
type b4jState struct {
	last, size, err int64
}

// NewBucket4j returns a Bucket4j bucket created at time 0.
func NewBucket4j(c Bucket4jConfig) (*Bucket4j, error) {
	switch {
	case c.Capacity < 1:
		return nil, fmt.Errorf("profiles: bucket4j: capacity %d: want >= 1", c.Capacity)
	case c.RefillPeriod < 1:
		return nil, fmt.Errorf("profiles: bucket4j: refill_period %v s: want > 0", c.RefillPeriod)
	case c.RefillTokens < 1 || c.RefillTokens > int64(c.RefillPeriod):
		return nil, fmt.Errorf("profiles: bucket4j: refill_tokens %d: want 1 to %d, one per nanosecond of refill_period at most", c.RefillTokens, int64(c.RefillPeriod))
	case c.InitialTokens < 0:
		return nil, fmt.Errorf("profiles: bucket4j: initial_tokens %d: want >= 0", c.InitialTokens)
	case c.MaxWait < 0:
		return nil, fmt.Errorf("profiles: bucket4j: max_wait %v s: want >= 0", c.MaxWait)
	}
	name := "Bucket4jGreedy"
	if c.Intervally {
		name = "Bucket4jInterval"
	}
	return &Bucket4j{cfg: c, name: name, st: b4jState{size: c.InitialTokens}}, nil
}

// Tokens returns the bucket's token count, as the library stores it.
func (b *Bucket4j) Tokens() int64 { return b.st.size }

// now is the time meter's reading at t, in nanoseconds.
func (b *Bucket4j) now(t engine.Time) int64 {
	if b.cfg.Nanos {
		return int64(t)
	}
	return int64(t) / 1e6 * 1e6
}

// refill is BucketState64BitsInteger.refill for one bandwidth.
func (s *b4jState) refill(c *Bucket4jConfig, now int64) {
	prev := s.last
	if now <= prev {
		return
	}
	period, tokens, capacity := int64(c.RefillPeriod), c.RefillTokens, c.Capacity
	if c.Intervally {
		now -= (now - prev) % period
	}
	if now <= prev {
		return
	}
	s.last = now
	size := s.size
	if size >= capacity {
		return
	}
	dur := now - prev
	newSize := size
	if dur > period {
		newSize += dur / period * tokens // Java long arithmetic wraps as Go's does
		if newSize > capacity || newSize < size {
			s.size, s.err = capacity, 0
			return
		}
		dur %= period
	}
	roundingError := s.err
	without := mulExactOrMax(tokens, dur)
	divided := without + roundingError
	if divided < 0 || without == math.MaxInt64 {
		newSize += javaLong(float64(float64(dur)/float64(period)) * float64(tokens))
		roundingError = 0
	} else {
		calc := divided / period
		if calc == 0 {
			roundingError = divided
		} else {
			newSize += calc
			roundingError = divided % period
		}
	}
	if newSize >= capacity || newSize < size {
		s.size, s.err = capacity, 0
		return
	}
	s.size, s.err = newSize, roundingError
}

// delay is calculateDelayNanosAfterWillBePossibleToConsume(1, now, false).
func (s *b4jState) delay(c *Bucket4jConfig, now int64) int64 {
	if 1 <= s.size {
		return 0
	}
	deficit := 1 - s.size
	if deficit <= 0 {
		return math.MaxInt64
	}
	period, tokens := int64(c.RefillPeriod), c.RefillTokens
	if !c.Intervally {
		divided := mulExactOrMax(period, deficit)
		if divided == math.MaxInt64 {
			return javaLong(float64(float64(deficit)/float64(tokens)) * float64(period))
		}
		return (divided - s.err) / tokens
	}
	waitNext := s.last + period - now
	if deficit <= tokens {
		return waitNext
	}
	deficit -= tokens
	if deficit < tokens {
		return waitNext + period
	}
	periods := deficit / tokens
	if deficit%tokens != 0 {
		periods++
	}
	nanos := mulExactOrMax(periods, period)
	if nanos == math.MaxInt64 {
		return math.MaxInt64
	}
	nanos += waitNext
	if nanos < 0 {
		return math.MaxInt64
	}
	return nanos
}

// mulExactOrMax is Bucket4j's multiplyExactOrReturnMaxValue.
func mulExactOrMax(a, b int64) int64 {
	r := a * b
	if a != 0 && (r/a != b || (a == -1 && b == math.MinInt64)) {
		return math.MaxInt64
	}
	return r
}

// decide returns the decision at t and the state to store when the job is
// not refused.
func (b *Bucket4j) decide(t engine.Time) (buckets.Decision, b4jState, int64) {
	now := b.now(t)
	st := b.st
	st.refill(&b.cfg, now)
	if !b.cfg.Block {
		if 1 > st.size {
			return rejected(0), st, st.delay(&b.cfg, now)
		}
		st.size--
		return admitted(), st, 0
	}
	d := st.delay(&b.cfg, now)
	if d == 0 {
		st.size--
		return admitted(), st, 0
	}
	if d == math.MaxInt64 || d > int64(b.cfg.MaxWait) {
		return rejected(0), st, d
	}
	st.size--
	return delayed(d), st, d
}

// Offer decides one request arriving at t.
func (b *Bucket4j) Offer(t engine.Time, id int64) buckets.Decision {
	b.clock.advance(t, b.name)
	dec, st, d := b.decide(t)
	if dec.Verdict == buckets.Reject {
		guess := engine.Time(d)
		if b.cfg.Block && d != math.MaxInt64 {
			guess -= b.cfg.MaxWait
		}
		dec.RetryAfter = firstAdmitted(t, guess, func(u engine.Time) bool {
			dec, _, _ := b.decide(u)
			return dec.Verdict != buckets.Reject
		})
		return dec
	}
	b.st = st
	return dec
}

// Next returns engine.Forever: Bucket4j never queues.
func (b *Bucket4j) Next() engine.Time { return engine.Forever }

// Release panics: Bucket4j never queues.
func (b *Bucket4j) Release() buckets.Released { return noQueue(b.name) }

// Promise bounds the requests that pass (consumed, or leaving their sleep)
// in any closed window of d nanoseconds. With C = max(Capacity,
// InitialTokens) and D the most the meter can advance within the window
// (d with the nanosecond meter, ceil(d / 1 ms) ms with the millisecond
// one), plus one tick (1 ns or 1 ms) for the blocking call, whose sleep
// starts at the call while its delay is computed from the meter:
//
//	greedy:    C + ceil(RefillTokens · D / RefillPeriod)
//	interval:  C + RefillTokens · ceil(D / RefillPeriod)
//
// The greedy bound is attained by tryConsume from a full bucket, as in
// Bucket4j's own example: 100 tokens per minute admits 100 at once and 100
// more within the minute, 200 in a closed window of one minute.
func (b *Bucket4j) Promise(d engine.Time) float64 {
	c := b.cfg
	var ticks int64 = 1 // the meter's tick, ns
	if !c.Nanos {
		ticks = int64(engine.Millisecond)
	}
	n := (int64(d) + ticks - 1) / ticks
	if c.Block {
		n++
	}
	span := new(big.Int).Mul(big.NewInt(n), big.NewInt(ticks))
	capacity := float64(max(c.Capacity, c.InitialTokens))
	period := big.NewInt(int64(c.RefillPeriod))
	if c.Intervally {
		periods := ceilRat(new(big.Rat).SetFrac(span, period))
		return capacity + float64(c.RefillTokens)*periods
	}
	x := new(big.Rat).SetFrac(new(big.Int).Mul(span, big.NewInt(c.RefillTokens)), period)
	return capacity + ceilRat(x)
}

var bucket4jKeys = []Key{
	{Name: "capacity", Default: "100", Unit: "tokens", Doc: "limit.capacity, >= 1"},
	{Name: "refill_tokens", Default: "100", Unit: "tokens per refill_period", Doc: "tokens of refillGreedy / refillIntervally, 1 to refill_period in ns"},
	{Name: "refill_period", Default: "1m", Unit: "duration", Doc: "period of refillGreedy / refillIntervally"},
	{Name: "initial_tokens", Default: "", Unit: "tokens", Doc: "tokens at creation, >= 0; capacity when absent (a full bucket)"},
	{Name: "time_meter", Default: "millis", Unit: "millis|nanos", Doc: "SYSTEM_MILLISECONDS (the builder's default) or SYSTEM_NANOTIME (withNanosecondPrecision)"},
	{Name: "call", Default: "try", Unit: "try|block", Doc: "tryConsume(1) refuses; asBlocking() consume(1) / tryConsume(1, max_wait) sleeps"},
	{Name: "max_wait", Default: "inf", Unit: "duration", Doc: "blocking tryConsume's maxWait; inf for consume(1)"},
}

var bucket4jGreedyInfo = Info{
	Name:     "bucket4j-greedy",
	Library:  "Bucket4j local bucket, capacity(...).refillGreedy(tokens, period)",
	Versions: "8.5.0 to 8.19.0 (read at 8.19.0)",
	Doc:      "integer tokens with a carried remainder, millisecond meter by default, starts full, refused requests change nothing",
	Keys:     bucket4jKeys,
	build:    func(a *args) (func() buckets.Limiter, error) { return buildBucket4j(a, false) },
}

var bucket4jIntervalInfo = Info{
	Name:     "bucket4j-interval",
	Library:  "Bucket4j local bucket, capacity(...).refillIntervally(tokens, period)",
	Versions: "8.5.0 to 8.19.0 (read at 8.19.0)",
	Doc:      "integer tokens added refill_tokens at a time each whole period since creation, a staircase; starts full",
	Keys:     bucket4jKeys,
	build:    func(a *args) (func() buckets.Limiter, error) { return buildBucket4j(a, true) },
}

func buildBucket4j(a *args, intervally bool) (func() buckets.Limiter, error) {
	c := Bucket4jConfig{
		Capacity:     a.int("capacity", 1, math.MaxInt64),
		RefillTokens: a.int("refill_tokens", 1, math.MaxInt64),
		RefillPeriod: a.duration("refill_period", 1, engine.Forever, false),
		Intervally:   intervally,
	}
	c.InitialTokens = c.Capacity
	if a.given("initial_tokens") {
		c.InitialTokens = a.int("initial_tokens", 0, math.MaxInt64)
	}
	c.Nanos = a.choice("time_meter", "millis", "nanos") == "nanos"
	c.Block = a.choice("call", "try", "block") == "block"
	c.MaxWait = a.duration("max_wait", 0, engine.Forever, true)
	if a.changed("max_wait") && !c.Block {
		a.failf("max_wait applies to call=block only")
	}
	if a.err != nil {
		return nil, a.err
	}
	if _, err := NewBucket4j(c); err != nil {
		return nil, err
	}
	return func() buckets.Limiter { l, _ := NewBucket4j(c); return l }, nil
}
