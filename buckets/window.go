package buckets

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/engine"
)

// WindowParams describes a window limiter: at most Limit jobs per window
// of Window seconds.
type WindowParams struct {
	Limit  int64   // L: jobs per window, >= 1
	Window float64 // W: window length, seconds; finite and > 0
	// Offset places the edges of fixed windows at Offset + k·W (k an
	// integer), seconds, in [0, W). Ignored by [SlidingLog].
	Offset float64
}

// Validate returns a *ParamError naming the first invalid field, or nil.
//
// Special cases:
//
//	Limit < 1                          error
//	Window = 0, < 0, NaN or ±Inf       error
//	Offset < 0, >= Window, or NaN      error
func (p WindowParams) Validate() error {
	if p.Limit < 1 {
		return &ParamError{Name: "window limit", Value: float64(p.Limit), Want: ">= 1 job"}
	}
	if !(p.Window > 0) || math.IsInf(p.Window, 0) {
		return &ParamError{Name: "window", Value: p.Window, Want: "finite and > 0 s"}
	}
	if !(p.Offset >= 0 && p.Offset < p.Window) {
		return &ParamError{Name: "window offset", Value: p.Offset, Want: fmt.Sprintf("in [0, window %v) s", p.Window)}
	}
	return nil
}

// Promise returns L·(floor(d/W) + 1), the most jobs that "L per window of
// W" allows in a closed interval of length d: L in any interval shorter
// than W, and L more for each further W. It is the arrival curve the
// sliding window log keeps exactly, and the nominal promise of the fixed
// window and the sliding window counter, which break it.
func (p WindowParams) Promise(d float64) float64 {
	return float64(p.Limit) * (math.Floor(d/p.Window) + 1)
}

// window returns the index k of the fixed window [Offset + k·W,
// Offset + (k+1)·W) that holds t, and its start. Each edge is computed as
// math.FMA(k, W, Offset), one rounding, and t is placed by comparing it
// with the computed edges, so that every instant belongs to exactly one
// window and an instant equal to a computed edge starts the later window.
// Indexes are exact up to 2^53 windows.
func (p WindowParams) window(t engine.Time) (k float64, start engine.Time) {
	x := float64(t)
	k = math.Floor((x - p.Offset) / p.Window)
	s := math.FMA(k, p.Window, p.Offset)
	if s > x {
		k--
		s = math.FMA(k, p.Window, p.Offset)
	} else if next := math.FMA(k+1, p.Window, p.Offset); next <= x {
		k, s = k+1, next
	}
	return k, engine.Time(s)
}

// FixedWindow is the fixed window counter: it counts the jobs admitted in
// each fixed window [Offset + k·W, Offset + (k+1)·W) and admits a job while
// the count of its window is below L; the count restarts at each edge. An
// instant on an edge belongs to the window that starts there.
//
// It is simple and breaks its promise at the edges: L jobs just before an
// edge and L just after are all admitted, 2L in an interval as short as
// one likes (the article's "R requests at 0:59 and R more at 1:01 means 2R
// in two seconds"). Its measured arrival curve is at most
// L·(floor(d/W) + 2), twice the promise for d < W.
//
// The zero value is not usable; create one with [NewFixedWindow]. Memory is
// O(1).
//
// Reference: the article "Rate limiting, throttling and pacing" (fixed
// window counter).
type FixedWindow struct {
	p     WindowParams
	k     float64     // index of the current window; -Inf before the first job
	count int64       // jobs admitted in window k
	last  engine.Time // the last admitted arrival
}

// NewFixedWindow returns a fixed window counter with parameters p, or a
// *ParamError.
func NewFixedWindow(p WindowParams) (*FixedWindow, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &FixedWindow{p: p, k: math.Inf(-1)}, nil
}

// Params returns the limiter's parameters.
func (f *FixedWindow) Params() WindowParams { return f.p }

// Offer presents a job arriving at instant t (seconds, >= 0) and admits it
// when fewer than L jobs have been admitted in its window. A rejected job
// leaves the counter unchanged.
//
// Panics if t is NaN or earlier than the last admitted job.
func (f *FixedWindow) Offer(t engine.Time) Decision[engine.Time] {
	if !(t >= f.last) {
		panic(fmt.Sprintf("buckets: fixed window Offer(%v) after instant %v", t, f.last))
	}
	k, _ := f.p.window(t)
	count := f.count
	if k != f.k {
		count = 0
	}
	if count >= f.p.Limit {
		return Decision[engine.Time]{}
	}
	f.k, f.count, f.last = k, count+1, t
	return Decision[engine.Time]{Admitted: true}
}

// Promise returns L·(floor(d/W) + 1) (see [WindowParams.Promise]), which
// the fixed window does not keep.
func (f *FixedWindow) Promise(d engine.Time) float64 { return f.p.Promise(float64(d)) }
