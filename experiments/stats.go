package experiments

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"

	"github.com/ratesim/ratesim/exact"
)

// relativeAccuracy is the relative accuracy of the delay quantiles once a
// system has delayed more than [ExactQuantileJobs] jobs: a reported
// quantile q̂ of a true quantile q > 0 satisfies |q̂ - q| <= 0.01·q
// (DDSketch guarantee; Masson, Rim and Lee, "DDSketch: A Fast and
// Fully-Mergeable Quantile Sketch with Relative-Error Guarantees", VLDB
// 2019). Zero delays are always counted exactly.
const relativeAccuracy = 0.01

// ExactQuantileJobs is how many delayed jobs (delay > 0) a system keeps
// exactly for its quantiles: up to this many, every quantile is exact;
// beyond, the delays go into a DDSketch of [relativeAccuracy] and memory
// stays bounded (8 MiB of delays per system at most, whatever the run's
// length).
const ExactQuantileJobs = 1 << 20

// QuantileMethod describes how quantiles are defined: the q-quantile of n
// delays is the nearest-rank value, the ceil(q·n)-th smallest (1-based;
// Hyndman and Fan's type 1, the inverse of the empirical distribution
// function: the smallest delay x with F(x) >= q).
const QuantileMethod = "nearest rank: the ceil(q·n)-th smallest delay (Hyndman-Fan type 1)"

// Stats are the delay statistics of one system over a run, in seconds
// except the counts.
type Stats struct {
	Jobs    int64   `json:"jobs"`         // jobs decided (measured: after the warm-up)
	Delayed int64   `json:"delayed_jobs"` // jobs that waited (delay > 0, exactly)
	Mean    float64 `json:"mean_delay_s"` // mean delay, from the exact total
	P50     float64 `json:"p50_delay_s"`  // median delay (see QuantileMethod)
	P90     float64 `json:"p90_delay_s"`  // 90th percentile delay
	P99     float64 `json:"p99_delay_s"`  // 99th percentile delay
	P999    float64 `json:"p999_delay_s"` // 99.9th percentile delay
	Max     float64 `json:"max_delay_s"`  // largest delay (exact, rounded once)
	Total   float64 `json:"total_delay_s"`
	// Quantiles says whether the quantiles are "exact" or come from the
	// sketch ("ddsketch, relative accuracy 0.01").
	Quantiles string `json:"quantiles"`
}

// delayStats accumulates one system's delays. Totals and the maximum are
// exact (rationals of nanoseconds); positive delays are kept exactly, as
// float64 seconds rounded once, for the first ExactQuantileJobs of them,
// and in a DDSketch beyond (or a log-linear histogram, for one run). The
// studies of other packages reach it through [DelayStats].
type delayStats struct {
	n, delayed int64
	sum        exact.Int128 // Σ numerators of waits with denominator den
	den        int64        // the denominator of every wait so far (0: none yet)
	sumBig     *big.Rat     // the total once waits of another denominator came
	max        exact.Rat
	vals       []float64 // positive delays, seconds, while exact
	sketch     *ddsketch.DDSketch
	hist       *logHist // a run's positive delays beyond ExactQuantileJobs (useHist)
	useHist    bool     // one run's statistics: beyond ExactQuantileJobs, a logHist rather than a sketch
	mixed      bool     // a logHist was merged into the sketch
	err        error
	summary    bool    // count, total and maximum only: no quantiles, O(1) memory
	scaleNs    float64 // den·1e9 as a float64 when it is exact (<= 2^53), for addUnits; 0 otherwise
}

func newDelayStats() *delayStats { return &delayStats{} }

// newRunStats returns the statistics of one run: beyond
// ExactQuantileJobs delayed jobs they keep a [logHist] of
// [histogramAccuracy], cheaper per job than the sketch, rather than a
// DDSketch.
func newRunStats() *delayStats { return &delayStats{useHist: true} }

