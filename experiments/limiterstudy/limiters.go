package limiterstudy

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/profiles"
)

// limiterKind is what the table and the figures need to know of a limiter
// besides its decisions.
type limiterKind struct {
	shaper       bool   // releases jobs after a delay
	color        int    // plots palette index
	marks        bool   // mark its curve (it coincides with another)
	promise      string // the name of its promise
	promiseColor int
	promiseStep  bool
}

// LimitersSpec describes a run of the limiter family with matched
// parameters on one arrival stream.
type LimitersSpec struct {
	// Params are the limiters' matched parameters (R, L, W and the rest),
	// shared by every limiter of the family.
	Params
	// Names are the limiters to run, in table order (a subset of
	// LimiterNames); nil runs them all, an empty non-nil slice none.
	Names []string
	// Profiles are library-faithful limiters (package profiles) run after
	// Names, each under its profile name, in this order.
	Profiles []profiles.Profile
	// Service, if not nil, is a rate-latency server β(R, T) that the
	// passing jobs of each limiter go through, one server per limiter
	// (see [LimiterResult].Downstream); not with Keyed.
	Service *netcalc.RateLatency
	// Durations are the interval lengths d at which α*(d) is measured,
	// ns, >= 0; nil means DefaultDurations(Window).
	Durations []engine.Time
	Seed      uint64 // the throttle draws from stream 1 of this seed (Source(Seed, 1))
	MaxJobs   int64  // stop after this many arrivals; 0 means when the arrivals end
	// Keyed gives each key (Arrival.Key, a trace's key column) its own
	// limiters, as keyed rate limiting does, and reports each key.
	Keyed bool
	// KeepArrivals keeps the arrival instants of the focus (see
	// [Focus]) for the zoom figure; memory O(jobs).
	KeepArrivals bool
	Input        string // describes the arrivals, for captions
}

// DefaultDurations returns the interval lengths at which α*(d) is measured
// by default: 0 and W·2^(k/8) for k = -56, ..., 16 (W/128 to 4W, eight per
// doubling), each rounded to the nanosecond, 74 lengths in all (fewer when
// W is so short that lengths coincide).
func DefaultDurations(window exact.Rat) []engine.Time {
	ds := []engine.Time{0}
	w := window.Float64()
	for k := -56; k <= 16; k++ {
		d, ok := engine.FromSeconds(w * math.Exp2(float64(k)/8))
		if ok && d > ds[len(ds)-1] {
			ds = append(ds, d)
		}
	}
	return ds
}

// names returns the limiters to run.
func (s LimitersSpec) names() []string {
	if s.Names == nil {
		return LimiterNames
	}
	return s.Names
}

// Validate returns a *LimiterError naming the first invalid field, or nil.
func (s LimitersSpec) Validate() error {
	if err := s.Params.Validate(); err != nil {
		return err
	}
	names := s.names()
	if len(names)+len(s.Profiles) == 0 {
		return &LimiterError{"Names", "(none)", "at least one limiter or profile, of " + strings.Join(LimiterNames, ", ")}
	}
	for i, n := range names {
		if familyDef(n) == nil {
			return &LimiterError{"Names", n, "one of " + strings.Join(LimiterNames, ", ")}
		}
		if slices.Contains(names[:i], n) {
			return &LimiterError{"Names", n, "each limiter once"}
		}
	}
	for _, d := range s.Durations {
		if d < 0 {
			return &LimiterError{"Durations", d, "interval lengths >= 0 s"}
		}
	}
	if s.MaxJobs < 0 {
		return &LimiterError{"MaxJobs", s.MaxJobs, ">= 0 (0: every arrival)"}
	}
	for i, p := range s.Profiles {
		if p.Name == "" {
			return &LimiterError{"Profiles", i, "parsed profiles (profiles.Parse)"}
		}
		if slices.Contains(names, p.Name) {
			return &LimiterError{"Profiles", p.Name, "a name distinct from the limiters'"}
		}
	}
	if s.Service != nil {
		if s.Keyed {
			return &LimiterError{"Service", s.Service, "no downstream server in a keyed run"}
		}
		if s.Service.Rate.Sign() <= 0 || s.Service.Latency.Sign() < 0 {
			return &LimiterError{"Service", s.Service, "a rate > 0 jobs/s and a latency >= 0 s"}
		}
	}
	return nil
}

