package arrivals

import (
	"fmt"
	"math"
	"slices"
)

// StatsOptions configures [Stats]. The zero value gives the windows and
// time scales below.
type StatsOptions struct {
	// PeakWindows are the window lengths, in seconds, of the peak rates;
	// nil means 1 and 60.
	PeakWindows []float64
	// Scales are the time scales, in seconds, of the index of dispersion
	// of counts; nil means 1, 10, 60, 600 and 3600.
	Scales []float64
	// Keyed counts the arrivals' keys (distinct keys and the top-10 share).
	Keyed bool
}

// Stats accumulates the statistics of a stream of arrivals in one pass,
// in memory that does not grow with the number of arrivals (except for
// the keys, one entry per distinct key, and the peak windows, which hold
// the arrivals of one window). Add the arrivals in time order; Summary
// gives the figures.
type Stats struct {
	opt   StatsOptions
	n     int64
	first float64
	last  float64

	// interarrival gaps: Welford's running mean and sum of squared
	// deviations, and the count of zero gaps (ties)
	gapMean, gapM2 float64
	ties           int64

	peaks []peakWindow
	disp  []dispersionScale
	keys  map[uint64]int64
	rate  rateSeries
	gaps  gapHistogram
}

// NewStats returns an empty accumulator. Windows and scales must be
// finite and > 0; otherwise it returns an error naming the value.
func NewStats(opt StatsOptions) (*Stats, error) {
	if opt.PeakWindows == nil {
		opt.PeakWindows = []float64{1, 60}
	}
	if opt.Scales == nil {
		opt.Scales = []float64{1, 10, 60, 600, 3600}
	}
	s := &Stats{opt: opt}
	for _, w := range opt.PeakWindows {
		if !(w > 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("arrivals: peak window %g s is invalid: want finite and > 0", w)
		}
		s.peaks = append(s.peaks, peakWindow{w: w})
	}
	for _, tau := range opt.Scales {
		if !(tau > 0) || math.IsInf(tau, 1) {
			return nil, fmt.Errorf("arrivals: dispersion time scale %g s is invalid: want finite and > 0", tau)
		}
		s.disp = append(s.disp, dispersionScale{tau: tau})
	}
	if opt.Keyed {
		s.keys = map[uint64]int64{}
	}
	s.rate = newRateSeries()
	s.gaps = newGapHistogram()
	return s, nil
}

// Add adds an arrival at t seconds with the given key (ignored unless
// Keyed). t must be finite and not earlier than the previous arrival;
// otherwise Add returns an error and changes nothing.
func (s *Stats) Add(t float64, key uint64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("arrivals: stats: arrival time %g s is not finite", t)
	}
	if s.n > 0 && t < s.last {
		return fmt.Errorf("arrivals: stats: arrival %d at %g s is earlier than the previous one at %g s", s.n, t, s.last)
	}
	if s.n == 0 {
		s.first = t
	} else {
		g := t - s.last
		m := float64(s.n) // gaps so far, after this one
		d := g - s.gapMean
		s.gapMean += d / m
		s.gapM2 += d * (g - s.gapMean)
		if g == 0 {
			s.ties++
		}
		s.gaps.add(g)
	}
	s.n++
	s.last = t
	rel := t - s.first
	for i := range s.peaks {
		s.peaks[i].add(t)
	}
	for i := range s.disp {
		s.disp[i].add(rel)
	}
	s.rate.add(rel)
	if s.keys != nil {
		s.keys[key]++
	}
	return nil
}

// TraceSummary holds the figures of a trace. Values that are undefined
// (a rate over a zero duration, a variance of fewer than 2 values) are
// NaN.
type TraceSummary struct {
	Jobs     int64   // arrivals
	Start    float64 // first arrival, seconds
	Duration float64 // last arrival - first arrival, seconds
	MeanRate float64 // Jobs/Duration, jobs/s

	Peaks []PeakRate // one per window

	GapMean     float64 // mean interarrival gap, seconds: Duration/(Jobs-1)
	GapSCV      float64 // squared coefficient of variation of the gaps (sample variance, n-1)
	Ties        int64   // zero gaps: arrivals at the same instant as the previous one
	TieFraction float64 // Ties/(Jobs-1)

	Dispersion []Dispersion // one per time scale

	Keys *KeyStats // nil unless Keyed

	// RateWidth is the bin width, seconds, of RateCounts: the number of
	// arrivals in [i·RateWidth, (i+1)·RateWidth) after the first arrival,
	// at most 1000 bins (for a plot of the rate over time).
	RateWidth  float64
	RateCounts []int64
	// GapEdges and GapCCDF give the complementary distribution of the
	// gaps, P(G > GapEdges[k]) = GapCCDF[k], at ten edges per decade from
	// 1e-9 s to 1e9 s (for a plot of the interarrival distribution).
	GapEdges, GapCCDF []float64
}

