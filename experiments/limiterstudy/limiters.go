package limiterstudy

import (
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
// blame names, for a profile whose parameters put a run beyond the
// clock's or the exact arithmetic's range, the key that sets its rate
// (profiles.RateKey) and its value: "; the promise comes from the
// profile's permits_per_second=1e-9: want a larger permits_per_second". It is
// "" for the family's limiters, whose parameters are checked where they
// enter.
func (e entry) blame(orFewerJobs bool) string {
	if e.prof == nil {
		return ""
	}
	key, ok := profiles.RateKey(e.prof.Name)
	if !ok {
		return fmt.Sprintf("; want other values of the profile's keys (%s)", e.prof)
	}
	v, _ := e.prof.Value(key)
	if orFewerJobs {
		return fmt.Sprintf("; the profile's %s=%s is too small for this run: want a larger %s, or fewer jobs", key, v, key)
	}
	return fmt.Sprintf("; the promise comes from the profile's %s=%s: want a larger %s", key, v, key)
}

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
	run := newLimitersRun(spec, proc)
	protos, err := run.newKey(0, 0) // for promises; also validates every limiter
	if err != nil {
		return nil, err
	}
	res := &LimitersResult{Spec: spec}
	last := engine.Time(0)
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
			src, _ := experiments.NewJobSource(proc)
			return nil, src.WrapArrival(a, fmt.Errorf("experiments: arrival at %v s after one at %v s: %w", a.T, last, buckets.ErrOrder))
		}
		last = a.T
		if res.Jobs == 0 {
			// Windows follow the trace's own clock: a trace reports the
			// absolute instant of its first arrival (run time 0).
			if o, ok := proc.(interface{ Origin() (int64, bool) }); ok {
				if origin, ok := o.Origin(); ok {
					spec.Origin = origin
					run.spec.Origin = origin
				}
			}
		}
		res.Jobs++
		if err := run.offer(a, res.Jobs-1); err != nil {
			return nil, err
		}
	}
	res.Duration = last.Seconds()
	res.Spec = spec // with the trace's origin
	res.Keys = len(run.order)
	for i, e := range run.ents {
		r, err := limiterResult(spec, e, run.ds, protos.lims[i].lim, run.order, i, run.delays[i], run.resp[i])
		if err != nil {
			return nil, err
		}
		res.Limiters = append(res.Limiters, r)
	}
	res.Focus = focus(res, run.order)
	return res, nil
}

// limitersRun is the state of a run of [RunLimiters]: its limiters, the
// keys that arrived and what the limiters did with them.
type limitersRun struct {
	spec   LimitersSpec
	ents   []entry
	ds     []engine.Time // the interval lengths of α*
	src    rand.Source   // the throttles' random source, shared by every key
	namer  arrivals.KeyNamer
	keys   map[uint64]*keyState
	order  []*keyState               // keys in order of first arrival
	resp   [][]ResponseBin           // per limiter with a response curve, its counts by deficit
	delays []*experiments.DelayStats // per shaper, the delays over every key
	keep   bool                      // keep the releases (zoom figure, downstream server)
}

func newLimitersRun(spec LimitersSpec, proc arrivals.Process) *limitersRun {
	r := &limitersRun{spec: spec, ents: spec.entries(), ds: spec.Durations, src: experiments.Source(spec.Seed, 1),
		keys: map[uint64]*keyState{}, keep: spec.KeepArrivals || spec.Service != nil}
	if r.ds == nil {
		r.ds = DefaultDurations(spec.Window)
	}
	r.namer, _ = proc.(arrivals.KeyNamer)
	r.resp = make([][]ResponseBin, len(r.ents))
	r.delays = make([]*experiments.DelayStats, len(r.ents))
	for i, e := range r.ents {
		if e.prof == nil && familyDef(e.name).response != nil {
			r.resp[i] = make([]ResponseBin, responseBins)
			for j := range r.resp[i] {
				r.resp[i][j].Lo = float64(spec.Limit) * float64(j) / responseBins
				r.resp[i][j].Hi = float64(spec.Limit) * float64(j+1) / responseBins
			}
		}
		if e.prof != nil || familyDef(e.name).kind.shaper {
			r.delays[i] = experiments.NewDelayStats(false)
		}
	}
	return r
}

