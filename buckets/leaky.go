package buckets

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/engine"
)

// LeakyParams describes a leaky bucket used as a queue.
type LeakyParams struct {
	Rate  float64 // R: jobs leave one per 1/R seconds at most, jobs/s; finite and > 0
	Queue int     // the most jobs that may wait, >= 1; 0 means no limit
}

// Validate returns a *ParamError naming the first invalid field, or nil.
//
// Special cases:
//
//	Rate = 0, < 0, NaN or ±Inf   error
//	1/Rate = +Inf                error (the interval would overflow)
//	Queue < 0                    error
func (p LeakyParams) Validate() error {
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) || math.IsInf(1/p.Rate, 0) {
		return &ParamError{Name: "leaky bucket rate", Value: p.Rate, Want: "finite and > 0 jobs/s, with a finite interval 1/rate"}
	}
	if p.Queue < 0 {
		return &ParamError{Name: "leaky bucket queue", Value: float64(p.Queue), Want: ">= 1 job, or 0 for no limit"}
	}
	return nil
}

// Leaky is the leaky bucket as a queue: jobs join a FCFS queue that drains
// at exactly one job per interval I = 1/R, so that job i, arriving at a_i,
// leaves at
//
//	D_i = max(a_i, D_{i-1} + I),   D_{-1} = -∞
//
// and waits D_i - a_i. Nothing downstream sees two jobs closer than I. A job
// that arrives while the queue holds its capacity of waiting jobs (jobs with
// D_j > a_i) is rejected. These are the delays of a token bucket (R, 1) in
// shaping mode (see [Bucket]), and the tests check that they are equal.
//
// The departure instant is computed afresh in each busy period as
// B + k·I, B the busy period's first departure and k the jobs before it in
// the period, so rounding does not accumulate (one rounding of a product and
// one of a sum in float64; none for an exact Leaky[Tick]).
//
// [LeakyBucket] is the float64 form, in seconds; a Leaky[Tick] from
// [NewExactLeaky] is exact. The zero value is not usable; create one with
// [NewLeakyBucket] or [NewExactLeaky]. Memory is O(waiting jobs).
//
// Reference: the article "Rate limiting, throttling and pacing" (leaky
// bucket: "requests enter a queue that drains at exactly rate R"); J. Turner,
// "New directions in communications (or which way to the information
// age?)", IEEE Communications Magazine 24(10), 1986.
type Leaky[T Number] struct {
	p     LeakyParams
	inc   T   // I = 1/R, seconds or ticks
	queue int // the most jobs that may wait; -1 for no limit
	start T   // B: first departure of the busy period
	k     T   // jobs admitted in the busy period
	last  T   // the last admitted arrival
	deps  jobQueue[T]
}

// LeakyBucket is the leaky bucket as a queue in float64 seconds.
type LeakyBucket = Leaky[engine.Time]

// NewLeakyBucket returns an empty leaky bucket with parameters p, or a
// *ParamError.
func NewLeakyBucket(p LeakyParams) (*LeakyBucket, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return newLeaky(p, engine.Time(1/p.Rate)), nil
}

// NewExactLeaky returns an exact leaky bucket that releases one job every
// interval ticks (>= 1), with at most queue waiting jobs (0: no limit).
// Its delays equal those of a Bucket[Tick] with ExactParams{Quantum: 1,
// Period: interval, Burst: 1}.
func NewExactLeaky(interval Tick, queue int) (*Leaky[Tick], error) {
	if interval < 1 {
		return nil, &ParamError{Name: "leaky bucket interval", Value: float64(interval), Want: ">= 1 tick"}
	}
	p := LeakyParams{Rate: 1 / float64(interval), Queue: queue}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return newLeaky(p, interval), nil
}

func newLeaky[T Number](p LeakyParams, inc T) *Leaky[T] {
	l := &Leaky[T]{p: p, inc: inc, queue: p.Queue}
	if l.queue == 0 {
		l.queue = -1
	}
	// An empty bucket: the next free slot, start + k·inc, is at 0.
	l.start, l.k = -inc, 1
	return l
}

// Params returns the bucket's parameters.
func (l *Leaky[T]) Params() LeakyParams { return l.p }

// Offer presents a job arriving at instant t and decides it: the job
// leaves at D = max(t, the previous departure + 1/R) (Delay D - t) unless it
// would wait while the queue holds its capacity, in which case it is
// rejected and the bucket is left as it was. A job that leaves at its
// arrival never counts as waiting, nor does one whose departure is t.
//
// Special cases:
//
//	D beyond the largest T   the job is rejected (float64: +Inf)
//
// Panics if t is NaN or earlier than the last admitted job.
func (l *Leaky[T]) Offer(t T) Decision[T] {
	if !(t >= l.last) {
		panic(fmt.Sprintf("buckets: leaky bucket Offer(%v) after instant %v", t, l.last))
	}
	n := l.deps.len()
	gone := 0 // waiting jobs that have left by t
	for gone < n && l.deps.at(gone) <= t {
		gone++
	}
	start, k := l.start, l.k
	d := start + k*l.inc
	if d <= t {
		// The queue is empty at t: a new busy period starts.
		start, k, d = t, 0, t
	}
	if d > t {
		if l.queue >= 0 && n-gone >= l.queue || !(d <= never[T]()) {
			return Decision[T]{}
		}
	}
	for range gone {
		l.deps.popFront()
	}
	l.start, l.k, l.last = start, k+1, t
	if d > t {
		l.deps.push(waiting[T]{at: d})
	}
	return Decision[T]{Admitted: true, Delay: d - t}
}

// Waiting returns the jobs waiting at instant t (not earlier than the last
// admitted job): those admitted whose departure is later than t.
func (l *Leaky[T]) Waiting(t T) int {
	n := 0
	for i := range l.deps.len() {
		if l.deps.at(i) > t {
			n++
		}
	}
	return n
}

// Promise returns 1 + R·d: departures are at least 1/R apart, so a closed
// interval of length d holds at most floor(R·d) + 1 of them.
func (l *Leaky[T]) Promise(d T) float64 {
	return 1 + l.p.Rate*float64(d)
}

// at returns the instant kept with the i-th oldest entry (0 <= i < len).
func (q *jobQueue[T]) at(i int) T { return q.buf[(q.head+i)&(len(q.buf)-1)].at }
