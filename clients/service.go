package clients

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// A ServiceTime draws the service time of one job at a [Backend], in
// nanoseconds (>= 0), from r. Strategies that do not draw may be given a
// nil r. String describes it in the grammar of ratesim clients --service.
//
// Continuous draws are float64 seconds converted to nanoseconds once with
// [engine.FromSeconds] (round to nearest).
type ServiceTime interface {
	Draw(r *rand.Rand) engine.Time
	String() string
}

// DetService is a deterministic service time D (ns, > 0): --service det:D.
type DetService struct{ D engine.Time }

// Draw returns D.
func (d DetService) Draw(*rand.Rand) engine.Time { return d.D }

func (d DetService) String() string { return fmt.Sprintf("det:%v", d.D) }

// ExpService is an exponential service time of mean Mean (ns, > 0):
// --service exp:MEAN. The density is (1/m)·exp(−x/m), x >= 0.
type ExpService struct{ Mean engine.Time }

// Draw returns Mean·E, E a standard exponential draw of r.
func (e ExpService) Draw(r *rand.Rand) engine.Time {
	return fromSecondsClamped(r.ExpFloat64() * e.Mean.Seconds())
}

func (e ExpService) String() string { return fmt.Sprintf("exp:%v", e.Mean) }

// LognormalService is a lognormal service time of median Median (ns, >
// 0) and shape σ (the standard deviation of its logarithm, >= 0):
// --service lognormal:MEDIAN:SHAPE. A draw is
//
//	Median·exp(σ·Z),  Z standard normal,
//
// of mean Median·exp(σ²/2).
type LognormalService struct {
	Median engine.Time
	Shape  float64
}

// Draw returns Median·exp(σ·Z).
func (l LognormalService) Draw(r *rand.Rand) engine.Time {
	return fromSecondsClamped(l.Median.Seconds() * math.Exp(l.Shape*r.NormFloat64()))
}

func (l LognormalService) String() string { return fmt.Sprintf("lognormal:%v:%g", l.Median, l.Shape) }

// TraceService replays service times read from a trace column, in order,
// starting again from the first when they are used up (every server of
// a run draws from the one sequence, in the order services start):
// --service trace:FILE:COL. Times are ns, >= 0; Name describes the source.
type TraceService struct {
	Times []engine.Time
	Name  string
	next  *int
}

// NewTraceService returns a TraceService over times (at least one), or
// an error.
func NewTraceService(times []engine.Time, name string) (TraceService, error) {
	if len(times) == 0 {
		return TraceService{}, fmt.Errorf("clients: trace service %s without a time", name)
	}
	for i, t := range times {
		if t < 0 {
			return TraceService{}, fmt.Errorf("clients: trace service %s: time %d is %v s < 0", name, i+1, t)
		}
	}
	return TraceService{Times: times, Name: name, next: new(int)}, nil
}

// Draw returns the next time of the trace.
func (t TraceService) Draw(*rand.Rand) engine.Time {
	x := t.Times[*t.next]
	*t.next = (*t.next + 1) % len(t.Times)
	return x
}

// fresh returns a copy that starts again from the first time.
func (t TraceService) fresh() TraceService {
	t.next = new(int)
	return t
}

func (t TraceService) String() string { return "trace:" + t.Name }

// fromSecondsClamped converts a draw of seconds (>= 0) to nanoseconds,
// clamped to [0, MaxInt64/4] so that later sums cannot overflow.
func fromSecondsClamped(s float64) engine.Time {
	t, ok := engine.FromSeconds(s)
	if !ok || t > math.MaxInt64/4 {
		return math.MaxInt64 / 4
	}
	return max(t, 0)
}

// validService returns an error for an invalid service time.
func validService(s ServiceTime) error {
	switch v := s.(type) {
	case nil:
		return fmt.Errorf("clients: backend without a service time")
	case DetService:
		if v.D <= 0 {
			return fmt.Errorf("clients: deterministic service time %v s, want > 0", v.D)
		}
	case ExpService:
		if v.Mean <= 0 {
			return fmt.Errorf("clients: exponential service mean %v s, want > 0", v.Mean)
		}
	case LognormalService:
		if v.Median <= 0 || !(v.Shape >= 0) || math.IsInf(v.Shape, 0) {
			return fmt.Errorf("clients: lognormal service median %v s, shape %g: want median > 0 and a finite shape >= 0", v.Median, v.Shape)
		}
	case TraceService:
		if len(v.Times) == 0 || v.next == nil {
			return fmt.Errorf("clients: trace service not made by NewTraceService")
		}
	}
	return nil
}
