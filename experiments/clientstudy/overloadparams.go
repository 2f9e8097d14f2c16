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
	case "aws":
		if kv != "" {
			return p.bad("retry_budget", text, "aws without parameters (the SDK's quota 500, retry cost 5, timeout cost 10)")
		}
		o.Budget = clients.NewAWSQuota()
		if !p.given("max_attempts") {
			o.Retry.MaxAttempts = 3
		}
		if !p.given("backoff") && !p.given("base") && !p.given("cap") {
			o.Retry.Backoff = clients.AWSBackoff{Cap: 20e9}
		}
	case "aws-adaptive":
		if kv != "" {
			return p.bad("retry_budget", text, "aws-adaptive without parameters (the SDK's defaults)")
		}
		q := clients.NewAWSQuota()
		q.NoRetryIncrement = 0 // adaptive mode: the attempt token is the rate limiter's
		o.Budget, o.Adaptive = q, clients.NewAWSAdaptive()
		if !p.given("max_attempts") {
			o.Retry.MaxAttempts = 3
		}
		if !p.given("backoff") && !p.given("base") && !p.given("cap") {
			o.Retry.Backoff = clients.AWSBackoff{Cap: 20e9}
		}
	case "grpc":
		m, err := p.keyValues("retry_budget", text, kv, "max_tokens", "token_ratio")
		if err != nil {
			return err
		}
		maxT, ratio := int64(10_000), int64(100)
		if v, ok := m["max_tokens"]; ok {
			if maxT, err = p.milli("retry_budget", text, v, "max_tokens in (0, 1000]"); err != nil {
				return err
			}
		}
		if v, ok := m["token_ratio"]; ok {
			if ratio, err = p.milli("retry_budget", text, v, "token_ratio > 0"); err != nil {
				return err
			}
		}
		if o.Budget, err = clients.NewGRPCThrottle(maxT, ratio); err != nil {
			return p.wrap("retry_budget", text, err)
		}
		if o.Retry.MaxAttempts == 0 || o.Retry.MaxAttempts > 5 {
			o.Retry.MaxAttempts = 5
		}
	case "finagle":
		m, err := p.keyValues("retry_budget", text, kv, "percent", "min_per_s", "window")
		if err != nil {
			return err
		}
		permille, minPerS, ttl := int64(200), int64(10), engine.Time(10e9)
		if v, ok := m["percent"]; ok {
			pm, err := p.milli("retry_budget", text, v, "percent")
			if err != nil {
				return err
			}
			permille = pm / 100 // percent·1000/100: a fraction in thousandths
			if pm%100 != 0 {
				return p.bad("retry_budget", text, "percent with at most one decimal place")
			}
		}
		if v, ok := m["min_per_s"]; ok {
			if minPerS, err = strconv.ParseInt(v, 10, 64); err != nil || minPerS < 0 {
				return p.bad("retry_budget", text, "min_per_s a whole number of retries per second >= 0")
			}
		}
		if v, ok := m["window"]; ok {
			if ttl, err = p.span("retry_budget", v, true); err != nil {
				return p.bad("retry_budget", text, "window a time from 1 s to 60 s")
			}
		}
		if o.Budget, err = clients.NewFinagleBudget(permille, minPerS, ttl); err != nil {
			return p.wrap("retry_budget", text, err)
		}
	case "bucket":
		m, err := p.keyValues("retry_budget", text, kv, "deposit", "size")
		if err != nil {
			return err
		}
		dep, size := int64(100), int64(10_000)
		if v, ok := m["deposit"]; ok {
			if dep, err = p.milli("retry_budget", text, v, "deposit"); err != nil {
				return err
			}
		}
		if v, ok := m["size"]; ok {
			if size, err = p.milli("retry_budget", text, v, "size"); err != nil {
				return err
			}
		}
		if o.Budget, err = clients.NewRetryBucket(dep, size); err != nil {
			return p.wrap("retry_budget", text, err)
		}
	case "breaker":
		m, err := p.keyValues("retry_budget", text, kv, "threshold", "window")
		if err != nil {
			return err
		}
		th, w := int64(100), engine.Time(10e9)
		if v, ok := m["threshold"]; ok {
			if th, err = p.milli("retry_budget", text, v, "threshold"); err != nil {
				return err
			}
		}
		if v, ok := m["window"]; ok {
			if w, err = p.span("retry_budget", v, true); err != nil {
				return p.bad("retry_budget", text, "window a time > 0")
			}
		}
		if o.Budget, err = clients.NewRetryBreaker(th, w); err != nil {
			return p.wrap("retry_budget", text, err)
		}
	default:
		return p.bad("retry_budget", text, "one of "+strings.Join(BudgetNames, ", ")+", such as grpc:max_tokens=10,token_ratio=0.1")
	}
	return nil
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
	integer := func(m map[string]string, key string, def int) (int, error) {
		v, ok := m[key]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, p.bad("concurrency", text, key+" a whole number")
		}
		return n, nil
	}
	float := func(m map[string]string, key string, def float64) (float64, error) {
		v, ok := m[key]
		if !ok {
			return def, nil
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, p.bad("concurrency", text, key+" a number")
		}
		return x, nil
	}
	var make func(*rand.Rand) (clients.ConcurrencyLimit, error)
	switch name {
	case "aimd":
		m, err := p.keyValues("concurrency", text, kv, "initial", "backoff", "timeout")
		if err != nil {
			return nil, err
		}
		initial, err := integer(m, "initial", 10)
		if err != nil {
			return nil, err
		}
		backoff, err := float(m, "backoff", 0.9)
		if err != nil {
			return nil, err
		}
		timeout := engine.Time(5e9)
		if v, ok := m["timeout"]; ok {
			if timeout, err = p.span("concurrency", v, true); err != nil {
				return nil, p.bad("concurrency", text, "timeout a time > 0")
			}
		}
		make = func(*rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewAIMDLimit(initial, backoff, timeout)
		}
	case "gradient2":
		m, err := p.keyValues("concurrency", text, kv, "initial", "min", "max", "smoothing", "queue", "long_window")
		if err != nil {
			return nil, err
		}
		var ints [4]int
		for i, k := range []string{"initial", "min", "max", "long_window"} {
			if ints[i], err = integer(m, k, [4]int{20, 20, 200, 600}[i]); err != nil {
				return nil, err
			}
		}
		smoothing, err := float(m, "smoothing", 0.2)
		if err != nil {
			return nil, err
		}
		queue, err := float(m, "queue", 4)
		if err != nil {
			return nil, err
		}
		make = func(*rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewGradient2Limit(ints[0], ints[1], ints[2], smoothing, queue, ints[3])
		}
	case "vegas":
		m, err := p.keyValues("concurrency", text, kv, "initial", "max", "smoothing", "probe")
		if err != nil {
			return nil, err
		}
		var ints [3]int
		for i, k := range []string{"initial", "max", "probe"} {
			if ints[i], err = integer(m, k, [3]int{20, 1000, 30}[i]); err != nil {
				return nil, err
			}
		}
		smoothing, err := float(m, "smoothing", 1)
		if err != nil {
			return nil, err
		}
		make = func(r *rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewVegasLimit(ints[0], ints[1], smoothing, ints[2], r)
		}
	case "envoy":
		m, err := p.keyValues("concurrency", text, kv, "min", "max", "request_count", "buffer", "jitter", "update", "min_rtt_interval")
		if err != nil {
			return nil, err
		}
		var ints [3]int
		for i, k := range []string{"min", "max", "request_count"} {
			if ints[i], err = integer(m, k, [3]int{3, 1000, 50}[i]); err != nil {
				return nil, err
			}
		}
		buffer, err := float(m, "buffer", 0.25)
		if err != nil {
			return nil, err
		}
		jitter, err := float(m, "jitter", 0.15)
		if err != nil {
			return nil, err
		}
		update, minRTT := engine.Time(100e6), engine.Time(60e9)
		if v, ok := m["update"]; ok {
			if update, err = p.span("concurrency", v, true); err != nil {
				return nil, p.bad("concurrency", text, "update a time > 0")
			}
		}
		if v, ok := m["min_rtt_interval"]; ok {
			if minRTT, err = p.span("concurrency", v, true); err != nil {
				return nil, p.bad("concurrency", text, "min_rtt_interval a time > 0")
			}
		}
		make = func(r *rand.Rand) (clients.ConcurrencyLimit, error) {
			return clients.NewEnvoyGradient(ints[0], ints[1], ints[2], buffer, jitter, update, minRTT, r)
		}
	default:
		return nil, p.bad("concurrency", text, "one of "+strings.Join(ConcurrencyNames, ", ")+", such as gradient2:min=20,max=200")
	}
	if _, err := make(rand.New(rand.NewPCG(0, 0))); err != nil { // a check only
		return nil, p.wrap("concurrency", text, err)
	}
	return func(r *rand.Rand) clients.ConcurrencyLimit {
		l, _ := make(r)
		return l
	}, nil
}

// wrap returns a *ParamError for a constructor's error.
func (p *ClientsParams) wrap(param, text string, err error) error {
	return &ParamError{Param: param, Value: text, Err: err, text: fmt.Sprintf("%s %s: %s", p.name(param), text, strings.TrimPrefix(err.Error(), "clients: "))}
}
