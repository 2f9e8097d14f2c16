package profiles

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// ErrUnknownProfile is wrapped by the error [Parse] returns for a name that
// is not in the [Registry].
var ErrUnknownProfile = errors.New("profiles: unknown profile")

// A Key is one parameter of a profile, named as the library names it in
// snake_case.
type Key struct {
	Name    string // as written in a spec: "burst", "permits_per_second"
	Default string // the value used when the key is absent; "" when absence has its own meaning, given in Doc
	Unit    string // unit or form of the value, shown in help: "events/s", "duration", "allow|reserve|wait"
	Doc     string // one sentence
	// Flag marks a boolean key that may be written bare ("nodelay"),
	// meaning "true".
	Flag bool
}

// Info describes one profile: the library it reproduces and its keys.
type Info struct {
	Name     string // the profile's name in a spec: "xrate"
	Library  string // the library and the part of it modelled
	Versions string // the version range whose behaviour the profile reproduces
	Doc      string // one sentence
	Keys     []Key

	build func(a *args) (func() buckets.Limiter, error)
}

// Registry returns every profile, in a stable order. The slice is a copy.
func Registry() []Info {
	return slices.Clone(registry)
}

// Lookup returns the profile named name.
func Lookup(name string) (Info, bool) {
	for _, in := range registry {
		if in.Name == name {
			return in, true
		}
	}
	return Info{}, false
}

// registry is filled in by the files that define the profiles; order is
// the order of this list.
var registry = []Info{
	xrateInfo,
	guavaBurstyInfo,
	guavaWarmupInfo,
	bucket4jGreedyInfo,
	bucket4jIntervalInfo,
	redisRateInfo,
	throttledInfo,
	redisCellInfo,
	envoyLegacyInfo,
	envoyInfo,
	nginxInfo,
	uberInfo,
	srTCMInfo,
	trTCMInfo,
}

// A Profile is a parsed and validated profile spec. It is a description:
// [Profile.New] builds limiters from it, each with its own state, so one
// Profile serves every replication and every member of a system.
type Profile struct {
	Name   string
	values map[string]string // every key, defaults filled in, as written
	keys   []Key
	build  func() buckets.Limiter
}

// New returns a fresh limiter in the library's initial state, at time 0.
// Every profile's limiter also implements [buckets.Curve] except where its type's
// doc says otherwise.
func (p Profile) New() buckets.Limiter { return p.build() }

// Value returns the value of key (the default when the spec omitted it).
func (p Profile) Value(key string) (string, bool) {
	v, ok := p.values[key]
	return v, ok
}

// String returns the canonical spec of p: its name and every key in
// registry order, defaults included, flags written bare when set and
// left out when not. Parse(p.String()) describes the same limiter.
func (p Profile) String() string {
	var parts []string
	for _, k := range p.keys {
		v := p.values[k.Name]
		if k.Flag {
			if v == "true" {
				parts = append(parts, k.Name)
			}
			continue
		}
		if v == "" {
			continue
		}
		parts = append(parts, k.Name+"="+v)
	}
	if len(parts) == 0 {
		return p.Name
	}
	return p.Name + ":" + strings.Join(parts, ",")
}

