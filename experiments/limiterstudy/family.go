package limiterstudy

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// limiterFamily registers the limiters of [RunLimiters] and of the
// clients runs, in the order of the limiters table. A new limiter is a
// *limiterDef (in a file of its own) and one line here; nothing else in the
// package names it.
var limiterFamily = []*limiterDef{
	&tokenPolice,
	&tokenShape,
	&leakyQueue,
	&gcraDef,
	&fixedWindow,
	&slidingLog,
	&slidingCounter,
	&throttleDef,
}

// LimiterNames lists the limiters of [RunLimiters], in the order of its
// table (the registered limiter family).
var LimiterNames = familyNames()

func familyNames() []string {
	names := make([]string, len(limiterFamily))
	for i, d := range limiterFamily {
		names[i] = d.name
	}
	return names
}

// familyDef returns the registered limiter name, or nil.
func familyDef(name string) *limiterDef {
	for _, d := range limiterFamily {
		if d.name == name {
			return d
		}
	}
	return nil
}

// limiterDef is a member of the limiter family: how to build it with the
// matched parameters of a [Params] and everything the table, the
// figures and the downstream bounds need to know of it.
type limiterDef struct {
	name string
	// build returns a fresh limiter; win holds the window parameters
	// aligned to the run's origin, src is the limiter's random source.
	build func(s Params, win buckets.WindowParams, src rand.Source) (buckets.Limiter, error)
	// describe gives the parameters for humans (the table's params).
	describe func(s Params) string
	// promise is the arrival curve the limiter is held to downstream; nil
	// means the token bucket γ(R, L).
	promise func(s Params) netcalc.Arrival
	// response, when not nil, makes the run count admissions by token
	// deficit and gives the ideal admission probability by deficit
	// (piecewise linear, deficit in tokens) for the response figure.
	response func(s Params) (label string, deficit, p []float64)
	kind     limiterKind // figure attributes
}

// promiseCurve returns d's downstream arrival curve.
func (d *limiterDef) promiseCurve(s Params) netcalc.Arrival {
	if d.promise != nil {
		return d.promise(s)
	}
	return netcalc.TokenBucket{Rate: s.Rate, Burst: exact.Int(s.Limit)}
}

// queueText describes the shapers' queue.
func (s Params) queueText() string {
	if s.Queue > 0 {
		return fmt.Sprintf("queue %d jobs", s.Queue)
	}
	return "unbounded queue"
}

// windowPromise is the promise of the window limiters: L jobs per W.
func windowPromise(s Params) netcalc.Arrival {
	return netcalc.Staircase{Jobs: s.Limit, Window: s.Window}
}

const windowPromiseName = "L·(floor(d/W) + 1)"

