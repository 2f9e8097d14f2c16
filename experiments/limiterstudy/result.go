package limiterstudy

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/profiles"
)

// CurvePoint is a limiter's empirical arrival curve at one interval length
// d, against its promise.
type CurvePoint struct {
	D       float64 `json:"d_s"`          // interval length d, seconds
	Jobs    int     `json:"jobs"`         // α*(d): the most jobs released in any closed interval of length d
	Promise float64 `json:"promise_jobs"` // the limiter's promise at d, jobs
	Ratio   float64 `json:"ratio"`        // Jobs / Promise: above 1 the promise is broken
	// Unbounded marks a promise that is infinite at d (a profile whose
	// library lets any number pass); Promise and Ratio are then 0.
	Unbounded bool    `json:"promise_unbounded,omitempty"`
	From      float64 `json:"from_s"` // first release of the interval achieving Jobs, seconds
	To        float64 `json:"to_s"`   // last release of that interval, seconds
	Key       string  `json:"key,omitempty"`
}

// ExactOvershoot is a stream's exact overshoot against a promise, over
// every interval length d (netcalc.Overshoot): the supremum of
// α*(d)/promise(d) and of α*(d) − promise(d), α*(d) the most jobs in a
// closed interval [s, s + d] and promise(d) the curve's bound on it, each
// a maximum over the pairs of released instants, with the interval where
// it is reached. Ratio and Excess are rounded to float64 from the exact
// fractions RatioExact and ExcessExact.
type ExactOvershoot struct {
	Against      string  `json:"against"` // the curve, e.g. "γ(r=1/2, b=30)" or "stair(L=30, W=60)"
	Ratio        float64 `json:"ratio"`   // above 1 the promise is broken
	RatioExact   string  `json:"ratio_exact"`
	RatioD       float64 `json:"ratio_d_s"`          // where: the interval's length d, seconds
	RatioJobs    int     `json:"ratio_jobs"`         // α*(d) there
	RatioPromise float64 `json:"ratio_promise_jobs"` // promise(d) there
	RatioFrom    float64 `json:"ratio_from_s"`       // the interval's first and last release, seconds
	RatioTo      float64 `json:"ratio_to_s"`
	Excess       float64 `json:"excess_jobs"` // above 0 exactly when Ratio is above 1
	ExcessExact  string  `json:"excess_exact"`
	ExcessD      float64 `json:"excess_d_s"`
	ExcessJobs   int     `json:"excess_window_jobs"`
	ExcessFrom   float64 `json:"excess_from_s"`
	ExcessTo     float64 `json:"excess_to_s"`
	RatioKey     string  `json:"ratio_key,omitempty"`  // keyed runs: the key of the worst ratio
	ExcessKey    string  `json:"excess_key,omitempty"` // and of the largest excess
}

// exactMeter keeps the worst exact overshoot over streams (keys) against
// one curve: the worst ratio and the largest excess, each with its key,
// the first in key order on ties.
type exactMeter struct {
	curve        netcalc.Arrival
	worst, most  netcalc.Overshoot
	wkey, mkey   string
	measured, ok bool
}

// add takes the overshoot measured by sm on the stream of key.
func (m *exactMeter) add(sm *netcalc.OvershootMeter, key string) (netcalc.Overshoot, error) {
	if err := sm.Err(); err != nil {
		return netcalc.Overshoot{}, err
	}
	o := sm.Result()
	if !m.measured || (o.Jobs > 0 && (m.worst.Jobs == 0 || o.Worse(m.worst))) {
		m.worst, m.wkey = o, key
	}
	if !m.measured || (o.Jobs > 0 && (m.most.Jobs == 0 || o.Excess.Cmp(m.most.Excess) > 0)) {
		m.most, m.mkey = o, key
	}
	m.measured = true
	return o, nil
}

// result returns the worst overshoot; nil when nothing was measured.
func (m *exactMeter) result() *ExactOvershoot {
	if !m.measured {
		return nil
	}
	return exactOf(m.curve, m.worst, m.wkey, m.most, m.mkey)
}

