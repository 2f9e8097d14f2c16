package drl

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/tailsketch"
	"github.com/ratesim/ratesim/netcalc"
)

// Summary is a Result's figures, in seconds and jobs.
type Summary struct {
	Design   string  `json:"design"`
	Jobs     int64   `json:"jobs"`
	Admitted int64   `json:"admitted"`
	Rejected int64   `json:"rejected"`
	Fallback int64   `json:"fallback_jobs"`
	Messages int64   `json:"messages"`
	Lost     int64   `json:"lost_messages"`
	Mean     float64 `json:"mean_delay_s"`
	P99      float64 `json:"p99_delay_s"` // nearest rank, exact up to the final rounding (see P99Method)
	Max      float64 `json:"max_delay_s"`
	Total    float64 `json:"total_delay_s"`
	// Overshoot is the supremum, over every interval length d >= 0 and
	// every key, of α*(d)/(B + R·d), α*(d) the most of the key's admitted
	// jobs in a closed interval [s, s + d]: exact (netcalc.Overshoot, a
	// maximum over the pairs of admitted instants), rounded to float64
	// here and given exactly in OvershootExact. Above 1 the design broke
	// the promise. OverD, OverJobs, OverFrom and OverTo are the interval
	// where it is reached (the first key in key order on ties).
	Overshoot      float64 `json:"worst_overshoot"`
	OvershootExact string  `json:"worst_overshoot_exact"`  // a fraction, e.g. "600/599"
	OverD          float64 `json:"worst_overshoot_d_s"`    // the length d where it is reached, s
	OverJobs       int     `json:"worst_overshoot_jobs"`   // α*(d) there
	OverFrom       float64 `json:"worst_overshoot_from_s"` // the interval reaching it, s
	OverTo         float64 `json:"worst_overshoot_to_s"`
	// Excess is the supremum over d and keys of α*(d) − (B + R·d), jobs:
	// how many jobs beyond the promise the worst interval held, exact
	// (ExcessExact) and rounded here; above 0 exactly when Overshoot is
	// above 1 and ShaperDelayed above 0. −B when nothing was admitted.
	Excess      float64 `json:"promise_excess_jobs"`
	ExcessExact string  `json:"promise_excess_exact"`
	ExcessD     float64 `json:"promise_excess_d_s"`         // the length d where it is reached, s
	ExcessJobs  int     `json:"promise_excess_window_jobs"` // α*(d) there
	ExcessFrom  float64 `json:"promise_excess_from_s"`      // the interval reaching it, s
	ExcessTo    float64 `json:"promise_excess_to_s"`
	// Sampled is the largest α*(d)/(B + R·d) at the sampled lengths only
	// (Durations, or the lengths given to Summarize): a point of the
	// arrival curve for figures, which can miss the worst length and read
	// below 1 when the promise is broken; never the verdict.
	Sampled float64 `json:"sampled_overshoot"`
	// ShaperDelayed is the number of admitted jobs, over the keys, that a
	// shaping bucket (R, B), full at the start and fed a key's admitted
	// stream, would delay, and ShaperMaxDelay the longest of those delays,
	// s: both 0 exactly when Excess <= 0. It counts every later job of a
	// busy period that began with an excess, so it is not a count of jobs
	// beyond the promise (Excess is).
	ShaperDelayed  int64   `json:"jobs_delayed_by_shaper"`
	ShaperMaxDelay float64 `json:"shaper_max_delay_s"`
	Keys           int     `json:"keys"` // keys with an admitted job
	// JainNodes and JainKeys are Jain's fairness index of the admitted
	// fractions across nodes and across keys (see Jain).
	JainNodes float64 `json:"jain_nodes"`
	JainKeys  float64 `json:"jain_keys"`
	// Staleness is the mean age of the owner's state the reconcile design's
	// decisions were made with, s (0 for the other designs).
	Staleness float64 `json:"mean_staleness_s"`
	// OverRate is the largest fraction, over the keys, of the time between
	// the first and last arrival during which the key's admitted rate over
	// the last OverRateWindow seconds exceeded R.
	OverRate       float64 `json:"over_rate_fraction"`
	OverRateWindow float64 `json:"over_rate_window_s"`
	// OverOne and UnderOne are the jobs the design admitted that the one
	// bucket rejected, and those it rejected that the one bucket admitted,
	// job by job (see Compare); set by the caller that ran both.
	OverOne  int64 `json:"jobs_admitted_over_one"`
	UnderOne int64 `json:"jobs_rejected_under_one"`
	// Theorem2 is the check of Theorem 2 against the one bucket, key by
	// key (see Theorem2NA): "held", "violated at t = ... s, key ..." or
	// "n/a (why)"; Theorem2Violations the instants at which it or Lemma 1
	// failed.
	Theorem2           string `json:"theorem2"`
	Theorem2Violations uint64 `json:"theorem2_violations"`

	// P99Method is "" when P99 is exact, and names the sketch
	// (tailsketch.Method) once more than 2^20 delays were not 0 in a run
	// that did not keep its departures.
	P99Method string `json:"p99_method,omitempty"`
}

