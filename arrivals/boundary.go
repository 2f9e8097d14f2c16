package arrivals

import (
	"fmt"
	"io"
	"math"

	"github.com/ratesim/ratesim/engine"
)

// BoundarySpec describes the adversarial pattern of window limiters: bursts
// aligned to the edges of fixed windows. Cycle c (0-based) is built around
// the window edge
//
//	β_c = Offset + (3c + 1)·W
//
// and holds Burst jobs at β_c - Gap, Burst jobs at β_c + Gap, and Stream
// jobs spread evenly over (β_c + Gap, β_c + W - Gap), at the midpoints of
// Stream equal slots. Cycles are 3W apart, so that a window limiter (L per
// W) or a token bucket (L tokens at L/W tokens/s) facing them has forgotten
// one cycle before the next begins: the windows before each edge are empty
// but for its first burst, and the bucket has refilled.
//
// With Burst = L the two bursts make a fixed window counter admit 2L jobs
// in 2·Gap seconds (the article's "R requests at 0:59 and R more at 1:01").
// The stream probes the sliding window counter, which keeps admitting in
// the window after the edge as if the first burst had been spread over the
// window before it (see buckets.SlidingCounter).
type BoundarySpec struct {
	Window float64 // W: window length, seconds; finite and > 0
	Offset float64 // window edges at Offset + k·W, seconds; in [0, W)
	Gap    float64 // δ: the bursts arrive δ before and δ after the edge, seconds; in (0, W/2)
	Burst  int     // jobs in each burst, >= 1
	Stream int     // jobs spread over the rest of the window after the edge, >= 0
	Cycles int     // number of cycles, >= 1
}

// Validate returns an error naming the first invalid field, or nil.
func (s BoundarySpec) Validate() error {
	switch {
	case !(s.Window > 0) || math.IsInf(s.Window, 0):
		return fmt.Errorf("arrivals: boundary window %v s is invalid: want finite and > 0", s.Window)
	case !(s.Offset >= 0 && s.Offset < s.Window):
		return fmt.Errorf("arrivals: boundary offset %v s is invalid: want in [0, window %v)", s.Offset, s.Window)
	case !(s.Gap > 0 && s.Gap < s.Window/2):
		return fmt.Errorf("arrivals: boundary gap %v s is invalid: want in (0, window/2 = %v)", s.Gap, s.Window/2)
	case s.Burst < 1:
		return fmt.Errorf("arrivals: boundary burst %d is invalid: want >= 1 job", s.Burst)
	case s.Stream < 0:
		return fmt.Errorf("arrivals: boundary stream %d is invalid: want >= 0 jobs", s.Stream)
	case s.Cycles < 1:
		return fmt.Errorf("arrivals: boundary cycles %d is invalid: want >= 1", s.Cycles)
	case math.IsInf(s.Offset+3*float64(s.Cycles)*s.Window, 0):
		return fmt.Errorf("arrivals: boundary pattern of %d cycles of 3·%v s overflows", s.Cycles, s.Window)
	}
	return nil
}

// Jobs returns the number of arrivals of the pattern: Cycles·(2·Burst +
// Stream).
func (s BoundarySpec) Jobs() int64 {
	return int64(s.Cycles) * (2*int64(s.Burst) + int64(s.Stream))
}

// Edge returns β_c, the window edge of cycle c, seconds.
func (s BoundarySpec) Edge(c int) engine.Time {
	return engine.Time(math.FMA(float64(3*c+1), s.Window, s.Offset))
}

// Boundary is the [Process] of a [BoundarySpec]: a finite, deterministic
// stream of arrivals (Key 0, Sub -1, Line 0) ending with io.EOF. Next does
// not allocate.
type Boundary struct {
	s     BoundarySpec
	cycle int // current cycle
	i     int // index of the next arrival within the cycle
}

// NewBoundary returns the pattern s as a process, or an error naming the
// invalid field.
func NewBoundary(s BoundarySpec) (*Boundary, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &Boundary{s: s}, nil
}

// Next returns the next arrival, or io.EOF after the last cycle.
func (b *Boundary) Next() (Arrival, error) {
	s := b.s
	if b.cycle >= s.Cycles {
		return Arrival{}, io.EOF
	}
	edge := float64(s.Edge(b.cycle))
	var t float64
	switch i := b.i; {
	case i < s.Burst:
		t = edge - s.Gap
	case i < 2*s.Burst:
		t = edge + s.Gap
	default:
		slot := (s.Window - 2*s.Gap) / float64(s.Stream)
		t = math.FMA(float64(i-2*s.Burst)+0.5, slot, edge+s.Gap)
	}
	b.i++
	if b.i == 2*s.Burst+s.Stream {
		b.cycle, b.i = b.cycle+1, 0
	}
	return Arrival{T: engine.Time(t), Sub: -1}, nil
}
