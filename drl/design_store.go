package drl

import (
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
)

// designStore is the central store: one bucket (R, B) per key (or the
// limiter Spec.Store.Limiter names) that every decision asks, a round trip
// Spec.Store.RTT away; while the store is down (Spec.Store.Outages, the on/off
// process) the nodes fail as Spec.Store.Fail says.
type designStore struct{ defaults }

func (designStore) Name() string { return "store" }

// Params declares the parameters designStore is the first design of the
// registry to read (see Design.Params).
func (designStore) Params() []param.Param {
	return []param.Param{
		{Key: "rtt", Kind: param.Text, Unit: "s", Default: "1ms", Sweep: true, Usage: "store, lease: round-trip time, a delay (fixed, uniform:A:B, lognormal:MEDIAN:SHAPE or trace:FILE:COL)"},
		{Key: "outage", Kind: param.List, Unit: "s", Usage: "store: the store is down during [FROM, TO), FROM:TO since the first arrival (e.g. 10s:20s); repeatable"},
		{Key: "outage_process", Kind: param.Text, Unit: "s", Usage: "store: also a Poisson on/off outage process, UP:DOWN mean durations (e.g. 10m:30s), from the first arrival"},
		{Key: "store_limiter", Kind: param.Text, Default: "token", Usage: "store: the limiter per key, token (a bucket (R, B)), gcra (GCRA(1/R, (B-1)/R), as redis-cell) or fixed-window (L = B jobs per window of B/R s), both policing, or a library profile such as 'redis-rate:rate=10,burst=20' (redis_rate's Lua script) deciding as its library does"},
		{Key: "store_cache", Kind: param.Bool, Sweep: true, Usage: "store: a node caches the keys the store refused until their next token, and refuses their jobs without asking (policing)"},
		{Key: "fail", Kind: param.Text, Default: "open", Sweep: true, Usage: "store: what a node does while the store is down: open (admit), closed (reject) or local (its sub-bucket R/N, B/N)"},
	}
}

func (designStore) Flags() []string {
	return []string{"rtt", "outage", "outage-process", "fail", "store-limiter", "store-cache", "node-limiter"}
}

func (designStore) Check(s Spec) error {
	if err := s.Store.check(s); err != nil {
		return err
	}
	if s.Store.Limiter != StoreToken && s.Store.Limiter != StoreLibrary && !s.Police {
		return fmt.Errorf("drl: store limiter %v polices (admit or refuse): want Police: %w", s.Store.Limiter, ErrSpec)
	}
	if s.Store.Cache && !s.Police {
		return fmt.Errorf("drl: the store's cache refuses jobs, which only policing does: want Police, or no StoreCache: %w", ErrSpec)
	}
	return nil
}

func (designStore) CheckParams(s Spec, raw Values) error {
	if s.Police {
		return nil
	}
	if s.Store.Limiter == StoreGCRA || s.Store.Limiter == StoreFixedWindow {
		return bad("store_limiter", raw("store_limiter"), "token when shaping: gcra and fixed-window admit or refuse (add police)")
	}
	if s.Store.Cache {
		return bad("store_cache", raw("store_cache"), "false when shaping: the cache refuses jobs, which only policing does (add police)")
	}
	return nil
}

// LocalBuckets: the local fallback keeps a sub-bucket per node.
func (designStore) LocalBuckets(s Spec) bool {
	return s.Store.Fail == FailLocal && s.Static.NodeLimiter == nil
}

func (designStore) Theorem2NA(s Spec) string {
	switch {
	case s.Static.NodeLimiter != nil:
		return "the nodes run " + s.Static.NodeLimiterName + ", not sub-buckets (R/N, B/N)"
	case s.Police:
		return policingNA
	}
	return "not a split: one shared bucket behind a round trip"
}

func (designStore) Caption(s Spec) []CaptionParam {
	var c captionList
	c.add("rtt", "round trip %s", s.Store.RTT)
	c.add("store-limiter", "store limiter %s", s.Store.Limiter)
	if len(s.Store.Outages) > 0 {
		var iv []string
		for _, o := range s.Store.Outages {
			iv = append(iv, fmt.Sprintf("[%s, %s)", capDur(o.From), capDur(o.To)))
		}
		c.add("outage", "store down %s", strings.Join(iv, ", "))
	}
	if s.Store.OutageUp > 0 && s.Store.OutageDown > 0 {
		c.add("outage-process", "store outages on/off, mean up %s, mean down %s", capDur(s.Store.OutageUp), capDur(s.Store.OutageDown))
	}
	if len(s.Store.Outages) > 0 || (s.Store.OutageUp > 0 && s.Store.OutageDown > 0) {
		c.add("fail", "failing %s", s.Store.Fail)
	}
	if s.Store.Cache {
		c.add("store-cache", "refusals cached")
	}
	return c
}

func (designStore) Describe(s Spec) string {
	return nodesText(s) + fmt.Sprintf(", round trip %v", s.Store.RTT) + modeText(s)
}

