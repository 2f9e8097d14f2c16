package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// MaxOnOffSources bounds OnOffParams.N.
const MaxOnOffSources = 1 << 20

// OnOffParams describes a superposition of N independent, identical on-off
// sources. Each source alternates ON and OFF periods of independent
// lengths; during an ON period it emits jobs at Peak jobs/s, during an OFF
// period none.
type OnOffParams struct {
	N       int     // number of sources, 1 to MaxOnOffSources
	Peak    float64 // jobs/s of one source while ON, finite and > 0
	MeanOn  float64 // mean ON period, seconds, finite and > 0
	MeanOff float64 // mean OFF period, seconds, finite and > 0
	// Dist is the distribution of period lengths: "exp" (the default) or
	// "pareto", with shape Alpha (finite and > 1; the default 1.5 gives
	// periods of infinite variance, which makes the superposition
	// long-range dependent).
	Dist  string
	Alpha float64
	// Emit is how a source emits while ON: "poisson" (the default) or
	// "periodic" (every 1/Peak s, from a uniformly random phase).
	Emit string
}

// MeanRate returns the superposition's mean rate, N·Peak·MeanOn/(MeanOn +
// MeanOff) jobs/s.
func (p OnOffParams) MeanRate() float64 {
	return float64(p.N) * p.Peak * p.MeanOn / (p.MeanOn + p.MeanOff)
}

// OnOff is the superposition of N on-off sources described by
// [OnOffParams]. With exponential periods and Poisson emission it is an
// MMPP on the number of sources that are ON; with Pareto periods it is the
// model of W. Willinger, M. Taqqu, R. Sherman and D. Wilson,
// [Self-similarity through high-variability] (1997), whose superposition is
// self-similar when 1 < α < 2.
//
// Each source starts in the state it is in at a random instant of a
// stationary run: ON with probability MeanOn/(MeanOn + MeanOff), with the
// remaining length of its period drawn from the equilibrium (residual)
// distribution of the period lengths, so the process is stationary from
// time 0. Arrivals have Key 0, Sub -1 and Line 0; at equal times the
// source with the lower index comes first. The process is infinite.
//
// Every source's next event (an emission or the end of its period) is
// kept in a heap, so an event costs O(log N); an arrival costs about
// 1 + 2N/((MeanOn + MeanOff)·λ̄) events, λ̄ the mean rate, since period
// ends that emit nothing are events too.
//
// Event times are integer nanoseconds: each random length (a period, a
// Poisson gap, a periodic source's phase) is rounded to the nearest
// nanosecond once and added exactly. A periodic source's k-th emission of
// an ON period is its first emission plus k/Peak seconds rounded once, so
// its spacing does not drift however long the period.
//
// [Self-similarity through high-variability]: https://doi.org/10.1109/90.554723
type OnOff struct {
	p        OnOffParams
	rng      *rand.Rand
	on       []bool
	end      []engine.Time // end of the current period
	emit     []engine.Time // next emission while ON
	first    []engine.Time // periodic emission: the first emission of the ON period
	k        []int64       // periodic emission: index of the next emission in the ON period
	heap     []onOffEvent  // every source's next event, a min-heap on (t, source)
	xm       [2]float64
	periodic bool
	pareto   bool
	err      error // an event time beyond the range of engine.Time
}

// NewOnOff returns the superposition of p.N on-off sources drawing from
// src (not nil). Invalid parameters give an error naming the parameter.
func NewOnOff(p OnOffParams, src rand.Source) (*OnOff, error) {
	if p.N < 1 || p.N > MaxOnOffSources {
		return nil, fmt.Errorf("arrivals: on-off n %d is invalid: want 1 to %d sources", p.N, MaxOnOffSources)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"peak", p.Peak}, {"on", p.MeanOn}, {"off", p.MeanOff}} {
		if !(c.v > 0) || math.IsInf(c.v, 1) {
			return nil, fmt.Errorf("arrivals: on-off %s %g is invalid: want finite and > 0", c.name, c.v)
		}
	}
	if !validRate(p.Peak) {
		return nil, fmt.Errorf("arrivals: on-off peak %g jobs/s is invalid: its gap 1/peak must be finite", p.Peak)
	}
	o := &OnOff{p: p}
	switch p.Dist {
	case "", "exp":
		o.p.Dist = "exp"
	case "pareto":
		if p.Alpha == 0 {
			o.p.Alpha = 1.5
		}
		if !(o.p.Alpha > 1) || math.IsInf(o.p.Alpha, 1) {
			return nil, fmt.Errorf("arrivals: on-off alpha %g is invalid: want finite and > 1 (finite mean periods)", p.Alpha)
		}
		o.pareto = true
		a := o.p.Alpha
		o.xm = [2]float64{p.MeanOff * (a - 1) / a, p.MeanOn * (a - 1) / a}
	default:
		return nil, fmt.Errorf("arrivals: on-off dist %q is invalid: want exp or pareto", p.Dist)
	}
	switch p.Emit {
	case "", "poisson":
		o.p.Emit = "poisson"
	case "periodic":
		o.periodic = true
	default:
		return nil, fmt.Errorf("arrivals: on-off emit %q is invalid: want poisson or periodic", p.Emit)
	}
	if src == nil {
		return nil, fmt.Errorf("arrivals: on-off random source is nil")
	}
	o.rng = rand.New(src)
	n := p.N
	o.on, o.end, o.emit = make([]bool, n), make([]engine.Time, n), make([]engine.Time, n)
	if o.periodic {
		o.first, o.k = make([]engine.Time, n), make([]int64, n)
	}
	o.heap = make([]onOffEvent, n)
	duty := p.MeanOn / (p.MeanOn + p.MeanOff)
	for i := range n {
		o.on[i] = o.rng.Float64() < duty
		o.end[i] = o.after(0, o.residual(o.on[i]))
		if o.on[i] {
			o.startEmitting(i, 0)
		}
		o.heap[i] = onOffEvent{t: o.event(i), i: int32(i)}
	}
	if o.err != nil {
		return nil, o.err
	}
	for i := n/2 - 1; i >= 0; i-- {
		o.down(i)
	}
	return o, nil
}