// setDen fixes the denominator of the exact total.
func (s *delayStats) setDen(d int64) {
	s.den = d
	if hi, lo := bits.Mul64(uint64(d), 1e9); hi == 0 && lo <= 1<<53 {
		s.scaleNs = float64(lo)
	}
}

// newDelaySummary returns statistics that keep no values: the mean and
// the maximum are exact, the quantiles are not computed.
func newDelaySummary() *delayStats { return &delayStats{summary: true} }

// add records one job's exact wait in nanoseconds (0 for a job that did
// not wait).
func (s *delayStats) add(w exact.Rat) {
	s.n++
	if w.Sign() <= 0 {
		return
	}
	s.delayed++
	switch {
	case s.sumBig != nil:
		s.sumBig.Add(s.sumBig, w.Big())
	case s.den == 0 || w.Den() == s.den:
		s.setDen(w.Den())
		if sum, ok := s.sum.AddOK(w.Num()); ok {
			s.sum = sum
		} else {
			s.toBig(w)
		}
	default:
		s.toBig(w)
	}
	if s.max.Cmp(w) < 0 {
		s.max = w
	}
	if !s.summary {
		s.addValue(w.QuoFloat64(1e9))
	}
}

// addUnits records one job's wait of num/den ns (num <= 0: no wait): add
// with the fast path's integers, without building an exact.Rat.
func (s *delayStats) addUnits(num exact.Int128, den int64) {
	if num.Sign() <= 0 {
		s.n++
		return
	}
	if s.sumBig == nil && s.den == den {
		if sum, ok := s.sum.AddOK(num); ok {
			s.n++
			s.delayed++
			s.sum = sum
			if m := s.max; m.Sign() == 0 || m.Den() == den && m.Num().Less(num) || m.Den() != den && m.Cmp(exact.Frac(num, den)) < 0 {
				s.max = exact.Frac(num, den)
			}
			if !s.summary {
				if num.IsInt64() && num.Int64() <= 1<<53 && s.scaleNs > 0 {
					// Both operands exact float64 values: one rounding.
					s.addValue(float64(num.Int64()) / s.scaleNs)
				} else {
					s.addValue(exact.Frac(num, den).QuoFloat64(1e9))
				}
			}
			return
		}
	}
	s.add(exact.Frac(num, den))
}

// toBig moves the total to math/big, adding w.
func (s *delayStats) toBig(w exact.Rat) {
	s.sumBig = new(big.Rat)
	if s.den != 0 {
		s.sumBig.SetFrac(s.sum.Big(), big.NewInt(s.den))
	}
	s.sumBig.Add(s.sumBig, w.Big()) // w is not in s.sum
}

func (s *delayStats) addValue(x float64) {
	if s.hist != nil {
		s.hist.add(x)
		return
	}
	if s.sketch == nil && len(s.vals) < ExactQuantileJobs {
		s.store(x)
		return
	}
	if !s.useHist {
		s.addPooled(x)
		return
	}
	s.hist = &logHist{}
	for _, v := range s.vals {
		s.hist.add(v)
	}
	s.vals = nil
	s.hist.add(x)
}

// reserve makes room for n exact values at once (at most
// ExactQuantileJobs), so that the store does not grow by copies: for a
// run whose number of jobs is known. Memory the kernel has not handed
// over yet is only touched as values come.
func (s *delayStats) reserve(n int64) {
	n = min(n, ExactQuantileJobs)
	if s.sketch == nil && s.hist == nil && int64(cap(s.vals)) < n {
		v := make([]float64, len(s.vals), n)
		copy(v, s.vals)
		s.vals = v
	}
}

// store keeps x among the exact values (fewer than ExactQuantileJobs).
func (s *delayStats) store(x float64) {
	if len(s.vals) == cap(s.vals) {
		// Double (append grows large slices by 1.25, which copies five
		// times the final size in all).
		v := make([]float64, len(s.vals), max(1024, 2*cap(s.vals)))
		copy(v, s.vals)
		s.vals = v
	}
	s.vals = append(s.vals, x)
}

