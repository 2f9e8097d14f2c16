package splitstudy

import (
	"context"
	"io"
	"math"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// SeriesOptions choose what [RunSeries] records.
type SeriesOptions struct {
	// Samples bounds the samples of S(t) and S^(k)(t); 0 means 1000.
	// Samples are evenly spaced over the run, at a spacing that doubles
	// whenever the bound would be passed, so memory does not grow with the
	// run length.
	Samples int
	// From and To (seconds) bound the window in which the queue lengths
	// N(t) and Σ N_l(t) are recorded as steps. To = 0 chooses the window
	// around the busiest episode instead: the WindowSteps changes (0: 400)
	// around the first instant at which Σ N_l(t) reached its largest value
	// (to within 1/8), half before and half after.
	From, To    float64
	WindowSteps int
	// MaxSteps bounds the steps recorded in a window given by From and To;
	// 0 means 100000. Steps beyond it are dropped and Series.Truncated is
	// set.
	MaxSteps int
}

// Series is the data behind the single-run figures: the accrued delays
// over time, the queue lengths over a window, and both systems' delay
// distributions.
type Series struct {
	// T holds sampling instants (seconds, increasing; the last is the end of
	// the run), and S and SSplit the accrued delays S(t) and S^(k)(t) at
	// them (seconds). S is piecewise linear between events, so the samples
	// are exact values, not interpolations.
	T, S, SSplit []float64
	// StepT holds the instants (seconds, increasing) at which N(t) or
	// Σ N_l(t) changed inside [From, To]; N[i] and NSplit[i] are the values
	// from StepT[i] until StepT[i+1] (or To). The first step is at From.
	StepT     []float64
	N, NSplit []int
	From, To  float64
	Truncated bool // MaxSteps was reached: the steps end before To
	// One and Split are the delay distributions of the two systems, from
	// the run's DDSketches (1% relative accuracy).
	One, Split experiments.Distribution
}

// RunSeries is [Run] that also records the [Series] behind the single-run
// figures (ratesim run --plot). Its memory is bounded by opt and by the
// jobs waiting, not by the number of jobs.
func RunSeries(ctx context.Context, spec RunSpec, proc arrivals.Process, jobsOut io.Writer, opt SeriesOptions) (Result, *Series, error) {
	if opt.Samples <= 0 {
		opt.Samples = 1000
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = 100000
	}
	if opt.WindowSteps <= 0 {
		opt.WindowSteps = 400
	}
	rec := newRecorder(jobsOut, spec.Warmup)
	tp := &seriesTap{opt: opt, dt: 1e-3, end: math.Inf(1), ser: &Series{From: opt.From, To: opt.To}}
	tp.busiest = opt.To <= 0
	if tp.busiest {
		tp.ring = make([]stepRec, 0, opt.WindowSteps/2)
		tp.maxNK = -1
	}
	res, _, err := runWith(ctx, spec, proc, rec, tp)
	if err != nil {
		return res, nil, err
	}
	tp.finish(res.Drain)
	tp.ser.One, tp.ser.Split = rec.one.Distribution(), rec.split.Distribution()
	return res, tp.ser, nil
}

// seriesTap follows N(t) and Σ N_l(t) from the decisions and releases: a
// job that waits adds one to its system's count at its arrival and
// removes one at its release (known at its arrival under FCFS: the tap
// keeps the pending release instants, rounded up to the nanosecond as the
// drivers round LIFO and random releases, in a heap, so its memory is
// O(jobs waiting)). S(t) and S^(k)(t) are sampled from the exact closed
// forms of copies of the buckets' states taken after each decision: the
// tap sees a job's decisions after the pair has offered it to both
// systems, and the samples due before that arrival must be read from the
// states before it ([buckets.GD1] is only valid from the last arrival
// on). Releases leave the states unchanged, so the samples, like N(t),
// are the same under every service order. Steps at the same instant are
// merged.
type seriesTap struct {
	rec    *recorder
	p      *systems.Pair
	opt    SeriesOptions
	ser    *Series
	states [2][]buckets.GD1 // each node's state after the last decision
	n, nk  int
	prevN  int     // n before the last change
	prevNK int     // nk before the last change
	dt     float64 // sample spacing, seconds
	next   float64 // next sampling instant, seconds
	end    float64 // no samples after it (seconds): +Inf until finish
	pend   [2]releaseHeap

	// The busiest-episode window: the last WindowSteps/2 steps in a ring,
	// a snapshot of them taken when Σ N_l passed maxNK, and the steps still
	// to append after it.
	busiest bool
	ring    []stepRec
	head    int // index of the oldest entry once the ring is full
	best    []stepRec
	post    int
	maxNK   int
}

// releaseHeap is a min-heap of release instants.
type releaseHeap []engine.Time

func (h *releaseHeap) push(x engine.Time) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *releaseHeap) pop() engine.Time {
	a := *h
	x := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && a[r] < a[l] {
			l = r
		}
		if a[i] <= a[l] {
			break
		}
		a[i], a[l] = a[l], a[i]
		i = l
	}
	*h = a
	return x
}

