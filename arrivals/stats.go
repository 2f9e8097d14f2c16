package arrivals

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"sync"

	"github.com/ratesim/ratesim/engine"
)

// StatsOptions configures [Stats]. The zero value gives the windows and
// time scales below.
type StatsOptions struct {
	// PeakWindows are the window lengths of the peak rates, > 0; nil means
	// 1 s and 60 s.
	PeakWindows []engine.Time
	// Scales are the time scales of the index of dispersion of counts,
	// > 0; nil means 1 s, 10 s, 60 s, 600 s and 3600 s.
	Scales []engine.Time
	// Keyed counts the arrivals' keys (distinct keys and the top-10 share).
	Keyed bool
}

// Stats accumulates the statistics of a stream of arrivals in one pass.
// Add the arrivals in time order; Summary gives the figures.
//
// Every decision is exact: arrival times are integer nanoseconds, gaps and
// window indexes are computed in integer arithmetic, and a tie is a gap of
// exactly 0 ns. Only reported quantities (rates, means, variances) are
// float64, rounded from exact values where they are exact.
//
// Memory does not grow with the number of arrivals, nor with a number
// written in the input: the dispersion, rate series and gap histogram are
// fixed-size counters, and each peak window holds the distinct instants of
// one window with their counts (a billion arrivals at one instant are one
// entry), at most [MaxPeakInstants] of them, beyond which it merges
// neighbouring instants and reports bounds (see [PeakRate]). The keys
// take one entry per distinct key when Keyed, up to [MaxStatsKeys], and
// then estimates (see [KeyStats]).
type Stats struct {
	opt   StatsOptions
	n     int64
	first engine.Time
	last  engine.Time

	// interarrival gaps, in seconds: Welford's running mean and sum of
	// squared deviations, and the count of zero gaps (ties)
	gapMean, gapM2 float64
	ties           int64

	peaks []peakWindow
	disp  []dispersionScale
	keys  *keyCounter
	rate  rateSeries
	gaps  gapHistogram
}

// MaxPeakInstants bounds the distinct instants a peak window of [Stats]
// holds: 2^20, about 24 MiB per window.
const MaxPeakInstants = 1 << 20

// NewStats returns an empty accumulator. Windows and scales must be > 0;
// otherwise it returns an error naming the value.
func NewStats(opt StatsOptions) (*Stats, error) {
	if opt.PeakWindows == nil {
		opt.PeakWindows = []engine.Time{engine.Second, 60 * engine.Second}
	}
	if opt.Scales == nil {
		opt.Scales = []engine.Time{engine.Second, 10 * engine.Second, 60 * engine.Second, 600 * engine.Second, 3600 * engine.Second}
	}
	s := &Stats{opt: opt}
	for _, w := range opt.PeakWindows {
		if w <= 0 {
			return nil, fmt.Errorf("arrivals: peak window %v s is invalid: want > 0", w)
		}
		s.peaks = append(s.peaks, peakWindow{w: w, limit: MaxPeakInstants})
	}
	for _, tau := range opt.Scales {
		if tau <= 0 {
			return nil, fmt.Errorf("arrivals: dispersion time scale %v s is invalid: want > 0", tau)
		}
		s.disp = append(s.disp, dispersionScale{tau: tau})
	}
	if opt.Keyed {
		s.keys = newKeyCounter(MaxStatsKeys)
	}
	s.rate = newRateSeries()
	s.gaps = newGapHistogram()
	return s, nil
}