// entry is one limiter of a run: one of the family, or a profile.
type entry struct {
	name string
	prof *profiles.Profile // nil for the family's limiters
}

// entries returns the limiters to run, the family's first.
func (s LimitersSpec) entries() []entry {
	var es []entry
	for _, n := range s.names() {
		es = append(es, entry{name: n})
	}
	for i := range s.Profiles {
		es = append(es, entry{name: s.Profiles[i].Name, prof: &s.Profiles[i]})
	}
	return es
}

// newEntry builds the limiter of e; src is the throttle's random source.
func (s LimitersSpec) newEntry(e entry, src rand.Source) (buckets.Limiter, error) {
	if e.prof != nil {
		return e.prof.New(), nil
	}
	return NewLimiter(e.name, s.Params, src)
}

// kind returns what the table and figures need to know of e. A profile is
// a shaper when its library's call may delay jobs ([profiles.Profile.Delays]);
// its promise is its own arrival curve, the bound its type states.
func (s LimitersSpec) kind(e entry) limiterKind {
	if e.prof == nil {
		return familyDef(e.name).kind
	}
	return limiterKind{shaper: e.prof.Delays(), color: 7, promise: "the profile's own bound", promiseColor: -1}
}

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

// limState is one limiter instance (of one key) and what passed it. The
// releases (instants on the clock: exact instants rounded up to the ns)
// are measured as they come and not kept, except for the zoom figure and
// the downstream server (keep).
type limState struct {
	lim      buckets.Limiter
	curve    *buckets.ArrivalCurveMeter // α* at the spec's lengths
	own      *netcalc.OvershootMeter    // exact overshoot against the promise (nil without one)
	vsLimit  *netcalc.OvershootMeter    // profiles: against γ(Rate, Limit)
	released []engine.Time              // release instants, only when keep
	admitted int64
	delayed  int64                   // admitted jobs that waited (a Delay verdict with a wait > 0)
	noRetry  int64                   // rejected jobs told that no retry would pass (buckets.NoRetry)
	delays   *experiments.DelayStats // shapers: this key's delays
}

// release measures a release at t, and keeps it when keep. The meters'
// errors (a release before the previous one, scaled values beyond their
// range) stay in them and are reported by limiterResult, in the order the
// measurements of the kept releases reported them.
func (st *limState) release(t engine.Time, keep bool) {
	st.curve.Add(t)
	if st.own != nil {
		st.own.Add(t)
	}
	if st.vsLimit != nil {
		st.vsLimit.Add(t)
	}
	if keep {
		st.released = append(st.released, t)
	}
}

// keyState holds one key's limiters.
type keyState struct {
	id        uint64 // Arrival.Key: equal values, equal ids
	name      string // the key's value
	firstLine int
	arrivals  int64
	times     []engine.Time // arrival instants, when KeepArrivals
	lims      []limState
}

// responseBins is the number of token-deficit bins of the response counts.
const responseBins = 100