// Durations returns the interval lengths at which the overshoot is
// measured for the promise p: 0 and W·2^(k/4) for k = -28, ..., 8, W = B/R
// the burst's time, rounded to the nanosecond (duplicates dropped).
func Durations(p buckets.Params) []engine.Time {
	w := p.Burst.Float64() / p.Rate.Float64() * 1e9
	ds := []engine.Time{0}
	for k := -28; k <= 8; k++ {
		d := math.Round(w * math.Pow(2, float64(k)/4))
		if d >= 1 && d < math.MaxInt64/4 {
			ds = append(ds, engine.Time(d))
		}
	}
	return slices.Compact(ds)
}

// Summarize computes r's figures against the promise p at the lengths ds
// (nil: Durations(p)), and the share of time a key's admitted rate over
// the last w ns exceeds R (w > 0; 0 leaves it out). It sorts r's delays
// and each key's departures in place. A run without its departures
// (Spec.KeepDepartures false) measured the arrival curves and the time
// over R as it went, at Durations(Spec.Bucket) and Spec.RateWindow, with
// the same results: then ds must be nil, p the run's Spec.Bucket and w
// Spec.RateWindow, or it returns an error wrapping ErrSpec.
func Summarize(r *Result, p buckets.Params, ds []engine.Time, w engine.Time) (Summary, error) {
	s := Summary{Design: r.Design, Jobs: r.Jobs, Admitted: r.Admitted, Rejected: r.Rejected, Fallback: r.Fallback, Messages: r.Messages, Lost: r.Lost,
		Theorem2: r.Theorem2.String(), Theorem2Violations: r.Theorem2.Violations + r.Theorem2.LemmaViolations}
	if err := s.addDelays(r); err != nil {
		return s, err
	}
	if r.Stale > 0 {
		s.Staleness = r.Staleness / float64(r.Stale)
	}
	s.JainNodes = Jain(r.PerNode)
	keys := slices.Sorted(maps.Keys(r.PerKey)) // a fixed order: float sums depend on it
	cs := make([]Count, len(keys))
	for i, k := range keys {
		cs[i] = *r.PerKey[k]
	}
	s.JainKeys = Jain(cs)
	// Measure each key's admitted stream against the promise, keys in
	// increasing order: the sampled points, then the exact overshoot.
	measure := func(pts []buckets.CurvePoint) {
		s.Keys++
		for _, pt := range pts {
			s.Sampled = max(s.Sampled, float64(pt.Jobs)/p.Promise(pt.D))
		}
	}
	s.Excess = -p.Burst.Float64() // nothing admitted: α* = 0 at every d
	s.ExcessExact = p.Burst.Neg().Big().RatString()
	s.OvershootExact = "0"
	var worst, most *netcalc.Overshoot
	if st := r.streams; st != nil && r.Departures == nil {
		if ds != nil || w != st.w {
			return s, fmt.Errorf("drl: the run measured its arrival curves at Durations and a rate window of %v s; other lengths or windows need Spec.KeepDepartures: %w", st.w.Seconds(), ErrSpec)
		}
		for _, k := range slices.Sorted(maps.Keys(st.keys)) {
			c := st.keys[k]
			pts, err := c.points(st.ds)
			if err != nil {
				return s, err
			}
			measure(pts)
			if err := s.addPromise(c.promise, &worst, &most); err != nil {
				return s, err
			}
			if w > 0 && r.Last > r.First {
				s.OverRate = max(s.OverRate, float64(c.total)/float64(r.Last-r.First))
			}
		}
		s.OverRateWindow = w.Seconds()
		return s, nil
	}
	if ds == nil {
		ds = Durations(p)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Departures)) {
		xs := r.Departures[k]
		slices.Sort(xs)
		pts, err := buckets.MeasureArrivalCurve(xs, ds)
		if err != nil {
			return s, err
		}
		measure(pts)
		pc := newPromiseCheck(p)
		for _, x := range xs {
			pc.add(x)
		}
		if err := s.addPromise(pc, &worst, &most); err != nil {
			return s, err
		}
		if w > 0 && r.Last > r.First {
			s.OverRate = max(s.OverRate, overRate(xs, p.Rate, w, r.First, r.Last))
		}
	}
	s.OverRateWindow = w.Seconds()
	return s, nil
}

