package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// SpecHelp describes the spec grammar of [BuildSpec], one example per
// process and transform, for command help.
const SpecHelp = `An arrival spec is one or more processes joined by '+' (their
superposition), optionally followed by transforms, each after a '|':
  PROCESS[:KEY=VALUE,...] [+ PROCESS...] [| TRANSFORM[:KEY=VALUE,...]...]
Rates are mean rates in jobs/s; a process whose rate= is left out takes the
default rate λ = --load × --rate. Lists are separated by '/', matrix rows
by ';'. Quote the spec in the shell. Each process and transform draws from
its own random stream of the seed, so adding one leaves the others' draws
unchanged. Times are exact on a nanosecond clock: the periodic rate and
offset and the cron period and offset are exact decimals or fractions p/q
(rate=10/3), each arrival at the first nanosecond at or after its instant;
window times are whole nanoseconds, in seconds or as durations (1h, 250ms).
  poisson                                 Poisson, rate λ (also poisson:rate=2)
  periodic:rate=2,offset=0.25             one job every 1/rate s from offset s
  renewal:dist=pareto,rate=0.9,scv=4      renewal, gaps exp|gamma|weibull|lognormal|
                                          pareto|uniform|det with mean 1/rate and
                                          squared coefficient of variation scv
                                          (pareto also alpha=1.5: infinite variance)
  mmpp:rates=4/0.2,sojourn=10/40          Markov-modulated Poisson: rate of each
                                          state and its mean sojourn (s), or the
                                          generator q=0/0.1;0.025/0 (diagonal ignored)
  onoff:n=10,on=1,off=9,rate=0.9          n on-off sources with mean ON/OFF periods
                                          (s), peak=jobs/s while ON or total rate=,
                                          dist=exp|pareto,alpha=1.5, emit=poisson|periodic
  batch:rate=0.9,size=geom,mean=4         batch Poisson: batches of size
                                          geom|fixed|poisson|uniform with mean jobs
  cron:n=50,period=60,jitter=2            n clients firing at every period boundary
                                          (s) from offset=0, each delayed uniform on
                                          [0, jitter] or dist=exp with mean jitter
Transforms:
  | scale:rate=0.9                        rescale time to this mean rate (default λ)
  | thin:p=0.5                            keep each arrival with probability p
  | jitter:max=1   | jitter:mean=1        delay each arrival, uniform on [0, max] s
                                          or exponential with this mean (s);
                                          rate × jitter at most 2097152 (held
                                          arrivals)
  | window:from=3600,to=7200              keep [from, to) s, times from its start
                                          (also from=1h,to=2h; to=inf)
  | keys:n=1000,s=1.1                     give each arrival a Zipf(s) key of n keys
                                          (for --dispatch hash)
Example: 'poisson:rate=0.5 + cron:n=20,period=60 | keys:n=100,s=1'`

// MaxSpecComponents bounds the processes of a spec, and separately its
// transforms: each is a generator or a transform in memory, and each
// process costs every arrival a comparison in the superposition.
const MaxSpecComponents = 1000

// SpecEnv is what [BuildSpec] needs besides the spec text.
type SpecEnv struct {
	// Rate is the default mean rate, jobs/s, of a process whose spec leaves
	// rate= out (and the default target of scale); 0 means there is no
	// default and such a spec is an error.
	Rate float64
	// ExactRate, when > 0, is the default rate as an exact number, taken
	// by the processes that schedule exactly (periodic) instead of Rate
	// rounded to a decimal; it should be Rate's exact value, such as the
	// product load·r of exact factors.
	ExactRate exact.Rat
	// Source returns the random source of a stream id (see
	// [ProcessStream] and [TransformStream]); ratesim run uses
	// rand.NewPCG(seed, id). It is required when a component is random.
	Source func(stream uint64) rand.Source
}

// Generated is a process built by [BuildSpec].
type Generated struct {
	Process
	// Spec is the canonical spec: every component with all its parameters,
	// defaults filled in, so that BuildSpec(Spec) gives the same process.
	Spec string
	// MeanRate is the mean rate in jobs/s implied by the parameters.
	MeanRate float64
	// Keyed reports whether the arrivals carry keys (a keys transform).
	Keyed bool
	// DefaultRate reports whether some component took SpecEnv.Rate.
	DefaultRate bool
}