type stepRec struct {
	t     float64
	n, nk int
}

func (tp *seriesTap) start(p *systems.Pair, rec *recorder) {
	tp.p, tp.rec = p, rec
	for side, sys := range []*systems.System{p.A, p.B} {
		for _, n := range sys.Nodes() {
			tp.states[side] = append(tp.states[side], n.(*buckets.TokenBucket).State())
		}
	}
}

// accrued returns S(t) and S^(k)(t) in seconds from the closed forms of
// the states after the last decision, t not earlier than its arrival.
func (tp *seriesTap) accrued(t float64) (float64, float64) {
	sum := func(states []buckets.GD1) float64 {
		var s exact.Int128
		var scale int64
		for _, g := range states {
			scale = g.Scale
			x, _ := exact.I128(int64(math.Round(t * 1e9))).Mul64OK(g.Scale)
			s = s.Add(g.Accrued(x))
		}
		return exact.Frac(s, scale).QuoFloat64(1e9)
	}
	return sum(tp.states[0]), sum(tp.states[1])
}

// advance takes the samples due up to t and makes the releases due by t
// (steps), in time order.
func (tp *seriesTap) advance(t engine.Time) {
	for {
		// The next release in either system, if it is due by t (A's
		// first at equal instants, as systems.Pair releases them).
		side, at := -1, t
		for s := range tp.pend {
			if len(tp.pend[s]) > 0 && tp.pend[s][0] <= at && (side < 0 || tp.pend[s][0] < at) {
				side, at = s, tp.pend[s][0]
			}
		}
		for x := min(at.Seconds(), tp.end); tp.next <= x; tp.next += tp.dt {
			s, sk := tp.accrued(tp.next)
			tp.sample(tp.next, s, sk)
		}
		if side < 0 {
			return
		}
		tp.pend[side].pop()
		tp.change(side, -1, at.Seconds())
	}
}

// change moves a system's count by delta at t and records the step.
func (tp *seriesTap) change(side, delta int, t float64) {
	tp.prevN, tp.prevNK = tp.n, tp.nk
	if side == 0 {
		tp.n += delta
	} else {
		tp.nk += delta
	}
	tp.step(t)
}

func (tp *seriesTap) sample(t, s, sk float64) {
	ser := tp.ser
	if len(ser.T) == 2*tp.opt.Samples {
		// Keep every other sample and double the spacing: the kept ones are
		// the multiples of the new spacing.
		for i := 0; 2*i < len(ser.T); i++ {
			ser.T[i], ser.S[i], ser.SSplit[i] = ser.T[2*i], ser.S[2*i], ser.SSplit[2*i]
		}
		ser.T, ser.S, ser.SSplit = ser.T[:tp.opt.Samples], ser.S[:tp.opt.Samples], ser.SSplit[:tp.opt.Samples]
		tp.dt *= 2
		tp.next = ser.T[len(ser.T)-1] + tp.dt
		if t < tp.next {
			return
		}
	}
	ser.T = append(ser.T, t)
	ser.S = append(ser.S, s)
	ser.SSplit = append(ser.SSplit, sk)
}