// newKey returns the limiters of a new key, id, first seen at trace line
// line, with their meters.
func (r *limitersRun) newKey(id uint64, line int) (*keyState, error) {
	k := &keyState{id: id, firstLine: line, lims: make([]limState, len(r.ents))}
	if r.namer != nil {
		k.name = r.namer.KeyName(id)
	}
	if k.name == "" {
		k.name = fmt.Sprintf("#%d", id)
	}
	for i, e := range r.ents {
		l, err := r.spec.newEntry(e, r.src)
		if err != nil {
			return nil, err
		}
		st := &k.lims[i]
		st.lim = l
		if st.curve, err = buckets.NewArrivalCurveMeter(r.ds); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", e.name, err)
		}
		if a := exactCurve(r.spec, e); a != nil {
			if st.own, err = netcalc.NewOvershootMeter(a); err != nil {
				return nil, fmt.Errorf("experiments: %s: the exact overshoot: %w%s", e.name, err, e.blame(false))
			}
		}
		if e.prof != nil {
			if st.vsLimit, err = netcalc.NewOvershootMeter(netcalc.TokenBucket{Rate: r.spec.Rate, Burst: exact.Int(r.spec.Limit)}); err != nil {
				return nil, fmt.Errorf("experiments: %s: the exact overshoot against the limit: %w", e.name, err)
			}
		}
	}
	return k, nil
}

// offer offers arrival a, job number job, to the limiters of its key (a
// new key's limiters are made first) and measures what they release.
func (r *limitersRun) offer(a arrivals.Arrival, job int64) error {
	id := uint64(0)
	if r.spec.Keyed {
		id = a.Key
	}
	k := r.keys[id]
	if k == nil {
		var err error
		if k, err = r.newKey(id, a.Line); err != nil {
			return err
		}
		r.keys[id] = k
		r.order = append(r.order, k)
	}
	k.arrivals++
	if r.spec.KeepArrivals {
		k.times = append(k.times, a.T)
	}
	for i := range k.lims {
		st := &k.lims[i]
		bin := -1
		if r.resp[i] != nil {
			bin = deficitBin(st.lim, a.T, float64(r.spec.Limit))
		}
		d := st.lim.Offer(a.T, job)
		if bin >= 0 {
			r.resp[i][bin].Offered++
			if d.Admitted() {
				r.resp[i][bin].Admitted++
			}
		}
		if !d.Admitted() {
			if d.RetryAfter == buckets.NoRetry {
				st.noRetry++
			}
			continue
		}
		if err := r.admit(st, i, a.T, d); err != nil {
			return err
		}
	}
	return nil
}

// admit measures the release of a job admitted at t by limiter i (state
// st) with decision d.
func (r *limitersRun) admit(st *limState, i int, t engine.Time, d buckets.Decision) error {
	st.admitted++
	release := t
	if d.Verdict == buckets.Delay {
		if d.Wait.Sign() > 0 {
			st.delayed++
		}
		w := d.Wait.Ceil()
		if !w.IsInt64() || w.Int64() >= int64(engine.Forever-t) {
			return fmt.Errorf("experiments: %s releases a job %v s after its arrival at %v s, beyond the clock's range: %w%s", r.ents[i].name, d.WaitSeconds(), t, experiments.ErrOverflow, r.ents[i].blame(true))
		}
		release += engine.Time(w.Int64())
	}
	st.release(release, r.keep)
	if r.delays[i] != nil {
		r.delays[i].Add(d.Wait)
		if st.delays == nil {
			st.delays = experiments.NewDelayStats(true)
		}
		st.delays.Add(d.Wait)
	}
	return nil
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