// BuildSpec parses an arrival spec (see [SpecHelp] for the grammar) and
// builds its process. Component i of the spec draws from
// env.Source([ProcessStream](i)) and transform i from
// env.Source([TransformStream](i)), so adding a component does not change
// the draws of the others. Errors name the component and the parameter:
// "arrivals: spec "...": renewal: scv -1 is invalid: ...".
func BuildSpec(spec string, env SpecEnv) (*Generated, error) {
	g, err := buildSpec(spec, env)
	if err != nil {
		return nil, fmt.Errorf("arrivals: spec %q: %w", spec, err)
	}
	return g, nil
}

// specComponent is one parsed process or transform.
type specComponent struct {
	name  string
	text  string
	keys  []string // parameter names in spec order
	vals  map[string]string
	used  map[string]bool
	canon []string // key=value of the canonical form, in order
}

// specNames are the processes and the transforms, with their parameters.
var (
	specProcesses = map[string][]string{
		"poisson":  {"rate"},
		"periodic": {"rate", "offset"},
		"renewal":  {"dist", "rate", "scv", "alpha"},
		"mmpp":     {"rates", "sojourn", "q"},
		"onoff":    {"n", "on", "off", "peak", "rate", "dist", "alpha", "emit"},
		"batch":    {"rate", "size", "mean"},
		"cron":     {"n", "period", "offset", "jitter", "dist"},
	}
	specTransforms = map[string][]string{
		"scale":  {"rate"},
		"thin":   {"p"},
		"jitter": {"max", "mean"},
		"window": {"from", "to"},
		"keys":   {"n", "s"},
	}
)

func buildSpec(spec string, env SpecEnv) (*Generated, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, fmt.Errorf("empty spec: want a process such as poisson or renewal:dist=gamma,scv=4")
	}
	parts := strings.Split(spec, "|")
	if len(parts)-1 > MaxSpecComponents {
		return nil, fmt.Errorf("%d transforms: want at most %d", len(parts)-1, MaxSpecComponents)
	}
	sum := splitSum(parts[0])
	if len(sum) > MaxSpecComponents {
		return nil, fmt.Errorf("%d processes: want at most %d (a superposition compares every process at each arrival)", len(sum), MaxSpecComponents)
	}
	g := &Generated{}
	var procs []Process
	var canon []string
	for i, text := range sum {
		c, err := parseComponent(text, specProcesses, "process")
		if err != nil {
			return nil, err
		}
		p, rate, err := buildProcess(c, env, ProcessStream(i), g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if err := c.unused(); err != nil {
			return nil, err
		}
		procs = append(procs, p)
		g.MeanRate += rate
		canon = append(canon, c.canonical())
	}
	if len(procs) == 1 {
		g.Process = procs[0]
	} else {
		g.Process = Superpose(procs...)
	}
	g.Spec = strings.Join(canon, " + ")
	for i, text := range parts[1:] {
		c, err := parseComponent(text, specTransforms, "transform")
		if err != nil {
			return nil, err
		}
		if err := buildTransform(c, env, TransformStream(i), g); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if err := c.unused(); err != nil {
			return nil, err
		}
		g.Spec += " | " + c.canonical()
	}
	return g, nil
}

// splitSum splits s at the '+' signs that join processes, leaving the
// sign of an exponent (2e+3) alone.
func splitSum(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '+' {
			continue
		}
		if i >= 2 && (s[i-1] == 'e' || s[i-1] == 'E') && (isDigitByte(s[i-2]) || s[i-2] == '.') {
			continue
		}
		out = append(out, s[start:i])
		start = i + 1
	}
	return append(out, s[start:])
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// parseComponent parses NAME[:KEY=VALUE,...].
func parseComponent(text string, names map[string][]string, kind string) (*specComponent, error) {
	text = strings.TrimSpace(text)
	name, params, hasParams := strings.Cut(text, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	keys, ok := names[name]
	if !ok {
		var all []string
		for n := range names {
			all = append(all, n)
		}
		slices.Sort(all)
		if name == "" {
			return nil, fmt.Errorf("empty %s in %q: want one of %s", kind, text, strings.Join(all, ", "))
		}
		return nil, fmt.Errorf("unknown %s %q: want one of %s", kind, name, strings.Join(all, ", "))
	}
	c := &specComponent{name: name, text: text, vals: map[string]string{}, used: map[string]bool{}}
	if !hasParams {
		return c, nil
	}
	for _, kv := range strings.Split(params, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%s: parameter %q: want key=value, with keys %s", name, strings.TrimSpace(kv), strings.Join(keys, ", "))
		}
		if !slices.Contains(keys, k) {
			return nil, fmt.Errorf("%s: unknown parameter %q: want one of %s", name, k, strings.Join(keys, ", "))
		}
		if _, dup := c.vals[k]; dup {
			return nil, fmt.Errorf("%s: parameter %s given twice", name, k)
		}
		c.keys = append(c.keys, k)
		c.vals[k] = v
	}
	return c, nil
}

