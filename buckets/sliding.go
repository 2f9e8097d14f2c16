package buckets

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// SlidingLog is the sliding window log: it keeps the instant of every job
// it admitted in the last W seconds and admits a job arriving at t when
// fewer than L of them lie in the window (t - W, t]. A job admitted at a
// is out of the window from t = a + W on, exactly. It keeps its promise
// L·(floor(d/W) + 1) exactly.
//
// The zero value is not usable; create one with [NewSlidingLog]. Memory is
// O(L).
//
// Reference: the article "Rate limiting, throttling and pacing" (sliding
// window log).
type SlidingLog struct {
	p   WindowParams
	g   windows
	log jobQueue // admitted instants in the window, oldest first
}

// NewSlidingLog returns a sliding window log with parameters p (Offset is
// ignored), or an error wrapping [ErrParam].
func NewSlidingLog(p WindowParams) (*SlidingLog, error) {
	p.Offset = exact.Rat{}
	g, err := p.geometry()
	if err != nil {
		return nil, err
	}
	return &SlidingLog{p: p, g: g}, nil
}

// Params returns the limiter's parameters.
func (s *SlidingLog) Params() WindowParams { return s.p }

// Offer presents job id arriving at instant t and admits it when fewer
// than L admitted jobs lie in (t - W, t]; a rejected job is told to retry
// when enough of them have left. A rejected job leaves the log unchanged.
//
// Panics if t is earlier than an admitted job.
func (s *SlidingLog) Offer(t engine.Time, id int64) Decision {
	n := s.log.len()
	if n > 0 && t < s.log.at(n-1).at {
		panic(fmt.Sprintf("buckets: SlidingLog.Offer(%v) before an admitted job", t))
	}
	ts := at(t, s.g.scale)
	gone := 0
	for gone < n && !ts.Less(at(s.log.at(gone).at, s.g.scale).Add(s.g.w)) {
		gone++
	}
	if in := int64(n - gone); in >= s.p.Limit {
		// The job passes once in - L + 1 of the jobs in the window have
		// left: the one at index gone + in - L leaves at its instant + W.
		leave := at(s.log.at(gone+int(in-s.p.Limit)).at, s.g.scale).Add(s.g.w)
		return Decision{Verdict: Reject, RetryAfter: ceilNanos(leave, s.g.scale) - t}
	}
	for range gone {
		s.log.popFront()
	}
	s.log.push(waiting{id: id, at: t})
	return Decision{Verdict: Admit}
}

// Next returns [engine.Forever]: a log queues nothing.
func (s *SlidingLog) Next() engine.Time { return engine.Forever }

// Release panics: a log queues nothing.
func (s *SlidingLog) Release() Released { panic("buckets: SlidingLog.Release: nothing is queued") }

// Promise returns L·(floor(d/W) + 1), which the log keeps.
func (s *SlidingLog) Promise(d engine.Time) float64 { return s.p.Promise(d) }

// SlidingCounter is the sliding window counter: it keeps the counts of
// admitted jobs in the current fixed window k and in the previous one, and
// estimates the jobs in the sliding window (t - W, t] by assuming those of
// the previous window were spread evenly over it. With e = t - (Offset +
// k·W) the time elapsed in the current window (0 <= e < W), p the count of
// window k - 1 and c that of window k, a job arriving at t is admitted iff
//
//	p·(W - e)/W + c < L
//
// evaluated exactly as p·(W - e) + c·W < L·W in integer units: the
// estimate of the jobs already in the sliding window, before this one,
// must be below the limit (Cloudflare's post gives the weighted estimate).
// Conventions at the edges: windows are half-open as in [FixedWindow], so
// a job on an edge has e = 0 and the previous window counts in full; the
// previous window is the one just before the current (p = 0 after an empty
// window); counts restart at each edge.
//
// It needs O(1) memory and has no boundary spike, but it is not exact. The
// admitted jobs of window k satisfy c < L - p + p·e/W, so a closed interval
// of length d < W, which overlaps at most windows k - 1 and k, holds at
// most
//
//	α(d) <= L + ceil(L·d/W)
//
// jobs: nearly 2L as d approaches W when L jobs end window k - 1 and
// arrivals keep coming in window k.
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
	g          windows
	k          exact.Int128 // index of the current window
	seen       bool         // a job has been admitted (k is set)
	prev, curr int64        // admitted jobs in windows k - 1 and k
	last       engine.Time
}

// NewSlidingCounter returns a sliding window counter with parameters p, or
// an error wrapping [ErrParam].
func NewSlidingCounter(p WindowParams) (*SlidingCounter, error) {
	g, err := p.geometry()
	if err != nil {
		return nil, err
	}
	return &SlidingCounter{p: p, g: g}, nil
}

