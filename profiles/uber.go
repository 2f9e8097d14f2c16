package profiles

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// UberConfig describes a go.uber.org/ratelimit limiter:
// ratelimit.New(Rate, ratelimit.Per(Per), ratelimit.WithSlack(Slack)).
type UberConfig struct {
	Rate  int         // Take calls per Per, >= 1
	Per   engine.Time // nanoseconds, >= 1; the library's default is 1 s
	Slack int         // unused intervals a burst may catch up, >= 0; default 10
	// V030 reproduces v0.3.0, whose catch-up test compared the idle
	// time with maxSlack instead of maxSlack + perRequest (fixed in v0.3.1,
	// "maxSlack boundary detection", #124).
	V030 bool
}

// Uber is go.uber.org/ratelimit's default limiter (atomicInt64Limiter): a
// pacer whose Take blocks until the caller's slot, modelled as a Delay
// verdict with the exact sleep. It never rejects.
//
// Source: go.uber.org/ratelimit v0.3.1, limiter_atomic_int64.go (Take) and
// ratelimit.go (defaults); v0.3.0 differs in one comparison (V030).
// Versions before v0.3.0 used other implementations and are not modelled.
//
// The state is one instant, the time of the next permission issue. With
// perRequest = Per / Rate (integer nanoseconds, truncated) and maxSlack =
// Slack · perRequest, a call at now sets
//
//	next = now                          on the first call, or when Slack = 0 and now - next > perRequest
//	next = now - maxSlack               when Slack > 0 and now - next > maxSlack + perRequest
//	next = next + perRequest            otherwise
//
// and sleeps next - now when that is positive. So after an idle period
// Slack + 1 calls pass at once, and then one per perRequest; a caller is
// never refused. The clock is the nanosecond clock (Clock.Now().UnixNano()).
type Uber struct {
	cfg        UberConfig
	clock      clock
	perRequest int64
	maxSlack   int64
	next       int64
	started    bool
}

// NewUber returns a go.uber.org/ratelimit limiter at time 0, before its
// first Take.
func NewUber(c UberConfig) (*Uber, error) {
	switch {
	case c.Rate < 1:
		return nil, fmt.Errorf("profiles: uber: rate %d: want >= 1", c.Rate)
	case c.Per < 1:
		return nil, fmt.Errorf("profiles: uber: per %v s: want > 0", c.Per)
	case c.Slack < 0:
		return nil, fmt.Errorf("profiles: uber: slack %d: want >= 0", c.Slack)
	}
	per := int64(c.Per) / int64(c.Rate)
	slack, ok := mulOK(int64(c.Slack), per)
	if !ok {
		return nil, fmt.Errorf("profiles: uber: slack %d times %d ns overflows", c.Slack, per)
	}
	return &Uber{cfg: c, perRequest: per, maxSlack: slack}, nil
}

// Offer decides one Take call arriving at t: Admit when Take returns at
// once, Delay by its sleep otherwise.
func (u *Uber) Offer(t engine.Time, id int64) buckets.Decision {
	u.clock.advance(t, "Uber")
	now := int64(t)
	catchUp := u.maxSlack + u.perRequest
	if u.cfg.V030 {
		catchUp = u.maxSlack
	}
	var next int64
	switch {
	case !u.started || (u.maxSlack == 0 && now-u.next > u.perRequest):
		next = now
	case u.maxSlack > 0 && now-u.next > catchUp:
		next = now - u.maxSlack
	default:
		next = u.next + u.perRequest
	}
	u.next, u.started = next, true
	return delayed(next - now)
}

// Next returns engine.Forever: Uber never queues.
func (u *Uber) Next() engine.Time { return engine.Forever }

// Release panics: Uber never queues.
func (u *Uber) Release() buckets.Released { return noQueue("Uber") }

// Promise returns the most Take calls released (returned from) in any
// closed window of d nanoseconds:
//
//	Slack + 1 + floor(d / perRequest)
//
// Every issue instant is at least now - maxSlack and they are spaced by at
// least perRequest, so at most this many fall in a window; after an idle
// period a dense stream attains it. It is +Inf when perRequest truncates
// to 0 (Rate above one per nanosecond of Per).
func (u *Uber) Promise(d engine.Time) float64 {
	if u.perRequest == 0 {
		return math.Inf(1)
	}
	return float64(int64(u.cfg.Slack) + 1 + int64(d)/u.perRequest)
}

// mulOK returns a·b and whether it fits an int64, for a, b >= 0.
func mulOK(a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

var uberInfo = Info{
	Name:     "uber",
	Library:  "go.uber.org/ratelimit (New, Per, WithSlack; Take)",
	Versions: "v0.3.1 (version=v0.3.0 for the earlier slack boundary)",
	Doc:      "pacer on a nanosecond clock, Take blocks (Delay), never refuses; after idle slack + 1 pass at once",
	Keys: []Key{
		{Name: "rate", Default: "100", Unit: "calls per per", Doc: "Take calls per period, integer >= 1"},
		{Name: "per", Default: "1s", Unit: "duration", Doc: "the period of rate (ratelimit.Per)"},
		{Name: "slack", Default: "10", Unit: "calls", Doc: "unused slots a burst may catch up (ratelimit.WithSlack), >= 0"},
		{Name: "version", Default: "v0.3.1", Unit: "v0.3.0|v0.3.1", Doc: "go.uber.org/ratelimit version"},
	},
	build: func(a *args) (func() buckets.Limiter, error) {
		c := UberConfig{
			Rate:  int(a.int("rate", 1, math.MaxInt32)),
			Per:   a.duration("per", 1, engine.Forever, false),
			Slack: int(a.int("slack", 0, math.MaxInt32)),
		}
		c.V030 = a.choice("version", "v0.3.1", "v0.3.0") == "v0.3.0"
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewUber(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewUber(c); return l }, nil
	},
}