// Parse parses a profile spec and validates it.
//
// Grammar:
//
//	spec  = name [ ":" pair { "," pair } ]
//	pair  = key "=" value | flag
//
// Spaces around names, keys and values are ignored. Keys may come in any
// order and at most once; absent keys take their defaults. Errors name the
// profile, the key and what would fit, for example
//
//	profiles: nginx: burst="-1": want an integer >= 0 (requests)
//	profiles: xrate: unknown key "brust"; keys: limit, burst, call, max_wait, version
func Parse(spec string) (Profile, error) {
	name, rest, hasKeys := strings.Cut(spec, ":")
	name = strings.TrimSpace(name)
	info, ok := Lookup(name)
	if !ok {
		return Profile{}, fmt.Errorf("%w %q; profiles: %s", ErrUnknownProfile, name, strings.Join(names(), ", "))
	}
	a := &args{profile: name, set: map[string]string{}}
	if hasKeys && strings.TrimSpace(rest) != "" {
		for _, pair := range strings.Split(rest, ",") {
			k, v, hasEq := strings.Cut(pair, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			key, found := findKey(info.Keys, k)
			switch {
			case k == "":
				return Profile{}, fmt.Errorf("profiles: %s: empty key in %q", name, spec)
			case !found:
				return Profile{}, fmt.Errorf("profiles: %s: unknown key %q; keys: %s", name, k, keyNames(info.Keys))
			case !hasEq && !key.Flag:
				return Profile{}, fmt.Errorf("profiles: %s: key %q needs a value (%s)", name, k, key.Unit)
			case !hasEq:
				v = "true"
			}
			if _, dup := a.set[k]; dup {
				return Profile{}, fmt.Errorf("profiles: %s: key %q given twice", name, k)
			}
			a.set[k] = v
		}
	}
	a.values = map[string]string{}
	for _, k := range info.Keys {
		if v, ok := a.set[k.Name]; ok {
			a.values[k.Name] = v
		} else {
			a.values[k.Name] = k.Default
		}
	}
	a.keys = info.Keys
	build, err := info.build(a)
	if err == nil {
		err = a.err
	}
	if err != nil {
		return Profile{}, err
	}
	return Profile{Name: name, values: a.values, keys: info.Keys, build: build}, nil
}

// MustParse is [Parse] for specs written in code and tests; it panics on
// error.
func MustParse(spec string) Profile {
	p, err := Parse(spec)
	if err != nil {
		panic(err)
	}
	return p
}

func names() []string {
	var s []string
	for _, in := range registry {
		s = append(s, in.Name)
	}
	return s
}

func findKey(keys []Key, name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

func keyNames(keys []Key) string {
	var s []string
	for _, k := range keys {
		s = append(s, k.Name)
	}
	return strings.Join(s, ", ")
}

// args reads the values of one spec; the first error is kept and later
// reads return zero values.
type args struct {
	profile string
	set     map[string]string // keys given in the spec
	values  map[string]string // every key, defaults filled in
	keys    []Key
	err     error
}

func (a *args) fail(key, want string) {
	if a.err == nil {
		unit := ""
		if k, ok := findKey(a.keys, key); ok && k.Unit != "" && !strings.Contains(want, k.Unit) {
			unit = " (" + k.Unit + ")"
		}
		a.err = fmt.Errorf("profiles: %s: %s=%q: want %s%s", a.profile, key, a.values[key], want, unit)
	}
}

// failf records an error about the combination of keys.
func (a *args) failf(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("profiles: %s: "+format, append([]any{a.profile}, v...)...)
	}
}

func (a *args) given(key string) bool {
	_, ok := a.set[key]
	return ok
}

// changed reports whether the spec gives key a value other than its
// default; checks that a key applies only with another key's value use it,
// so that a canonical string, which lists every key, parses back.
func (a *args) changed(key string) bool {
	v, ok := a.set[key]
	if !ok {
		return false
	}
	k, _ := findKey(a.keys, key)
	return v != k.Default
}

// int returns the integer value of key, which must lie in [lo, hi].
func (a *args) int(key string, lo, hi int64) int64 {
	s := a.values[key]
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		switch {
		case hi == math.MaxInt64:
			a.fail(key, fmt.Sprintf("an integer >= %d", lo))
		default:
			a.fail(key, fmt.Sprintf("an integer in [%d, %d]", lo, hi))
		}
		return lo
	}
	return n
}

// float returns the float64 nearest the decimal value of key (as Go's
// strconv.ParseFloat and a Java or Lua literal read it), which must be
// finite and >= lo, or > lo when open is set.
func (a *args) float(key string, lo float64, open bool) float64 {
	s := a.values[key]
	x, err := strconv.ParseFloat(s, 64)
	bad := err != nil || math.IsInf(x, 0) || math.IsNaN(x) || x < lo || open && x == lo
	if bad {
		if open {
			a.fail(key, fmt.Sprintf("a finite number > %g", lo))
		} else {
			a.fail(key, fmt.Sprintf("a finite number >= %g", lo))
		}
		return lo
	}
	return x
}

