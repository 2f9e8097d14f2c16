package clients

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/engine"
)

// A TimedLimit is a [ConcurrencyLimit] with timers of its own: Advance
// runs those due at or before now, at their own instants, and is called
// before every Limit and Sample with the instant of the call (Sample's
// attempt then left the server at that instant).
type TimedLimit interface {
	ConcurrencyLimit
	Advance(now engine.Time)
}

// EnvoyGradient is the gradient controller of Envoy's adaptive
// concurrency filter (envoyproxy/envoy
// source/extensions/filters/http/adaptive_concurrency/controller/gradient_controller.cc,
// 2020 to 2024), with the defaults of its proto: min_concurrency 3,
// max_concurrency_limit 1000, request_count 50, buffer 25%, jitter 15%,
// sample_aggregate_percentile 50; concurrency_update_interval (Update) and
// the minRTT interval (MinRTTInterval) have no default in Envoy and are
// given here (100 ms and 60 s unless set).
//
//   - A minRTT window (at the start, then every MinRTTInterval plus a
//     jitter of up to 15%, drawn as the source draws it in whole
//     milliseconds): the limit is pinned to min_concurrency; samples of
//     requests sent before the window are ignored; when request_count
//     samples have come, minRTT = their median, the limit returns to its
//     value before the window, and the next window is timed.
//
//   - Every Update outside a minRTT window, with samples: sampleRTT = their
//     median, and
//
//     gradient = max(0.5, min(2, minRTT·(1 + buffer)/sampleRTT))
//     limit    = floor(limit·gradient + √(limit·gradient)), clamped to [min, max]
//
//   - A limit set to min_concurrency for the 5th time in a row outside a
//     minRTT window starts a new minRTT window at once.
//
// Round trips are kept in whole microseconds as Envoy keeps them; the
// medians are exact (the nearest-rank median of the samples), where Envoy
// takes an approximate quantile of a log-linear histogram (libcircllhist):
// a deviation of at most the histogram's bin width. Timers due at the
// instant of a call run before it.
type EnvoyGradient struct {
	Min, Max, RequestCount int
	Buffer, Jitter         float64
	Update, MinRTTInterval engine.Time
	limit, deferred        int
	minRTT, sampleRTT      int64 // µs
	samples                []int64
	epoch                  engine.Time
	nextMinRTT, nextReset  engine.Time
	consecutiveMin         int
	now                    engine.Time
	started                bool
	rng                    *rand.Rand
}

// NewEnvoyGradient returns a controller that starts in a minRTT window at
// the instant of its first Advance (its server's start, or restart after a
// crash), or an error for invalid parameters.
func NewEnvoyGradient(minC, maxC, requestCount int, buffer, jitter float64, update, minRTTInterval engine.Time, rng *rand.Rand) (*EnvoyGradient, error) {
	if minC < 1 || maxC < minC || requestCount < 1 || !(buffer >= 0) || !(jitter >= 0 && jitter <= 1) || update < 1e6 || minRTTInterval < 1e6 || rng == nil {
		return nil, fmt.Errorf("clients: envoy min %d, max %d, request count %d, buffer %g, jitter %g, update %v s, min_rtt interval %v s: want 1 <= min <= max, request count >= 1, buffer >= 0, jitter in [0, 1], intervals >= 1 ms",
			minC, maxC, requestCount, buffer, jitter, update, minRTTInterval)
	}
	e := &EnvoyGradient{Min: minC, Max: maxC, RequestCount: requestCount, Buffer: buffer, Jitter: jitter, Update: update, MinRTTInterval: minRTTInterval,
		limit: minC, nextMinRTT: engine.Forever, nextReset: engine.Forever, rng: rng}
	return e, nil
}

func (e *EnvoyGradient) inMinRTT() bool { return e.deferred > 0 }

// enterMinRTT starts a minRTT window at t.
func (e *EnvoyGradient) enterMinRTT(t engine.Time) {
	if e.inMinRTT() {
		return
	}
	e.deferred = e.limit
	e.setLimit(t, e.Min)
	e.samples = e.samples[:0]
	e.epoch = t
}

// setLimit is updateConcurrencyLimit.
func (e *EnvoyGradient) setLimit(t engine.Time, l int) {
	old := e.limit
	e.limit = l
	if !e.inMinRTT() && old == e.Min && l == e.Min {
		e.consecutiveMin++
	} else {
		e.consecutiveMin = 0
	}
	if e.consecutiveMin >= 5 {
		e.nextMinRTT = t // enableTimer(0)
	}
}

// median returns the nearest-rank median of the samples and clears them.
func (e *EnvoyGradient) median() int64 {
	slices.Sort(e.samples)
	m := e.samples[(len(e.samples)+1)/2-1]
	e.samples = e.samples[:0]
	return m
}

// Advance runs the timers due at or before now, in order of their
// instants (the minRTT timer first at a tie).
func (e *EnvoyGradient) Advance(now engine.Time) {
	if !e.started {
		e.started = true
		e.enterMinRTT(now)
		e.nextReset = now + e.Update
	}
	for {
		switch {
		case e.nextMinRTT <= now && e.nextMinRTT <= e.nextReset:
			t := e.nextMinRTT
			e.nextMinRTT = engine.Forever
			e.enterMinRTT(t)
		case e.nextReset <= now:
			t := e.nextReset
			e.nextReset = engine.Forever
			if e.inMinRTT() {
				continue // given up; enabled again when the window ends
			}
			if len(e.samples) > 0 {
				e.sampleRTT = e.median()
				e.setLimit(t, e.newLimit())
			}
			e.nextReset = t + e.Update
		default:
			e.now = now
			return
		}
	}
}

// newLimit is calculateNewLimit.
func (e *EnvoyGradient) newLimit() int {
	buffered := float64(e.minRTT) + float64(e.minRTT)*e.Buffer
	gradient := max(0.5, min(2.0, buffered/float64(e.sampleRTT)))
	l := float64(e.limit) * gradient
	n := int(l + math.Sqrt(l))
	return max(e.Min, min(e.Max, n))
}

// Limit returns the concurrency limit.
func (e *EnvoyGradient) Limit() int { return e.limit }

// Sample records the round trip of a request that left the server at the
// instant of the last Advance (recordLatencySample).
func (e *EnvoyGradient) Sample(rtt engine.Time, _ int, _ bool) {
	if e.now-rtt < e.epoch {
		return // sent before the minRTT window
	}
	e.samples = append(e.samples, int64(rtt/1000))
	if e.inMinRTT() && len(e.samples) >= e.RequestCount {
		e.minRTT = e.median()
		e.setLimit(e.now, e.deferred)
		e.deferred = 0
		iv := e.MinRTTInterval / 1e6 // ms
		if r := int64(math.Ceil(float64(iv) * e.Jitter)); r > 0 {
			iv += engine.Time(e.rng.Uint64() % uint64(r))
		}
		e.nextMinRTT = e.now + iv*1e6
		e.nextReset = e.now + e.Update
	}
}

func (e *EnvoyGradient) String() string {
	return fmt.Sprintf("envoy (gradient controller: min %d, max %d, update %v s, min_rtt every %v s over %d requests, buffer %g, jitter %g)",
		e.Min, e.Max, e.Update, e.MinRTTInterval, e.RequestCount, e.Buffer, e.Jitter)
}
