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

// NginxConfig describes one nginx limit_req zone and its limit_req
// directive, for a single key: limit_req_zone ... rate=Rate r/s (or r/m)
// and limit_req zone=... burst=Burst [delay=Delay | nodelay].
type NginxConfig struct {
	// Rate is the zone's rate as nginx stores it: an integer count of
	// thousandths of a request per second, rate·1000/scale with integer
	// division (scale 1 for r/s, 60 for r/m). 10r/s is 10000; 1r/m is
	// 16, not 16.67. Use [NginxRate] to convert a written rate.
	Rate int64
	// Burst is the directive's burst, in requests, >= 0.
	Burst int64
	// Delay is the directive's delay, in requests, >= 0: the first Delay
	// excess requests pass at once, later ones are delayed. NoDelay sets
	// it to nginx's NGX_MAX_INT_T_VALUE / 1000.
	Delay int64
}

// NginxNoDelay is the Delay that limit_req's nodelay sets:
// NGX_MAX_INT_T_VALUE / 1000 on a 64-bit build.
const NginxNoDelay = math.MaxInt64 / 1000

// NginxRate converts a written rate ("10r/s", "30r/m", or a bare "10",
// which nginx reads as r/s) to nginx's stored rate in thousandths of a
// request per second, as ngx_http_limit_req_zone does: rate·1000/scale,
// truncated.
func NginxRate(s string) (int64, error) {
	num, scale := s, int64(1)
	switch {
	case strings.HasSuffix(s, "r/s"):
		num = strings.TrimSuffix(s, "r/s")
	case strings.HasSuffix(s, "r/m"):
		num, scale = strings.TrimSuffix(s, "r/m"), 60
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || strings.ContainsAny(num, "+-") || n > math.MaxInt32 {
		return 0, fmt.Errorf("profiles: nginx: rate %q: want N r/s or N r/m with an integer N in [1, %d]", s, math.MaxInt32)
	}
	r := n * 1000 / scale
	if r == 0 {
		return 0, fmt.Errorf("profiles: nginx: rate %q is stored as 0 thousandths of a request per second", s)
	}
	return r, nil
}

// Nginx is nginx's limit_req for one key: a leaky bucket kept as an
// integer "excess" in thousandths of a request, on nginx's millisecond
// clock.
//
// Source: nginx 1.31.4, src/http/modules/ngx_http_limit_req_module.c
// (ngx_http_limit_req_lookup, ngx_http_limit_req_account, the rate=,
// burst=, delay= and nodelay parsers); the logic is unchanged since
// "delay=" was added in nginx 1.15.7 (2018), the earliest version the
// profile covers.
//
// # The rate
//
// The rate is stored as rate·1000/scale with integer division, so 1r/m is
// 16 thousandths of a request per second and a request's 1000 units of
// excess drain in 1000/16 = 62.5 s, not 60 s; 2r/m (33) gives 30.30 s,
// 7r/m (116) 8.62 s instead of 8.57 s. This claim was checked against the
// source: ctx->rate = rate * 1000 / scale, and the comments "1 corresponds
// to 0.001 r/s".
//
// # A request
//
// now is the millisecond clock, floor(t / 1 ms) on a grid aligned with the
// run's origin (nginx's ngx_current_msec is a truncated monotonic clock).
// The first request creates the key's node with excess 0 and passes. Each
// later request computes, in 64-bit unsigned arithmetic as nginx does,
//
//	ms     = now - last
//	excess = max(0, stored - rate·ms/1000 + 1000)   (rate·ms/1000 truncated)
//
// and is refused (503, with no Retry-After: RetryAfter 0) when excess >
// burst·1000, leaving the node unchanged. Otherwise it stores excess, and last = now only when ms > 0:
// the truncated remainder of rate·ms/1000, under a thousandth of a
// request, is lost at every accepted update (at 7r/m, accepted requests
// 5 ms apart drain nothing at all). The request
// passes at once when excess <= delay·1000 (always with nodelay), else it
// is delayed by (excess - delay·1000)·1000/rate ms (truncated), a timer
// that fires when the millisecond clock reaches now + delay: the Delay
// verdict's exact wait is that instant minus t.
//
// From an idle key burst + 1 requests are accepted at once (the first one
// is free); without nodelay they leave at 1/rate intervals.
//
// The profile models one key of one zone whose node is never evicted
// (nginx evicts a node only when allocating another key's node, and only
// after it has drained for 60 s, when it is equivalent to a fresh one).
type Nginx struct {
	cfg    NginxConfig
	clock  clock
	burst  int64 // thousandths
	delay  int64 // thousandths
	excess int64
	last   int64 // ms
	exists bool
}

// NewNginx returns an nginx limit_req key with no node yet, at time 0.
func NewNginx(c NginxConfig) (*Nginx, error) {
	switch {
	case c.Rate < 1 || c.Rate > math.MaxInt32*1000:
		return nil, fmt.Errorf("profiles: nginx: rate %d thousandths of r/s: want 1 to %d", c.Rate, int64(math.MaxInt32)*1000)
	case c.Burst < 0 || c.Burst > math.MaxInt32:
		return nil, fmt.Errorf("profiles: nginx: burst %d: want 0 to %d", c.Burst, math.MaxInt32)
	case c.Delay < 0 || c.Delay > NginxNoDelay:
		return nil, fmt.Errorf("profiles: nginx: delay %d: want >= 0", c.Delay)
	}
	return &Nginx{cfg: c, burst: c.Burst * 1000, delay: c.Delay * 1000}, nil
}

// Excess returns the stored excess, in thousandths of a request.
func (n *Nginx) Excess() int64 { return n.excess }

// lookup is ngx_http_limit_req_lookup for an existing node, without its
// writes: the new excess and whether it fits the burst.
func (n *Nginx) lookup(now int64) (excess int64, ms int64, ok bool) {
	ms = now - n.last
	if ms < -60000 {
		ms = 1
	} else if ms < 0 {
		ms = 0
	}
	// lr->excess - ctx->rate * ms / 1000 + 1000, in ngx_uint_t, then
	// assigned to ngx_int_t.
	excess = int64(uint64(n.excess) - uint64(n.cfg.Rate)*uint64(ms)/1000 + 1000)
	if excess < 0 {
		excess = 0
	}
	return excess, ms, uint64(excess) <= uint64(n.burst)
}

// Offer decides one request arriving at t.
func (n *Nginx) Offer(t engine.Time, id int64) buckets.Decision {
	n.clock.advance(t, "Nginx")
	now := int64(t) / int64(engine.Millisecond)
	if !n.exists {
		n.exists, n.excess, n.last = true, 0, now
		return admitted()
	}
	excess, ms, ok := n.lookup(now)
	if !ok {
		return rejected(0) // a 503 with no Retry-After
	}
	n.excess = excess
	if ms != 0 {
		n.last = now
	}
	if uint64(excess) <= uint64(n.delay) {
		return admitted()
	}
	delayMs := (excess - n.delay) * 1000 / n.cfg.Rate
	if delayMs == 0 {
		return admitted()
	}
	return delayed((now+delayMs)*int64(engine.Millisecond) - int64(t))
}

// FirstAdmitted returns the wait after t until the first millisecond at
// which a request refused at t would fit: the least m with excess -
// floor(rate·m/1000) + 1000 <= burst·1000 after m ms since last. nginx
// does not tell the client this: its 503 carries no Retry-After, and a
// refusal's RetryAfter is 0 (none).
func (n *Nginx) FirstAdmitted(t engine.Time) engine.Time {
	need := n.excess + 1000 - n.burst // units the decay must remove, > 0
	m := (need*1000 + n.cfg.Rate - 1) / n.cfg.Rate
	at := (n.last + m) * int64(engine.Millisecond)
	if at <= int64(t) {
		return 0
	}
	return engine.Time(at - int64(t))
}

// Next returns engine.Forever: delayed requests are Delay verdicts.
func (n *Nginx) Next() engine.Time { return engine.Forever }

// Release panics: Nginx never queues.
func (n *Nginx) Release() buckets.Released { return noQueue("Nginx") }

// Promise returns a bound on the requests that pass (are accepted, or
// leave their delay) in any closed window of d nanoseconds. With D =
// ceil(d / 1 ms), the most the millisecond clock advances in the window:
//
//   - when no request can be delayed (nodelay, or delay >= burst):
//     1 + burst + floor(rate·D / 1e6), attained from an idle key;
//   - otherwise the "ideal leave times" now + (excess - delay·1000)/rate
//     of accepted requests are spaced by at least 1000/rate s and a
//     request leaves within 1 ms before its ideal time, giving
//     ceil((d + 1 ms)·rate/1e12 + delay), within one request of the
//     measured maximum on dense streams.
func (n *Nginx) Promise(d engine.Time) float64 {
	if n.delay >= n.burst {
		dms := (int64(d) + int64(engine.Millisecond) - 1) / int64(engine.Millisecond)
		x := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(n.cfg.Rate), big.NewInt(dms)), big.NewInt(1e6))
		return float64(1+n.cfg.Burst) + floorRat(x)
	}
	x := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(n.cfg.Rate), big.NewInt(int64(d)+int64(engine.Millisecond))), big.NewInt(1e12))
	x.Add(x, new(big.Rat).SetInt64(n.cfg.Delay))
	return ceilRat(x)
}

