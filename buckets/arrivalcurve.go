package buckets

import (
	"errors"
	"fmt"

	"github.com/ratesim/ratesim/engine"
)

// ErrOrder is wrapped by errors about instants that go back in time.
var ErrOrder = errors.New("instants out of order")

// CurvePoint is the empirical arrival curve of a stream at one interval
// length.
type CurvePoint struct {
	D    engine.Time // interval length d, ns
	Jobs int         // α*(d): the most instants in any closed interval [s, s + d]
	// From and To are the first and last instants of the interval that
	// achieves Jobs and ends earliest (To - From <= d); both 0 for an
	// empty stream.
	From, To engine.Time
}

// MeasureArrivalCurve returns the empirical arrival curve of the instants
// xs (ns, non-decreasing), one point per interval length in ds (ns, >= 0,
// in any order):
//
//	α*(d) = max_s #{i : s <= x_i <= s + d}
//
// the most jobs in any closed interval of length d. It is exact: an
// optimal interval can be slid right until its end is an instant, so each
// x_j is taken as the end of a candidate interval, and two pointers find
// the first x_i with x_j - x_i <= d, in O(len(xs)) per length; instants
// are integers, so no difference is rounded.
//
// With d = 0 it is the largest number of simultaneous instants. A token
// bucket (r, b) keeps α*(d) <= b + r·d (see [Curve]).
//
// It returns an error wrapping [ErrOrder] if xs decreases anywhere and a
// *ParamError for a negative length.
func MeasureArrivalCurve(xs []engine.Time, ds []engine.Time) ([]CurvePoint, error) {
	for _, d := range ds {
		if d < 0 {
			return nil, &ParamError{Name: "interval length", Value: d, Want: ">= 0 s"}
		}
	}
	for j := 1; j < len(xs); j++ {
		if xs[j] < xs[j-1] {
			return nil, fmt.Errorf("buckets: instant %d (%v s) is earlier than instant %d (%v s): %w", j, xs[j], j-1, xs[j-1], ErrOrder)
		}
	}
	pts := make([]CurvePoint, len(ds))
	for k, d := range ds {
		best, bi, bj := 0, 0, 0
		i := 0
		for j, x := range xs {
			for x-xs[i] > d {
				i++
			}
			if j-i >= best {
				best, bi, bj = j-i+1, i, j
			}
		}
		pts[k] = CurvePoint{D: d}
		if len(xs) > 0 {
			pts[k] = CurvePoint{D: d, Jobs: best, From: xs[bi], To: xs[bj]}
		}
	}
	return pts, nil
}

// ArrivalCurveMeter measures the same empirical arrival curve as
// [MeasureArrivalCurve] as the instants come, in order, without keeping
// them: for each length d it keeps the index of the first instant x_i with
// x_j − x_i <= d for the latest instant x_j (the two pointers of
// MeasureArrivalCurve), and it keeps only the instants at or after the
// earliest of those, those within D = max(ds) of the latest instant.
//
// Memory: len(ds) counters plus at most α*(D) instants (the most in a
// closed interval of length D, the curve's own value at its longest
// length; at most b + r·D for a stream that keeps a token bucket (r, b)),
// in a ring that at most doubles that; none per instant otherwise. Cost:
// O(len(ds)) per instant, amortized. The result equals
// MeasureArrivalCurve's on the same instants, point for point (the same
// ties: the interval reaching the most that ends earliest).
//
// The zero value is not usable; use [NewArrivalCurveMeter].
type ArrivalCurveMeter struct {
	ds   []engine.Time
	pts  []CurvePoint
	lo   []int64       // per length: absolute index of the window's first instant
	ring []engine.Time // instants base, base+1, ..., n−1 from ring[head]
	head int
	base int64 // absolute index of ring[head]
	n    int64 // instants so far
	last engine.Time
	err  error
}

// NewArrivalCurveMeter returns a meter of the arrival curve at the
// lengths ds (ns, >= 0, in any order). It returns a *ParamError for a
// negative length.
func NewArrivalCurveMeter(ds []engine.Time) (*ArrivalCurveMeter, error) {
	for _, d := range ds {
		if d < 0 {
			return nil, &ParamError{Name: "interval length", Value: d, Want: ">= 0 s"}
		}
	}
	m := &ArrivalCurveMeter{ds: ds, pts: make([]CurvePoint, len(ds)), lo: make([]int64, len(ds))}
	for k, d := range ds {
		m.pts[k].D = d
	}
	return m, nil
}

// at returns the instant of absolute index i (base <= i < n).
func (m *ArrivalCurveMeter) at(i int64) engine.Time {
	return m.ring[(m.head+int(i-m.base))%len(m.ring)]
}

// Add feeds the next instant x (ns, at or after the previous one). It
// returns an error wrapping [ErrOrder], with the indices MeasureArrivalCurve
// would name, for an instant before the previous one; after an error the
// meter keeps it and ignores further instants.
func (m *ArrivalCurveMeter) Add(x engine.Time) error {
	if m.err != nil {
		return m.err
	}
	if m.n > 0 && x < m.last {
		m.err = fmt.Errorf("buckets: instant %d (%v s) is earlier than instant %d (%v s): %w", m.n, x, m.n-1, m.last, ErrOrder)
		return m.err
	}
	// Push x at index n.
	size := int(m.n - m.base)
	if size == len(m.ring) {
		grown := make([]engine.Time, max(8, 2*len(m.ring)))
		for i := 0; i < size; i++ {
			grown[i] = m.ring[(m.head+i)%len(m.ring)]
		}
		m.ring, m.head = grown, 0
	}
	m.ring[(m.head+size)%len(m.ring)] = x
	j := m.n
	m.n++
	m.last = x
	first := j
	for k, d := range m.ds {
		i := m.lo[k]
		for x-m.at(i) > d {
			i++
		}
		m.lo[k] = i
		if j-i+1 > int64(m.pts[k].Jobs) {
			m.pts[k].Jobs, m.pts[k].From, m.pts[k].To = int(j-i+1), m.at(i), x
		}
		first = min(first, i)
	}
	// Drop the instants no window reaches any more: later instants only
	// move each window's start right.
	if len(m.ds) == 0 {
		first = m.n
	}
	if drop := int(first - m.base); drop > 0 {
		m.head = (m.head + drop) % len(m.ring)
		m.base = first
	}
	return nil
}

// Err returns the meter's first error, or nil.
func (m *ArrivalCurveMeter) Err() error { return m.err }

// Kept returns the number of instants the meter holds now.
func (m *ArrivalCurveMeter) Kept() int { return int(m.n - m.base) }

// Result returns the curve of the instants fed so far, one point per
// length in the order given (a new slice), or the meter's first error.
func (m *ArrivalCurveMeter) Result() ([]CurvePoint, error) {
	if m.err != nil {
		return nil, m.err
	}
	return append([]CurvePoint(nil), m.pts...), nil
}
