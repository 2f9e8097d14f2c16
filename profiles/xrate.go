package profiles

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// XRateInf is x/time/rate's rate.Inf, the largest float64: a limiter with
// this limit admits every event, whatever its burst.
const XRateInf = math.MaxFloat64

// XRateCall is the x/time/rate method a job calls.
type XRateCall uint8

const (
	// XRateAllow is AllowN(t, 1): admit or reject at once.
	XRateAllow XRateCall = iota
	// XRateReserve is ReserveN(t, 1) followed by a sleep of DelayFrom(t):
	// admit, or delay by the reservation's wait; reject only when the
	// reservation is not OK (burst 0).
	XRateReserve
	// XRateWait is WaitN(ctx, 1) with a context whose deadline is MaxWait
	// after the call (none when MaxWait is engine.Forever): delay by the
	// reservation's wait, reject when that wait would pass the deadline.
	XRateWait
)

var xrateCalls = []string{"allow", "reserve", "wait"}

func (c XRateCall) String() string {
	if int(c) < len(xrateCalls) {
		return xrateCalls[c]
	}
	return "XRateCall(?)"
}

// XRateConfig describes a golang.org/x/time/rate Limiter and how jobs
// call it.
type XRateConfig struct {
	Limit float64 // rate.Limit, events per second, >= 0; XRateInf admits everything
	Burst int     // tokens, >= 0; the bucket's size and its initial content
	Call  XRateCall
	// MaxWait is the context deadline of a Wait call, in nanoseconds after
	// the call, >= 0; engine.Forever means a context without deadline. It
	// is ignored by Allow and Reserve.
	MaxWait engine.Time
	// Minor is the minor version of golang.org/x/time whose behaviour to
	// reproduce (the module is v0.MINOR.PATCH): 16 for v0.16.0. Two
	// changes are modelled: before v0.7.0 a zero Limit granted Burst
	// events in all and never refilled, by decrementing the burst itself;
	// before v0.10.0 a wait too long for an int64 of nanoseconds converted
	// out of range (see [XRate]).
	Minor int
}

// XRate is golang.org/x/time/rate's Limiter: a token bucket of size Burst,
// initially full, refilled continuously at Limit tokens per second.
//
// Source: golang.org/x/time v0.16.0, rate/rate.go (reserveN, advance,
// durationFromTokens, tokensFromDuration); v0.6.0 and v0.9.0 for the older
// behaviours. Versions v0.7.0 to v0.16.0 decide identically apart from the
// overflow fixed in v0.10.0.
//
// # Arithmetic, as in the library
//
// Tokens are a float64. At an arrival t (nanoseconds) the library computes,
// in this order and with these roundings,
//
//	elapsed = t - last                            (int64 ns; the zero time.Time before the first success,
//	                                               which saturates to 2^63-1 ns)
//	delta   = elapsed.Seconds() * limit           (Seconds = float64(elapsed/1e9) + float64(elapsed%1e9)/1e9)
//	tokens  = min(burst, tokens + delta) - 1
//	wait    = int64((-tokens / limit) * 1e9)      (truncated toward zero; only when tokens < 0)
//
// and admits the job when wait <= MaxWait (0 for Allow), which is why a job
// is admitted up to a nanosecond before the bucket holds a whole token.
// The profile performs the same float64 operations, so its decisions and
// waits equal the library's bit for bit on amd64 (a platform that fuses
// multiply-add into one rounding, as arm64 may, can differ in the last bit;
// the profile never fuses).
//
// # Special cases
//
//   - Limit = XRateInf: every job is admitted at once and the state does
//     not change (the library's reserveN returns before advancing).
//   - Limit = 0, v0.7.0 and later: the bucket never refills; every call
//     admits the first Burst jobs. Reserve and Wait without deadline then
//     answer every job with a reservation whose delay is rate.InfDuration
//     (2^63-1 ns), which the library reports as OK but documents as "the
//     limiter cannot grant the tokens": the profile refuses those jobs with
//     [buckets.NoRetry] (a caller that cancels the reservation), never a
//     292-year delay. The same holds for any wait that saturates at
//     InfDuration (a tiny limit, v0.10.0 and later).
//   - Limit = 0 before v0.7.0: the first Burst jobs are admitted at once
//     (the library decrements its burst), every later job is rejected,
//     for every Call.
//   - Burst = 0 and a finite limit: every job is rejected.
//   - Before v0.10.0 a wait of 2^63 ns or more converted to int64 out of
//     range; Go on amd64 gives -2^63, a negative wait, so the job was
//     admitted at once (rate.go's issue 71154). The profile models amd64.
//
// A refused job leaves the state unchanged (reserveN writes only on
// success). RetryAfter is the library's own hint: for Allow, the delay of a
// reservation made (and cancelled) at the refusal, DelayFrom(t), which may
// differ by a few nanoseconds from the first instant the library admits
// (its float64 wait, truncated); [buckets.NoRetry] when that reservation is not OK or its delay is
// rate.InfDuration; none (0) for a Wait refused at its deadline (WaitN's
// error carries no delay).
type XRate struct {
	cfg       XRateConfig
	clock     clock
	tokens    float64
	last      engine.Time // meaningful when lastSet
	lastSet   bool
	burst     int // changes only in the pre-v0.7.0 zero-limit case
	zeroQuirk bool
	wraps     bool
}