// after returns t plus s seconds rounded to the nanosecond, or records an
// overflow in o.err and returns [engine.Forever].
func (o *OnOff) after(t engine.Time, s float64) engine.Time {
	u, ok := afterSeconds(t, s)
	if !ok {
		if o.err == nil {
			o.err = fmt.Errorf("arrivals: on-off event at %v s + %g s is beyond the range of engine.Time (about 292 years)", t, s)
		}
		return engine.Forever
	}
	return u
}

// Params returns the parameters, with the defaults filled in.
func (o *OnOff) Params() OnOffParams { return o.p }

// mean returns the mean length of an ON (on) or OFF period.
func (o *OnOff) mean(on bool) float64 {
	if on {
		return o.p.MeanOn
	}
	return o.p.MeanOff
}

// period draws the length of a whole period.
func (o *OnOff) period(on bool) float64 {
	if !o.pareto {
		return o.rng.ExpFloat64() * o.mean(on)
	}
	xm := o.xm[b2i(on)]
	return xm * math.Exp(o.rng.ExpFloat64()/o.p.Alpha)
}

// residual draws the remaining length of the period a source is in at a
// random instant: the equilibrium distribution F_e(x) = (1/m)∫_0^x P(L > u) du
// of the period length L with mean m.
func (o *OnOff) residual(on bool) float64 {
	m := o.mean(on)
	if !o.pareto {
		return o.rng.ExpFloat64() * m // memoryless
	}
	// For Pareto(xm, α): P(R > x) = 1 - x/m for x <= xm, and
	// (xm/x)^(α-1)/α for x >= xm; inverted at a uniform v.
	a, xm := o.p.Alpha, o.xm[b2i(on)]
	v := 1 - o.rng.Float64() // (0, 1]
	if v >= 1/a {
		return (1 - v) * m
	}
	return xm * math.Pow(v*a, -1/(a-1))
}

// startEmitting sets source i's first emission of an ON period starting
// at t: after a uniform phase on [0, 1/Peak) for periodic emission, else
// after an exponential gap.
func (o *OnOff) startEmitting(i int, t engine.Time) {
	if o.periodic {
		o.emit[i] = o.after(t, o.rng.Float64()/o.p.Peak)
		o.first[i], o.k[i] = o.emit[i], 1
		return
	}
	o.emit[i] = o.after(t, o.rng.ExpFloat64()/o.p.Peak)
}

// nextEmission sets source i's emission after the one at t: the first
// emission plus k/Peak for periodic emission, else t plus an exponential
// gap.
func (o *OnOff) nextEmission(i int, t engine.Time) {
	if o.periodic {
		o.emit[i] = o.after(o.first[i], float64(o.k[i])/o.p.Peak)
		o.k[i]++
		return
	}
	o.emit[i] = o.after(t, o.rng.ExpFloat64()/o.p.Peak)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// onOffEvent is a source's next event, at t.
type onOffEvent struct {
	t engine.Time
	i int32
}

// event is source i's next event time: its next emission while ON and
// before the period ends, else the end of its period.
func (o *OnOff) event(i int) engine.Time {
	if o.on[i] && o.emit[i] < o.end[i] {
		return o.emit[i]
	}
	return o.end[i]
}

func (e onOffEvent) before(f onOffEvent) bool {
	return e.t < f.t || e.t == f.t && e.i < f.i
}

func (o *OnOff) down(i int) {
	h := o.heap
	n := len(h)
	x := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			m = r
		}
		if !h[m].before(x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// Next returns the next arrival. It does not allocate.
//
// Special cases: an event beyond the range of [engine.Time] (about 292
// years) is an error, returned again by every later call.
func (o *OnOff) Next() (Arrival, error) {
	for {
		if o.err != nil {
			return Arrival{}, o.err
		}
		top := &o.heap[0]
		i, t := int(top.i), top.t
		if o.on[i] && o.emit[i] < o.end[i] {
			o.nextEmission(i, t)
			top.t = o.event(i)
			o.down(0)
			return Arrival{T: t, Sub: -1}, nil
		}
		o.on[i] = !o.on[i]
		o.end[i] = o.after(t, o.period(o.on[i]))
		if o.on[i] {
			o.startEmitting(i, t)
		}
		top.t = o.event(i)
		o.down(0)
	}
}