// exactOf describes the ratio of worst and the excess of most.
func exactOf(a netcalc.Arrival, worst netcalc.Overshoot, wkey string, most netcalc.Overshoot, mkey string) *ExactOvershoot {
	e := &ExactOvershoot{Against: a.String(), RatioKey: wkey, ExcessKey: mkey}
	w := worst.RatioAt
	e.Ratio, e.RatioExact = worst.RatioFloat64(), worst.Ratio.RatString()
	e.RatioD, e.RatioJobs, e.RatioFrom, e.RatioTo = w.D().Seconds(), w.Jobs, w.From.Seconds(), w.To.Seconds()
	e.RatioPromise, _ = w.Bound.Float64()
	x := most.ExcessAt
	e.Excess, e.ExcessExact = most.ExcessFloat64(), most.Excess.RatString()
	e.ExcessD, e.ExcessJobs, e.ExcessFrom, e.ExcessTo = x.D().Seconds(), x.Jobs, x.From.Seconds(), x.To.Seconds()
	return e
}

// KeyResult is one key's outcome under one limiter (keyed runs).
type KeyResult struct {
	Key       string     `json:"key"`        // the key's value (a trace's key column; a Zipf rank), or #id when the input cannot name it
	FirstLine int        `json:"first_line"` // the trace line of the key's first arrival
	Arrivals  int64      `json:"arrivals"`
	Admitted  int64      `json:"admitted"`
	Rejected  int64      `json:"rejected"`
	Worst     CurvePoint `json:"worst_overshoot"` // at the sampled lengths
	// Exact is the key's exact overshoot against the limiter's promise
	// (see LimiterResult.Exact).
	Exact     *ExactOvershoot `json:"exact_overshoot,omitempty"`
	MeanDelay float64         `json:"mean_delay_s"` // shapers; 0 otherwise
	MaxDelay  float64         `json:"max_delay_s"`
}

// ResponseBin counts the jobs that arrived at a token deficit in
// [Lo, Hi) tokens and those admitted.
type ResponseBin struct {
	Lo       float64 `json:"deficit_lo_tokens"`
	Hi       float64 `json:"deficit_hi_tokens"`
	Offered  int64   `json:"offered"`
	Admitted int64   `json:"admitted"`
}

// LimiterResult is what one limiter did with the arrivals.
type LimiterResult struct {
	Name        string `json:"limiter"`
	Params      string `json:"params"`
	PromiseName string `json:"promise"` // its nominal arrival curve, as a formula in d
	Shaper      bool   `json:"shaper"`
	Profile     bool   `json:"profile"` // a library-faithful profile; Params is its canonical spec
	Admitted    int64  `json:"admitted"`
	Rejected    int64  `json:"rejected"`
	Delayed     int64  `json:"delayed"` // admitted jobs that waited (delay > 0)
	// NoRetry counts, of Rejected, the jobs refused with no retry: the
	// limiter said none would ever pass (x/time/rate's InfDuration).
	NoRetry int64 `json:"rejected_no_retry,omitempty"`
	// Exact is the exact overshoot over every length d against the
	// limiter's promise (the family's curve; a profile's own arrival curve,
	// profiles.ArrivalCurve), the worst key's in a keyed run; nil for a
	// profile that states no finite curve. It is the verdict; Worst only
	// samples the lengths of Curve.
	Exact *ExactOvershoot `json:"exact_overshoot,omitempty"`
	// ExactVsLimit is, for a profile, its exact overshoot against the
	// promise the user asked for, γ(Rate, Limit) of the spec; nil for the
	// family.
	ExactVsLimit *ExactOvershoot `json:"exact_overshoot_vs_limit,omitempty"`
	Worst        CurvePoint      `json:"worst_overshoot"` // the point of Curve with the largest ratio (the shortest d on ties): sampled lengths only
	// WorstVsLimit is, for a profile, its worst overshoot against the
	// promise the user asked for, γ(Rate, Limit) of the spec: the point of
	// Curve with the largest α*(d)/(Limit + Rate·d) (the shortest d on
	// ties); nil for the family, which Worst already measures so.
	WorstVsLimit *CurvePoint        `json:"overshoot_vs_limit,omitempty"`
	Curve        []CurvePoint       `json:"arrival_curve"`   // keyed runs: at each d, the worst key
	Delay        *experiments.Stats `json:"delay,omitempty"` // shapers: delays of the admitted jobs
	// Response counts, by token deficit at arrival, the jobs offered and
	// admitted (token-police and throttle only).
	Response []ResponseBin `json:"response,omitempty"`
	Keys     []KeyResult   `json:"keys,omitempty"` // keyed runs, by arrivals (most first)
	// Downstream is what the passing jobs met at the spec's rate-latency
	// server, against the network-calculus bounds; nil without one.
	Downstream *Downstream `json:"downstream,omitempty"`
	// Colours counts the jobs of each colour of a three-colour marker
	// (the profiles srtcm and trtcm); nil for other limiters.
	Colours *Colours `json:"colours,omitempty"`
}