// NewXRate returns an x/time/rate limiter at time 0, full. It returns an
// error for a negative or NaN limit, a negative burst or MaxWait, or an
// unknown call.
func NewXRate(c XRateConfig) (*XRate, error) {
	switch {
	case !(c.Limit >= 0):
		return nil, fmt.Errorf("profiles: xrate: limit %g: want >= 0", c.Limit)
	case c.Burst < 0:
		return nil, fmt.Errorf("profiles: xrate: burst %d: want >= 0", c.Burst)
	case c.Call > XRateWait:
		return nil, fmt.Errorf("profiles: xrate: unknown call %d", c.Call)
	case c.MaxWait < 0:
		return nil, fmt.Errorf("profiles: xrate: max_wait %v s: want >= 0", c.MaxWait)
	}
	if math.IsInf(c.Limit, 1) {
		c.Limit = XRateInf
	}
	return &XRate{
		cfg:       c,
		tokens:    float64(c.Burst),
		burst:     c.Burst,
		zeroQuirk: c.Minor < 7,
		wraps:     c.Minor < 10,
	}, nil
}

// Tokens returns the float64 token count the library would report at t
// (TokensAt), without changing the state.
func (x *XRate) Tokens(t engine.Time) float64 { return x.advance(t) }

// maxFutureReserve is the library's limit on the wait for this call.
func (x *XRate) maxFutureReserve() int64 {
	switch x.cfg.Call {
	case XRateAllow:
		return 0
	case XRateWait:
		return int64(x.cfg.MaxWait) // engine.Forever is rate.InfDuration
	}
	return math.MaxInt64
}

// reserve is the library's reserveN(t, n, maxFutureReserve) without its
// writes: it returns ok, the wait in nanoseconds and the tokens to store.
func (x *XRate) reserve(t engine.Time, n int) (ok bool, wait int64, tokens float64) {
	lim := x.cfg.Limit
	if lim == XRateInf {
		return true, 0, x.tokens
	}
	tokens = x.advance(t) - float64(n)
	if tokens < 0 {
		wait = x.durationFromTokens(-tokens)
	}
	ok = n <= x.burst && wait <= x.maxFutureReserve()
	return ok, wait, tokens
}

