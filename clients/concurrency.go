package clients

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// A ConcurrencyLimit is an adaptive concurrency limit: server-side
// admission in front of one server of an [Overload] run, as Netflix's
// concurrency-limits library runs one (SimpleLimiter over a Limit,
// concurrency-limits-core, 2018 to 2024). An attempt that arrives while
// as many attempts as the limit are in flight at the server (in service
// or waiting) is rejected at once, an error its client may retry;
// otherwise it is in flight until its service ends (its client may have
// timed out by then), when the limit is given a sample: its round trip
// at the server (admission to departure, ns), the number in flight when it
// was admitted (itself included, as AbstractLimiter passes it), and
// whether it was dropped (answered with an error; a full queue drops it
// at once, with a round trip of 0).
type ConcurrencyLimit interface {
	Limit() int
	Sample(rtt engine.Time, inflight int, drop bool)
	String() string
}

// AIMDLimit is Netflix's loss-based limit (concurrency-limits-core
// com/netflix/concurrency/limits/limit/AIMDLimit.java, 2018 to 2020):
// starting at Initial (10), after each sample
//
//	drop or rtt > Timeout:  limit = max(1, min(limit − 1, floor(limit·Backoff)))
//	else if 2·inflight >= limit:  limit = limit + 1
//	else:  unchanged
//
// with Backoff 0.9 in [0.5, 1) and Timeout 5 s; the product is float64 as
// the source computes it.
type AIMDLimit struct {
	Backoff float64
	Timeout engine.Time
	limit   int
}

// NewAIMDLimit returns an AIMD limit, or an error unless initial >= 1,
// 0.5 <= backoff < 1 and timeout > 0.
func NewAIMDLimit(initial int, backoff float64, timeout engine.Time) (*AIMDLimit, error) {
	if initial < 1 || !(backoff >= 0.5 && backoff < 1) || timeout <= 0 {
		return nil, fmt.Errorf("clients: aimd initial %d, backoff %g, timeout %v s: want initial >= 1, backoff in [0.5, 1), timeout > 0", initial, backoff, timeout)
	}
	return &AIMDLimit{Backoff: backoff, Timeout: timeout, limit: initial}, nil
}

// Limit returns the current limit.
func (a *AIMDLimit) Limit() int { return a.limit }

// Sample updates the limit.
func (a *AIMDLimit) Sample(rtt engine.Time, inflight int, drop bool) {
	switch {
	case drop || rtt > a.Timeout:
		a.limit = max(1, min(a.limit-1, int(float64(a.limit)*a.Backoff)))
	case 2*inflight >= a.limit:
		a.limit++
	}
}

func (a *AIMDLimit) String() string {
	return fmt.Sprintf("aimd (backoff %g, timeout %v s)", a.Backoff, a.Timeout)
}

// Gradient2Limit is Netflix's Gradient2 limit (concurrency-limits-core
// com/netflix/concurrency/limits/limit/Gradient2Limit.java and
// measurement/ExpAvgMeasurement.java, 2019 to 2024), with its defaults:
// initial and minimum limit 20, maximum 200, smoothing 0.2, queue size 4,
// long window 600. Each sample updates a short RTT (the sample itself) and
// a long RTT (the mean of the first 10 samples, then an exponential
// average of factor 2/(600 + 1)); when long/short > 2 the long RTT is
// multiplied by 0.9; then, unless 'app-limited' (inflight < limit/2),
//
//	gradient = max(0.5, min(1, long/short))
//	limit    = (1 − smoothing)·limit + smoothing·(gradient·limit + queue)
//
// clamped to [min, max]; the limit used is its integer part. Drops are not
// used (the source's _update ignores didDrop), and a sample of round trip
// 0 (an attempt dropped at admission by a full queue) is left out: its
// ratio long/short would be infinite or NaN. Arithmetic is float64, as in
// the source.
type Gradient2Limit struct {
	Min, Max         int
	Smoothing, Queue float64
	LongWindow       int
	estimated        float64
	long             float64
	longSum          float64
	count            int
}

// NewGradient2Limit returns a Gradient2 limit, or an error for invalid
// parameters (1 <= min <= initial <= max, smoothing in (0, 1], queue >= 0,
// long window >= 1).
func NewGradient2Limit(initial, minL, maxL int, smoothing, queue float64, longWindow int) (*Gradient2Limit, error) {
	if minL < 1 || initial < minL || maxL < initial || !(smoothing > 0 && smoothing <= 1) || !(queue >= 0) || longWindow < 1 {
		return nil, fmt.Errorf("clients: gradient2 initial %d, min %d, max %d, smoothing %g, queue %g, long window %d: want 1 <= min <= initial <= max, smoothing in (0, 1], queue >= 0, long window >= 1",
			initial, minL, maxL, smoothing, queue, longWindow)
	}
	return &Gradient2Limit{Min: minL, Max: maxL, Smoothing: smoothing, Queue: queue, LongWindow: longWindow, estimated: float64(initial)}, nil
}

// Limit returns the integer part of the estimated limit.
func (g *Gradient2Limit) Limit() int { return int(g.estimated) }

