package profiles

import (
	"fmt"
	"math"
	"math/big"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// EnvoyConfig describes an Envoy local rate limit token_bucket:
// max_tokens, tokens_per_fill and fill_interval, for the default bucket of
// one filter (no descriptors, no local cluster share).
type EnvoyConfig struct {
	MaxTokens     uint32      // >= 1
	TokensPerFill uint32      // >= 1; the proto's default is 1
	FillInterval  engine.Time // nanoseconds, a whole number of ms, >= 50 ms
	// Origin is Envoy's monotonic clock at the run's t = 0, in nanoseconds
	// (EnvoyAtomic only: its float64 seconds depend on the absolute value).
	Origin int64
	// Headers is enable_x_ratelimit_headers: DRAFT_VERSION_03, with which
	// a 429 carries x-ratelimit-reset (EnvoyLegacy only; see its Offer).
	// Envoy's default (OFF) sends no hint: RetryAfter 0.
	Headers bool
}

func (c EnvoyConfig) check(name string) error {
	switch {
	case c.MaxTokens < 1:
		return fmt.Errorf("profiles: %s: max_tokens %d: want >= 1", name, c.MaxTokens)
	case c.TokensPerFill < 1:
		return fmt.Errorf("profiles: %s: tokens_per_fill %d: want >= 1", name, c.TokensPerFill)
	case c.FillInterval < 50*engine.Millisecond || c.FillInterval%engine.Millisecond != 0:
		return fmt.Errorf("profiles: %s: fill_interval %v s: want a whole number of ms >= 50 ms (local rate limit token bucket fill timer must be >= 50ms)", name, c.FillInterval)
	case uint64(c.MaxTokens)+uint64(c.TokensPerFill) > math.MaxUint32:
		return fmt.Errorf("profiles: %s: max_tokens + tokens_per_fill exceeds 2^32 - 1, where Envoy's uint32 sum wraps", name)
	case c.Origin < 0:
		return fmt.Errorf("profiles: %s: origin %d ns: want >= 0", name, c.Origin)
	}
	return nil
}

// EnvoyLegacy is Envoy's timer-based local rate limit bucket
// (TimerTokenBucket; LocalRateLimiterImpl before 1.31): an integer token
// count, full at creation, to which a timer adds TokensPerFill every
// FillInterval, capped at MaxTokens: a staircase. A request takes a token
// or is refused (429) without changing anything; the 429 carries
// x-ratelimit-reset only with Headers.
//
// Source: envoyproxy/envoy
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc
// (LocalRateLimiterImpl constructor, onFillTimer, onFillTimerHelper,
// requestAllowedHelper; TimerTokenBucket::consume and onFillTimer in
// 1.31 and later). This was the only bucket up to Envoy 1.30 and remains
// selectable with the runtime guard
// envoy.reloadable_features.no_timer_based_rate_limit_token_bucket = false
// until the guard's removal.
//
// The fills are modelled at exactly k · FillInterval (k >= 1) after the
// run's origin, and a fill due at the instant of a request comes first.
// Envoy re-arms the timer after each fill, so a busy main thread delays
// fills; the profile's ideal timer is the limit of an idle one. The token
// bucket is shared by all workers: one bucket per Envoy process.
type EnvoyLegacy struct {
	cfg    EnvoyConfig
	clock  clock
	tokens uint32
	fills  int64 // fills made so far
}

// NewEnvoyLegacy returns Envoy's timer-based bucket at time 0, full.
func NewEnvoyLegacy(c EnvoyConfig) (*EnvoyLegacy, error) {
	if err := c.check("envoy-legacy"); err != nil {
		return nil, err
	}
	return &EnvoyLegacy{cfg: c, tokens: c.MaxTokens}, nil
}

// Tokens returns the bucket's tokens after the last Offer.
func (e *EnvoyLegacy) Tokens() uint32 { return e.tokens }

// Offer decides one request arriving at t.
func (e *EnvoyLegacy) Offer(t engine.Time, id int64) buckets.Decision {
	e.clock.advance(t, "EnvoyLegacy")
	due := int64(t) / int64(e.cfg.FillInterval)
	if n := due - e.fills; n > 0 {
		// n capped additions of tokens_per_fill, min(max, tokens + fill)
		// each, equal one capped addition of n fills.
		add := uint64(n) * uint64(e.cfg.TokensPerFill)
		if n > math.MaxUint32 || add >= uint64(e.cfg.MaxTokens) {
			e.tokens = e.cfg.MaxTokens
		} else {
			e.tokens = uint32(min(uint64(e.cfg.MaxTokens), uint64(e.tokens)+add))
		}
		e.fills = due
	}
	if e.tokens == 0 {
		if !e.cfg.Headers {
			return rejected(0) // a 429 with no x-ratelimit headers
		}
		return buckets.Decision{Verdict: buckets.Reject, RetryAfter: e.reset(t)}
	}
	e.tokens--
	return admitted()
}

// reset is x-ratelimit-reset at t as TimerTokenBucket::remainingFillInterval
// computes it (Envoy local_ratelimit_impl.cc, 1.31 and later; the default
// bucket's LocalRateLimiterImpl::remainingFillInterval before): with e the
// time since the last fill truncated to milliseconds,
//
//	ToInt64Seconds(fill_interval - Seconds(e / 1s))
//
// whole seconds, truncated, after taking the whole seconds of e off the
// interval: 1 s for a 1 s interval whenever a request is refused, 0 for
// any interval under 1 s ([buckets.RetryNow]). The last fill is at the
// latest multiple of FillInterval (the profile's ideal timer), so e is
// below the interval and the header is always sent.
func (e *EnvoyLegacy) reset(t engine.Time) engine.Time {
	since := (int64(t) - e.fills*int64(e.cfg.FillInterval)) / int64(engine.Millisecond) // ms, truncated
	left := int64(e.cfg.FillInterval) - since/1000*int64(engine.Second)
	if s := left / int64(engine.Second); s > 0 {
		return engine.Time(s) * engine.Second
	}
	return buckets.RetryNow
}

// Next returns engine.Forever: Envoy never queues.
func (e *EnvoyLegacy) Next() engine.Time { return engine.Forever }

// Release panics: Envoy never queues.
func (e *EnvoyLegacy) Release() buckets.Released { return noQueue("EnvoyLegacy") }

// Promise returns the most requests admitted in any closed window of d
// nanoseconds, MaxTokens + min(TokensPerFill, MaxTokens) · ceil(d /
// FillInterval): a full bucket at the window's start and every fill in
// the half-open rest of it. It is attained by a dense stream from a window
// starting 1 ns before a fill.
func (e *EnvoyLegacy) Promise(d engine.Time) float64 {
	fills := (int64(d) + int64(e.cfg.FillInterval) - 1) / int64(e.cfg.FillInterval)
	per := min(e.cfg.TokensPerFill, e.cfg.MaxTokens)
	return float64(e.cfg.MaxTokens) + float64(per)*float64(fills)
}

// EnvoyAtomic is the continuous bucket of Envoy's local rate limit since
// 1.31 (AtomicTokenBucket over AtomicTokenBucketImpl): it stores only a
// float64 instant, time_in_seconds, and the tokens at now are
//
//	min(max_tokens, (now - time_in_seconds) · fill_rate)
//
// with fill_rate = tokens_per_fill / (fill_interval in seconds) and now the
// monotonic clock in float64 seconds (nanoseconds / 1e9). At creation
// time_in_seconds = now - max_tokens / fill_rate (full). A request is
// refused (a 429 with no hint: x-ratelimit headers are off by default, and
// this profile does not model them) when fewer than 1 token is available,
// leaving the state unchanged;
// otherwise time_in_seconds = now - (tokens - 1) / fill_rate.
//
// Source: envoyproxy/envoy source/common/common/token_bucket_impl.cc and
// .h (AtomicTokenBucketImpl constructor, consume(cb), timeNowInSeconds;
// kMinFillRate = 1/31536000), local_ratelimit_impl.cc
// (AtomicTokenBucket: fill rate and the callback total < 1 ? 0 : 1);
// PR #35207 (July 2024) made it the default in Envoy 1.31. The float64
// operations are repeated in order (C++ std::min(a, b) is b < a ? b : a),
// so decisions equal Envoy's on x86-64.
type EnvoyAtomic struct {
	cfg       EnvoyConfig
	clock     clock
	maxTokens float64
	fillRate  float64
	timeIn    float64 // time_in_seconds
}

// NewEnvoyAtomic returns Envoy's atomic bucket at time 0, full.
func NewEnvoyAtomic(c EnvoyConfig) (*EnvoyAtomic, error) {
	if err := c.check("envoy"); err != nil {
		return nil, err
	}
	ms := int64(c.FillInterval / engine.Millisecond)
	fillRate := float64(c.TokensPerFill) / (float64(ms) / 1000) // duration<double>(milliseconds).count()
	const minFillRate = 1.0 / (365 * 24 * 60 * 60)
	fillRate = math.Max(math.Abs(fillRate), minFillRate)
	e := &EnvoyAtomic{cfg: c, maxTokens: float64(c.MaxTokens), fillRate: fillRate}
	e.timeIn = e.now(0) - e.maxTokens/e.fillRate
	return e, nil
}

// now is timeNowInSeconds at t.
func (e *EnvoyAtomic) now(t engine.Time) float64 {
	return float64(e.cfg.Origin+int64(t)) / 1e9
}

// total is the tokens available at now.
func (e *EnvoyAtomic) total(now float64) float64 {
	x := float64((now - e.timeIn) * e.fillRate)
	if x < e.maxTokens {
		return x
	}
	return e.maxTokens
}

// Tokens returns the tokens available at t, without changing the state.
func (e *EnvoyAtomic) Tokens(t engine.Time) float64 { return e.total(e.now(t)) }

// Offer decides one request arriving at t.
func (e *EnvoyAtomic) Offer(t engine.Time, id int64) buckets.Decision {
	e.clock.advance(t, "EnvoyAtomic")
	now := e.now(t)
	total := e.total(now)
	if total < 1.0 {
		return rejected(0) // a 429; x-ratelimit headers are off by default
	}
	e.timeIn = now - (total-1.0)/e.fillRate
	return admitted()
}

// FirstAdmitted returns how long after t a request refused at t would be
// admitted with nothing offered in between, the least whole nanosecond
// found by search over Envoy's own float64 arithmetic; 0 when it would pass
// at t. Envoy does not send it (see [EnvoyAtomic]).
func (e *EnvoyAtomic) FirstAdmitted(t engine.Time) engine.Time {
	total := e.total(e.now(t))
	if !(total < 1.0) {
		return 0
	}
	guess := ceilNanos((1 - total) / e.fillRate)
	return firstAdmitted(t, guess, func(u engine.Time) bool {
		return !(e.total(e.now(u)) < 1.0)
	})
}

// Next returns engine.Forever: Envoy never queues.
func (e *EnvoyAtomic) Next() engine.Time { return engine.Forever }

// Release panics: Envoy never queues.
func (e *EnvoyAtomic) Release() buckets.Released { return noQueue("EnvoyAtomic") }

// Promise returns max_tokens + floor(fill_rate · d), the fill rate taken
// exactly as the float64 Envoy computes: the most requests admitted in any
// closed window of d nanoseconds by the ideal bucket, attained from a full
// bucket by a dense stream, up to the float64 rounding of Envoy's clock
// and instant (a few ulps of the monotonic seconds).
func (e *EnvoyAtomic) Promise(d engine.Time) float64 {
	x := new(big.Rat).SetFloat64(e.fillRate)
	x.Mul(x, big.NewRat(int64(d), 1e9))
	x.Add(x, new(big.Rat).SetInt64(int64(e.cfg.MaxTokens)))
	return floorRat(x)
}

var envoyKeys = []Key{
	{Name: "max_tokens", Default: "10", Unit: "tokens", Doc: "token_bucket.max_tokens, >= 1; also the initial tokens"},
	{Name: "tokens_per_fill", Default: "1", Unit: "tokens", Doc: "token_bucket.tokens_per_fill, >= 1"},
	{Name: "fill_interval", Default: "1s", Unit: "duration", Doc: "token_bucket.fill_interval, whole ms, >= 50 ms"},
}

var envoyLegacyInfo = Info{
	Name:     "envoy-legacy",
	Library:  "Envoy local rate limit, timer-based token bucket (default bucket, one per process)",
	Versions: "Envoy up to 1.30 (1.31 and later with the runtime guard no_timer_based_rate_limit_token_bucket=false, until its removal)",
	Doc:      "integer tokens, full at start, tokens_per_fill added every fill_interval: a staircase; refused requests change nothing",
	Keys: append(append([]Key(nil), envoyKeys...),
		Key{Name: "headers", Default: "false", Unit: "flag", Flag: true, Doc: "enable_x_ratelimit_headers: DRAFT_VERSION_03: a refusal carries x-ratelimit-reset (whole seconds to the next fill), which --retry-after honours; none without it"}),
	build: func(a *args) (func() buckets.Limiter, error) {
		c := envoyConfig(a)
		c.Headers = a.flag("headers")
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewEnvoyLegacy(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewEnvoyLegacy(c); return l }, nil
	},
}

var envoyInfo = Info{
	Name:     "envoy",
	Library:  "Envoy local rate limit, AtomicTokenBucket (default bucket, one per process)",
	Versions: "Envoy 1.31 and later",
	Doc:      "continuous float64 bucket on the monotonic clock in seconds, full at start; refused requests change nothing",
	Keys: append(append([]Key(nil), envoyKeys...),
		Key{Name: "origin", Default: "0", Unit: "seconds", Doc: "Envoy's monotonic clock at the run's t = 0; the float64 roundings depend on it"}),
	build: func(a *args) (func() buckets.Limiter, error) {
		c := envoyConfig(a)
		c.Origin = int64(a.seconds("origin"))
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewEnvoyAtomic(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewEnvoyAtomic(c); return l }, nil
	},
}

func envoyConfig(a *args) EnvoyConfig {
	return EnvoyConfig{
		MaxTokens:     uint32(a.int("max_tokens", 1, math.MaxUint32)),
		TokensPerFill: uint32(a.int("tokens_per_fill", 1, math.MaxUint32)),
		FillInterval:  a.duration("fill_interval", 50*engine.Millisecond, engine.Forever, false),
	}
}