// unused reports a parameter the component's build did not read (one that
// does not apply with the others given, such as alpha with dist=gamma).
func (c *specComponent) unused() error {
	for _, k := range c.keys {
		if !c.used[k] {
			return fmt.Errorf("%s: parameter %s does not apply here (%q)", c.name, k, c.text)
		}
	}
	return nil
}

func (c *specComponent) canonical() string {
	if len(c.canon) == 0 {
		return c.name
	}
	return c.name + ":" + strings.Join(c.canon, ",")
}

func (c *specComponent) has(k string) bool { _, ok := c.vals[k]; return ok }

// record adds k=v to the canonical form.
func (c *specComponent) record(k, v string) { c.canon = append(c.canon, k+"="+v) }

// fmtFloat formats x as the shortest decimal that parses back to it, and
// +Inf as inf (a '+' would read as a superposition).
func fmtFloat(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// float returns parameter k as a number (def when absent), checked by ok.
func (c *specComponent) float(k string, def float64, ok func(float64) bool, want string) (float64, error) {
	v, given := c.vals[k]
	if !given {
		if !math.IsNaN(def) {
			c.record(k, fmtFloat(def))
		}
		return def, nil
	}
	c.used[k] = true
	x, err := strconv.ParseFloat(v, 64)
	if err != nil && timeKeys[k] {
		x, err = secondsFloat(v)
	}
	if err != nil || !ok(x) {
		return 0, fmt.Errorf("%s %q is invalid: want %s", k, v, want)
	}
	c.record(k, fmtFloat(x))
	return x, nil
}

// timeKeys are the float64 parameters that are times in seconds (mean
// ON and OFF periods, a cron jitter): they also take the one duration
// grammar (engine.ParseSeconds: "1m", "500ms", "1/3").
var timeKeys = map[string]bool{"on": true, "off": true, "jitter": true}

// secondsFloat reads a time in the duration grammar as float64 seconds;
// "inf" is refused.
func secondsFloat(v string) (float64, error) {
	secs, inf, err := engine.ParseSeconds(v)
	if err != nil {
		return 0, err
	}
	if inf {
		return 0, fmt.Errorf("%q is not finite", v)
	}
	x, _ := secs.Float64()
	return x, nil
}

// required returns parameter k, which must be given.
func (c *specComponent) required(k string, ok func(float64) bool, want string) (float64, error) {
	if !c.has(k) {
		return 0, fmt.Errorf("parameter %s is required: %s", k, want)
	}
	return c.float(k, math.NaN(), ok, want)
}

// word returns parameter k, one of allowed (def when absent).
func (c *specComponent) word(k, def string, allowed []string) (string, error) {
	v, given := c.vals[k]
	if !given {
		c.record(k, def)
		return def, nil
	}
	c.used[k] = true
	v = strings.ToLower(v)
	if !slices.Contains(allowed, v) {
		return "", fmt.Errorf("%s %q is invalid: want one of %s", k, v, strings.Join(allowed, ", "))
	}
	c.record(k, v)
	return v, nil
}

// list returns parameter k as numbers separated by '/'.
func (c *specComponent) list(k string, ok func(float64) bool, want string) ([]float64, error) {
	v := c.vals[k]
	c.used[k] = true
	if n := strings.Count(v, "/") + 1; n > MaxMMPPStates {
		return nil, fmt.Errorf("%s has %d entries: want at most %d", k, n, MaxMMPPStates)
	}
	var xs []float64
	for _, f := range strings.Split(v, "/") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !ok(x) {
			return nil, fmt.Errorf("%s %q: entry %q is invalid: want %s, separated by /", k, v, strings.TrimSpace(f), want)
		}
		xs = append(xs, x)
	}
	c.record(k, joinFloats(xs, "/"))
	return xs, nil
}