// Add adds an arrival at t with the given key (ignored unless Keyed). t
// must not be earlier than the previous arrival, nor more than about 292
// years after the first (the range of [engine.Time]); otherwise Add returns
// an error and changes nothing.
func (s *Stats) Add(t engine.Time, key uint64) error {
	if s.n > 0 && t < s.last {
		return fmt.Errorf("arrivals: stats: arrival %d at %v s is earlier than the previous one at %v s", s.n, t, s.last)
	}
	rel, ok := subTime(int64(t), int64(s.first))
	if s.n == 0 {
		rel, ok = 0, true
	}
	if !ok {
		return fmt.Errorf("arrivals: stats: arrival %d at %v s is more than 292 years after the first at %v s", s.n, t, s.first)
	}
	if s.n == 0 {
		s.first = t
	} else {
		g := t - s.last // >= 0 and <= rel: exact
		gs := g.Seconds()
		m := float64(s.n) // gaps so far, after this one
		d := gs - s.gapMean
		s.gapMean += d / m
		s.gapM2 += d * (gs - s.gapMean)
		if g == 0 {
			s.ties++
		}
		s.gaps.add(g)
	}
	s.n++
	s.last = t
	for i := range s.peaks {
		s.peaks[i].add(t)
	}
	for i := range s.disp {
		s.disp[i].add(rel)
	}
	s.rate.add(rel)
	if s.keys != nil {
		s.keys.add(key)
	}
	return nil
}

// TraceSummary holds the figures of a trace. Values that are undefined
// (a rate over a zero duration, a variance of fewer than 2 values) are
// NaN.
type TraceSummary struct {
	Jobs     int64       // arrivals
	Start    engine.Time // first arrival
	Duration engine.Time // last arrival - first arrival, exact
	MeanRate float64     // Jobs/Duration, jobs/s

	Peaks []PeakRate // one per window

	GapMean     float64 // mean interarrival gap, seconds: Duration/(Jobs-1)
	GapSCV      float64 // squared coefficient of variation of the gaps (sample variance, n-1)
	Ties        int64   // zero gaps: arrivals at the same instant as the previous one
	TieFraction float64 // Ties/(Jobs-1)

	Dispersion []Dispersion // one per time scale

	Keys *KeyStats // nil unless Keyed

	// RateWidth is the bin width of RateCounts: the number of arrivals in
	// [i·RateWidth, (i+1)·RateWidth) after the first arrival, at most 1000
	// bins (for a plot of the rate over time).
	RateWidth  engine.Time
	RateCounts []int64
	// GapEdges and GapCCDF give the complementary distribution of the
	// gaps, P(G > GapEdges[k]) = GapCCDF[k], at ten edges per decade from
	// 1e-9 s to 1e9 s (for a plot of the interarrival distribution). The
	// edges are in seconds; which side of an edge a gap falls on is
	// decided exactly.
	GapEdges, GapCCDF []float64
}

// PeakRate is the largest number of arrivals in any window [s, s+Window).
//
// The count is exact (Exact is true, Jobs == JobsUpper) whenever the
// window never held more than [MaxPeakInstants] distinct instants. Beyond
// that the window merges neighbouring instants, and Jobs and JobsUpper
// bound the true peak: Jobs arrivals are in some window [At, At+Window),
// and no window holds more than JobsUpper.
type PeakRate struct {
	Window    engine.Time
	Jobs      int64       // the most arrivals in any window (a lower bound unless Exact)
	JobsUpper int64       // an upper bound on the most arrivals in any window
	Exact     bool        // Jobs is the peak: Jobs == JobsUpper
	Rate      float64     // Jobs/Window, jobs/s
	At        engine.Time // first arrival of a window holding Jobs arrivals
}

// Dispersion is the index of dispersion of counts at a time scale τ: the
// arrivals are counted in consecutive windows [kτ, (k+1)τ) from the first
// arrival (the last, incomplete window is left out), and
//
//	IDC(τ) = Var(N_τ)/E[N_τ]
//
// with the sample variance (n-1). It is 1 for a Poisson process at every
// scale, 0 for a periodic one at scales that are multiples of the period,
// and grows with τ for bursty or long-range-dependent traffic. The window
// an arrival falls in is decided exactly.
type Dispersion struct {
	Scale    engine.Time // τ
	Windows  int64       // complete windows counted
	Mean     float64     // mean count per window
	Variance float64     // sample variance of the counts
	IDC      float64     // Variance/Mean; NaN with fewer than 2 windows or no arrivals in them
}

