package drl

import (
	"fmt"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// curve measures one key's admitted stream as it is made, in departure
// order: α*(d) at the lengths ds exactly as buckets.MeasureArrivalCurve
// does (each instant x taken as the end of a candidate interval, a
// pointer per length to the first instant within d of it), and the time
// during which more than R·w instants lie in (t - w, t] as overRate does
// (the same walk, run as far as the instants already known allow). It
// keeps the instants within max(ds) and w of the latest, so its memory
// is what the key admits in that span, not what it admits in the run.
type curve struct {
	// pending are the key's departures not yet final (after the frontier
	// when they were made), sorted, from index ph: a key's departures are
	// mostly made in order, so an insertion is mostly an append.
	pending []engine.Time
	ph      int

	buf    []engine.Time // final instants of stream indexes [base, base + len(buf))
	base   int
	trimAt int // trim when buf is longer

	// α*: per length, the index of the first instant within d of the
	// latest, the best count and its interval.
	heads    []int
	best     []int
	from, to []engine.Time

	// overRate's walk (see overRate): instant t, instants in the window
	// n, time over R total; ii and jj the indexes of the next +1 (an
	// instant) and -1 (an instant + w) events.
	t      engine.Time
	n      int64
	total  engine.Time
	ii, jj int
	done   bool

	promise *promiseCheck // the exact check of α(d) <= B + R·d at every d
}

// streams is every key's curve and the departures not yet final.
type streams struct {
	p        buckets.Params // the promise (R, B)
	ds       []engine.Time
	w        engine.Time // overRate's window, ns; 0: not measured
	over     func(n int64) bool
	first    engine.Time
	frontier engine.Time // every departure still to come is at or after it
	end      engine.Time // the walks' end: the last arrival once known, engine.Forever before
	keys     map[uint64]*curve
}

func newStreams(p buckets.Params, w engine.Time) *streams {
	return &streams{p: p, ds: Durations(p), w: w, over: overLimit(p.Rate, w), end: engine.Forever, keys: map[uint64]*curve{}}
}

// add records a departure of key at instant x, >= the frontier. The
// key's departures that the frontier has passed are made final first
// (lazily: a key's stream is final only when it is read).
func (s *streams) add(key uint64, x engine.Time) error {
	if x < s.frontier {
		return fmt.Errorf("drl: a departure at %d ns before the frontier %d ns (a design decided a job after it left)", x, s.frontier)
	}
	c := s.keys[key]
	if c == nil {
		c = &curve{t: s.first, promise: newPromiseCheck(s.p)}
		s.keys[key] = c
	}
	c.release(s)
	if x == s.frontier && c.ph == len(c.pending) { // no departure to come is earlier: final now
		c.feed(s, x)
		return nil
	}
	if n := len(c.pending); n == c.ph || c.pending[n-1] <= x {
		c.pending = append(c.pending, x)
		return nil
	}
	i, _ := slices.BinarySearch(c.pending[c.ph:], x)
	c.pending = slices.Insert(c.pending, c.ph+i, x)
	return nil
}

// advance moves the frontier to t: no departure to come is earlier.
func (s *streams) advance(t engine.Time) { s.frontier = max(s.frontier, t) }

// release makes final the key's pending departures at or before the
// frontier, in order.
func (c *curve) release(s *streams) {
	for c.ph < len(c.pending) && c.pending[c.ph] <= s.frontier {
		c.feed(s, c.pending[c.ph])
		c.ph++
	}
	if c.ph == len(c.pending) {
		c.pending, c.ph = c.pending[:0], 0
	} else if c.ph >= 64 && c.ph >= len(c.pending)/2 {
		c.pending = append(c.pending[:0], c.pending[c.ph:]...)
		c.ph = 0
	}
}

// feed appends the final instant x (>= every earlier one) to the stream.
func (c *curve) feed(s *streams, x engine.Time) {
	c.promise.add(x)
	if s.w > 0 {
		c.walk(s, x, s.end) // every event before x is known
	}
	c.buf = append(c.buf, x)
	if c.heads == nil {
		if len(c.buf) < listMax {
			return
		}
		// Stream from now on: run the pointers over the instants so far.
		n := len(s.ds)
		c.heads, c.best, c.from, c.to = make([]int, n), make([]int, n), make([]engine.Time, n), make([]engine.Time, n)
		for j := range c.buf {
			c.step(s, j)
		}
	} else {
		c.step(s, c.base+len(c.buf)-1)
	}
	if len(c.buf) > c.trimAt {
		c.trim(s.w > 0)
		c.trimAt = max(2*listMax, 2*len(c.buf))
	}
}

// listMax is the number of instants a key keeps as a list, measured at
// the end by buckets.MeasureArrivalCurve, before it streams: a key's
// streaming state costs 32 bytes per length, about what listMax instants
// do, so a key with few jobs costs 8 bytes per job, and one with many a
// bounded amount.
const listMax = 128

// step moves the pointers to the instant of stream index j, the latest.
func (c *curve) step(s *streams, j int) {
	x := c.at(j)
	for k, d := range s.ds {
		i := c.heads[k]
		for x-c.buf[i-c.base] > d {
			i++
		}
		c.heads[k] = i
		if j-i >= c.best[k] {
			c.best[k], c.from[k], c.to[k] = j-i+1, c.buf[i-c.base], x
		}
	}
}

func (c *curve) at(i int) engine.Time { return c.buf[i-c.base] }

// trim drops the instants no pointer needs (streaming only).
func (c *curve) trim(walk bool) {
	if c.heads == nil {
		return
	}
	low := c.base + len(c.buf)
	for _, h := range c.heads {
		low = min(low, h)
	}
	if walk {
		low = min(low, c.ii, c.jj)
	}
	if drop := low - c.base; drop > 0 {
		c.buf = append(c.buf[:0], c.buf[drop:]...)
		c.base = low
	}
}

// walk runs overRate's walk over the events strictly before bound
// (every instant before it is in buf), up to the end to.
func (c *curve) walk(s *streams, bound, to engine.Time) {
	end := c.base + len(c.buf)
	for !c.done && c.t < to {
		next := to
		if c.ii < end && c.at(c.ii) < next {
			next = c.at(c.ii)
		}
		if c.jj < end && c.at(c.jj)+s.w < next {
			next = c.at(c.jj) + s.w
		}
		if next >= bound {
			return
		}
		if next > c.t && s.over(c.n) {
			c.total += next - c.t
		}
		c.t = max(c.t, next)
		for c.ii < end && c.at(c.ii) <= c.t {
			c.n++
			c.ii++
		}
		for c.jj < end && c.at(c.jj)+s.w <= c.t {
			c.n--
			c.jj++
		}
		if next == to {
			c.done = true
		}
	}
}

// finish makes every pending departure final and ends the walks at last,
// the last arrival.
func (s *streams) finish(last engine.Time) {
	s.end = last
	s.advance(engine.Forever)
	for _, c := range s.keys {
		c.release(s)
		if s.w > 0 {
			c.walk(s, engine.Forever, s.end)
		}
	}
}

// points returns the key's α* at the lengths ds, as
// buckets.MeasureArrivalCurve does (and by it, for a key kept as a list).
func (c *curve) points(ds []engine.Time) ([]buckets.CurvePoint, error) {
	if c.heads == nil {
		return buckets.MeasureArrivalCurve(c.buf, ds)
	}
	pts := make([]buckets.CurvePoint, len(ds))
	for k, d := range ds {
		pts[k] = buckets.CurvePoint{D: d, Jobs: c.best[k], From: c.from[k], To: c.to[k]}
	}
	return pts, nil
}

// overLimit returns the comparison of overRate: more than R·w instants,
// n·10^9·den(R) > num(R)·w, exactly.
func overLimit(rate exact.Rat, w engine.Time) func(n int64) bool {
	limit, okL := rate.Num().Mul64OK(int64(w))
	return func(n int64) bool {
		c, ok := exact.Mul64(n, 1e9).Mul64OK(rate.Den())
		switch {
		case !okL: // R·w beyond 127 bits: never exceeded
			return false
		case !ok:
			return true
		}
		return limit.Less(c)
	}
}