// advance is the library's advance(t): the tokens at t, state unchanged.
func (x *XRate) advance(t engine.Time) float64 {
	elapsed := int64(math.MaxInt64) // t.Sub(time.Time{}) saturates
	if x.lastSet {
		last := x.last
		if t < last {
			last = t
		}
		elapsed = int64(t - last)
	}
	delta := 0.0
	if x.cfg.Limit > 0 {
		delta = float64(durationSeconds(elapsed) * x.cfg.Limit)
	}
	tokens := x.tokens + delta
	if b := float64(x.burst); tokens > b {
		tokens = b
	}
	return tokens
}

// durationFromTokens is the library's conversion of a token deficit to a
// wait in nanoseconds.
func (x *XRate) durationFromTokens(tokens float64) int64 {
	if x.cfg.Limit <= 0 {
		return math.MaxInt64
	}
	d := float64(tokens/x.cfg.Limit) * 1e9
	if !x.wraps && d > float64(math.MaxInt64) {
		return math.MaxInt64
	}
	return amd64Int64(d)
}

// durationSeconds is time.Duration.Seconds.
func durationSeconds(d int64) float64 {
	sec := d / 1e9
	nsec := d % 1e9
	return float64(sec) + float64(nsec)/1e9
}

// amd64Int64 is Go's float64 to int64 conversion as amd64 performs it:
// truncation toward zero, and -2^63 for NaN and every value out of range.
func amd64Int64(x float64) int64 {
	if !(x >= -0x1p63 && x < 0x1p63) {
		return math.MinInt64
	}
	return int64(x)
}

// Offer decides one job arriving at t, as the configured call would.
func (x *XRate) Offer(t engine.Time, id int64) buckets.Decision { return x.OfferN(t, id, 1) }

// OfferN decides a job that takes n tokens (AllowN, ReserveN, WaitN with
// this n), n >= 1. A job with n > Burst is always refused, unless the
// limit is XRateInf.
func (x *XRate) OfferN(t engine.Time, id int64, n int) buckets.Decision {
	if n < 1 {
		panic("profiles: XRate.OfferN with n < 1")
	}
	x.clock.advance(t, "XRate")
	if x.zeroQuirk && x.cfg.Limit == 0 {
		// v0.6.0 rate.go reserveN: "else if lim.limit == 0" grants while
		// burst >= n and decrements burst; timeToAct is t.
		if x.burst >= n {
			x.burst -= n
			return admitted()
		}
		return rejected(0)
	}
	ok, wait, tokens := x.reserve(t, n)
	if ok && wait == math.MaxInt64 && x.cfg.Limit != XRateInf {
		// A reservation whose delay is rate.InfDuration ("the limiter
		// cannot grant the tokens", rate.go's DelayFrom doc): a caller
		// that would sleep 292 years is refused, with no retry; it
		// cancels the reservation, so the state is left unchanged.
		return buckets.Decision{Verdict: buckets.Reject, RetryAfter: buckets.NoRetry}
	}
	if !ok {
		return buckets.Decision{Verdict: buckets.Reject, RetryAfter: x.hint(n, wait)}
	}
	if x.cfg.Limit != XRateInf {
		x.last, x.lastSet, x.tokens = t, true, tokens
	}
	return delayed(wait) // DelayFrom(t) is max(wait, 0)
}

// hint is the library's retry hint for a refused job: the delay of the
// reservation a caller of Allow makes to learn it (ReserveN(t, n) then
// DelayFrom(t), cancelled), which is wait; buckets.NoRetry when that
// reservation is not OK (n > burst) or its delay is rate.InfDuration; none
// (0) for Wait, whose error carries no delay.
func (x *XRate) hint(n int, wait int64) engine.Time {
	switch {
	case x.burst < n || wait == math.MaxInt64:
		return buckets.NoRetry
	case x.cfg.Call == XRateWait:
		return 0
	}
	return engine.Time(wait)
}

// Next returns engine.Forever: XRate never queues.
func (x *XRate) Next() engine.Time { return engine.Forever }

// Release panics: XRate never queues.
func (x *XRate) Release() buckets.Released { return noQueue("XRate") }