// PeakRate is the largest number of arrivals in any window of a length.
type PeakRate struct {
	Window float64 // seconds
	Jobs   int64   // the most arrivals in any window [s, s+Window)
	Rate   float64 // Jobs/Window, jobs/s
	At     float64 // first arrival of such a window, seconds
}

// Dispersion is the index of dispersion of counts at a time scale τ: the
// arrivals are counted in consecutive windows [kτ, (k+1)τ) from the first
// arrival (the last, incomplete window is left out), and
//
//	IDC(τ) = Var(N_τ)/E[N_τ]
//
// with the sample variance (n-1). It is 1 for a Poisson process at every
// scale, 0 for a periodic one at scales that are multiples of the period,
// and grows with τ for bursty or long-range-dependent traffic.
type Dispersion struct {
	Scale    float64 // τ, seconds
	Windows  int64   // complete windows counted
	Mean     float64 // mean count per window
	Variance float64 // sample variance of the counts
	IDC      float64 // Variance/Mean; NaN with fewer than 2 windows or no arrivals in them
}

// KeyStats describes the keys of a trace.
type KeyStats struct {
	Distinct   int     // distinct keys
	Top10Share float64 // fraction of the arrivals that carry one of the 10 most frequent keys
	Top        []int64 // arrivals per key for the 10 most frequent keys, most frequent first
}

// Summary returns the figures so far.
func (s *Stats) Summary() TraceSummary {
	nan := math.NaN()
	r := TraceSummary{Jobs: s.n, Start: s.first, MeanRate: nan, GapMean: nan, GapSCV: nan, TieFraction: nan}
	if s.n > 0 {
		r.Duration = s.last - s.first
	}
	if r.Duration > 0 {
		r.MeanRate = float64(s.n) / r.Duration
	}
	if s.n >= 2 {
		r.GapMean = s.gapMean
		r.TieFraction = float64(s.ties) / float64(s.n-1)
	}
	if s.n >= 3 && s.gapMean > 0 {
		r.GapSCV = s.gapM2 / float64(s.n-2) / (s.gapMean * s.gapMean)
	}
	r.Ties = s.ties
	for _, p := range s.peaks {
		r.Peaks = append(r.Peaks, PeakRate{Window: p.w, Jobs: p.max, Rate: float64(p.max) / p.w, At: p.at})
	}
	for _, d := range s.disp {
		r.Dispersion = append(r.Dispersion, d.summary())
	}
	if s.keys != nil {
		counts := make([]int64, 0, len(s.keys))
		for _, c := range s.keys {
			counts = append(counts, c)
		}
		slices.Sort(counts)
		slices.Reverse(counts)
		top := counts[:min(10, len(counts))]
		var sum int64
		for _, c := range top {
			sum += c
		}
		ks := &KeyStats{Distinct: len(counts), Top: append([]int64(nil), top...), Top10Share: nan}
		if s.n > 0 {
			ks.Top10Share = float64(sum) / float64(s.n)
		}
		r.Keys = ks
	}
	r.RateWidth, r.RateCounts = s.rate.width, append([]int64(nil), s.rate.counts...)
	r.GapEdges, r.GapCCDF = s.gaps.ccdf()
	return r
}

// peakWindow tracks the most arrivals in a window (t - w, t], which has
// the same maximum over a trace as windows [s, s + w): the arrivals in the
// window are kept in a ring, so memory is one window's arrivals.
type peakWindow struct {
	w     float64
	ring  []float64 // times in the window, from head
	head  int
	count int
	max   int64
	at    float64
}

func (p *peakWindow) add(t float64) {
	for p.count > 0 && p.ring[p.head] <= t-p.w {
		p.head = (p.head + 1) % len(p.ring)
		p.count--
	}
	if p.count == len(p.ring) {
		grown := make([]float64, max(16, 2*len(p.ring)))
		for i := range p.count {
			grown[i] = p.ring[(p.head+i)%len(p.ring)]
		}
		p.ring, p.head = grown, 0
	}
	p.ring[(p.head+p.count)%len(p.ring)] = t
	p.count++
	if int64(p.count) > p.max {
		p.max = int64(p.count)
		p.at = p.ring[p.head]
	}
}