func joinFloats(xs []float64, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmtFloat(x)
	}
	return strings.Join(s, sep)
}

// Checks of parameter values.
var (
	specPositive    = func(x float64) bool { return x > 0 && !math.IsInf(x, 1) }
	specNonNegative = func(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
	specIsRate      = validRate
)

func specWhole(lo, hi float64) func(float64) bool {
	return func(x float64) bool { return x >= lo && x <= hi && x == math.Trunc(x) }
}

// seconds returns parameter k, a time span, as exact seconds in the one
// duration grammar of [engine.ParseSeconds] ("1/3", "0.25", "500ms",
// "1m"), def when absent, checked by ok; "inf" is refused.
func (c *specComponent) seconds(k string, def exact.Rat, ok func(exact.Rat) bool, want string) (exact.Rat, error) {
	v, given := c.vals[k]
	if !given {
		c.record(k, def.String())
		return def, nil
	}
	c.used[k] = true
	secs, inf, err := engine.ParseSeconds(v)
	var x exact.Rat
	if err == nil && !inf {
		x, err = exact.ParseRat(secs.RatString())
	}
	if err != nil || inf || !ok(x) {
		return exact.Rat{}, fmt.Errorf("%s %q is invalid: want %s", k, v, want)
	}
	c.record(k, x.String())
	return x, nil
}

// rat returns parameter k as an exact number, a decimal or p/q (def when
// absent), checked by ok. Times and rates that drive exact instants (a
// periodic rate, a cron period, an offset) are read this way.
func (c *specComponent) rat(k string, def exact.Rat, ok func(exact.Rat) bool, want string) (exact.Rat, error) {
	v, given := c.vals[k]
	if !given {
		c.record(k, def.String())
		return def, nil
	}
	c.used[k] = true
	if !smallExponent(v, 1000) {
		return exact.Rat{}, fmt.Errorf("%s %q is invalid: its exponent is beyond ±1000; want %s", k, v, want)
	}
	x, err := exact.ParseRat(v)
	if err != nil || !ok(x) {
		return exact.Rat{}, fmt.Errorf("%s %q is invalid: want %s", k, v, want)
	}
	c.record(k, x.String())
	return x, nil
}

// duration returns parameter k as an exact number of nanoseconds, given
// in the one duration grammar ([engine.ParseDuration]); "inf" is
// [engine.Forever] when inf is set. def is used when k is absent.
func (c *specComponent) duration(k string, def engine.Time, inf bool, ok func(engine.Time) bool, want string) (engine.Time, error) {
	v, given := c.vals[k]
	if !given {
		c.record(k, fmtTime(def))
		return def, nil
	}
	c.used[k] = true
	var x engine.Time
	if inf && strings.EqualFold(v, "inf") {
		x = engine.Forever
	} else {
		var err error
		if x, err = engine.ParseDuration(v); err != nil || x == engine.Forever || !ok(x) {
			return 0, fmt.Errorf("%s %q is invalid: want %s", k, v, want)
		}
	}
	if !ok(x) {
		return 0, fmt.Errorf("%s %q is invalid: want %s", k, v, want)
	}
	c.record(k, fmtTime(x))
	return x, nil
}

// fmtTime formats t as exact decimal seconds, and Forever as inf.
func fmtTime(t engine.Time) string {
	if t == engine.Forever {
		return "inf"
	}
	return t.String()
}

// Checks of exact parameter values.
var (
	ratPositive    = func(x exact.Rat) bool { return x.Sign() > 0 }
	ratNonNegative = func(x exact.Rat) bool { return x.Sign() >= 0 }
)

// smallExponent reports whether the decimal exponent of s (after e or E),
// if any, is a number within ±limit, so that parsing s with math/big
// costs nothing unbounded: "1e999999999" would make a number of a billion
// digits.
func smallExponent(s string, limit int) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e := strings.TrimLeft(s[i+1:], "+-")
	if e == "" || len(e) > 6 {
		return e == "" // no digits: the parser rejects it
	}
	n := 0
	for _, c := range e {
		if c < '0' || c > '9' {
			return true // not a number: the parser rejects it
		}
		n = n*10 + int(c-'0')
	}
	return n <= limit
}
