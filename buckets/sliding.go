package buckets

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/engine"
)

// SlidingLog is the sliding window log: it keeps the instant of every job
// admitted in the last W seconds and admits a job arriving at t while fewer
// than L of them lie in the window (t - W, t]. A job admitted at s leaves
// the window at s + W exactly (the test is s + W <= t, one rounding), so it
// is exact: at most L jobs in any half-open window of length W, hence at
// most L·(floor(d/W) + 1) in any closed interval of length d
// ([WindowParams.Promise]), and it meets that bound.
//
// The zero value is not usable; create one with [NewSlidingLog]. Memory is
// O(L) per limiter, the article's objection to it.
//
// Reference: the article "Rate limiting, throttling and pacing" (sliding
// window log).
type SlidingLog struct {
	p   WindowParams
	w   engine.Time
	log jobQueue[engine.Time] // admitted instants in the window, oldest first
}

// NewSlidingLog returns a sliding window log with parameters p (Offset is
// ignored), or a *ParamError.
func NewSlidingLog(p WindowParams) (*SlidingLog, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &SlidingLog{p: p, w: engine.Time(p.Window)}, nil
}

// Params returns the limiter's parameters.
func (s *SlidingLog) Params() WindowParams { return s.p }

// Offer presents a job arriving at instant t (seconds) and admits it when
// fewer than L admitted jobs lie in (t - W, t]. A rejected job leaves the
// log unchanged.
//
// Panics if t is NaN or earlier than the last admitted job.
func (s *SlidingLog) Offer(t engine.Time) Decision[engine.Time] {
	n := s.log.len()
	if !(t >= 0) || n > 0 && !(t >= s.log.at(n-1)) {
		panic(fmt.Sprintf("buckets: sliding log Offer(%v) before an admitted job or the origin", t))
	}
	gone := 0
	for gone < n && s.log.at(gone)+s.w <= t {
		gone++
	}
	if int64(n-gone) >= s.p.Limit {
		return Decision[engine.Time]{}
	}
	for range gone {
		s.log.popFront()
	}
	s.log.push(waiting[engine.Time]{at: t})
	return Decision[engine.Time]{Admitted: true}
}

// Promise returns L·(floor(d/W) + 1), which the log keeps.
func (s *SlidingLog) Promise(d engine.Time) float64 { return s.p.Promise(float64(d)) }

// SlidingCounter is the sliding window counter: it keeps the counts of
// admitted jobs in the current fixed window k and in the previous one, and
// estimates the jobs in the sliding window (t - W, t] by assuming those of
// the previous window were spread evenly over it. With e = t - (Offset +
// k·W) the time elapsed in the current window (0 <= e < W), p the count of
// window k - 1 and c that of window k, a job arriving at t is admitted iff
//
//	p·(W - e)/W + c < L
//
// evaluated as p·(W - e) + c·W < L·W in float64: the estimate of the jobs
// already in the sliding window, before this one, must be below the limit
// (Cloudflare's post gives the weighted estimate). Conventions at
// the edges: windows are half-open as in [FixedWindow], so a job on an edge
// has e = 0 and the previous window counts in full; the previous window is
// the one just before the current (p = 0 after an empty window); counts
// restart at each edge.
//
// It needs O(1) memory and has no boundary spike, but it is not exact. The
// admitted jobs of window k satisfy c < L - p + p·e/W, so a closed interval
// of length d < W, which overlaps at most windows k - 1 and k, holds at
// most
//
//	α(d) <= L + ceil(L·d/W)
//
// jobs: nearly 2L as d approaches W when L jobs end window k - 1 and
// arrivals keep coming in window k. The adversarial boundary pattern of
// ratesim shows it.
//
// The zero value is not usable; create one with [NewSlidingCounter].
//
// References: the article "Rate limiting, throttling and pacing" (sliding
// window counter); J. Desgats, "How we built rate limiting capable of
// scaling to millions of domains", [Cloudflare] blog, June 2017.
//
// [Cloudflare]: https://blog.cloudflare.com/counting-things-a-lot-of-different-things/
type SlidingCounter struct {
	p          WindowParams
	k          float64     // index of the current window; -Inf before the first job
	prev, curr int64       // admitted jobs in windows k - 1 and k
	last       engine.Time // the last admitted arrival
}

// NewSlidingCounter returns a sliding window counter with parameters p, or
// a *ParamError.
func NewSlidingCounter(p WindowParams) (*SlidingCounter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &SlidingCounter{p: p, k: math.Inf(-1)}, nil
}

// Params returns the limiter's parameters.
func (s *SlidingCounter) Params() WindowParams { return s.p }

// Offer presents a job arriving at instant t (seconds, >= 0) and decides it
// by the rule above. A rejected job leaves the counter unchanged.
//
// Panics if t is NaN or earlier than the last admitted job.
func (s *SlidingCounter) Offer(t engine.Time) Decision[engine.Time] {
	if !(t >= s.last) {
		panic(fmt.Sprintf("buckets: sliding counter Offer(%v) after instant %v", t, s.last))
	}
	k, start := s.p.window(t)
	prev, curr := s.prev, s.curr
	if k != s.k {
		if k == s.k+1 {
			prev = curr
		} else {
			prev = 0
		}
		curr = 0
	}
	w := s.p.Window
	e := float64(t - start)
	if !(float64(prev)*(w-e)+float64(curr)*w < float64(s.p.Limit)*w) {
		return Decision[engine.Time]{}
	}
	s.k, s.prev, s.curr, s.last = k, prev, curr+1, t
	return Decision[engine.Time]{Admitted: true}
}

// Estimate returns the counter's estimate at instant t of the jobs in
// (t - W, t], p·(W - e)/W + c (see [SlidingCounter]), without changing it.
func (s *SlidingCounter) Estimate(t engine.Time) float64 {
	k, start := s.p.window(t)
	prev, curr := s.prev, s.curr
	if k != s.k {
		prev, curr = 0, 0
		if k == s.k+1 {
			prev = s.curr
		}
	}
	return float64(prev)*(s.p.Window-float64(t-start))/s.p.Window + float64(curr)
}

// Promise returns L·(floor(d/W) + 1) (see [WindowParams.Promise]), which
// the counter does not keep.
func (s *SlidingCounter) Promise(d engine.Time) float64 { return s.p.Promise(float64(d)) }