// Promise returns the most jobs the limiter admits (Allow) or releases
// (Reserve, Wait) in any closed window of d nanoseconds:
//
//	burst + floor(limit · (d + 1 ns))
//
// with limit the float64 rate taken exactly. The extra nanosecond is the
// library's truncated wait, which admits a job up to 1 ns before its token
// is whole; the bound is attained from a full bucket under a dense stream,
// up to the float64 rounding of the token count (about 1e-16 of a token per
// operation). It is +Inf for XRateInf, and Burst for a zero limit (the
// jobs beyond the burst wait rate.InfDuration: refused, see [XRate]).
func (x *XRate) Promise(d engine.Time) float64 {
	lim := x.cfg.Limit
	switch {
	case lim == XRateInf:
		return math.Inf(1)
	case x.cfg.Burst == 0:
		return 0
	case lim == 0:
		return float64(x.cfg.Burst)
	}
	r := new(big.Rat).SetFloat64(lim)
	r.Mul(r, new(big.Rat).SetFrac64(int64(d)+1, 1e9))
	r.Add(r, new(big.Rat).SetInt64(int64(x.cfg.Burst)))
	return floorRat(r)
}

var xrateInfo = Info{
	Name:     "xrate",
	Library:  "golang.org/x/time/rate (Limiter: AllowN, ReserveN, WaitN)",
	Versions: "v0.7.0 to v0.16.0 (version= selects the pre-v0.7.0 zero limit and the pre-v0.10.0 overflow)",
	Doc:      "float64 token bucket on a nanosecond clock, starts full, refused requests change nothing",
	Keys: []Key{
		{Name: "limit", Default: "10", Unit: "events/s", Doc: "rate.Limit: tokens added per second, >= 0, or inf (rate.Inf)"},
		{Name: "burst", Default: "1", Unit: "tokens", Doc: "bucket size and initial tokens, >= 0"},
		{Name: "call", Default: "allow", Unit: "allow|reserve|wait", Doc: "AllowN (admit or reject), ReserveN (admit or delay) or WaitN (delay, reject past max_wait)"},
		{Name: "max_wait", Default: "inf", Unit: "duration", Doc: "WaitN's context deadline after the call; inf for none"},
		{Name: "version", Default: "v0.16.0", Unit: "v0.MINOR.PATCH", Doc: "golang.org/x/time version whose behaviour to reproduce"},
	},
	build: func(a *args) (func() buckets.Limiter, error) {
		var c XRateConfig
		switch s := a.values["limit"]; s {
		case "inf", "Inf", "+Inf":
			c.Limit = XRateInf
		default:
			c.Limit = a.float("limit", 0, false)
		}
		c.Burst = int(a.int("burst", 0, math.MaxInt32))
		switch a.choice("call", xrateCalls...) {
		case "reserve":
			c.Call = XRateReserve
		case "wait":
			c.Call = XRateWait
		}
		c.MaxWait = a.duration("max_wait", 0, engine.Forever, true)
		if a.changed("max_wait") && c.Call != XRateWait {
			a.failf("max_wait applies to call=wait only (AllowN never waits, ReserveN has no deadline)")
		}
		c.Minor = parseMinor(a, "version")
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewXRate(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewXRate(c); return l }, nil
	},
}

// parseMinor reads a "v0.MINOR.PATCH" version key and returns MINOR.
func parseMinor(a *args, key string) int {
	s := strings.TrimPrefix(a.values[key], "v")
	parts := strings.Split(s, ".")
	if len(parts) != 3 || parts[0] != "0" {
		a.fail(key, "a version v0.MINOR.PATCH such as v0.16.0")
		return 0
	}
	minor, err1 := strconv.Atoi(parts[1])
	_, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || minor < 1 {
		a.fail(key, "a version v0.MINOR.PATCH such as v0.16.0")
		return 0
	}
	return minor
}
