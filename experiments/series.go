package experiments

import (
	"context"
	"io"
	"slices"

	"github.com/DataDog/sketches-go/ddsketch"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/compensated"
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
	One, Split Distribution
}

// Distribution is an empirical delay distribution: P[i] is the fraction of
// jobs with delay <= X[i] seconds (X increasing, P non-decreasing, the
// last P is 1). X[0] = 0 when some job was not delayed.
type Distribution struct {
	X, P []float64
}

// distribution turns a sketch into its binned CDF.
func distribution(s *ddsketch.DDSketch) Distribution {
	type bin struct{ v, c float64 }
	var bins []bin
	s.ForEach(func(v, c float64) bool {
		if c > 0 {
			bins = append(bins, bin{v, c})
		}
		return false
	})
	slices.SortFunc(bins, func(a, b bin) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	total := s.GetCount()
	var d Distribution
	cum := 0.0
	for _, b := range bins {
		cum += b.c
		d.X = append(d.X, b.v)
		d.P = append(d.P, cum/total)
	}
	if n := len(d.P); n > 0 {
		d.P[n-1] = 1 // exact, whatever the rounding of the sum
	}
	return d
}

// RunSeries is [Run] that also records the [Series] behind the single-run
// figures (ratesim run --plot). Its memory is bounded by opt, not by the
// number of jobs; it costs about one more call per event than Run.
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
	rec := newRecorder(jobsOut)
	tp := &seriesTap{rec: rec, opt: opt, dt: 1e-3, ser: &Series{From: opt.From, To: opt.To}}
	tp.busiest = opt.To <= 0
	if tp.busiest {
		tp.ring = make([]stepRec, 0, opt.WindowSteps/2)
		tp.maxNK = -1
	}
	res, err := runWith(ctx, spec, proc, rec, tp)
	if err != nil {
		return res, nil, err
	}
	tp.finish(float64(res.Duration))
	tp.ser.One, tp.ser.Split = distribution(rec.one.sketch), distribution(rec.split.sketch)
	return res, tp.ser, nil
}

// seriesTap follows N(t) and Σ N_l(t) from the recorder calls: every
// arrival adds a waiting job to both systems and every service (at arrival,
// for a job that does not wait, or at its grant) removes one, so after each
// event the counts are the queue lengths. Within one instant they may pass
// through transient values, which last no time: steps at the same instant
// are merged and S integrates only across instants.
type seriesTap struct {
	rec    *recorder
	c      *buckets.Compare
	opt    SeriesOptions
	ser    *Series
	last   float64 // instant of the last event
	n, nk  int
	prevN  int // n before the last change
	prevNK int // nk before the last change
	s, sk  compensated.Sum[float64]
	dt     float64 // sample spacing, seconds
	next   float64 // next sampling instant

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

type stepRec struct {
	t     float64
	n, nk int
}

func (tp *seriesTap) start(c *buckets.Compare) { tp.c = c }

// advance integrates S and S^(k) up to t, taking the samples due, and
// returns t.
func (tp *seriesTap) advance() float64 {
	t := float64(tp.c.Now())
	if t <= tp.last {
		return t
	}
	for tp.next <= t {
		d := tp.next - tp.last
		tp.sample(tp.next, tp.s.Value()+float64(tp.n)*d, tp.sk.Value()+float64(tp.nk)*d)
		tp.next += tp.dt
	}
	d := t - tp.last
	tp.s.Add(float64(tp.n) * d)
	tp.sk.Add(float64(tp.nk) * d)
	tp.last = t
	return t
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

func (tp *seriesTap) Arrived(j buckets.Job, sub int) {
	t := tp.advance()
	tp.prevN, tp.prevNK = tp.n, tp.nk
	tp.n++
	tp.nk++
	tp.step(t)
	tp.rec.Arrived(j, sub)
}

func (tp *seriesTap) Served(id int64, sub int, delay engine.Time) {
	t := tp.advance()
	tp.prevN, tp.prevNK = tp.n, tp.nk
	if sub == buckets.OneBucket {
		tp.n--
	} else {
		tp.nk--
	}
	tp.step(t)
	tp.rec.Served(id, sub, delay)
}

// finish takes the last sample at the end of the run, end.
func (tp *seriesTap) finish(end float64) {
	ser := tp.ser
	if k := len(ser.T); k == 0 || ser.T[k-1] < end {
		d := end - tp.last
		ser.T = append(ser.T, end)
		ser.S = append(ser.S, tp.s.Value()+float64(tp.n)*d)
		ser.SSplit = append(ser.SSplit, tp.sk.Value()+float64(tp.nk)*d)
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