// Focus is the stream the zoom figure shows: every job, or in a keyed run
// the jobs of the key where the worst overshoot of the run happens.
type Focus struct {
	Key      string      // the key's value; "" for every job
	Arrivals []float64   // arrival instants, seconds (nil unless KeepArrivals)
	Releases [][]float64 // per limiter, in the order of Limiters: release instants, sorted, seconds
}

// LimitersResult is the outcome of [RunLimiters].
type LimitersResult struct {
	Spec     LimitersSpec    `json:"-"`
	Jobs     int64           `json:"jobs"`       // arrivals
	Duration float64         `json:"duration_s"` // instant of the last arrival, seconds
	Keys     int             `json:"keys"`       // distinct keys (1 unless keyed)
	Limiters []LimiterResult `json:"limiters"`
	Focus    Focus           `json:"-"`
}

// focus returns the stream of keys the zoom figure shows: every key, or in
// a keyed run the key of the worst overshoot.
func focus(res *LimitersResult, keys []*keyState) Focus {
	var f Focus
	if w := res.WorstLimiter(); res.Spec.Keyed && w >= 0 && res.Limiters[w].Worst.Key != "" {
		f.Key = res.Limiters[w].Worst.Key
		keys = slices.DeleteFunc(slices.Clone(keys), func(k *keyState) bool { return k.name != f.Key })
	}
	for _, k := range keys {
		for _, t := range k.times {
			f.Arrivals = append(f.Arrivals, t.Seconds())
		}
	}
	f.Releases = make([][]float64, len(res.Limiters))
	for i := range res.Limiters {
		rel := []float64{}
		for _, k := range keys {
			for _, x := range k.lims[i].released {
				rel = append(rel, x.Seconds())
			}
		}
		if len(keys) > 1 {
			slices.Sort(rel)
		}
		f.Releases[i] = rel
	}
	if len(keys) > 1 {
		slices.Sort(f.Arrivals)
	}
	return f
}

// limiterResult gathers the outcome of limiter i (entry e) over keys.
func limiterResult(spec LimitersSpec, e entry, ds []engine.Time, proto buckets.Limiter, keys []*keyState, i int, delays *experiments.DelayStats, resp []ResponseBin) (LimiterResult, error) {
	name := e.name
	kind := spec.kind(e)
	r := LimiterResult{Name: name, PromiseName: kind.promise, Shaper: kind.shaper, Response: resp}
	if e.prof != nil {
		r.Params, r.Profile = e.prof.String(), true
	} else {
		r.Params = spec.Describe(name)
	}
	r.Curve = make([]CurvePoint, len(ds))
	for j, d := range ds {
		r.Curve[j] = CurvePoint{D: d.Seconds(), Promise: proto.(buckets.Curve).Promise(d)}
	}
	var own, vsLimit *exactMeter
	if a := exactCurve(spec, e); a != nil {
		own = &exactMeter{curve: a}
	}
	if e.prof != nil {
		vsLimit = &exactMeter{curve: netcalc.TokenBucket{Rate: spec.Rate, Burst: exact.Int(spec.Limit)}}
	}
	var arrivals int64
	for _, k := range keys {
		arrivals += k.arrivals
		kr, err := r.addKey(spec, ds, k, &k.lims[i], own, vsLimit)
		if err != nil {
			return r, err
		}
		if spec.Keyed {
			r.Keys = append(r.Keys, kr)
		}
	}
	r.Rejected = arrivals - r.Admitted
	if own != nil {
		r.Exact = own.result()
	}
	if vsLimit != nil {
		r.ExactVsLimit = vsLimit.result()
	}
	r.Colours = colours(keys, i)
	for j, cp := range r.Curve {
		if math.IsInf(cp.Promise, 1) { // JSON has no infinity
			cp.Promise, cp.Ratio, cp.Unbounded = 0, 0, true
			r.Curve[j] = cp
		}
		if j == 0 || cp.Ratio > r.Worst.Ratio {
			r.Worst = cp
		}
	}
	if e.prof != nil {
		r.WorstVsLimit = worstAgainst(r.Curve, spec.Rate.Float64(), float64(spec.Limit))
	}
	if spec.Service != nil && len(keys) > 0 {
		ds, err := downstream(spec, e, keys[0].lims[i].released)
		if err != nil {
			return r, fmt.Errorf("experiments: %s: %w", name, err)
		}
		r.Downstream = ds
	}
	if len(keys) > 1 {
		slices.SortStableFunc(r.Keys, func(a, b KeyResult) int {
			return cmp.Or(cmp.Compare(b.Arrivals, a.Arrivals), cmp.Compare(a.FirstLine, b.FirstLine))
		})
	}
	if delays != nil {
		st, err := delays.Stats()
		if err != nil {
			return r, err
		}
		r.Delay = &st
	}
	return r, nil
}