// Sample updates the limit.
func (g *Gradient2Limit) Sample(rtt engine.Time, inflight int, _ bool) {
	if rtt <= 0 {
		return
	}
	short := float64(rtt)
	if g.count < 10 { // ExpAvgMeasurement's warm-up window
		g.count++
		g.longSum += short
		g.long = g.longSum / float64(g.count)
	} else {
		f := 2.0 / float64(g.LongWindow+1)
		g.long = g.long*(1-f) + short*f
	}
	if g.long/short > 2 {
		g.long *= 0.9
	}
	if float64(inflight) < g.estimated/2 {
		return
	}
	gradient := max(0.5, min(1.0, g.long/short))
	next := g.estimated*gradient + g.Queue
	next = g.estimated*(1-g.Smoothing) + next*g.Smoothing
	g.estimated = max(float64(g.Min), min(float64(g.Max), next))
}

func (g *Gradient2Limit) String() string {
	return fmt.Sprintf("gradient2 (min %d, max %d, smoothing %g, queue %g, long window %d)", g.Min, g.Max, g.Smoothing, g.Queue, g.LongWindow)
}

// VegasLimit is Netflix's delay-based limit after TCP Vegas
// (concurrency-limits-core com/netflix/concurrency/limits/limit/VegasLimit.java
// and functions/Log10RootFunction.java, 2018 to 2024), with its defaults:
// initial limit 20, maximum 1000, smoothing 1, probe multiplier 30. With
// L = log10root(floor(limit)) (max(1, floor(log10 n)) for n < 1000, floor(√n)
// above), each sample (round trip rtt > 0):
//
//   - counts towards a probe: after jitter·30·limit samples (jitter drawn
//     uniformly on [0.5, 1) from the run's source) the sample becomes the
//     no-load round trip and the count restarts;
//   - else if there is no no-load round trip yet, or rtt is below it, it
//     becomes the no-load round trip;
//   - else, with queue = ceil(limit·(1 − noload/rtt)): a drop decreases the
//     limit by L; app-limited (2·inflight < limit) leaves it; queue <= L
//     adds 6·L (beta), queue < 3·L (alpha) adds L, queue > 6·L takes L away;
//     then the limit is clamped to [1, max] and smoothed.
//
// Arithmetic is float64, as in the source; a sample of round trip 0 (the
// source refuses them) is left out.
type VegasLimit struct {
	Max       int
	Smoothing float64
	Probe     int
	estimated float64
	noload    engine.Time
	count     int
	jitter    float64
	rng       *rand.Rand
}

// NewVegasLimit returns a Vegas limit drawing its probe jitter from rng,
// or an error unless 1 <= initial <= max, smoothing in (0, 1] and probe
// >= 1.
func NewVegasLimit(initial, maxL int, smoothing float64, probe int, rng *rand.Rand) (*VegasLimit, error) {
	if initial < 1 || maxL < initial || !(smoothing > 0 && smoothing <= 1) || probe < 1 || rng == nil {
		return nil, fmt.Errorf("clients: vegas initial %d, max %d, smoothing %g, probe %d: want 1 <= initial <= max, smoothing in (0, 1], probe >= 1", initial, maxL, smoothing, probe)
	}
	v := &VegasLimit{Max: maxL, Smoothing: smoothing, Probe: probe, estimated: float64(initial), rng: rng}
	v.jitter = 0.5 + 0.5*rng.Float64()
	return v, nil
}

// log10Root is Log10RootFunction.create(0).
func log10Root(n int) int {
	if n >= 1000 {
		return int(math.Sqrt(float64(n)))
	}
	k := 0
	for p := 10; p <= n; p *= 10 {
		k++
	}
	return max(1, k)
}

// Limit returns the integer part of the estimated limit.
func (v *VegasLimit) Limit() int { return int(v.estimated) }

// Sample updates the limit.
func (v *VegasLimit) Sample(rtt engine.Time, inflight int, drop bool) {
	if rtt <= 0 {
		return
	}
	v.count++
	if v.jitter*float64(v.Probe)*v.estimated <= float64(v.count) {
		v.jitter = 0.5 + 0.5*v.rng.Float64()
		v.count = 0
		v.noload = rtt
		return
	}
	if v.noload == 0 || rtt < v.noload {
		v.noload = rtt
		return
	}
	queue := int(math.Ceil(v.estimated * (1 - float64(v.noload)/float64(rtt))))
	l := log10Root(int(v.estimated))
	var next float64
	switch {
	case drop:
		next = v.estimated - float64(l)
	case float64(2*inflight) < v.estimated:
		return
	case queue <= l:
		next = v.estimated + float64(6*l)
	case queue < 3*l:
		next = v.estimated + float64(l)
	case queue > 6*l:
		next = v.estimated - float64(l)
	default:
		return
	}
	next = max(1, min(float64(v.Max), next))
	v.estimated = (1-v.Smoothing)*v.estimated + v.Smoothing*next
}

func (v *VegasLimit) String() string {
	return fmt.Sprintf("vegas (max %d, smoothing %g, probe multiplier %d)", v.Max, v.Smoothing, v.Probe)
}
