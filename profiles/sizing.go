package profiles

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// burstKeys names, for each profile with one, the key that sets its
// burst: the requests it lets through back to back from rest. Guava's
// profiles have none (SmoothBursty stores one second of permits, fixed).
var burstKeys = map[string]string{
	"xrate":             "burst",
	"bucket4j-greedy":   "capacity",
	"bucket4j-interval": "capacity",
	"redis-rate":        "burst",
	"throttled":         "max_burst",
	"redis-cell":        "max_burst",
	"envoy-legacy":      "max_tokens",
	"envoy":             "max_tokens",
	"nginx":             "burst",
	"uber":              "slack",
	"srtcm":             "cbs",
	"trtcm":             "pbs",
}

// rateKeys are the keys that set a profile's rate where it is a decimal
// that may be arbitrarily small (the others are whole numbers per a
// checked period).
var rateKeys = map[string]string{
	"guava-bursty": "permits_per_second",
	"guava-warmup": "permits_per_second",
}

// RateKey returns the key that sets the rate of profile name as a decimal
// ("permits_per_second"), and false for a profile whose rate is a whole
// number of tokens per a checked period.
func RateKey(name string) (string, bool) {
	k, ok := rateKeys[name]
	return k, ok
}

// BurstKey returns the key that sets the burst of profile name ("burst",
// "max_burst", "capacity", "max_tokens", "slack", "cbs", "pbs"), and false
// for a profile without one (guava-bursty, guava-warmup).
func BurstKey(name string) (string, bool) {
	k, ok := burstKeys[name]
	return k, ok
}

// With returns p with key set to value, parsed and validated as Parse
// would; an error for a key p does not have or a value it refuses.
func (p Profile) With(key, value string) (Profile, error) {
	if _, ok := p.values[key]; !ok {
		return Profile{}, fmt.Errorf("profiles: %s: unknown key %q", p.Name, key)
	}
	var parts []string
	for _, k := range p.keys {
		v := p.values[k.Name]
		if k.Name == key {
			v = value
		}
		switch {
		case k.Flag && v == "true":
			parts = append(parts, k.Name)
		case k.Flag || v == "":
		default:
			parts = append(parts, k.Name+"="+v)
		}
	}
	return Parse(p.Name + ":" + strings.Join(parts, ","))
}

// Refused returns how many of the arrivals ts (non-decreasing instants)
// a fresh limiter of p rejects or delays (a Delay verdict with a wait > 0).
// It panics when ts decreases, as Offer does.
func (p Profile) Refused(ts []engine.Time) int64 {
	l := p.New()
	var n int64
	for i, t := range ts {
		d := l.Offer(t, int64(i))
		if d.Verdict == buckets.Reject || d.Verdict == buckets.Delay && d.Wait.Sign() > 0 {
			n++
		}
	}
	return n
}

// BurstSizing is the outcome of [SizeBurst].
type BurstSizing struct {
	Key     string // the profile's burst key
	Burst   int64  // the smallest value found; meaningful when Found
	Refused int64  // jobs rejected or delayed with Burst (when Found), or with the largest value tried
	Found   bool   // false when no value up to the limit meets the target
	Tried   int64  // the largest value tried
}

// SizeBurst returns the smallest value of p's burst key (see [BurstKey])
// for which a fresh limiter rejects or delays at most allowed of the
// arrivals ts, trying values from the least the library accepts (0, or 1
// where 0 is refused) up to limit. It searches by doubling and then
// bisection, replaying the arrivals O(log limit) times, so the answer is
// the least value meeting the target when the number refused does not grow
// with the burst (as for a token bucket that starts full: more tokens never
// refuse a job that fewer tokens pass); otherwise it is a value at which
// the target holds while it fails one below. A profile whose refusals do not depend on its burst (nginx
// without nodelay delays every request beyond the first of a busy period;
// uber paces every request) returns Found = false.
//
// Errors: p has no burst key.
func SizeBurst(p Profile, ts []engine.Time, allowed, limit int64) (BurstSizing, error) {
	key, ok := BurstKey(p.Name)
	if !ok {
		return BurstSizing{}, fmt.Errorf("profiles: %s has no burst parameter", p.Name)
	}
	res := BurstSizing{Key: key}
	// refused(b) replays the arrivals with burst b; ok is false when the
	// library refuses the value.
	refused := func(b int64) (int64, bool) {
		q, err := p.With(key, strconv.FormatInt(b, 10))
		if err != nil {
			return 0, false
		}
		res.Tried = max(res.Tried, b)
		return q.Refused(ts), true
	}
	lo := int64(0)
	n, ok := refused(lo)
	if !ok {
		lo = 1
		if n, ok = refused(lo); !ok {
			return res, nil
		}
	}
	if n <= allowed {
		res.Burst, res.Refused, res.Found = lo, n, true
		return res, nil
	}
	// Invariant: the target fails at lo; find hi where it holds.
	hi := max(2*lo, 1)
	for {
		if hi > limit {
			hi = limit
		}
		m, ok := refused(hi)
		if !ok {
			res.Refused = n
			return res, nil
		}
		if m <= allowed {
			n = m
			break
		}
		if hi == limit {
			res.Refused = m
			return res, nil
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		m, ok := refused(mid)
		if ok && m <= allowed {
			hi, n = mid, m
		} else {
			lo = mid
		}
	}
	res.Burst, res.Refused, res.Found = hi, n, true
	return res, nil
}
