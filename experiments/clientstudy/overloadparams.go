package clientstudy

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// service parses service: exp:MEAN, det:D, lognormal:MEDIAN:SHAPE or
// trace:FILE:COL.
func (p *ClientsParams) service() (clients.ServiceTime, error) {
	const want = "exp:MEAN, det:D, lognormal:MEDIAN:SHAPE (times > 0, shape >= 0) or trace:FILE:COL"
	kind, rest, _ := strings.Cut(p.Service, ":")
	positive := func(text string) (engine.Time, error) {
		t, err := p.span("service", text, true)
		if err != nil {
			return 0, p.bad("service", p.Service, want)
		}
		return t, nil
	}
	switch kind {
	case "exp":
		m, err := positive(rest)
		return clients.ExpService{Mean: m}, err
	case "det":
		d, err := positive(rest)
		return clients.DetService{D: d}, err
	case "lognormal":
		med, shape, ok := strings.Cut(rest, ":")
		m, err := positive(med)
		if err != nil {
			return nil, err
		}
		sh, perr := strconv.ParseFloat(shape, 64)
		if !ok || perr != nil || !(sh >= 0) || math.IsInf(sh, 0) {
			return nil, p.bad("service", p.Service, want)
		}
		return clients.LognormalService{Median: m, Shape: sh}, nil
	case "trace":
		i := strings.LastIndex(rest, ":")
		if i <= 0 || i == len(rest)-1 {
			return nil, p.bad("service", p.Service, want)
		}
		times, err := readServiceColumn(rest[:i], rest[i+1:])
		if err != nil {
			return nil, &ParamError{Param: "service", Value: p.Service, Err: err, text: fmt.Sprintf("%s %s: %v", p.name("service"), p.Service, err)}
		}
		return clients.NewTraceService(times, rest)
	}
	return nil, p.bad("service", p.Service, want)
}