// step records the queue lengths after a change at t, if t is in the
// window.
func (tp *seriesTap) step(t float64) {
	if tp.busiest {
		tp.stepBusiest(t)
		return
	}
	ser := tp.ser
	if t < tp.opt.From || t > tp.opt.To {
		return
	}
	if k := len(ser.StepT); k > 0 && ser.StepT[k-1] == t {
		ser.N[k-1], ser.NSplit[k-1] = tp.n, tp.nk
		return
	}
	if len(ser.StepT) == 0 && t > tp.opt.From {
		// The window opens between events: the counts before this one
		// hold from From.
		ser.StepT = append(ser.StepT, tp.opt.From)
		ser.N = append(ser.N, tp.prevN)
		ser.NSplit = append(ser.NSplit, tp.prevNK)
	}
	if len(ser.StepT) >= tp.opt.MaxSteps {
		ser.Truncated = true
		return
	}
	ser.StepT = append(ser.StepT, t)
	ser.N = append(ser.N, tp.n)
	ser.NSplit = append(ser.NSplit, tp.nk)
}

// stepBusiest keeps the steps around the busiest episode.
func (tp *seriesTap) stepBusiest(t float64) {
	s := stepRec{t, tp.n, tp.nk}
	w := cap(tp.ring)
	newest := len(tp.ring) - 1 // head is 0 until the ring is full
	if len(tp.ring) == w {
		newest = (tp.head + w - 1) % w
	}
	if newest >= 0 && tp.ring[newest].t == t {
		tp.ring[newest] = s
		if k := len(tp.best); k > 0 && tp.best[k-1].t == t {
			tp.best[k-1] = s
		}
	} else {
		if len(tp.ring) < w {
			tp.ring = append(tp.ring, s)
		} else {
			tp.ring[tp.head] = s
			tp.head = (tp.head + 1) % w
		}
		if tp.post > 0 {
			tp.best = append(tp.best, s)
			tp.post--
		}
	}
	if s.nk > tp.maxNK {
		// A new busiest instant (by more than 1/8): the ring becomes the
		// window's first half, and the next w steps its second.
		tp.maxNK = s.nk + s.nk/8
		tp.best = tp.best[:0]
		for i := range tp.ring {
			tp.best = append(tp.best, tp.ring[(tp.head+i)%len(tp.ring)])
		}
		tp.post = w
	}
}

func (tp *seriesTap) Decided(j systems.Job, side, node int, d buckets.Decision) error {
	if side == 0 {
		tp.advance(j.T) // before the states take this job in
	}
	sys := tp.p.A
	if side == 1 {
		sys = tp.p.B
	}
	tp.states[side][node] = sys.Nodes()[node].(*buckets.TokenBucket).State()
	t := j.T.Seconds()
	switch d.Verdict {
	case buckets.Delay:
		tp.change(side, 1, t)
		// The exact release instant j.T + Wait, rounded up to the
		// nanosecond as systems.Observer states for queued jobs.
		tp.pend[side].push(j.T + engine.Time(d.Wait.Ceil().Int64()))
	case buckets.Queue:
		tp.change(side, 1, t)
	}
	return tp.rec.Decided(j, side, node, d)
}

func (tp *seriesTap) Released(side, node int, at engine.Time, r buckets.Released) error {
	tp.advance(at)
	tp.change(side, -1, at.Seconds())
	return tp.rec.Released(side, node, at, r)
}

// finish takes the samples and releases after the last arrival, up to
// the end of the run, end (seconds).
func (tp *seriesTap) finish(end float64) {
	tp.end = end // the releases at the end's nanosecond, no sample after it
	tp.advance(engine.Time(math.Ceil(end * 1e9)))
	ser := tp.ser
	if k := len(ser.T); k == 0 || ser.T[k-1] < end {
		s, sk := tp.accrued(end)
		ser.T = append(ser.T, end)
		ser.S = append(ser.S, s)
		ser.SSplit = append(ser.SSplit, sk)
	}
	if tp.busiest && len(tp.best) > 0 {
		for _, s := range tp.best {
			ser.StepT = append(ser.StepT, s.t)
			ser.N = append(ser.N, s.n)
			ser.NSplit = append(ser.NSplit, s.nk)
		}
		ser.From, ser.To = tp.best[0].t, tp.best[len(tp.best)-1].t
		if ser.To == ser.From {
			ser.To = end
		}
	}
}