// RunLimiters feeds the arrivals of proc to every limiter of spec (one
// instance per key when spec.Keyed) and measures what passes: admitted and
// rejected counts, the empirical arrival curve α*(d) of the admitted (for
// shapers, released) jobs at each of spec's durations against the
// limiter's promise, the worst overshoot and where it happens, the delays
// of shapers, and per-key outcomes.
//
// Memory does not grow with the jobs, except where stated: per key (keys
// that arrived) and limiter, the releases within the longest duration D of
// the latest one, at most α*(D) of them (the curve's last point, which the
// table prints; at most the promise at D for a limiter keeping it;
// buckets.ArrivalCurveMeter), and the exact overshoot meter's state (a
// lower hull per token bucket, O(log n) expected; against a fixed window's
// staircase at most α*(W−) instants and Limit + 1 points;
// netcalc.OvershootMeter); per shaper its delays, exactly up to
// ExactQuantileJobs of them and in a sketch beyond (8 MiB at most). The
// release instants are kept, O(admitted jobs), only for the zoom figure
// (KeepArrivals, which also keeps the arrivals) and for the downstream
// server (Service).
//
// Errors: an invalid spec (a *LimiterError), an error from proc (naming the
// file and line for traces), an arrival earlier than the one before
// (wrapping [ErrInput] and buckets.ErrOrder), or ctx.Err() when ctx is
// cancelled (checked every 4096 arrivals).
func RunLimiters(ctx context.Context, spec LimitersSpec, proc arrivals.Process) (*LimitersResult, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	ents := spec.entries()
	ds := spec.Durations
	if ds == nil {
		ds = DefaultDurations(spec.Window)
	}
	src := experiments.Source(spec.Seed, 1)
	namer, _ := proc.(arrivals.KeyNamer)
	newKey := func(id uint64, line int) (*keyState, error) {
		k := &keyState{id: id, firstLine: line, lims: make([]limState, len(ents))}
		if namer != nil {
			k.name = namer.KeyName(id)
		}
		if k.name == "" {
			k.name = fmt.Sprintf("#%d", id)
		}
		for i, e := range ents {
			l, err := spec.newEntry(e, src)
			if err != nil {
				return nil, err
			}
			st := &k.lims[i]
			st.lim = l
			if st.curve, err = buckets.NewArrivalCurveMeter(ds); err != nil {
				return nil, fmt.Errorf("experiments: %s: %w", e.name, err)
			}
			if a := exactCurve(spec, e); a != nil {
				if st.own, err = netcalc.NewOvershootMeter(a); err != nil {
					return nil, fmt.Errorf("experiments: %s: the exact overshoot: %w", e.name, err)
				}
			}
			if e.prof != nil {
				if st.vsLimit, err = netcalc.NewOvershootMeter(netcalc.TokenBucket{Rate: spec.Rate, Burst: exact.Int(spec.Limit)}); err != nil {
					return nil, fmt.Errorf("experiments: %s: the exact overshoot against the limit: %w", e.name, err)
				}
			}
		}
		return k, nil
	}
	protos, err := newKey(0, 0) // for promises; also validates every limiter
	if err != nil {
		return nil, err
	}
	var order []*keyState // keys in order of first arrival
	keys := map[uint64]*keyState{}
	resp := make([][]ResponseBin, len(ents))
	for i, e := range ents {
		if e.prof == nil && familyDef(e.name).response != nil {
			resp[i] = make([]ResponseBin, responseBins)
			for j := range resp[i] {
				resp[i][j].Lo = float64(spec.Limit) * float64(j) / responseBins
				resp[i][j].Hi = float64(spec.Limit) * float64(j+1) / responseBins
			}
		}
	}
	delays := make([]*experiments.DelayStats, len(ents))
	for i, e := range ents {
		if e.prof != nil || familyDef(e.name).kind.shaper {
			delays[i] = experiments.NewDelayStats(false)
		}
	}
	res := &LimitersResult{Spec: spec}
	last := engine.Time(0)
	keep := spec.KeepArrivals || spec.Service != nil
	for spec.MaxJobs == 0 || res.Jobs < spec.MaxJobs {
		if res.Jobs%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		a, err := proc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if a.T < last {
			return nil, experiments.ArrivalError(proc, a, fmt.Errorf("experiments: arrival at %v s after one at %v s: %w", a.T, last, buckets.ErrOrder))
		}
		last = a.T
		if res.Jobs == 0 {
			// Windows follow the trace's own clock: a trace reports the
			// absolute instant of its first arrival (run time 0).
			if o, ok := proc.(interface{ Origin() (int64, bool) }); ok {
				if origin, ok := o.Origin(); ok {
					spec.Origin = origin
				}
			}
		}
		id := uint64(0)
		if spec.Keyed {
			id = a.Key
		}
		k := keys[id]
		if k == nil {
			if k, err = newKey(id, a.Line); err != nil {
				return nil, err
			}
			keys[id] = k
			order = append(order, k)
		}
		k.arrivals++
		res.Jobs++
		if spec.KeepArrivals {
			k.times = append(k.times, a.T)
		}
		for i := range k.lims {
			st := &k.lims[i]
			bin := -1
			if resp[i] != nil {
				bin = deficitBin(st.lim, a.T, float64(spec.Limit))
			}
			d := st.lim.Offer(a.T, res.Jobs-1)
			if bin >= 0 {
				resp[i][bin].Offered++
				if d.Admitted() {
					resp[i][bin].Admitted++
				}
			}
			if !d.Admitted() {
				if d.RetryAfter == buckets.NoRetry {
					st.noRetry++
				}
				continue
			}
			st.admitted++
			release := a.T
			if d.Verdict == buckets.Delay {
				if d.Wait.Sign() > 0 {
					st.delayed++
				}
				w := d.Wait.Ceil()
				if !w.IsInt64() || w.Int64() >= int64(engine.Forever-a.T) {
					return nil, fmt.Errorf("experiments: %s releases a job %v s after its arrival at %v s, beyond the clock's range: %w", ents[i].name, d.WaitSeconds(), a.T, experiments.ErrOverflow)
				}
				release += engine.Time(w.Int64())
			}
			st.release(release, keep)
			if delays[i] != nil {
				delays[i].Add(d.Wait)
				if st.delays == nil {
					st.delays = experiments.NewDelayStats(true)
				}
				st.delays.Add(d.Wait)
			}
		}
	}
	res.Duration = last.Seconds()
	res.Spec = spec // with the trace's origin
	res.Keys = len(order)
	for i, e := range ents {
		r, err := limiterResult(spec, e, ds, protos.lims[i].lim, order, i, delays[i], resp[i])
		if err != nil {
			return nil, err
		}
		res.Limiters = append(res.Limiters, r)
	}
	res.Focus = focus(res, order)
	return res, nil
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

// deficitBin returns the bin of the token deficit that limiter l (a
// policing token bucket or a throttle) has at t, or -1 for other limiters.
func deficitBin(l buckets.Limiter, t engine.Time, b float64) int {
	var deficit float64
	switch l := l.(type) {
	case *buckets.Throttle:
		deficit = l.Deficit(t).Float64()
	case *buckets.TokenBucket:
		deficit = b - l.Tokens(t).Float64()
	default:
		return -1
	}
	return min(responseBins-1, max(0, int(deficit/b*responseBins)))
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
		st := &k.lims[i]
		arrivals += k.arrivals
		key := ""
		if spec.Keyed {
			key = k.name
		}
		var kExact *ExactOvershoot
		if own != nil {
			o, err := own.add(st.own, key)
			if err != nil {
				return r, fmt.Errorf("experiments: %s: the exact overshoot: %w", name, err)
			}
			kExact = exactOf(own.curve, o, key, o, key)
		}
		if vsLimit != nil {
			if _, err := vsLimit.add(st.vsLimit, key); err != nil {
				return r, fmt.Errorf("experiments: %s: the exact overshoot against the limit: %w", name, err)
			}
		}
		r.Admitted += st.admitted
		r.Delayed += st.delayed
		r.NoRetry += st.noRetry
		pts, err := st.curve.Result()
		if err != nil {
			return r, fmt.Errorf("experiments: %s: %w", name, err)
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