// dispersionScale counts arrivals in windows of length tau and keeps the
// mean and sum of squared deviations of the complete windows' counts.
type dispersionScale struct {
	tau     float64
	cur     int64 // index of the current window
	count   int64 // arrivals in it
	windows int64 // complete windows so far
	mean    float64
	m2      float64
}

// add counts an arrival at rel seconds after the first.
func (d *dispersionScale) add(rel float64) {
	k := int64(math.Floor(rel / d.tau))
	if k != d.cur {
		d.merge(1, float64(d.count)) // the current window is complete
		if gap := k - d.cur - 1; gap > 0 {
			d.merge(gap, 0) // empty windows
		}
		d.cur, d.count = k, 0
	}
	d.count++
}

// merge adds n windows whose counts are all x, by the pairwise update of
// T. Chan, G. Golub and R. LeVeque, "Updating formulae and a pairwise
// algorithm for computing sample variances" (1979).
func (d *dispersionScale) merge(n int64, x float64) {
	total := d.windows + n
	delta := x - d.mean
	d.mean += delta * float64(n) / float64(total)
	d.m2 += delta * delta * float64(d.windows) * float64(n) / float64(total)
	d.windows = total
}

func (d *dispersionScale) summary() Dispersion {
	r := Dispersion{Scale: d.tau, Windows: d.windows, Mean: math.NaN(), Variance: math.NaN(), IDC: math.NaN()}
	if d.windows >= 1 {
		r.Mean = d.mean
	}
	if d.windows >= 2 {
		r.Variance = d.m2 / float64(d.windows-1)
		if d.mean > 0 {
			r.IDC = r.Variance / d.mean
		}
	}
	return r
}

// rateWidths is the ladder of bin widths of a rate series, seconds; each
// divides the next.
var rateWidths = []float64{1e-3, 2e-3, 1e-2, 2e-2, 0.1, 0.2, 1, 2, 10, 20, 60, 120, 600, 1200, 3600, 7200, 21600, 43200, 86400}

// maxRateBins bounds the bins of a rate series.
const maxRateBins = 1000

// rateSeries counts arrivals in bins whose width grows along rateWidths
// (then doubles) so that there are at most maxRateBins.
type rateSeries struct {
	width  float64
	step   int // index in rateWidths, or beyond for doublings
	counts []int64
}

func newRateSeries() rateSeries { return rateSeries{width: rateWidths[0]} }

func (r *rateSeries) add(rel float64) {
	k := int(min(math.Floor(rel/r.width), 1e15))
	for k >= maxRateBins {
		next := 2 * r.width
		if r.step+1 < len(rateWidths) {
			next = rateWidths[r.step+1]
		}
		f := int(math.Round(next / r.width))
		merged := make([]int64, (len(r.counts)+f-1)/f)
		for i, c := range r.counts {
			merged[i/f] += c
		}
		r.counts, r.width = merged, next
		r.step++
		k = int(min(math.Floor(rel/r.width), 1e15))
	}
	for len(r.counts) <= k {
		r.counts = append(r.counts, 0)
	}
	r.counts[k]++
}

// gapHistogram counts gaps in bins (e_k, e_{k+1}] between edges
// e_k = 10^(k/10 - 9), k = 0..180; gaps <= e_0 (including zeros) go to an
// underflow bin and gaps > e_180 to the last.
type gapHistogram struct {
	edges  []float64
	counts []int64 // counts[0]: <= edges[0]; counts[k]: (edges[k-1], edges[k]]; last: > last edge
	n      int64
}

func newGapHistogram() gapHistogram {
	edges := make([]float64, 181)
	for k := range edges {
		edges[k] = math.Pow(10, float64(k)/10-9)
	}
	return gapHistogram{edges: edges, counts: make([]int64, len(edges)+1)}
}

func (h *gapHistogram) add(g float64) {
	// The first edge >= g: g falls in (edges[k-1], edges[k]].
	k, _ := slices.BinarySearch(h.edges, g)
	h.counts[k]++
	h.n++
}

// ccdf returns the edges and P(G > edge) at each.
func (h *gapHistogram) ccdf() ([]float64, []float64) {
	if h.n == 0 {
		return nil, nil
	}
	out := make([]float64, len(h.edges))
	above := h.n - h.counts[0] // gaps > edges[0]
	for k := range h.edges {
		out[k] = float64(above) / float64(h.n)
		above -= h.counts[k+1]
	}
	return append([]float64(nil), h.edges...), out
}