// ceilRat returns ceil(x) for x >= 0 as a float64.
func ceilRat(x *big.Rat) float64 {
	q, m := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	f, _ := new(big.Float).SetInt(q).Float64()
	return f
}

var nginxInfo = Info{
	Name:     "nginx",
	Library:  "nginx ngx_http_limit_req_module (limit_req_zone rate=, limit_req burst= delay= nodelay), one key",
	Versions: "1.15.7 to 1.31.4",
	Doc:      "integer excess in 0.001 requests on a millisecond clock, truncated refill; burst + 1 at once from idle; refused requests change nothing",
	Keys: []Key{
		{Name: "rate", Default: "10r/s", Unit: "Nr/s or Nr/m", Doc: "the zone's rate; stored as N·1000/scale thousandths of r/s, truncated (1r/m drains in 62.5 s)"},
		{Name: "burst", Default: "", Unit: "requests", Doc: "excess requests accepted beyond the rate, >= 1; 0 when absent"},
		{Name: "delay", Default: "", Unit: "requests", Doc: "excess requests passed without delay, >= 1; 0 when absent"},
		{Name: "nodelay", Default: "false", Unit: "flag", Doc: "pass every accepted request at once", Flag: true},
	},
	build: func(a *args) (func() buckets.Limiter, error) {
		var c NginxConfig
		r, err := NginxRate(a.values["rate"])
		if err != nil {
			a.fail("rate", fmt.Sprintf("N r/s or N r/m with an integer N in [1, %d]", math.MaxInt32))
		}
		c.Rate = r
		// nginx refuses burst=0 and delay=0 when written ("invalid burst
		// value"); absent, both are 0.
		if a.given("burst") {
			c.Burst = a.int("burst", 1, math.MaxInt32)
		}
		if a.given("delay") {
			c.Delay = a.int("delay", 1, math.MaxInt32)
		}
		if a.flag("nodelay") {
			if a.given("delay") {
				a.failf("delay= and nodelay exclude each other")
			}
			c.Delay = NginxNoDelay
		}
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewNginx(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewNginx(c); return l }, nil
	},
}
