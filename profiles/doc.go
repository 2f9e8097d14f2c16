// Package profiles owns the library-faithful limiters: each profile decides
// exactly as a named rate-limiting library does at a stated version range,
// with that library's clock resolution and rounding, initial state, burst
// convention, effect of a refused request and refill style.
//
// People deploy a library, not "a token bucket". golang.org/x/time/rate
// starts full and keeps float64 tokens on a nanosecond clock; Guava's
// RateLimiter starts empty, lets the first request through free and makes
// each request pay for the previous one on a microsecond clock; nginx's
// limit_req keeps an integer excess in thousandths of a request on a
// millisecond clock and truncates its refill on every update; throttled
// admits max_burst + 1 requests back to back where go-redis/redis_rate
// admits exactly burst. A profile reproduces such details so that a
// simulation answers for the limiter actually deployed.
//
// # Profiles
//
// [Registry] lists every profile with its keys, defaults and units, and
// [Parse] builds one from a spec such as
//
//	xrate:limit=10,burst=3
//	nginx:rate=10r/s,burst=5,nodelay
//	guava-warmup:permits_per_second=5,warmup_period=2s
//
// (the form the command line's --profile flag takes). Keys are named as
// each library names its parameters, in snake_case. A parsed [Profile] is a
// description; [Profile.New] returns a fresh limiter with its own state.
// PROFILES.md beside this file tabulates the libraries, versions, clocks,
// initial states, burst conventions, refused-request effects and refill
// styles.
//
// # Exactness
//
// Every decision is the one the library makes. Where the library keeps
// integers (nginx, bucket4j, throttled, uber, Envoy's timer bucket) the
// profile keeps the same integers, derived exactly from the integer
// nanosecond clock ([engine.Time]): a millisecond or microsecond clock is
// the floor of t on a grid aligned with the run's origin. Where the library
// computes in float64 (x/time/rate's tokens, Guava's permits, redis_rate's
// Lua arithmetic, Envoy's atomic bucket) the profile performs the same
// IEEE-754 operations in the same order, with explicit conversions that
// keep the Go compiler from fusing a multiply and an add, so that decisions
// and waits match the library bit for bit. Float arithmetic is the point
// there, not an approximation of it. Where a library's result depends on
// the platform (a float64 to int64 conversion out of range in Go before
// x/time v0.10.0) the profile models amd64 and says so.
//
// # Protocol
//
// Every profile is a [buckets.Limiter]: Offer(t, id) returns a [buckets.Decision] (Admit,
// Delay with an exact wait, or Reject with a RetryAfter), Next returns
// [engine.Forever] because no profile queues jobs for later release, and
// Release panics. A refusal's RetryAfter is the hint the library itself
// gives its caller: redis-cell's whole seconds, x/time/rate's reservation
// delay (buckets.NoRetry for its infinite one), Envoy's x-ratelimit-reset
// when its headers are on, none (0) from nginx, Guava's tryAcquire and
// Envoy without headers; a library that returns a bool gives none. Most
// profiles also state their arrival curve as a
// [buckets.Curve]; each type's Promise doc says whether the bound is attained.
// [ArrivalCurve] gives the same bound as an exact netcalc curve γ(r, b),
// for network-calculus bounds and fleet-wide limits, and [SizeBurst] finds
// the smallest value of a profile's burst key that refuses at most a given
// number of the jobs of a trace.
// Offer panics when instants decrease, as the protocol requires. A refused
// request leaves a profile as it was, except where the library itself
// changes state on a refusal, which the type's doc states (the RFC 2697 and
// 2698 meters spend yellow tokens before any dropping).
package profiles