// KeyStats describes the keys of a trace.
//
// The figures are exact (Exact is true) while the trace has at most
// [MaxStatsKeys] distinct keys. Beyond that, Distinct is a HyperLogLog
// estimate (relative standard error about 0.8%), and Top holds the counts
// of Space-Saving's most frequent keys: each at least the key's true
// count and at most that plus the smallest count kept, and every key
// carried by more than 1/MaxStatsKeys of the arrivals is among them.
type KeyStats struct {
	Distinct   int     // distinct keys
	Top10Share float64 // fraction of the arrivals that carry one of the 10 most frequent keys
	Top        []int64 // arrivals per key for the 10 most frequent keys, most frequent first
	Exact      bool    // the figures are counts, not estimates
}

// Summary returns the figures so far.
func (s *Stats) Summary() TraceSummary {
	nan := math.NaN()
	r := TraceSummary{Jobs: s.n, Start: s.first, MeanRate: nan, GapMean: nan, GapSCV: nan, TieFraction: nan}
	if s.n > 0 {
		r.Duration = s.last - s.first
	}
	if r.Duration > 0 {
		r.MeanRate = float64(s.n) / r.Duration.Seconds()
	}
	if s.n >= 2 {
		r.GapMean = r.Duration.Seconds() / float64(s.n-1)
		r.TieFraction = float64(s.ties) / float64(s.n-1)
	}
	if s.n >= 3 && s.gapMean > 0 {
		r.GapSCV = s.gapM2 / float64(s.n-2) / (s.gapMean * s.gapMean)
	}
	r.Ties = s.ties
	for _, p := range s.peaks {
		r.Peaks = append(r.Peaks, PeakRate{Window: p.w, Jobs: p.maxLo, JobsUpper: p.maxHi, Exact: p.maxLo == p.maxHi,
			Rate: float64(p.maxLo) / p.w.Seconds(), At: p.at})
	}
	for _, d := range s.disp {
		r.Dispersion = append(r.Dispersion, d.summary())
	}
	if s.keys != nil {
		top := s.keys.top()
		var sum int64
		for _, c := range top {
			sum += c
		}
		ks := &KeyStats{Top: top, Top10Share: nan}
		ks.Distinct, ks.Exact = s.keys.distinct()
		if s.n > 0 {
			ks.Top10Share = min(1, float64(sum)/float64(s.n))
		}
		r.Keys = ks
	}
	r.RateWidth, r.RateCounts = s.rate.width, append([]int64(nil), s.rate.counts...)
	r.GapEdges, r.GapCCDF = s.gaps.ccdf()
	return r
}

// peakWindow tracks the most arrivals in a window (t - w, t], which has
// the same maximum over a trace as windows [s, s + w). It keeps the
// clusters of the arrivals in the window in a ring, oldest first: a
// cluster is the arrivals in [first, last] with their count, a single
// instant (first == last) unless the ring has been compacted. At an
// arrival at t, with cut = t - w,
//
//   - the clusters whose first instant is after cut are inside the
//     window: their sum lo is a count of arrivals in (t - w, t];
//   - the clusters whose last instant is after cut hold every arrival of
//     the window: their sum hi >= the count of (t - w, t];
//
// so max lo <= peak <= max hi, with equality while every cluster is an
// instant. Clusters whose last instant is at or before cut are dropped.
// When the ring reaches its limit, neighbouring clusters are merged in
// pairs, halving it.
type peakWindow struct {
	w     engine.Time
	limit int       // most clusters held
	ring  []cluster // from head (seq h) to tail (seq tail-1)
	h     int64     // seq of the oldest cluster
	mid   int64     // seq of the first cluster whose first instant is after cut
	tail  int64     // seq after the newest cluster
	lo    int64     // arrivals in clusters mid..tail-1
	hi    int64     // arrivals in clusters h..tail-1
	maxLo int64
	maxHi int64
	at    engine.Time
}

// cluster is arrivals at instants in [first, last].
type cluster struct {
	first, last engine.Time
	n           int64
}

// c returns cluster seq. The ring's length is a power of two (16 doubled
// up to limit, a power of two), so seq modulo it is a mask.
func (p *peakWindow) c(seq int64) *cluster { return &p.ring[seq&int64(len(p.ring)-1)] }

