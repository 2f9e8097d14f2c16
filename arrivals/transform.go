package arrivals

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// Transforms of a process. Each returns a new process reading p; none
// allocates per arrival once its buffers (Jitter's) have grown to the
// number of arrivals it holds at once.

// Scale returns p with every time multiplied by factor (finite and > 0):
//
//	T' = factor·T, rounded to the nearest nanosecond (halves up),
//
// computed exactly from the float64 value of factor in 128-bit integer
// arithmetic, so T' is the correctly rounded product at any T, and the
// order of the arrivals is kept (distinct times may become equal when
// factor < 1). A process of mean rate λ becomes one of mean rate λ/factor,
// so factor = λ/λ' rescales it to a target rate λ'; its SCV and index of
// dispersion at matching time scales are unchanged. A time beyond the
// range of [engine.Time] is an error. Next does not allocate.
func Scale(p Process, factor float64) (Process, error) {
	if !(factor > 0) || math.IsInf(factor, 1) {
		return nil, fmt.Errorf("arrivals: scale factor %g is invalid: want finite and > 0", factor)
	}
	frac, exp := math.Frexp(factor) // factor = frac·2^exp, 0.5 <= frac < 1
	return &scaled{p: p, f: factor, m: uint64(math.Ldexp(frac, 53)), e: exp - 53}, nil
}

type scaled struct {
	p Process
	f float64
	m uint64 // factor = m·2^e exactly, m < 2^53
	e int
}

func (s *scaled) Next() (Arrival, error) {
	a, err := s.p.Next()
	if err != nil {
		return a, err
	}
	t, ok := scaleTime(a.T, s.m, s.e)
	if !ok {
		return Arrival{}, fmt.Errorf("arrivals: scaled time %v s × %g is beyond the range of engine.Time (about 292 years)", a.T, s.f)
	}
	a.T = t
	return a, nil
}

// scaleTime returns t·m·2^e rounded to the nearest integer (halves up) and
// whether it fits in an engine.Time, for t >= 0 and m < 2^53.
func scaleTime(t engine.Time, m uint64, e int) (engine.Time, bool) {
	if t < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(t), m) // < 2^116
	switch {
	case e >= 0:
		if e >= 64 || hi != 0 || lo > math.MaxInt64>>e {
			return 0, hi == 0 && lo == 0
		}
		return engine.Time(lo << e), true
	case e <= -128:
		return 0, true // the product is below 2^116 <= 2^(-e-1): rounds to 0
	}
	// Add half of 2^k, k = -e, then shift right by k.
	k := uint(-e)
	var hh, hl uint64 // 2^(k-1)
	if k-1 >= 64 {
		hh = 1 << (k - 1 - 64)
	} else {
		hl = 1 << (k - 1)
	}
	var c uint64
	lo, c = bits.Add64(lo, hl, 0)
	hi, _ = bits.Add64(hi, hh, c)
	var q uint64
	if k >= 64 {
		q, hi = hi>>(k-64), 0
	} else {
		q, hi = lo>>k|hi<<(64-k), hi>>k
	}
	if hi != 0 || q > math.MaxInt64 {
		return 0, false
	}
	return engine.Time(q), true
}

// Thin returns p with each arrival kept independently with probability
// keep (0 < keep <= 1), drawn from src (not nil): independent thinning,
// which multiplies the mean rate by keep and turns a renewal process with
// gap SCV c into one with SCV keep·c + 1 - keep.
func Thin(p Process, keep float64, src rand.Source) (Process, error) {
	if !(keep > 0 && keep <= 1) {
		return nil, fmt.Errorf("arrivals: thinning probability %g is invalid: want 0 < p <= 1", keep)
	}
	if src == nil {
		return nil, fmt.Errorf("arrivals: thinning random source is nil")
	}
	return &thinned{p: p, keep: keep, rng: rand.New(src)}, nil
}

type thinned struct {
	p    Process
	keep float64
	rng  *rand.Rand
}

func (t *thinned) Next() (Arrival, error) {
	for {
		a, err := t.p.Next()
		if err != nil || t.keep == 1 || t.rng.Float64() < t.keep {
			return a, err
		}
	}
}

// Bounds of [Jitter]. MaxJitter is the largest jitter parameter, in
// seconds (about 3.2 years): every delay, and so every delayed time, then
// stays far inside the range of [engine.Time] (an exponential delay of
// mean MaxJitter passes 292 years with probability e^-92). MaxJitterHeld
// is the most arrivals the transform holds at once: an arrival is held
// until the input passes its delayed time, so it holds about rate·J of
// them (Little's law), and [BuildSpec] refuses a jitter whose mean rate
// times J exceeds MaxJitterHeld/2.
const (
	MaxJitter     = 1e8
	MaxJitterHeld = 1 << 22
)