// addPooled adds x to pooled statistics (see merge): exactly while they
// hold at most ExactQuantileJobs values, in a DDSketch beyond.
func (s *delayStats) addPooled(x float64) {
	if s.hist != nil {
		s.hist.add(x)
		return
	}
	if s.sketch == nil {
		if len(s.vals) < ExactQuantileJobs {
			s.store(x)
			return
		}
		s.sketch = newSketch()
		for _, v := range s.vals {
			s.sketchAdd(v)
		}
		s.vals = nil
	}
	s.sketchAdd(x)
}

// addUnitsBatch records the waits ws of a batch of jobs, in units of
// 1/den ns (<= 0: no wait; each below 2^62): addUnits for each, with the
// zeros counted inline, the total and the maximum updated once, and the
// values stored or counted in a loop of their own. It returns the number
// of positive waits.
func (s *delayStats) addUnitsBatch(ws []int64, den int64) int64 {
	if s.sumBig != nil || s.den != den {
		d := s.delayed
		for _, w := range ws {
			s.addUnits(exact.I128(w), den)
		}
		return s.delayed - d
	}
	sc := s.scaleNs
	// The fast loops take waits <= 2^53 and batches of at most 1024: their
	// sum fits a uint64 (acc), added to the total once.
	fast := sc > 0 && !s.summary && len(ws) <= 1024
	var acc uint64
	var delayed, mx int64
	i := 0
	switch {
	case fast && s.hist == nil && s.sketch == nil:
		i, acc, delayed, mx = s.storeBatch(ws, sc)
	case fast && s.hist != nil && s.hist.counts != nil:
		i, acc, delayed, mx = s.hist.addBatch(ws, sc)
	}
	half := int64(acc >> 1) // acc <= 2^63: in two int64 halves
	sum := s.sum.Add64(half).Add64(half).Add64(int64(acc & 1))
	for ; i < len(ws); i++ {
		w := ws[i]
		if w <= 0 {
			continue
		}
		delayed++
		sum = sum.Add64(w)
		mx = max(mx, w)
		switch {
		case s.summary:
		case sc > 0 && w <= 1<<53:
			s.addValue(float64(w) / sc)
		default:
			s.addValue(exact.Frac(exact.I128(w), den).QuoFloat64(1e9))
		}
	}
	s.n += int64(len(ws))
	s.delayed += delayed
	s.sum = sum
	if mx > 0 {
		num := exact.I128(mx)
		if m := s.max; m.Sign() == 0 || m.Den() == den && m.Num().Less(num) || m.Den() != den && m.Cmp(exact.Frac(num, den)) < 0 {
			s.max = exact.Frac(num, den)
		}
	}
	return delayed
}

// storeBatch is the fast loop of addUnitsBatch into the exact store,
// while it has room without growing and the waits ws[i]/den ns (den·1e9 =
// sc) are <= 2^53: it returns the index it stopped at, the sum of the
// waits it took, how many were > 0 and the largest.
func (s *delayStats) storeBatch(ws []int64, sc float64) (i int, acc uint64, delayed, mx int64) {
	vals := s.vals
	for ; i < len(ws); i++ {
		w := ws[i]
		if w <= 0 {
			continue
		}
		if len(vals) == cap(vals) || w > 1<<53 {
			break
		}
		delayed++
		acc += uint64(w)
		mx = max(mx, w)
		vals = append(vals, float64(w)/sc) // both operands exact float64 values: one rounding
	}
	s.vals = vals
	return i, acc, delayed, mx
}