// The limiter family. Each is a token bucket, a window or a throttle of
// package buckets with the spec's matched parameters.
var (
	// tokenPolice is the token bucket (R, L), policing.
	tokenPolice = limiterDef{
		name: "token-police",
		build: func(s Params, _ buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewTokenBucket(s.bucket(), buckets.WithPolicing())
		},
		describe: func(s Params) string {
			return fmt.Sprintf("r = %v tokens/s, b = %d tokens, policing", s.Rate, s.Limit)
		},
		response: func(s Params) (string, []float64, []float64) {
			b := float64(s.Limit)
			return "token-police (cliff)", []float64{0, b - 1, b - 1, b}, []float64{1, 1, 0, 0}
		},
		kind: limiterKind{color: 0, promise: "b + r·d", promiseColor: -1},
	}
	// tokenShape is the token bucket (R, L), shaping, queue Queue.
	tokenShape = limiterDef{
		name: "token-shape",
		build: func(s Params, _ buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			if s.Queue == 0 {
				return buckets.NewTokenBucket(s.bucket())
			}
			return buckets.NewTokenBucket(s.bucket(), buckets.WithQueueCapacity(s.Queue))
		},
		describe: func(s Params) string {
			return fmt.Sprintf("r = %v tokens/s, b = %d tokens, shaping, %s", s.Rate, s.Limit, s.queueText())
		},
		kind: limiterKind{shaper: true, color: 5, promise: "b + r·d", promiseColor: -1},
	}
	// leakyQueue is the leaky bucket as a queue, rate R, queue Queue.
	leakyQueue = limiterDef{
		name: "leaky-queue",
		build: func(s Params, _ buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewLeakyBucket(buckets.LeakyParams{Rate: s.Rate, Queue: s.Queue})
		},
		describe: func(s Params) string {
			return fmt.Sprintf("R = %v jobs/s, %s", s.Rate, s.queueText())
		},
		promise: func(s Params) netcalc.Arrival {
			return netcalc.TokenBucket{Rate: s.Rate, Burst: exact.Int(1)}
		},
		kind: limiterKind{shaper: true, color: 2, promise: "1 + R·d", promiseColor: 2},
	}
	// gcraDef is GCRA(1/R, (L - 1)/R), the leaky bucket as a meter.
	gcraDef = limiterDef{
		name: "gcra",
		build: func(s Params, _ buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewGCRA(buckets.MatchGCRA(s.bucket()))
		},
		describe: func(s Params) string {
			g := buckets.MatchGCRA(s.bucket())
			return fmt.Sprintf("T = %v s, τ = %v s", g.Interval, g.Tolerance)
		},
		kind: limiterKind{color: 0, marks: true, promise: "b + r·d", promiseColor: -1},
	}
	// fixedWindow is the fixed window counter, L per W.
	fixedWindow = limiterDef{
		name: "fixed-window",
		build: func(_ Params, win buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewFixedWindow(win)
		},
		describe: windowEdges,
		promise:  windowPromise,
		kind:     limiterKind{color: 1, promise: windowPromiseName, promiseColor: 6, promiseStep: true},
	}
	// slidingLog is the sliding window log, L per W.
	slidingLog = limiterDef{
		name: "sliding-log",
		build: func(_ Params, win buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewSlidingLog(win)
		},
		describe: func(s Params) string {
			return fmt.Sprintf("L = %d in any (t - %v s, t]", s.Limit, s.Window)
		},
		promise: windowPromise,
		kind:    limiterKind{color: 6, promise: windowPromiseName, promiseColor: 6, promiseStep: true},
	}
	// slidingCounter is the sliding window counter, L per W.
	slidingCounter = limiterDef{
		name: "sliding-counter",
		build: func(_ Params, win buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewSlidingCounter(win)
		},
		describe: windowEdges,
		promise:  windowPromise,
		kind:     limiterKind{color: 3, promise: windowPromiseName, promiseColor: 6, promiseStep: true},
	}
	// throttleDef is the throttle on a token bucket (R, L), its admission
	// probability ramping from 1 at deficit Soft to 0 at Hard.
	throttleDef = limiterDef{
		name: "throttle",
		build: func(s Params, _ buckets.WindowParams, src rand.Source) (buckets.Limiter, error) {
			return buckets.NewThrottle(buckets.ThrottleParams{Rate: s.Rate, Burst: exact.Int(s.Limit), Soft: s.Soft, Hard: s.Hard}, src)
		},
		describe: func(s Params) string {
			return fmt.Sprintf("r = %v tokens/s, b = %d tokens, admission 1 up to deficit %v, 0 from %v tokens", s.Rate, s.Limit, s.Soft, s.Hard)
		},
		response: func(s Params) (string, []float64, []float64) {
			return fmt.Sprintf("throttle (ramp %v to %v)", s.Soft, s.Hard),
				[]float64{0, s.Soft.Float64(), s.Hard.Float64(), float64(s.Limit)}, []float64{1, 1, 0, 0}
		},
		kind: limiterKind{color: 4, promise: "b + r·d", promiseColor: -1},
	}
)

// windowEdges describes the windows with fixed edges.
func windowEdges(s Params) string {
	return fmt.Sprintf("L = %d per W = %v s, edges at %v + k·W s from %s", s.Limit, s.Window, s.Offset, s.EdgesFrom())
}