// Jitter returns p with each arrival delayed by an independent draw,
// uniform on [0, j] (dist "uniform") or exponential with mean j (dist
// "exp"), 0 <= j <= [MaxJitter] seconds, from src (not nil unless j is 0).
// Each delay is rounded to the nearest nanosecond once and added exactly.
// The delayed arrivals are yielded in time order, ties in input order: an
// arrival is held until the input has reached its delayed time, since no
// later input can then come before it. Memory grows with the number of
// arrivals within one jitter span (about rate·j); holding more than
// [MaxJitterHeld] at once is an error from Next, as is a delayed time
// beyond the range of [engine.Time].
func Jitter(p Process, j float64, dist string, src rand.Source) (Process, error) {
	if !(j >= 0) || j > MaxJitter {
		return nil, fmt.Errorf("arrivals: jitter %g s is invalid: want 0 <= jitter <= %g s (delayed arrivals are held in memory until the input passes them)", j, float64(MaxJitter))
	}
	jt := &jittered{p: p, j: j, maxHeld: MaxJitterHeld}
	switch dist {
	case "", "uniform":
	case "exp":
		jt.exp = true
	default:
		return nil, fmt.Errorf("arrivals: jitter dist %q is invalid: want uniform or exp", dist)
	}
	if j > 0 {
		if src == nil {
			return nil, fmt.Errorf("arrivals: jitter random source is nil")
		}
		jt.rng = rand.New(src)
	}
	return jt, nil
}

type jittered struct {
	p       Process
	j       float64
	maxHeld int // MaxJitterHeld, lowered by tests
	exp     bool
	rng     *rand.Rand
	held    []heldArrival // min-heap on (T, seq)
	seq     uint64
	last    engine.Time // the latest input time
	done    bool        // the input has ended
	err     error
}

type heldArrival struct {
	a   Arrival
	seq uint64
}

func (j *jittered) Next() (Arrival, error) {
	if j.err != nil {
		return Arrival{}, j.err
	}
	for {
		if len(j.held) > 0 && (j.done || j.held[0].a.T <= j.last) {
			return j.pop(), nil
		}
		if j.done {
			j.err = io.EOF
			return Arrival{}, io.EOF
		}
		if len(j.held) >= j.maxHeld {
			j.err = fmt.Errorf("arrivals: jitter %g s holds more than %d arrivals at once (about rate·jitter): use a smaller jitter", j.j, j.maxHeld)
			return Arrival{}, j.err
		}
		a, err := j.p.Next()
		if err == io.EOF {
			j.done = true
			continue
		}
		if err != nil {
			j.err = err
			return Arrival{}, err
		}
		j.last = a.T
		if j.rng != nil {
			d := j.j * j.rng.ExpFloat64()
			if !j.exp {
				d = j.j * j.rng.Float64()
			}
			t, ok := afterSeconds(a.T, d)
			if !ok {
				j.err = fmt.Errorf("arrivals: jittered time %v s + %g s is beyond the range of engine.Time (about 292 years)", a.T, d)
				return Arrival{}, j.err
			}
			a.T = t
		}
		j.push(heldArrival{a: a, seq: j.seq})
		j.seq++
	}
}

func (j *jittered) less(x, y int) bool {
	a, b := &j.held[x], &j.held[y]
	return a.a.T < b.a.T || a.a.T == b.a.T && a.seq < b.seq
}

func (j *jittered) push(h heldArrival) {
	j.held = append(j.held, h)
	for i := len(j.held) - 1; i > 0; {
		p := (i - 1) / 2
		if !j.less(i, p) {
			break
		}
		j.held[i], j.held[p] = j.held[p], j.held[i]
		i = p
	}
}

func (j *jittered) pop() Arrival {
	top := j.held[0].a
	last := len(j.held) - 1
	j.held[0] = j.held[last]
	j.held = j.held[:last]
	for i, n := 0, last; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && j.less(r, l) {
			m = r
		}
		if !j.less(m, i) {
			break
		}
		j.held[i], j.held[m] = j.held[m], j.held[i]
		i = m
	}
	return top
}

// Window returns the arrivals of p in the time window [from, to), with
// times measured from the window's start: T' = T - from, exactly. It
// needs 0 <= from < to; to = [engine.Forever] means no end. It reads p up
// to its first arrival at or after to, and then ends with io.EOF.
func Window(p Process, from, to engine.Time) (Process, error) {
	if from < 0 || to <= from {
		return nil, fmt.Errorf("arrivals: window [%v s, %v s) is invalid: want 0 <= from < to", from, to)
	}
	return &windowed{p: p, from: from, to: to}, nil
}

type windowed struct {
	p        Process
	from, to engine.Time
	done     bool
}

func (w *windowed) Next() (Arrival, error) {
	if w.done {
		return Arrival{}, io.EOF
	}
	for {
		a, err := w.p.Next()
		if err != nil {
			return a, err
		}
		if a.T >= w.to {
			w.done = true
			return Arrival{}, io.EOF
		}
		if a.T >= w.from {
			a.T -= w.from
			return a, nil
		}
	}
}