// addBatch is the fast loop of addUnitsBatch into the histogram: a shift
// and an increment while a value falls in a bin already allocated. It
// returns what storeBatch returns.
func (h *logHist) addBatch(ws []int64, sc float64) (i int, acc uint64, delayed, mx int64) {
	lo, counts, added := h.lo, h.counts, int64(0)
	for ; i < len(ws); i++ {
		w := ws[i]
		if w <= 0 {
			continue
		}
		if w > 1<<53 {
			break
		}
		x := float64(w) / sc
		delayed++
		acc += uint64(w)
		mx = max(mx, w)
		if j := int(math.Float64bits(x)>>histShift) - lo; uint(j) < uint(len(counts)) {
			counts[j]++
			added++
			continue
		}
		h.add(x) // a new bin: the counts grow
		lo, counts = h.lo, h.counts
	}
	h.n += added
	return i, acc, delayed, mx
}

func newSketch() *ddsketch.DDSketch {
	// The cubically interpolated mapping avoids a logarithm per value at
	// the same accuracy guarantee as the logarithmic one.
	m, err := mapping.NewCubicallyInterpolatedMapping(relativeAccuracy)
	if err != nil {
		panic(err) // relativeAccuracy is a valid constant
	}
	return ddsketch.NewDDSketch(m, store.NewDenseStore(), store.NewDenseStore())
}

func (s *delayStats) sketchAdd(x float64) {
	// Add fails only for values the mapping cannot index (beyond about
	// 1e307 s); the run reports it as an error at the end.
	if err := s.sketch.Add(x); err != nil && s.err == nil {
		s.err = fmt.Errorf("experiments: delay %v s cannot be kept in the quantile sketch: %w", x, err)
	}
}

// merge adds the delays of o (another replication) to s.
func (s *delayStats) merge(o *delayStats) {
	s.n += o.n
	s.delayed += o.delayed
	total := s.totalRat()
	total.Add(total, o.totalRat())
	s.sumBig, s.den, s.sum = total, 0, exact.Int128{}
	if s.max.Cmp(o.max) < 0 {
		s.max = o.max
	}
	if s.sketch != nil || o.sketch != nil {
		// A histogram meets a sketch: the histogram's bins go into the
		// sketch at their middles, so the errors add up (see mixed).
		if s.hist != nil {
			s.sketch = newSketch()
			s.histIntoSketch(s.hist)
			s.hist = nil
		}
		for _, v := range s.vals {
			if s.sketch == nil {
				s.sketch = newSketch()
			}
			s.sketchAdd(v)
		}
		s.vals = nil
		if s.sketch == nil {
			s.sketch = o.sketch.Copy()
		} else if o.sketch != nil {
			if err := s.sketch.MergeWith(o.sketch); err != nil && s.err == nil {
				s.err = err
			}
		}
		if o.hist != nil {
			s.histIntoSketch(o.hist)
		}
		for _, v := range o.vals {
			s.sketchAdd(v)
		}
		s.mixed = s.mixed || o.mixed
		return
	}
	if o.hist != nil && s.hist == nil {
		s.hist = &logHist{}
		for _, v := range s.vals {
			s.hist.add(v)
		}
		s.vals = nil
	}
	if s.hist != nil {
		if o.hist != nil {
			s.hist.merge(o.hist)
		}
		for _, v := range o.vals {
			s.hist.add(v)
		}
		return
	}
	for _, v := range o.vals {
		s.addPooled(v)
	}
}

// histIntoSketch adds the values counted in h to s.sketch, each bin's at
// its middle.
func (s *delayStats) histIntoSketch(h *logHist) {
	h.each(func(mid float64, c int64) {
		if err := s.sketch.AddWithCount(mid, float64(c)); err != nil && s.err == nil {
			s.err = fmt.Errorf("experiments: delay %v s cannot be kept in the quantile sketch: %w", mid, err)
		}
	})
	s.mixed = true
}

// totalRat returns the exact total in nanoseconds.
func (s *delayStats) totalRat() *big.Rat {
	if s.sumBig != nil {
		return new(big.Rat).Set(s.sumBig)
	}
	if s.den == 0 {
		return new(big.Rat)
	}
	return new(big.Rat).SetFrac(s.sum.Big(), big.NewInt(s.den))
}