// addDelays adds the mean, p99, largest and total delay of r's admitted
// jobs (sorting r.Delays).
func (s *Summary) addDelays(r *Result) error {
	nd := int64(len(r.Delays))
	if r.delaySk != nil {
		nd = r.delaySk.Len()
		s.P99Method = tailsketch.Method
		if err := r.delaySk.Err(); err != nil {
			return fmt.Errorf("drl: %s: %w", r.Design, err)
		}
	}
	if n := r.ZeroDelays + nd; n > 0 {
		slices.Sort(r.Delays)
		s.Total = r.TotalDelay.Float64() / float64(r.Scale) / 1e9
		s.Mean = s.Total / float64(n)
		if rank := (99*n+99)/100 - 1; rank >= r.ZeroDelays { // nearest rank, zeros first
			if r.delaySk != nil {
				s.P99 = r.delaySk.Rank(rank - r.ZeroDelays)
			} else {
				s.P99 = r.Delays[rank-r.ZeroDelays]
			}
		}
		switch {
		case r.delaySk != nil:
			s.Max = r.delaySk.Max()
		case len(r.Delays) > 0:
			s.Max = r.Delays[len(r.Delays)-1]
		}
	}
	return nil
}

// addPromise adds a key's promise check to the summary: its shaper
// count, and its exact overshoot where it is the worst ratio (worst) or
// the largest excess (most) so far.
func (s *Summary) addPromise(c *promiseCheck, worst, most **netcalc.Overshoot) error {
	if c.err != nil {
		return c.err
	}
	s.ShaperDelayed += c.jobs
	s.ShaperMaxDelay = max(s.ShaperMaxDelay, c.maxDelay())
	o := c.meter.Result()
	if o.Jobs == 0 {
		return nil
	}
	if *worst == nil || o.Worse(**worst) {
		*worst = &o
		s.Overshoot, s.OvershootExact = o.RatioFloat64(), o.Ratio.RatString()
		w := o.RatioAt
		s.OverD, s.OverJobs, s.OverFrom, s.OverTo = w.D().Seconds(), w.Jobs, w.From.Seconds(), w.To.Seconds()
	}
	if *most == nil || o.Excess.Cmp((*most).Excess) > 0 {
		*most = &o
		s.Excess, s.ExcessExact = o.ExcessFloat64(), o.Excess.RatString()
		w := o.ExcessAt
		s.ExcessD, s.ExcessJobs, s.ExcessFrom, s.ExcessTo = w.D().Seconds(), w.Jobs, w.From.Seconds(), w.To.Seconds()
	}
	return nil
}

// overRate returns the share of [from, to] during which more than R·w
// of the instants xs (ns, sorted) lie in the window (t - w, t]: the time
// the admitted rate over the last w ns exceeds R. The count changes at
// each x (+1) and at each x + w (-1); it is compared with R·w exactly,
// n·10^9·den(R) > num(R)·w.
func overRate(xs []engine.Time, rate exact.Rat, w, from, to engine.Time) float64 {
	over := overLimit(rate, w)
	var n int64
	var total engine.Time
	t := from
	i, j := 0, 0 // next +1 at xs[i], next -1 at xs[j] + w
	for t < to {
		next := to
		if i < len(xs) && xs[i] < next {
			next = xs[i]
		}
		if j < len(xs) && xs[j]+w < next {
			next = xs[j] + w
		}
		if next > t && over(n) {
			total += next - t
		}
		t = max(t, next)
		for i < len(xs) && xs[i] <= t {
			n++
			i++
		}
		for j < len(xs) && xs[j]+w <= t {
			n--
			j++
		}
		if next == to {
			break
		}
	}
	return float64(total) / float64(to-from)
}
