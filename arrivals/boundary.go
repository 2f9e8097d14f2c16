package arrivals

import (
	"fmt"
	"io"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
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
// All instants are integer nanoseconds: the edges and bursts exactly, and
// stream job i (0-based) at β_c + Gap + ceil((2i + 1)(W - 2·Gap)/(2·Stream)),
// the first nanosecond at or after its slot's midpoint, computed exactly.
// Windows aligned to Offset + k·W therefore see each burst on the side of
// the edge it was meant for.
//
// With Burst = L the two bursts make a fixed window counter admit 2L jobs
// in 2·Gap (the article's "R requests at 0:59 and R more at 1:01"). The
// stream probes the sliding window counter, which keeps admitting in the
// window after the edge as if the first burst had been spread over the
// window before it (see buckets.SlidingCounter).
type BoundarySpec struct {
	Window engine.Time // W: window length, > 0
	Offset engine.Time // window edges at Offset + k·W; in [0, W)
	Gap    engine.Time // δ: the bursts arrive δ before and δ after the edge; in (0, W/2)
	Burst  int         // jobs in each burst, 1 to MaxBoundaryJobs
	Stream int         // jobs spread over the rest of the window after the edge, 0 to MaxBoundaryJobs
	Cycles int         // number of cycles, 1 to MaxBoundaryCycles
}

// Bounds of [BoundarySpec], so that the number of jobs, Cycles·(2·Burst +
// Stream), fits an int64 with room to spare.
const (
	MaxBoundaryJobs   = 1 << 40
	MaxBoundaryCycles = 1 << 20
)

// Validate returns an error naming the first invalid field, or nil.
func (s BoundarySpec) Validate() error {
	switch {
	case s.Window <= 0:
		return fmt.Errorf("arrivals: boundary window %v s is invalid: want > 0", s.Window)
	case !(s.Offset >= 0 && s.Offset < s.Window):
		return fmt.Errorf("arrivals: boundary offset %v s is invalid: want in [0, window %v s)", s.Offset, s.Window)
	case !(s.Gap > 0 && s.Gap < s.Window-s.Gap): // 2·Gap < W without overflow
		return fmt.Errorf("arrivals: boundary gap %v s is invalid: want in (0, window/2 = %v s)", s.Gap, exact.NewRat(int64(s.Window), 2e9))
	case s.Burst < 1 || s.Burst > MaxBoundaryJobs:
		return fmt.Errorf("arrivals: boundary burst %d is invalid: want 1 to 2^40 jobs", s.Burst)
	case s.Stream < 0 || s.Stream > MaxBoundaryJobs:
		return fmt.Errorf("arrivals: boundary stream %d is invalid: want 0 to 2^40 jobs", s.Stream)
	case s.Cycles < 1 || s.Cycles > MaxBoundaryCycles:
		return fmt.Errorf("arrivals: boundary cycles %d is invalid: want 1 to 2^20", s.Cycles)
	}
	// The pattern ends before Offset + 3·Cycles·W.
	end, ok := exact.Mul64(3*int64(s.Cycles), int64(s.Window)).AddOK(exact.I128(int64(s.Offset)))
	if !ok || !end.IsInt64() {
		return fmt.Errorf("arrivals: boundary pattern of %d cycles of 3·%v s is beyond the range of engine.Time (about 292 years)", s.Cycles, s.Window)
	}
	return nil
}

// Jobs returns the number of arrivals of the pattern: Cycles·(2·Burst +
// Stream).
func (s BoundarySpec) Jobs() int64 {
	return int64(s.Cycles) * (2*int64(s.Burst) + int64(s.Stream))
}

// Edge returns β_c = Offset + (3c + 1)·W, the window edge of cycle c. For
// a valid spec and 0 <= c < Cycles it is exact; otherwise the result is
// undefined.
func (s BoundarySpec) Edge(c int) engine.Time {
	return s.Offset + engine.Time(3*c+1)*s.Window
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
	edge := s.Edge(b.cycle)
	var t engine.Time
	switch i := b.i; {
	case i < s.Burst:
		t = edge - s.Gap
	case i < 2*s.Burst:
		t = edge + s.Gap
	default:
		// ceil((2j+1)(W-2δ)/(2·Stream)) < W - 2δ: the stream stays inside
		// (β + δ, β + W - δ).
		j := int64(i - 2*s.Burst)
		mid := exact.Mul64(2*j+1, int64(s.Window-2*s.Gap)).CeilDiv(2 * int64(s.Stream))
		t = edge + s.Gap + engine.Time(mid.Int64())
	}
	b.i++
	if b.i == 2*s.Burst+s.Stream {
		b.cycle, b.i = b.cycle+1, 0
	}
	return Arrival{T: t, Sub: -1}, nil
}