func (s *delayStats) stats() Stats {
	st := Stats{Jobs: s.n, Delayed: s.delayed, Quantiles: "exact"}
	switch {
	case s.hist != nil:
		st.Quantiles = fmt.Sprintf("log-linear histogram, relative accuracy %g", histogramAccuracy)
	case s.sketch != nil && s.mixed:
		st.Quantiles = fmt.Sprintf("ddsketch over a log-linear histogram, relative accuracy %g", relativeAccuracy+histogramAccuracy+relativeAccuracy*histogramAccuracy)
	case s.sketch != nil:
		st.Quantiles = fmt.Sprintf("ddsketch, relative accuracy %g", relativeAccuracy)
	}
	total := s.totalRat()
	st.Total, _ = new(big.Rat).Quo(total, big.NewRat(1e9, 1)).Float64()
	st.Max = s.max.QuoFloat64(1e9)
	if s.n == 0 {
		return st
	}
	st.Mean, _ = new(big.Rat).Quo(total, big.NewRat(1e9*s.n, 1)).Float64()
	if s.summary {
		st.Quantiles = "none"
		return st
	}
	q := s.quantiles(500, 900, 990, 999)
	st.P50, st.P90, st.P99, st.P999 = q[0], q[1], q[2], q[3]
	return st
}

// distribution returns the empirical distribution of the delays: P[i] is
// the fraction of jobs with delay <= X[i] seconds (X increasing, the last
// P is 1); X[0] = 0 when some job was not delayed. From the exact values
// while they are kept (at most 2000 points, the largest delay included),
// from the sketch's bins beyond.
func (s *delayStats) distribution() Distribution {
	var d Distribution
	if s.n == 0 {
		return d
	}
	zeros := s.n - s.delayed
	if zeros > 0 {
		d.X = append(d.X, 0)
		d.P = append(d.P, float64(zeros)/float64(s.n))
	}
	if s.hist != nil {
		cum := zeros
		s.hist.each(func(mid float64, c int64) {
			cum += c
			d.X = append(d.X, math.Min(mid, s.max.QuoFloat64(1e9)))
			d.P = append(d.P, float64(cum)/float64(s.n))
		})
	} else if s.sketch == nil {
		slices.Sort(s.vals)
		step := max(1, len(s.vals)/2000)
		for i := step - 1; i < len(s.vals); i += step {
			d.X = append(d.X, s.vals[i])
			d.P = append(d.P, float64(zeros+int64(i)+1)/float64(s.n))
		}
		if k := len(s.vals); k > 0 && (k-1)%step != step-1 {
			d.X = append(d.X, s.vals[k-1])
			d.P = append(d.P, 1)
		}
	} else {
		type bin struct{ v, c float64 }
		var bins []bin
		s.sketch.ForEach(func(v, c float64) bool {
			if c > 0 {
				bins = append(bins, bin{v, c})
			}
			return false
		})
		slices.SortFunc(bins, func(a, b bin) int { return cmpFloat(a.v, b.v) })
		cum := float64(zeros)
		for _, b := range bins {
			cum += b.c
			d.X = append(d.X, b.v)
			d.P = append(d.P, cum/float64(s.n))
		}
		// The last bin's value stands for the largest delay, which is
		// known exactly: the distribution ends there (the figures' x
		// axes reach the maximum).
		if n := len(d.X); n > 0 {
			d.X[n-1] = s.max.QuoFloat64(1e9)
			if n > 1 && d.X[n-2] >= d.X[n-1] {
				d.X, d.P = append(d.X[:n-2], d.X[n-1]), append(d.P[:n-2], d.P[n-1])
			}
		}
	}
	if n := len(d.P); n > 0 {
		d.P[n-1] = 1 // exact, whatever the rounding of the sums
	}
	return d
}

// Distribution is an empirical delay distribution: P[i] is the fraction of
// jobs with delay <= X[i] seconds (X increasing, P non-decreasing, the
// last P is 1). X[0] = 0 when some job was not delayed.
type Distribution struct {
	X, P []float64
}