func (p *peakWindow) add(t engine.Time) {
	cut, ok := subTime(int64(t), int64(p.w))
	if !ok {
		cut = math.MinInt64 // nothing is that old
	}
	for p.mid < p.tail && p.c(p.mid).first <= cut {
		p.lo -= p.c(p.mid).n
		p.mid++
	}
	// A cluster whose last instant is at or before cut has its first
	// there too: it is behind mid.
	for p.h < p.mid && p.c(p.h).last <= cut {
		p.hi -= p.c(p.h).n
		p.h++
	}
	if p.tail > p.h && p.c(p.tail-1).last == t {
		p.c(p.tail-1).n++ // another arrival at the newest instant
		if p.tail-1 >= p.mid {
			p.lo++
		}
	} else {
		if p.tail-p.h == int64(len(p.ring)) {
			p.grow(cut)
		}
		*p.c(p.tail) = cluster{first: t, last: t, n: 1}
		p.tail++
		p.lo++ // t > cut: the new cluster is inside
	}
	p.hi++
	if p.lo > p.maxLo {
		p.maxLo, p.at = p.lo, p.c(p.mid).first
	}
	p.maxHi = max(p.maxHi, p.hi)
}

// grow makes room for one more cluster: a ring twice the size, up to the
// limit, and then the clusters merged in pairs.
func (p *peakWindow) grow(cut engine.Time) {
	n := int(p.tail - p.h)
	if len(p.ring) < p.limit {
		next := make([]cluster, min(max(16, 2*len(p.ring)), p.limit))
		for i := range n {
			next[i] = *p.c(p.h + int64(i))
		}
		p.ring, p.mid, p.tail, p.h = next, p.mid-p.h, int64(n), 0
		return
	}
	// Merge clusters 2i and 2i+1 into a new ring, which is then half full.
	// Compaction happens once per limit/2 new clusters, so its O(limit)
	// cost is O(1) per cluster.
	next := make([]cluster, len(p.ring))
	merged := 0
	for i := 0; i < n; i += 2 {
		c := *p.c(p.h + int64(i))
		if i+1 < n {
			d := p.c(p.h + int64(i) + 1)
			c.last, c.n = d.last, c.n+d.n
		}
		next[merged] = c
		merged++
	}
	p.ring, p.h, p.tail = next, 0, int64(merged)
	p.mid, p.lo = 0, p.hi
	for p.mid < p.tail && p.ring[p.mid].first <= cut {
		p.lo -= p.ring[p.mid].n
		p.mid++
	}
}

// dispersionScale counts arrivals in windows of length tau and keeps the
// mean and sum of squared deviations of the complete windows' counts.
type dispersionScale struct {
	tau     engine.Time
	end     engine.Time // end of the current window once known, or 0
	cur     int64       // index of the current window
	count   int64       // arrivals in it
	windows int64       // complete windows so far
	mean    float64
	m2      float64
}

