package buckets

import (
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// WindowParams describes a window limiter: at most Limit jobs per window
// of Window seconds.
type WindowParams struct {
	Limit  int64     // L: jobs per window, >= 1
	Window exact.Rat // W: window length, seconds; > 0
	// Offset places the edges of fixed windows at Offset + k·W (k an
	// integer) in run time, seconds, in [0, W). Ignored by [SlidingLog].
	// [WindowParams.Aligned] computes the offset that puts the edges at
	// whole multiples of W from the Unix epoch, as a Redis key per minute
	// or nginx and Envoy windows do.
	Offset exact.Rat
}

// Validate returns a *ParamError naming the first invalid field, or nil.
func (p WindowParams) Validate() error {
	if p.Limit < 1 {
		return &ParamError{Name: "window limit", Value: p.Limit, Want: ">= 1 job"}
	}
	if p.Window.Sign() <= 0 {
		return &ParamError{Name: "window", Value: p.Window, Want: "> 0 s"}
	}
	if p.Offset.Sign() < 0 || p.Offset.Cmp(p.Window) >= 0 {
		return &ParamError{Name: "window offset", Value: p.Offset, Want: fmt.Sprintf("in [0, window %v) s", p.Window)}
	}
	return nil
}

// Aligned returns p with its edges moved so that, in a run whose origin
// (t = 0) is the absolute instant origin (nanoseconds since the Unix
// epoch: a trace's first arrival), windows start at absolute instants
// p.Offset + k·W: the run-time offset is (p.Offset - origin) mod W,
// computed exactly. A generated run keeps origin 0.
func (p WindowParams) Aligned(origin int64) (WindowParams, error) {
	if err := p.Validate(); err != nil {
		return p, err
	}
	w := p.Window.Big()
	x := new(big.Rat).Sub(p.Offset.Big(), big.NewRat(origin, 1e9))
	// x mod W = x - W·floor(x/W)
	q := new(big.Rat).Quo(x, w)
	fl := new(big.Int).Div(q.Num(), q.Denom()) // Euclidean: floor for a positive divisor
	x.Sub(x, new(big.Rat).Mul(w, new(big.Rat).SetInt(fl)))
	off, err := exact.ParseRat(x.RatString())
	if err != nil {
		return p, fmt.Errorf("buckets: aligning windows of %v s to origin %d ns: %w (%w)", p.Window, origin, err, ErrParam)
	}
	p.Offset = off
	return p, nil
}

// Promise returns L·(floor(d/W) + 1), the most jobs that "L per window of
// W" allows in a closed interval of length d ns: L in any interval shorter
// than W, and L more for each further W. It is the arrival curve the
// sliding window log keeps exactly, and the nominal promise of the fixed
// window and the sliding window counter, which break it. floor(d/W) is
// exact (d·q against p·10^9 for W = p/q s): d = 0.3 s at W = 0.1 s is 3
// windows, not the 2.9999... of float64 division. The product is rounded
// to float64 only at the end.
// Products beyond 127 bits go through math/big. Special case: d < 0
// counts as 0.
func (p WindowParams) Promise(d engine.Time) float64 {
	d = max(d, 0)
	m, ok1 := p.Window.Num().Mul64OK(int64(engine.Second))
	u, ok2 := exact.I128(int64(d)).Mul64OK(p.Window.Den())
	var k float64
	if ok1 && ok2 && m.Sign() > 0 {
		q, _ := u.DivMod(m)
		k = q.Float64()
	} else {
		q := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(p.Window.Den()))
		q.Quo(q, new(big.Int).Mul(p.Window.Num().Big(), big.NewInt(int64(engine.Second))))
		k, _ = new(big.Float).SetInt(q).Float64()
	}
	return float64(p.Limit) * (k + 1)
}

// windows is the exact geometry of fixed windows in units of 1/scale ns.
type windows struct {
	scale int64
	w     exact.Int128 // W, units
	off   exact.Int128 // Offset, units
}

func (p WindowParams) geometry() (windows, error) {
	if err := p.Validate(); err != nil {
		return windows{}, err
	}
	spans, err := spansNs(p.Window, p.Offset)
	if err != nil {
		return windows{}, err
	}
	s, n, err := scaleFor(1, spans...)
	if err != nil {
		return windows{}, err
	}
	return windows{scale: s, w: n[0], off: n[1]}, nil
}

// index returns the index k of the window [Offset + k·W, Offset + (k+1)·W)
// that holds instant t, and the time elapsed in it, units. An instant on
// an edge starts the later window.
func (g windows) index(t engine.Time) (k exact.Int128, elapsed exact.Int128) {
	return at(t, g.scale).Sub(g.off).DivMod(g.w)
}

// start returns the start of window k, units.
func (g windows) start(k exact.Int128) exact.Int128 {
	s, _ := k.Mul(g.w)
	return s.Add(g.off)
}

// FixedWindow is the fixed window counter: it counts the jobs admitted in
// each fixed window [Offset + k·W, Offset + (k+1)·W) and admits a job while
// the count of its window is below L; the count restarts at each edge. An
// instant on an edge belongs to the window that starts there, exactly.
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
	g     windows
	k     exact.Int128 // index of the current window
	seen  bool         // a job has been admitted (k is set)
	count int64        // jobs admitted in window k
	last  engine.Time
}

// NewFixedWindow returns a fixed window counter with parameters p, or an
// error wrapping [ErrParam].
func NewFixedWindow(p WindowParams) (*FixedWindow, error) {
	g, err := p.geometry()
	if err != nil {
		return nil, err
	}
	return &FixedWindow{p: p, g: g}, nil
}

// Params returns the limiter's parameters.
func (f *FixedWindow) Params() WindowParams { return f.p }

// Offer presents job id arriving at instant t and admits it when fewer
// than L jobs have been admitted in its window; a rejected job is told to
// retry at the next edge. A rejected job leaves the counter unchanged.
//
// Panics if t is earlier than an instant already offered.
func (f *FixedWindow) Offer(t engine.Time, id int64) Decision {
	if t < f.last {
		panic(fmt.Sprintf("buckets: FixedWindow.Offer(%v) after instant %v", t, f.last))
	}
	k, _ := f.g.index(t)
	count := f.count
	if !f.seen || k != f.k {
		count = 0
	}
	if count >= f.p.Limit {
		return Decision{Verdict: Reject, RetryAfter: ceilNanos(f.g.start(k.Add64(1)), f.g.scale) - t}
	}
	f.k, f.seen, f.count, f.last = k, true, count+1, t
	return Decision{Verdict: Admit}
}

// Next returns [engine.Forever]: a window counter queues nothing.
func (f *FixedWindow) Next() engine.Time { return engine.Forever }

// Release panics: a window counter queues nothing.
func (f *FixedWindow) Release() Released { panic("buckets: FixedWindow.Release: nothing is queued") }

// Promise returns L·(floor(d/W) + 1) (see [WindowParams.Promise]), which
// the fixed window does not keep.
func (f *FixedWindow) Promise(d engine.Time) float64 { return f.p.Promise(d) }
