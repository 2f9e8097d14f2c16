package arrivals

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// Transforms of a process. Each returns a new process reading p; none
// allocates per arrival once its buffers (Jitter's) have grown to the
// number of arrivals it holds at once.

// Scale returns p with every time multiplied by factor (finite and > 0):
// T' = factor·T. A process of mean rate λ becomes one of mean rate
// λ/factor, so factor = λ/λ' rescales it to a target rate λ'; its SCV and
// index of dispersion at matching time scales are unchanged. A time that
// overflows to +Inf is an error.
func Scale(p Process, factor float64) (Process, error) {
	if !(factor > 0) || math.IsInf(factor, 1) {
		return nil, fmt.Errorf("arrivals: scale factor %g is invalid: want finite and > 0", factor)
	}
	return &scaled{p: p, f: factor}, nil
}

type scaled struct {
	p Process
	f float64
}

func (s *scaled) Next() (Arrival, error) {
	a, err := s.p.Next()
	if err != nil {
		return a, err
	}
	t := float64(a.T) * s.f
	if math.IsInf(t, 1) {
		return Arrival{}, fmt.Errorf("arrivals: scaled time %g s × %g overflowed to +Inf", float64(a.T), s.f)
	}
	a.T = engine.Time(t)
	return a, nil
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

// Jitter returns p with each arrival delayed by an independent draw,
// uniform on [0, j] (dist "uniform") or exponential with mean j (dist
// "exp"), j finite and >= 0 seconds, from src (not nil unless j is 0). The
// delayed arrivals are yielded in time order, ties in input order: an
// arrival is held until the input has reached its delayed time, since no
// later input can then come before it. Memory grows with the number of
// arrivals within one jitter span (about rate·j).
func Jitter(p Process, j float64, dist string, src rand.Source) (Process, error) {
	if !(j >= 0) || math.IsInf(j, 1) {
		return nil, fmt.Errorf("arrivals: jitter %g s is invalid: want finite and >= 0", j)
	}
	jt := &jittered{p: p, j: j}
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
	p    Process
	j    float64
	exp  bool
	rng  *rand.Rand
	held []heldArrival // min-heap on (T, seq)
	seq  uint64
	last float64 // the latest input time
	done bool    // the input has ended
	err  error
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
		if len(j.held) > 0 && (j.done || float64(j.held[0].a.T) <= j.last) {
			return j.pop(), nil
		}
		if j.done {
			j.err = io.EOF
			return Arrival{}, io.EOF
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
		j.last = float64(a.T)
		if j.rng != nil {
			d := j.j * j.rng.ExpFloat64()
			if !j.exp {
				d = j.j * j.rng.Float64()
			}
			a.T += engine.Time(d)
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

// Window returns the arrivals of p in the time window [from, to) seconds
// (0 <= from < to; to may be +Inf), with times measured from the window's
// start: T' = T - from. It reads p up to its first arrival at or after
// to, and then ends with io.EOF.
func Window(p Process, from, to float64) (Process, error) {
	if !(from >= 0) || math.IsInf(from, 1) || !(to > from) {
		return nil, fmt.Errorf("arrivals: window [%g, %g) s is invalid: want 0 <= from < to", from, to)
	}
	return &windowed{p: p, from: from, to: to}, nil
}

type windowed struct {
	p        Process
	from, to float64
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
		t := float64(a.T)
		if t >= w.to {
			w.done = true
			return Arrival{}, io.EOF
		}
		if t >= w.from {
			a.T = engine.Time(t - w.from)
			return a, nil
		}
	}
}