// addKey adds what limiter r did with the arrivals of key k (its state
// st) to r and the exact meters, and returns the key's own result.
func (r *LimiterResult) addKey(spec LimitersSpec, ds []engine.Time, k *keyState, st *limState, own, vsLimit *exactMeter) (KeyResult, error) {
	name := r.Name
	key := ""
	if spec.Keyed {
		key = k.name
	}
	var kExact *ExactOvershoot
	if own != nil {
		o, err := own.add(st.own, key)
		if err != nil {
			return KeyResult{}, fmt.Errorf("experiments: %s: the exact overshoot: %w", name, err)
		}
		kExact = exactOf(own.curve, o, key, o, key)
	}
	if vsLimit != nil {
		if _, err := vsLimit.add(st.vsLimit, key); err != nil {
			return KeyResult{}, fmt.Errorf("experiments: %s: the exact overshoot against the limit: %w", name, err)
		}
	}
	r.Admitted += st.admitted
	r.Delayed += st.delayed
	r.NoRetry += st.noRetry
	pts, err := st.curve.Result()
	if err != nil {
		return KeyResult{}, fmt.Errorf("experiments: %s: %w", name, err)
	}
	kr := KeyResult{Key: k.name, FirstLine: k.firstLine, Arrivals: k.arrivals, Admitted: st.admitted, Rejected: k.arrivals - st.admitted, Exact: kExact}
	for j, p := range pts {
		cp := CurvePoint{D: ds[j].Seconds(), Jobs: p.Jobs, Promise: r.Curve[j].Promise, From: p.From.Seconds(), To: p.To.Seconds()}
		cp.Ratio = float64(cp.Jobs) / cp.Promise
		if spec.Keyed {
			cp.Key = kr.Key
		}
		if j == 0 || cp.Ratio > kr.Worst.Ratio {
			kr.Worst = cp
		}
		if cp.Jobs > r.Curve[j].Jobs {
			r.Curve[j] = cp
		}
	}
	if st.delays != nil {
		s, _ := st.delays.Stats() // a summary keeps no sketch: no error
		kr.MeanDelay, kr.MaxDelay = s.Mean, s.Max
	}
	return kr, nil
}

// exactCurve returns the curve e's exact overshoot is measured against:
// the family's promise, or a profile's own arrival curve
// (profiles.ArrivalCurve); nil for a profile without a finite one or with
// a burst of 0 (it admits nothing, and a ratio against 0 is infinite).
func exactCurve(spec LimitersSpec, e entry) netcalc.Arrival {
	if e.prof == nil {
		return familyDef(e.name).promiseCurve(spec.Params)
	}
	a, ok := profiles.ArrivalCurve(*e.prof)
	if !ok {
		return nil
	}
	tbs := []netcalc.TokenBucket{}
	switch a := a.(type) {
	case netcalc.TokenBucket:
		tbs = append(tbs, a)
	case netcalc.Concave:
		tbs = a
	default:
		return nil
	}
	for _, tb := range tbs {
		if tb.Burst.Sign() <= 0 {
			return nil
		}
	}
	return a
}

// worstAgainst returns the point of curve with the largest ratio of its
// jobs to the promise limit + rate·d, the shortest d on ties; nil for an
// empty curve.
func worstAgainst(curve []CurvePoint, rate, limit float64) *CurvePoint {
	var worst *CurvePoint
	for _, cp := range curve {
		cp.Promise = limit + rate*cp.D
		cp.Ratio = float64(cp.Jobs) / cp.Promise
		cp.Unbounded = false
		if worst == nil || cp.Ratio > worst.Ratio {
			worst = &cp
		}
	}
	return worst
}