// duration returns the value of key as a duration in nanoseconds, in the
// one duration grammar of [engine.ParseDuration] ("1s", "100ms", "1.5m",
// "0.05", "1/8"), which must lie
// in [lo, hi]. "inf" is accepted when inf is set and returns
// [engine.Forever].
func (a *args) duration(key string, lo, hi engine.Time, inf bool) engine.Time {
	s := a.values[key]
	if inf && (s == "inf" || s == "Inf" || s == "forever") {
		return engine.Forever
	}
	d, err := engine.ParseDuration(s)
	if err == nil && d == engine.Forever && inf {
		return engine.Forever
	}
	if err != nil || d == engine.Forever || d < lo || d > hi {
		want := fmt.Sprintf("a duration such as 1s or 100ms, >= %v s", lo)
		if inf {
			want += ", or inf"
		}
		a.fail(key, want)
		return lo
	}
	return d
}

// seconds returns the value of key, a decimal number of seconds, exactly
// in nanoseconds; it must be a whole number of nanoseconds, >= 0.
func (a *args) seconds(key string) engine.Time {
	r, err := exact.ParseRat(a.values[key])
	if err == nil && r.Sign() >= 0 {
		ns, err2 := r.Mul(exact.Int(int64(engine.Second)))
		if err2 == nil && ns.IsInt() && ns.Num().IsInt64() {
			return engine.Time(ns.Num().Int64())
		}
	}
	a.fail(key, "a decimal number of seconds >= 0, whole in nanoseconds")
	return 0
}

// rat returns the exact value of key, a decimal or p/q, which must be > 0.
func (a *args) rat(key string) exact.Rat {
	r, err := exact.ParseRat(a.values[key])
	if err != nil || r.Sign() <= 0 {
		a.fail(key, "a decimal number or fraction p/q > 0")
		return exact.Int(1)
	}
	return r
}

// choice returns the value of key, which must be one of options.
func (a *args) choice(key string, options ...string) string {
	s := a.values[key]
	if !slices.Contains(options, s) {
		a.fail(key, "one of "+strings.Join(options, ", "))
		return options[0]
	}
	return s
}

// flag returns the value of a boolean key.
func (a *args) flag(key string) bool {
	switch a.values[key] {
	case "true", "1", "yes":
		return true
	case "false", "0", "no", "":
		return false
	}
	a.fail(key, "true or false (or the bare key for true)")
	return false
}

// floorRat returns floor(x) for x >= 0 as a float64, saturating at +Inf
// beyond 2^1023; Promise uses it to report an exact count.
func floorRat(x *big.Rat) float64 {
	q := new(big.Int).Quo(x.Num(), x.Denom())
	f, _ := new(big.Float).SetInt(q).Float64()
	return f
}

// Delays reports whether p's limiter may delay a job (a blocking call of
// its library: x/time/rate's ReserveN and WaitN, Guava's acquire and
// tryAcquire with a timeout, Bucket4j's blocking bucket, nginx without
// nodelay, uber's Take) rather than only admit or reject it. A profile
// that delays is a shaper; one that does not is a policer.
func (p Profile) Delays() bool {
	v := p.values
	wait := func(key string, tick time.Duration) bool { // a wait of at least one tick of the library's clock, or inf
		s := v[key]
		if s == "inf" || s == "Inf" || s == "forever" {
			return true
		}
		d, err := engine.ParseDuration(s)
		return err == nil && d >= engine.Time(tick)
	}
	switch p.Name {
	case "xrate":
		return v["call"] != "allow"
	case "guava-bursty", "guava-warmup":
		return v["call"] == "acquire" || wait("timeout", time.Microsecond)
	case "bucket4j-greedy", "bucket4j-interval":
		return v["call"] == "block" && wait("max_wait", time.Nanosecond)
	case "nginx":
		n := func(key string) int64 {
			x, _ := strconv.ParseInt(v[key], 10, 64)
			return x
		}
		return v["nodelay"] != "true" && n("burst") > n("delay")
	case "uber":
		return true
	}
	return false
}
