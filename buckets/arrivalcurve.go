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