// Params returns the limiter's parameters.
func (s *SlidingCounter) Params() WindowParams { return s.p }

// counts returns the counts (p, c) that apply in window k.
func (s *SlidingCounter) counts(k exact.Int128) (prev, curr int64) {
	switch {
	case !s.seen:
		return 0, 0
	case k == s.k:
		return s.prev, s.curr
	case k == s.k.Add64(1):
		return s.curr, 0
	}
	return 0, 0
}

// below reports whether p·(W - e) + c·W < L·W, exactly.
func (s *SlidingCounter) below(prev, curr int64, e exact.Int128) bool {
	lhs, ok1 := s.g.w.Sub(e).Mul64OK(prev)
	cw, ok2 := s.g.w.Mul64OK(curr)
	lw, ok3 := s.g.w.Mul64OK(s.p.Limit)
	if !ok1 || !ok2 || !ok3 {
		panic("buckets: SlidingCounter estimate overflows 128 bits")
	}
	return lhs.Add(cw).Less(lw)
}

// Offer presents job id arriving at instant t and decides it by the rule
// above; a rejected job is told the first instant at which the estimate
// falls below L. A rejected job leaves the counter unchanged.
//
// Panics if t is earlier than an instant already offered.
func (s *SlidingCounter) Offer(t engine.Time, id int64) Decision {
	if t < s.last {
		panic(fmt.Sprintf("buckets: SlidingCounter.Offer(%v) after instant %v", t, s.last))
	}
	k, e := s.g.index(t)
	prev, curr := s.counts(k)
	if !s.below(prev, curr, e) {
		return Decision{Verdict: Reject, RetryAfter: s.retryAfter(t, k, prev, curr)}
	}
	s.k, s.seen, s.prev, s.curr, s.last = k, true, prev, curr+1, t
	return Decision{Verdict: Admit}
}

// retryAfter returns how long after t (in window k, counts prev and curr,
// estimate >= L) the estimate first falls below L with nothing admitted in
// between.
func (s *SlidingCounter) retryAfter(t engine.Time, k exact.Int128, prev, curr int64) engine.Time {
	// In window k the estimate falls as e grows: p·(W - e) < (L - c)·W
	// iff e > W - (L - c)·W/p, possible only when c < L and p > 0.
	first := func(start exact.Int128, prev, curr int64) (exact.Int128, bool) {
		if curr >= s.p.Limit {
			return exact.Int128{}, false
		}
		if prev == 0 {
			return start, true
		}
		// The smallest e in units with p·(W - e) + c·W < L·W is
		// floor(W·(p + c - L)/p) + 1 (and 0 when that is negative).
		num, _ := s.g.w.Mul64OK(prev + curr - s.p.Limit)
		e := num.FloorDiv(prev).Add64(1)
		if e.Sign() < 0 {
			e = exact.Int128{}
		}
		if !e.Less(s.g.w) {
			return exact.Int128{}, false
		}
		return start.Add(e), true
	}
	x, ok := first(s.g.start(k), prev, curr)
	if !ok {
		// In window k + 1 the counts are (c, 0); in k + 2, (0, 0), which
		// always admits.
		next := k.Add64(1)
		if x, ok = first(s.g.start(next), curr, 0); !ok {
			x = s.g.start(next.Add64(1))
		}
	}
	// x is in units and the condition is strict in e: the first
	// nanosecond at or after x is the first that passes.
	r := ceilNanos(x, s.g.scale)
	if r == engine.Forever {
		return 0
	}
	return r - t
}

// Estimate returns the counter's estimate at instant t of the jobs in
// (t - W, t], p·(W - e)/W + c, exactly, without changing it.
func (s *SlidingCounter) Estimate(t engine.Time) exact.Rat {
	k, e := s.g.index(t)
	prev, curr := s.counts(k)
	lhs, _ := s.g.w.Sub(e).Mul64OK(prev)
	cw, _ := s.g.w.Mul64OK(curr)
	r, err := exact.RatOf(lhs.Add(cw), s.g.w)
	if err != nil {
		panic(fmt.Sprintf("buckets: SlidingCounter.Estimate out of range: %v", err))
	}
	return r
}

// Next returns [engine.Forever]: a counter queues nothing.
func (s *SlidingCounter) Next() engine.Time { return engine.Forever }

// Release panics: a counter queues nothing.
func (s *SlidingCounter) Release() Released {
	panic("buckets: SlidingCounter.Release: nothing is queued")
}

// Promise returns L·(floor(d/W) + 1) (see [WindowParams.Promise]), which
// the counter does not keep.
func (s *SlidingCounter) Promise(d engine.Time) float64 { return s.p.Promise(d) }