// add counts an arrival rel >= 0 after the first.
func (d *dispersionScale) add(rel engine.Time) {
	if rel < d.end {
		d.count++ // in the current window: no division
		return
	}
	k := int64(rel / d.tau) // exact: the window [kτ, (k+1)τ) holding rel
	d.end = engine.Forever  // past the last whole window
	if k < int64(engine.Forever/d.tau) {
		d.end = engine.Time(k+1) * d.tau
	}
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

// rateWidths is the ladder of bin widths of a rate series; each divides
// the next.
var rateWidths = []engine.Time{
	engine.Millisecond, 2 * engine.Millisecond, 10 * engine.Millisecond, 20 * engine.Millisecond,
	100 * engine.Millisecond, 200 * engine.Millisecond, engine.Second, 2 * engine.Second, 10 * engine.Second,
	20 * engine.Second, 60 * engine.Second, 120 * engine.Second, 600 * engine.Second, 1200 * engine.Second,
	3600 * engine.Second, 7200 * engine.Second, 21600 * engine.Second, 43200 * engine.Second, 86400 * engine.Second,
}

// maxRateBins bounds the bins of a rate series.
const maxRateBins = 1000

// rateSeries counts arrivals in bins whose width grows along rateWidths
// (then doubles) so that there are at most maxRateBins.
type rateSeries struct {
	width  engine.Time
	step   int // index in rateWidths, or beyond for doublings
	counts []int64
}

func newRateSeries() rateSeries { return rateSeries{width: rateWidths[0]} }

// add counts an arrival rel >= 0 after the first.
func (r *rateSeries) add(rel engine.Time) {
	k := rel / r.width
	for k >= maxRateBins {
		next := 2 * r.width
		if r.step+1 < len(rateWidths) {
			next = rateWidths[r.step+1]
		}
		f := int(next / r.width)
		merged := make([]int64, (len(r.counts)+f-1)/f)
		for i, c := range r.counts {
			merged[i/f] += c
		}
		r.counts, r.width = merged, next
		r.step++
		k = rel / r.width
	}
	for int64(len(r.counts)) <= int64(k) {
		r.counts = append(r.counts, 0)
	}
	r.counts[k]++
}

// gapTab holds the edges of gapHistogram, e_k = 10^(k/10 - 9) s for
// k = 0..180: edges as float64 seconds for reports, and limits the same
// edges as decisions: limits[k] = floor(10^(k/10)) ns, the largest whole
// number of nanoseconds <= e_k, so that a gap g (whole ns) is at most e_k
// exactly when g <= limits[k]. start[b] is the index of the first of
// limits >= 2^(b-1), the least gap of b significant bits (0 for b = 0), or
// len(limits).
type gapTab struct {
	edges  []float64
	limits []int64
	start  [65]uint8
}

// gapTables builds the gapTab once, on first use: its big-integer roots
// cost milliseconds, which every command but the few that histogram gaps
// would otherwise pay at start-up.
var gapTables = sync.OnceValue(func() *gapTab {
	t := &gapTab{edges: make([]float64, 181), limits: make([]int64, 181)}
	ten := big.NewInt(10)
	for k := range t.edges {
		t.edges[k] = math.Pow(10, float64(k)/10-9)
		// floor of the 10th root of 10^k: the largest x with x^10 <= 10^k.
		target := new(big.Int).Exp(ten, big.NewInt(int64(k)), nil)
		x := int64(math.Pow(10, float64(k)/10))
		pow := func(x int64) *big.Int { return new(big.Int).Exp(big.NewInt(x), ten, nil) }
		for pow(x).Cmp(target) > 0 {
			x--
		}
		for pow(x+1).Cmp(target) <= 0 {
			x++
		}
		t.limits[k] = x
	}
	for b := 1; b <= 64; b++ {
		t.start[b] = uint8(sort.Search(len(t.limits), func(k int) bool { return uint64(t.limits[k]) >= 1<<(b-1) }))
	}
	return t
})

// gapHistogram counts gaps in bins (e_k, e_{k+1}] between the edges
// of gapTables; gaps <= e_0 = 1 ns (including zeros) go to an underflow bin
// and gaps > e_180 = 1e9 s to the last.
type gapHistogram struct {
	counts []int64 // counts[0]: <= e_0; counts[k]: (e_{k-1}, e_k]; last: > last edge
	n      int64
	tab    *gapTab
}

func newGapHistogram() gapHistogram {
	t := gapTables()
	return gapHistogram{counts: make([]int64, len(t.limits)+1), tab: t}
}

func (h *gapHistogram) add(g engine.Time) {
	// The first edge >= g: g falls in (e_{k-1}, e_k]. It is at or after
	// the first edge >= 2^(bits-1) <= g, and a power of two spans about
	// three edges.
	limits := h.tab.limits
	k := int(h.tab.start[bits.Len64(uint64(g))])
	for k < len(limits) && limits[k] < int64(g) {
		k++
	}
	h.counts[k]++
	h.n++
}

// ccdf returns the edges and P(G > edge) at each.
func (h *gapHistogram) ccdf() ([]float64, []float64) {
	if h.n == 0 {
		return nil, nil
	}
	edges := h.tab.edges
	out := make([]float64, len(edges))
	above := h.n - h.counts[0] // gaps > edges[0]
	for k := range edges {
		out[k] = float64(above) / float64(h.n)
		above -= h.counts[k+1]
	}
	return append([]float64(nil), edges...), out
}