func (designStore) Header(s Spec) string {
	var os []string
	for _, o := range s.Store.Outages {
		os = append(os, fmt.Sprintf("[%v, %v) s", o.From.Seconds(), o.To.Seconds()))
	}
	if s.Store.OutageUp > 0 {
		os = append(os, fmt.Sprintf("on/off, up %v s and down %v s on average", s.Store.OutageUp.Seconds(), s.Store.OutageDown.Seconds()))
	}
	out := "no outage"
	if len(os) > 0 {
		out = "outages " + strings.Join(os, ", ") + ", fail " + s.Store.Fail.String()
	}
	cache := ""
	if s.Store.Cache {
		cache = "; nodes cache the keys over limit"
	}
	lim := ""
	switch s.Store.Limiter {
	case StoreGCRA:
		lim = "GCRA(1/R, (B - 1)/R) per key, "
	case StoreFixedWindow:
		w, _ := s.Bucket.Burst.Quo(s.Bucket.Rate)
		lim = fmt.Sprintf("fixed window of %v jobs per %v s per key, ", s.Bucket.Burst, w)
	case StoreLibrary:
		lim = s.Store.ProfileName + " per key, "
	}
	return fmt.Sprintf("%sround trip %v; %s%s", lim, s.Store.RTT, out, cache)
}

func (designStore) Marks(s Spec) []Mark {
	down := func(i int) (engine.Time, engine.Time) { return s.Store.Outages[i].From, s.Store.Outages[i].To }
	return marksOf(len(s.Store.Outages), down, "store down (outage)")
}

func (designStore) New(s Spec, r *Recorder) (Model, error) { return newStore(s, r.u, r.res) }

// StoreParams are the central store's parameters (Spec.Store); lease
// reads RTT too.
type StoreParams struct {
	Limiter StoreLimiter // the store's limiter per key
	// Profile builds the store's limiter per key when Limiter is
	// StoreLibrary; ProfileName is its spec, for reports.
	Profile     func() buckets.Limiter
	ProfileName string
	RTT         Delay      // round trip to the store; the store decides at half of it
	Outages     []Interval // the store is down for a job sent in any of them
	Fail        Fail       // what a node does while the store is down
	// Cache: a node that the store refused a job of key k (policing)
	// caches "k over limit" until the store's next token and refuses k's
	// jobs sent before it without asking; the store only loses tokens to
	// other nodes, so with no round trip each cached refusal is the
	// store's own decision. With a round trip D a job sent at t would
	// reach the store at t + D/2: a job sent less than D/2 before the
	// token may be refused although the store would have admitted it.
	Cache bool
	// OutageUp and OutageDown, when both > 0, add a Poisson on/off outage
	// process: from the origin the store is up for an exponential time of
	// mean OutageUp ns, then down for one of mean OutageDown ns, and so on
	// (durations rounded to the nanosecond), drawn from StreamOutage.
	OutageUp, OutageDown engine.Time
}

// Parse reads rtt, outage, outage_process, store_cache, store_limiter
// and fail (see Design.Parse).
func (designStore) Parse(s *Spec, v Values) error {
	var p StoreParams
	var err error
	if p.RTT, err = ParseDelay(v.text("rtt")); err != nil {
		return bad("rtt", v.text("rtt"), wantDelay(err))
	}
	for _, o := range v.list("outage") {
		iv, err := ParseInterval(o)
		if err != nil {
			return bad("outage", o, "FROM:TO, two instants since the first arrival with FROM < TO, e.g. 10s:20s")
		}
		p.Outages = append(p.Outages, iv)
	}
	if op := v.text("outage_process"); op != "" {
		up, down, ok := strings.Cut(op, ":")
		u, err1 := ParseDuration(up)
		d, err2 := ParseDuration(down)
		if !ok || err1 != nil || err2 != nil || u <= 0 || d <= 0 || u == engine.Forever || d == engine.Forever {
			return bad("outage_process", op, "UP:DOWN, two mean durations > 0, e.g. 10m:30s")
		}
		p.OutageUp, p.OutageDown = u, d
	}
	p.Cache, _ = v("store_cache").(bool)
	if p.Limiter, err = ParseStoreLimiter(v.text("store_limiter")); err != nil {
		prof, err := profileParam("store_limiter", v.text("store_limiter"), "token, gcra, fixed-window, or a library profile")
		if err != nil {
			return err
		}
		p.Limiter, p.Profile, p.ProfileName = StoreLibrary, prof.New, prof.String()
	}
	if p.Fail, err = ParseFail(v.text("fail")); err != nil {
		return bad("fail", v.text("fail"), "open, closed or local")
	}
	s.Store = p
	return nil
}

// check returns an error wrapping ErrSpec for a field of s.Store the
// store cannot run with whether it shapes or polices, or nil.
func (p StoreParams) check(s Spec) error {
	if p.OutageUp < 0 || p.OutageDown < 0 || (p.OutageUp > 0) != (p.OutageDown > 0) {
		return fmt.Errorf("drl: outage process up %v ns, down %v ns: want both > 0, or both 0 for none: %w", int64(p.OutageUp), int64(p.OutageDown), ErrSpec)
	}
	if p.Limiter == StoreLibrary && p.Profile == nil {
		return fmt.Errorf("drl: store limiter profile without Store.Profile: %w", ErrSpec)
	}
	if p.Limiter == StoreFixedWindow && !s.Bucket.Burst.IsInt() {
		return fmt.Errorf("drl: store limiter fixed-window admits L = B jobs per window: burst %v is not a whole number: %w", s.Bucket.Burst, ErrSpec)
	}
	return nil
}

// LimiterName is the store's limiter as store_limiter names it: token,
// gcra, fixed-window, or the canonical spec of a library profile.
func (p StoreParams) LimiterName() string {
	if p.Limiter == StoreLibrary {
		return p.ProfileName
	}
	return p.Limiter.String()
}