// readServiceColumn reads the service times of column col (a 1-based
// index, or a header name) of a CSV or whitespace-separated file, each
// in seconds or with a unit (as ParseSeconds reads them), >= 0. A first
// line whose field is not a time is a header. Errors name the file and
// line.
func readServiceColumn(path, col string) ([]engine.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx, byName := 0, false
	if n, err := strconv.Atoi(col); err == nil {
		if n < 1 {
			return nil, fmt.Errorf("column %s: want a 1-based index or a header name", col)
		}
		idx = n - 1
	} else {
		byName = true
	}
	split := func(line string) []string {
		if strings.Contains(line, ",") {
			fs := strings.Split(line, ",")
			for i := range fs {
				fs[i] = strings.TrimSpace(fs[i])
			}
			return fs
		}
		return strings.Fields(line)
	}
	var out []engine.Time
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fs := split(text)
		if byName && line == 1 || byName && len(out) == 0 && idx == 0 && !containsTime(fs) {
			found := false
			for i, h := range fs {
				if h == col {
					idx, found, byName = i, true, false
				}
			}
			if !found {
				return nil, fmt.Errorf("%s:%d: no column named %q in the header", path, line, col)
			}
			continue
		}
		if idx >= len(fs) {
			return nil, fmt.Errorf("%s:%d: %d fields, no column %d", path, line, len(fs), idx+1)
		}
		r, ok := ParseSeconds(fs[idx])
		if !ok && len(out) == 0 && line == 1 {
			continue // a header
		}
		ns, err := r.Mul(exact.Int(1e9))
		if !ok || err != nil || r.Sign() < 0 || !ns.Num().IsInt64() {
			return nil, fmt.Errorf("%s:%d: service time %q: want seconds >= 0 (0.1, 1/3) or with a unit (100ms)", path, line, fs[idx])
		}
		out = append(out, engine.Time(ns.Floor().Int64()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no service time in column %s", path, col)
	}
	return out, nil
}

func containsTime(fs []string) bool {
	for _, f := range fs {
		if _, ok := ParseSeconds(f); ok {
			return true
		}
	}
	return false
}

// fault parses KIND[@SERVER]:FROM:TO[:X].
func (p *ClientsParams) fault(text string, servers int) (clients.Fault, error) {
	want := "KIND[@SERVER]:FROM:TO[:X] with KIND one of crash, error, slow, capacity (such as crash:5s:15s, error:10:20:0.5, slow@2:10s:20s:4, capacity:0:30:0.5)"
	parts := strings.Split(text, ":")
	if len(parts) < 3 || len(parts) > 4 {
		return clients.Fault{}, p.bad("fault", text, want)
	}
	var f clients.Fault
	kind, server, hasServer := strings.Cut(parts[0], "@")
	found := false
	for i, n := range clients.FaultKindNames() {
		if n == kind {
			f.Kind, found = clients.FaultKind(i), true
		}
	}
	if !found {
		return f, p.bad("fault", text, want)
	}
	if hasServer {
		n, err := strconv.Atoi(server)
		if err != nil || n < 1 || n > servers {
			return f, p.bad("fault", text, fmt.Sprintf("a server from 1 to %d after @", servers))
		}
		f.Server = n - 1
	}
	var err error
	if f.From, err = p.span("fault", parts[1], false); err != nil {
		return f, p.bad("fault", text, want)
	}
	if f.To, err = p.span("fault", parts[2], false); err != nil || f.To <= f.From {
		return f, p.bad("fault", text, "an interval FROM < TO: "+want)
	}
	switch {
	case f.Kind == clients.FaultCrash && len(parts) == 4:
		return f, p.bad("fault", text, "crash:FROM:TO without X")
	case f.Kind != clients.FaultCrash && len(parts) != 4:
		return f, p.bad("fault", text, f.Kind.String()+":FROM:TO:X with X the "+map[clients.FaultKind]string{
			clients.FaultError: "error probability in [0, 1]", clients.FaultSlow: "slowdown factor > 0", clients.FaultCapacity: "capacity factor >= 0"}[f.Kind])
	case len(parts) == 4:
		if f.X, err = strconv.ParseFloat(parts[3], 64); err != nil {
			return f, p.bad("fault", text, want)
		}
	}
	if err := f.Validate(servers); err != nil {
		return f, &ParamError{Param: "fault", Value: text, Err: err, text: fmt.Sprintf("%s %s: %s", p.name("fault"), text, strings.TrimPrefix(err.Error(), "clients: "))}
	}
	return f, nil
}

// keyValues parses "k=v,k=v" against the allowed keys, for the error
// messages of param.
func (p *ClientsParams) keyValues(param, text, kv string, keys ...string) (map[string]string, error) {
	out := map[string]string{}
	if kv == "" {
		return out, nil
	}
	for _, pair := range strings.Split(kv, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		known := false
		for _, key := range keys {
			known = known || key == k
		}
		if !ok || !known {
			return nil, p.bad(param, text, "keys "+strings.Join(keys, ", ")+" as key=value, separated by commas")
		}
		if _, dup := out[k]; dup {
			return nil, p.bad(param, text, "each key once ("+k+" given twice)")
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// milli parses an exact decimal with at most three places into
// thousandths, >= 0.
func (p *ClientsParams) milli(param, text, value, what string) (int64, error) {
	r, err := exact.ParseRat(value)
	if err == nil {
		r, err = r.Mul(exact.Int(1000))
	}
	if err != nil || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1e12 {
		return 0, p.bad(param, text, what+" as a decimal >= 0 with at most three places")
	}
	return r.Num().Int64(), nil
}

// BudgetNames lists the retry budgets of retry_budget.
var BudgetNames = []string{"none", "aws", "aws-adaptive", "grpc", "finagle", "bucket", "breaker"}

// budget reads retry_budget into o.Budget, with the policy the source
// implies: aws takes the SDK's 3 attempts and backoff unless given, grpc
// caps the attempts at 5.
func (p *ClientsParams) budget(o *clients.Overload) error {
	text := p.RetryBudget
	name, kv, _ := strings.Cut(text, ":")
	switch name {
	case "", "none":
		if kv != "" {
			return p.bad("retry_budget", text, "none without parameters")
		}
		return nil
	case "aws", "aws-adaptive":
		if kv != "" {
			return p.bad("retry_budget", text, map[string]string{"aws": "aws without parameters (the SDK's quota 500, retry cost 5, timeout cost 10)",
				"aws-adaptive": "aws-adaptive without parameters (the SDK's defaults)"}[name])
		}
		q := clients.NewAWSQuota()
		o.Budget = q
		if name == "aws-adaptive" {
			q.NoRetryIncrement = 0 // adaptive mode: the attempt token is the rate limiter's
			o.Adaptive = clients.NewAWSAdaptive()
		}
		if !p.given("max_attempts") {
			o.Retry.MaxAttempts = 3
		}
		if !p.given("backoff") && !p.given("base") && !p.given("cap") {
			o.Retry.Backoff = clients.AWSBackoff{Cap: 20e9}
		}
		return nil
	}
	b, ok := retryBudgets[name]
	if !ok {
		return p.bad("retry_budget", text, "one of "+strings.Join(BudgetNames, ", ")+", such as grpc:max_tokens=10,token_ratio=0.1")
	}
	a, err := p.args("retry_budget", text, kv, b.keys...)
	if err != nil {
		return err
	}
	budget, err := b.read(a)
	if a.err != nil {
		return a.err
	}
	if err != nil {
		return p.wrap("retry_budget", text, err)
	}
	o.Budget = budget
	if name == "grpc" && (o.Retry.MaxAttempts == 0 || o.Retry.MaxAttempts > 5) {
		o.Retry.MaxAttempts = 5
	}
	return nil
}

// retryBudgets are the retry budgets of retry_budget with parameters:
// their keys and how to read them (defaults from each source) and build
// the budget. A bad value is left in the kvArgs' err.
var retryBudgets = map[string]struct {
	keys []string
	read func(a *kvArgs) (clients.RetryBudget, error)
}{
	"grpc": {[]string{"max_tokens", "token_ratio"}, func(a *kvArgs) (clients.RetryBudget, error) {
		maxT, ratio := a.milli("max_tokens", 10_000, "max_tokens in (0, 1000]"), a.milli("token_ratio", 100, "token_ratio > 0")
		if a.err != nil {
			return nil, nil
		}
		return clients.NewGRPCThrottle(maxT, ratio)
	}},
	"finagle": {[]string{"percent", "min_per_s", "window"}, func(a *kvArgs) (clients.RetryBudget, error) {
		pm := a.milli("percent", 20_000, "percent")
		if a.err == nil && pm%100 != 0 {
			a.err = a.p.bad(a.param, a.text, "percent with at most one decimal place")
		}
		permille := pm / 100 // percent·1000/100: a fraction in thousandths
		minPerS := int64(10)
		if v, ok := a.m["min_per_s"]; ok && a.err == nil {
			var err error
			if minPerS, err = strconv.ParseInt(v, 10, 64); err != nil || minPerS < 0 {
				a.err = a.p.bad(a.param, a.text, "min_per_s a whole number of retries per second >= 0")
			}
		}
		ttl := a.span("window", 10e9, "a time from 1 s to 60 s")
		if a.err != nil {
			return nil, nil
		}
		return clients.NewFinagleBudget(permille, minPerS, ttl)
	}},
	"bucket": {[]string{"deposit", "size"}, func(a *kvArgs) (clients.RetryBudget, error) {
		dep, size := a.milli("deposit", 100, "deposit"), a.milli("size", 10_000, "size")
		if a.err != nil {
			return nil, nil
		}
		return clients.NewRetryBucket(dep, size)
	}},
	"breaker": {[]string{"threshold", "window"}, func(a *kvArgs) (clients.RetryBudget, error) {
		th, w := a.milli("threshold", 100, "threshold"), a.span("window", 10e9, "a time > 0")
		if a.err != nil {
			return nil, nil
		}
		return clients.NewRetryBreaker(th, w)
	}},
}

// kvArgs reads the key=value parameters of the value text of param: each
// read returns the default when the key is absent; the first bad value
// is kept in err, and the reads after it return their defaults.
type kvArgs struct {
	p           *ClientsParams
	param, text string
	m           map[string]string
	err         error
}

// args parses the key=value pairs kv of the value text of param against
// the allowed keys (see keyValues).
func (p *ClientsParams) args(param, text, kv string, keys ...string) (*kvArgs, error) {
	m, err := p.keyValues(param, text, kv, keys...)
	return &kvArgs{p: p, param: param, text: text, m: m}, err
}

// value returns key's value and whether to read it (given, no error yet).
func (a *kvArgs) value(key string) (string, bool) {
	v, ok := a.m[key]
	return v, ok && a.err == nil
}

// int reads key as a whole number.
func (a *kvArgs) int(key string, def int) int {
	v, ok := a.value(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		a.err = a.p.bad(a.param, a.text, key+" a whole number")
	}
	return n
}

// float reads key as a number.
func (a *kvArgs) float(key string, def float64) float64 {
	v, ok := a.value(key)
	if !ok {
		return def
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		a.err = a.p.bad(a.param, a.text, key+" a number")
	}
	return x
}

// span reads key as a time > 0; want is what the error says would fit.
func (a *kvArgs) span(key string, def engine.Time, want string) engine.Time {
	v, ok := a.value(key)
	if !ok {
		return def
	}
	t, err := a.p.span(a.param, v, true)
	if err != nil {
		a.err = a.p.bad(a.param, a.text, key+" "+want)
	}
	return t
}

// milli reads key as thousandths (see ClientsParams.milli); what names it
// in the error.
func (a *kvArgs) milli(key string, def int64, what string) int64 {
	v, ok := a.value(key)
	if !ok {
		return def
	}
	x, err := a.p.milli(a.param, a.text, v, what)
	if err != nil {
		a.err = err
	}
	return x
}

// throttle parses client_throttle: sre[:k=K,window=W].
func (p *ClientsParams) throttle() (*clients.SREThrottle, error) {
	text := p.ClientThrottle
	name, kv, _ := strings.Cut(text, ":")
	if name != "sre" {
		return nil, p.bad("client_throttle", text, "sre[:k=2,window=2m]")
	}
	m, err := p.keyValues("client_throttle", text, kv, "k", "window")
	if err != nil {
		return nil, err
	}
	k, w := int64(2000), engine.Time(120e9)
	if v, ok := m["k"]; ok {
		if k, err = p.milli("client_throttle", text, v, "k >= 1"); err != nil {
			return nil, err
		}
	}
	if v, ok := m["window"]; ok {
		if w, err = p.span("client_throttle", v, true); err != nil {
			return nil, p.bad("client_throttle", text, "window a time > 0")
		}
	}
	th, err := clients.NewSREThrottle(k, w)
	if err != nil {
		return nil, p.wrap("client_throttle", text, err)
	}
	return th, nil
}

// ConcurrencyNames lists the adaptive concurrency limits of concurrency.
var ConcurrencyNames = []string{"aimd", "gradient2", "vegas", "envoy"}

// concurrency parses concurrency: aimd[:initial=10,backoff=0.9,timeout=5s],
// gradient2[:initial=20,min=20,max=200,smoothing=0.2,queue=4,long_window=600]
// vegas[:initial=20,max=1000,smoothing=1,probe=30] or
// envoy[:min=3,max=1000,request_count=50,buffer=0.25,jitter=0.15,update=100ms,min_rtt_interval=60s],
// and returns the factory of a fresh limit (it is checked once here).
func (p *ClientsParams) concurrency() (func(*rand.Rand) clients.ConcurrencyLimit, error) {
	text := p.Concurrency
	name, kv, _ := strings.Cut(text, ":")
	c, ok := concurrencyLimits[name]
	if !ok {
		return nil, p.bad("concurrency", text, "one of "+strings.Join(ConcurrencyNames, ", ")+", such as gradient2:min=20,max=200")
	}
	a, err := p.args("concurrency", text, kv, c.keys...)
	if err != nil {
		return nil, err
	}
	make := c.read(a)
	if a.err != nil {
		return nil, a.err
	}
	if _, err := make(rand.New(rand.NewPCG(0, 0))); err != nil { // a check only
		return nil, p.wrap("concurrency", text, err)
	}
	return func(r *rand.Rand) clients.ConcurrencyLimit {
		l, _ := make(r)
		return l
	}, nil
}

// concurrencyLimits are the adaptive concurrency limits of concurrency:
// their keys and how to read them (defaults from each source) into the
// limit's constructor. A bad value is left in the kvArgs' err.
var concurrencyLimits = map[string]struct {
	keys []string
	read func(a *kvArgs) func(*rand.Rand) (clients.ConcurrencyLimit, error)
}{
	"aimd": {[]string{"initial", "backoff", "timeout"}, func(a *kvArgs) func(*rand.Rand) (clients.ConcurrencyLimit, error) {
		initial, backoff, timeout := a.int("initial", 10), a.float("backoff", 0.9), a.span("timeout", 5e9, "a time > 0")
		return func(*rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewAIMDLimit(initial, backoff, timeout)
		}
	}},
	"gradient2": {[]string{"initial", "min", "max", "smoothing", "queue", "long_window"}, func(a *kvArgs) func(*rand.Rand) (clients.ConcurrencyLimit, error) {
		initial, lo, hi, long := a.int("initial", 20), a.int("min", 20), a.int("max", 200), a.int("long_window", 600)
		smoothing, queue := a.float("smoothing", 0.2), a.float("queue", 4)
		return func(*rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewGradient2Limit(initial, lo, hi, smoothing, queue, long)
		}
	}},
	"vegas": {[]string{"initial", "max", "smoothing", "probe"}, func(a *kvArgs) func(*rand.Rand) (clients.ConcurrencyLimit, error) {
		initial, hi, probe := a.int("initial", 20), a.int("max", 1000), a.int("probe", 30)
		smoothing := a.float("smoothing", 1)
		return func(r *rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewVegasLimit(initial, hi, smoothing, probe, r)
		}
	}},
	"envoy": {[]string{"min", "max", "request_count", "buffer", "jitter", "update", "min_rtt_interval"}, func(a *kvArgs) func(*rand.Rand) (clients.ConcurrencyLimit, error) {
		lo, hi, count := a.int("min", 3), a.int("max", 1000), a.int("request_count", 50)
		buffer, jitter := a.float("buffer", 0.25), a.float("jitter", 0.15)
		update, minRTT := a.span("update", 100e6, "a time > 0"), a.span("min_rtt_interval", 60e9, "a time > 0")
		return func(r *rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewEnvoyGradient(lo, hi, count, buffer, jitter, update, minRTT, r)
		}
	}},
}

// wrap returns a *ParamError for a constructor's error.
func (p *ClientsParams) wrap(param, text string, err error) error {
	return &ParamError{Param: param, Value: text, Err: err, text: fmt.Sprintf("%s %s: %s", p.name(param), text, strings.TrimPrefix(err.Error(), "clients: "))}
}
