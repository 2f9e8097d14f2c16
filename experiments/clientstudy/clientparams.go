package clientstudy

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/internal/budget"
	"github.com/ratesim/ratesim/profiles"
)

// ClientsParams are the parameters of a run of reacting clients as a user
// writes them: the flags of ratesim clients and the clients block of a
// sweep spec (see [ClientsStudy]) fill this one struct, and
// [ClientsParams.Spec] is the one parser of both. Each YAML key is the
// flag's name in snake case (max_attempts for --max-attempts); times take
// a unit (100ms, 2s) or are plain seconds, rates are exact decimals or
// fractions p/q.
//
// A distributed design (ratesim clients --design) is built by the caller
// (experiments does not import drl): Design names it, and Spec then
// refuses the family limiter's window and queue.
type ClientsParams struct {
	Limiter string `yaml:"limiter"` // a member of LimiterNames
	Profile string `yaml:"profile"` // NAME:key=value,... instead of Limiter
	Rate    string `yaml:"rate"`    // R, tokens/s, exact, > 0
	Limit   int64  `yaml:"limit"`   // burst, tokens, or window limit, jobs; >= 1
	Window  string `yaml:"window"`  // window length of the window limiters, > 0
	Queue   int    `yaml:"queue"`   // queue of token-shape and leaky-queue, jobs; 0: unbounded; default Limit
	// Soft and Hard are the throttle's token deficits, exact, 0 <= Soft
	// <= Hard <= Limit - 1 (defaults (Limit - 1)/2 and Limit - 1); Offset
	// places fixed windows' edges at Offset + k·W from the Unix epoch on a
	// trace's clock (from t = 0 for generated arrivals), a time in
	// [0, Window) (default 0). ratesim limiters and clients read them
	// alike (FamilyLimits).
	Soft   string `yaml:"soft"`
	Hard   string `yaml:"hard"`
	Offset string `yaml:"offset"`

	Arrivals string        `yaml:"arrivals"`        // poisson, periodic or an arrival spec (open loop)
	Load     float64       `yaml:"load"`            // λ/R where the arrival spec gives no rate, > 0
	Jobs     int64         `yaml:"jobs"`            // open-loop requests, >= 0; with a trace, all unless given
	Trace    *ClientsTrace `yaml:"trace,omitempty"` // read the open-loop requests from a trace instead

	Users int `yaml:"users"` // closed-loop users, >= 0
	// MaxMemory is the budget of the run's state, bytes (0: half of the
	// machine's memory); a run estimated above it is refused.
	MaxMemory uint64 `yaml:"-"`
	Think     string `yaml:"think"`   // their think time, >= 0
	Horizon   string `yaml:"horizon"` // they start requests until this instant, > 0

	Backoff          string `yaml:"backoff"`            // one of clients.BackoffNames
	Base             string `yaml:"base"`               // backoff base, > 0 except for none
	Cap              string `yaml:"cap"`                // backoff cap, >= Base; not given: 10 s, or Base (which Spec writes here) when larger
	MaxAttempts      int    `yaml:"max_attempts"`       // attempts of a request, >= 1; 0: no bound
	Deadline         string `yaml:"deadline"`           // give up past this after arrival; 0: none
	RetryAfter       bool   `yaml:"retry_after"`        // obey the limiter's Retry-After where it gives one
	RetryAfterJitter string `yaml:"retry_after_jitter"` // with RetryAfter: a draw on [0, this] added

	Pace       string `yaml:"pace"`        // pace open-loop requests to this many per second, exact; "": no pacing
	PaceJitter string `yaml:"pace_jitter"` // with Pace: a draw on [0, this] added to each gap

	ServerRate string `yaml:"server_rate"` // downstream FIFO server, jobs/s, exact; "": none
	Buffer     int    `yaml:"buffer"`      // with ServerRate: its waiting room, jobs

	Backfill         int64   `yaml:"backfill"`          // requests of a backfill (needs ServerRate); 0: none
	BackfillFraction float64 `yaml:"backfill_fraction"` // initial fraction of ServerRate
	BackfillMin      float64 `yaml:"backfill_min"`
	BackfillMax      float64 `yaml:"backfill_max"`
	BackfillIncrease float64 `yaml:"backfill_increase"`
	BackfillDecrease float64 `yaml:"backfill_decrease"`
	BackfillTarget   string  `yaml:"backfill_target"`
	BackfillInterval string  `yaml:"backfill_interval"`

	// Overload (issue 25): servers that can collapse instead of a limiter,
	// retry budgets and client-side throttling; see [ClientsParams.overload].
	// Zero values are the defaults: one server of concurrency 1, an
	// unbounded FIFO queue, no timeout, no budget, no throttle.
	Service           string   `yaml:"service"`            // exp:MEAN, det:D, lognormal:MEDIAN:SHAPE or trace:FILE:COL; "": no overload model
	Servers           int      `yaml:"servers"`            // >= 1, round robin; 0: 1
	ServerConcurrency int      `yaml:"server_concurrency"` // >= 1; 0: 1
	ServerQueue       string   `yaml:"server_queue"`       // waiting room, jobs >= 0, or unbounded ("")
	ServerOrder       string   `yaml:"server_order"`       // fifo ("") or lifo
	Contention        float64  `yaml:"contention"`         // service stretch per extra job in service, >= 0
	Timeout           string   `yaml:"timeout"`            // client timeout per attempt; "" or 0: none
	Fault             []string `yaml:"fault"`              // KIND[@SERVER]:FROM:TO[:X], one or a list
	RetryBudget       string   `yaml:"retry_budget"`       // aws, grpc:..., finagle:..., bucket:..., breaker:...; "": none
	ClientThrottle    string   `yaml:"client_throttle"`    // sre:k=2,window=2m; "": none
	RecoveryHold      string   `yaml:"recovery_hold"`
	Concurrency       string   `yaml:"concurrency"` // adaptive concurrency limit per server: aimd[:...] or gradient2[:...]; "": none      // hold of the recovery rule; "": 10s

	// Bin is the width of the series bins; 0 for no series. A sweep keeps
	// no series (its block refuses the key).
	Bin string `yaml:"bin"`
	// Seed is the root seed of a run's random streams; a sweep sets it per
	// replication (see [ClientsStudy]; its block refuses the key).
	Seed uint64 `yaml:"seed"`
	// Design names a distributed design the caller builds as
	// ClientsSpec.Remote (see [ClientsDesigns]), with the limit R = Rate,
	// B = Limit; "" for Limiter or Profile.
	Design string `yaml:"design"`
	// DesignParams are the design's parameters in a sweep spec: the keys
	// of the clients block that are not ClientsParams', each as YAML
	// decodes it, checked by the [ClientsDesigns] of the study.
	DesignParams map[string]any `yaml:",inline"`
	// TraceOptions, when not nil, are the options the trace is read with
	// in place of Trace's fields (the command line's); Trace.Path still
	// names the file.
	TraceOptions *arrivals.TraceOptions `yaml:"-"`
	// Given reports whether a parameter (a YAML key) was given rather than
	// left at its default: a flag set on the command line, a key of the
	// block or a swept axis. nil: none was.
	Given func(param string) bool `yaml:"-"`
	// Name writes a parameter's name in errors, as the caller's user
	// knows it (--max-attempts on a command line); nil: the YAML key.
	Name func(param string) string `yaml:"-"`
}

// ClientsTrace is a trace file read for the open-loop requests (see
// arrivals.TraceOptions for the fields).
type ClientsTrace struct {
	Path       string `yaml:"path"`
	Format     string `yaml:"format,omitempty"`
	TimeCol    string `yaml:"time_col,omitempty"`
	TimeFormat string `yaml:"time_format,omitempty"`
	Sort       bool   `yaml:"sort,omitempty"`
	SkipBad    bool   `yaml:"skip_bad,omitempty"`
}

// FamilyLimits validates the parameters every family limiter shares
// (limit, window, rate, queue) and returns them as limiterstudy.Params with
// the throttle's hard deficit at limit - 1 and its soft one at half that.
// With rateFromWindow and no rate given, the rate is limit/window (the
// windows' long-run rate). Errors are *ParamError.
func (p *ClientsParams) FamilyLimits(rateFromWindow bool) (limiterstudy.Params, error) {
	s := limiterstudy.Params{Limit: p.Limit}
	if p.Limit < 1 || p.Limit > 1<<40 {
		return s, p.bad("limit", p.Limit, "a limit between 1 and 2^40 (tokens of burst, jobs per window)")
	}
	var err error
	if s.Window, err = p.seconds("window", p.Window); err != nil {
		return s, err
	}
	if s.Window.Sign() <= 0 {
		return s, p.bad("window", p.Window, "a window > 0 s")
	}
	if rateFromWindow && !p.given("rate") {
		if s.Rate, err = exact.Int(p.Limit).Quo(s.Window); err != nil {
			return s, p.bad("window", p.Window, "a window whose rate limit/window fits the exact model")
		}
	} else if s.Rate, err = p.rat("rate", p.Rate, "tokens/s"); err != nil {
		return s, err
	}
	if s.Rate.Sign() <= 0 {
		return s, p.bad("rate", p.Rate, "a rate > 0 tokens/s")
	}
	s.Queue = int(min(p.Limit, math.MaxInt32))
	if p.given("queue") {
		if p.Queue < 0 {
			return s, p.bad("queue", p.Queue, "a queue capacity >= 1 job, or 0 for unbounded")
		}
		s.Queue = p.Queue
	}
	if err := p.throttleAndOffset(&s); err != nil {
		return s, err
	}
	return s, nil
}

// throttleAndOffset sets the throttle's deficits and the windows' offset
// of s from p (defaults where not given), checked against s's limit and
// window.
func (p *ClientsParams) throttleAndOffset(s *limiterstudy.Params) error {
	var err error
	s.Hard = exact.Int(p.Limit - 1)
	if p.given("hard") {
		if s.Hard, err = p.rat("hard", p.Hard, "tokens of deficit"); err != nil {
			return err
		}
	}
	if s.Hard.Sign() < 0 || s.Hard.Cmp(exact.Int(p.Limit-1)) > 0 {
		return p.bad("hard", p.Hard, fmt.Sprintf("a token deficit in [0, %s - 1 = %d]", p.name("limit"), p.Limit-1))
	}
	s.Soft, _ = s.Hard.Quo(exact.Int(2))
	if p.given("soft") {
		if s.Soft, err = p.rat("soft", p.Soft, "tokens of deficit"); err != nil {
			return err
		}
	}
	if s.Soft.Sign() < 0 || s.Soft.Cmp(s.Hard) > 0 {
		return p.bad("soft", p.Soft, fmt.Sprintf("a token deficit in [0, %s %v]", p.name("hard"), s.Hard))
	}
	if p.given("offset") {
		if s.Offset, err = p.seconds("offset", p.Offset); err != nil {
			return err
		}
	}
	if s.Offset.Sign() < 0 || s.Offset.Cmp(s.Window) >= 0 {
		return p.bad("offset", p.Offset, fmt.Sprintf("an offset in [0, %s %v) s", p.name("window"), s.Window))
	}
	return nil
}

// Spec validates the parameters and returns the specification of the run
// (Remote unset with a Design: the caller builds it; Input and Offered
// set by [ClientsParams.OpenArrivals]). Errors are *ParamError naming the
// parameter.
func (p *ClientsParams) Spec() (ClientsSpec, error) {
	var s ClientsSpec
	var err error
	s.Scenario.Seed = p.Seed
	if err := p.limiter(&s); err != nil {
		return s, err
	}
	sc := &s.Scenario
	if err := p.retry(sc); err != nil {
		return s, err
	}
	if err := p.users(sc); err != nil {
		return s, err
	}
	if p.Jobs < 0 {
		return s, p.bad("jobs", p.Jobs, "a number of requests >= 0")
	}
	if p.Jobs == 0 && p.Users == 0 {
		return s, p.bad("jobs", p.Jobs, fmt.Sprintf("at least one request: %s >= 1, or closed-loop %s", p.name("jobs"), p.name("users")))
	}
	if p.given("jobs") || p.Trace == nil {
		s.MaxJobs = p.Jobs
	}
	if p.Trace != nil && p.Trace.Path == "" {
		return s, p.bad("trace", "''", "a trace block with a path")
	}
	if err := p.pace(sc); err != nil {
		return s, err
	}
	if err := p.server(sc); err != nil {
		return s, err
	}
	if err := p.overload(&s); err != nil {
		return s, err
	}
	bin := p.Bin
	if bin == "" {
		bin = "0"
	}
	if sc.Bin, err = p.span("bin", bin, false); err != nil {
		return s, err
	}
	return s, nil
}

// limiter reads the limiter of s: a member of the family with its
// parameters, a library profile, or a distributed design's limit.
func (p *ClientsParams) limiter(s *ClientsSpec) error {
	// The command line refuses these pairs as mutually exclusive flags.
	for _, pair := range [][2]string{{"limiter", "profile"}, {"limiter", "design"}, {"profile", "design"}, {"arrivals", "trace"}, {"load", "trace"}} {
		if p.given(pair[0]) && (p.given(pair[1]) || pair[1] == "design" && p.Design != "" || pair[1] == "trace" && p.Trace != nil) {
			return p.misplaced(pair[0], "%s and %s: give one", pair[0], pair[1])
		}
	}
	switch {
	case p.given("profile"):
		pr, err := profiles.Parse(p.Profile)
		if err != nil {
			return &ParamError{Param: "profile", Value: p.Profile, Err: err,
				text: fmt.Sprintf("%s %q: %s", p.name("profile"), p.Profile, strings.TrimPrefix(err.Error(), "profiles: "))}
		}
		s.Profile = &pr
		for _, name := range []string{"rate", "limit", "window", "queue", "soft", "hard", "offset"} {
			if p.given(name) {
				return p.misplaced(name, "%s applies to %s only: a %s gives its own parameters", name, "limiter", "profile")
			}
		}
	case p.Design != "":
		for _, name := range []string{"window", "queue", "soft", "hard", "offset"} {
			if p.given(name) {
				return p.misplaced(name, "%s applies to %s only: a %s takes %s and %s (its burst)", name, "limiter", "design", "rate", "limit")
			}
		}
	case !slices.Contains(limiterstudy.LimiterNames, p.Limiter):
		return p.bad("limiter", p.Limiter, "one of "+strings.Join(limiterstudy.LimiterNames, ", "))
	}
	s.Limiter = p.Limiter
	var err error
	s.Limits, err = p.FamilyLimits(false)
	return err
}

// users reads the closed-loop users of sc and their think time and
// horizon.
func (p *ClientsParams) users(sc *clients.Scenario) error {
	if p.Users < 0 {
		return p.bad("users", p.Users, "a number of closed-loop users >= 0")
	}
	if need, most, ok := budget.Fits(p.memoryBudget(), float64(p.Users), bytesPerUser); !ok {
		return p.bad("users", p.Users, fmt.Sprintf("at most %d closed-loop users: %s", most, budget.Explain(need, bytesPerUser, "user", p.memoryBudget())))
	}
	if p.Users > 0 {
		sc.Users = p.Users
		think, err := p.span("think", p.Think, false)
		if err != nil {
			return err
		}
		sc.Think = clients.Fixed(think.Seconds())
		if sc.Horizon, err = p.span("horizon", p.Horizon, true); err != nil {
			return err
		}
	} else if p.given("think") || p.given("horizon") {
		param := "think"
		if !p.given("think") {
			param = "horizon"
		}
		return p.misplaced(param, "%s and %s apply with %s only", "think", "horizon", "users")
	}
	return nil
}

// pace reads the clients' own pacing of sc (pace, pace_jitter).
func (p *ClientsParams) pace(sc *clients.Scenario) error {
	if p.given("pace") {
		rate, err := p.rat("pace", p.Pace, "requests/s")
		if err != nil {
			return err
		}
		if rate.Sign() <= 0 || rate.Cmp(exact.Int(1e9)) > 0 {
			return p.bad("pace", p.Pace, "a rate in (0, 1e9] requests/s")
		}
		jit, err := p.span("pace_jitter", p.PaceJitter, false)
		if err != nil {
			return err
		}
		sc.Pace = &clients.PaceParams{Rate: rate, Jitter: jit, MaxAttempts: sc.Retry.MaxAttempts}
	} else if p.given("pace_jitter") {
		return p.misplaced("pace_jitter", "%s applies with %s only", "pace_jitter", "pace")
	}
	return nil
}

// retry reads the retry parameters into sc.Retry.
func (p *ClientsParams) retry(sc *clients.Scenario) error {
	if !slices.Contains(clients.BackoffNames(), p.Backoff) {
		return p.bad("backoff", p.Backoff, "one of "+strings.Join(clients.BackoffNames(), ", "))
	}
	base, err := p.span("base", p.Base, p.Backoff != "none")
	if err != nil {
		return err
	}
	capT, err := p.span("cap", p.Cap, false)
	if err != nil {
		return err
	}
	if !p.given("cap") && capT < base {
		capT, p.Cap = base, p.Base // the default cap is 10 s, or the base when larger
	}
	if p.Backoff != "none" && p.Backoff != "constant" && capT < base {
		return p.bad("cap", p.Cap, fmt.Sprintf("a cap >= %s %v s", p.name("base"), base))
	}
	b, err := clients.NewBackoff(p.Backoff, base, capT)
	if err != nil {
		return &ParamError{Param: "backoff", Value: p.Backoff, Err: err, text: fmt.Sprintf("%s %s with %s %s and %s %s: %v",
			p.name("backoff"), p.Backoff, p.name("base"), p.Base, p.name("cap"), p.Cap, strings.TrimPrefix(err.Error(), "clients: "))}
	}
	if p.RetryAfter {
		jit, err := p.span("retry_after_jitter", p.RetryAfterJitter, false)
		if err != nil {
			return err
		}
		b = clients.HonorRetryAfter{Fallback: b, Spread: jit}
	} else if p.given("retry_after_jitter") {
		return p.misplaced("retry_after_jitter", "%s applies with %s only", "retry_after_jitter", "retry_after")
	}
	if p.MaxAttempts < 0 {
		return p.bad("max_attempts", p.MaxAttempts, "a number of attempts >= 1, or 0 for no bound")
	}
	if p.MaxAttempts == 0 {
		// No bound on attempts: the work of a request refused for a
		// time w is w over the sleep its backoff settles to (Base for
		// constant, Cap or a draw whose mean grows to Cap/2 for the
		// others); a zero sleep never lets time advance.
		settle, param, value := capT, "cap", p.Cap
		switch p.Backoff {
		case "none":
			return p.bad("max_attempts", p.MaxAttempts, fmt.Sprintf("a number of attempts >= 1 with %s none: with no bound, a refused request retries at the instant of its refusal, which never lets time advance (or a backoff whose sleeps reach >= %v s)", p.name("backoff"), MinUnboundedSleep))
		case "constant":
			settle, param, value = base, "base", p.Base
		}
		if settle < MinUnboundedSleep {
			return p.bad("max_attempts", p.MaxAttempts, fmt.Sprintf("a number of attempts >= 1 with %s %s: with no bound, a request refused for one second retries %.4g times (want %s >= %v s for no bound)",
				p.name(param), value, float64(engine.Second)/float64(max(settle, 1)), p.name(param), MinUnboundedSleep))
		}
	}
	deadline, err := p.span("deadline", p.Deadline, false)
	if err != nil {
		return err
	}
	sc.Retry = clients.RetryPolicy{Backoff: b, MaxAttempts: p.MaxAttempts, Deadline: deadline}
	return nil
}

// backfillParams are the parameters of the backfill but its size.
var backfillParams = []string{"backfill_fraction", "backfill_min", "backfill_max", "backfill_increase", "backfill_decrease", "backfill_target", "backfill_interval"}

// server reads the downstream and backfill parameters into sc.
func (p *ClientsParams) server(sc *clients.Scenario) error {
	if !p.given("server_rate") {
		for _, name := range append([]string{"buffer", "backfill"}, backfillParams...) {
			if p.given(name) {
				return p.misplaced(name, "%s applies with %s only", name, "server_rate")
			}
		}
		return nil
	}
	rate, err := p.rat("server_rate", p.ServerRate, "jobs/s")
	if err != nil {
		return err
	}
	if rate.Sign() <= 0 || rate.Cmp(exact.Int(1e9)) > 0 {
		return p.bad("server_rate", p.ServerRate, "a service rate in (0, 1e9] jobs/s")
	}
	if p.Buffer < 0 {
		return p.bad("buffer", p.Buffer, "a waiting room >= 0 jobs")
	}
	sc.Server = &clients.ServerParams{Rate: rate, Buffer: p.Buffer}
	if !p.given("backfill") {
		for _, name := range backfillParams {
			if p.given(name) {
				return p.misplaced(name, "%s applies with %s only", name, "backfill")
			}
		}
		return nil
	}
	if p.Backfill < 1 {
		return p.bad("backfill", p.Backfill, "a number of backfill requests >= 1")
	}
	if need, most, ok := budget.Fits(p.memoryBudget(), float64(p.Backfill), bytesPerBackfill); !ok {
		return p.bad("backfill", p.Backfill, fmt.Sprintf("at most %d backfill requests: %s", most, budget.Explain(need, bytesPerBackfill, "request", p.memoryBudget())))
	}
	b := clients.BackfillParams{Capacity: rate, Initial: p.BackfillFraction, Min: p.BackfillMin, Max: p.BackfillMax,
		Increase: p.BackfillIncrease, Decrease: p.BackfillDecrease, Live: sc.Retry.Class, Class: sc.Retry.Class + 1, MaxAttempts: sc.Retry.MaxAttempts}
	if b.Target, err = p.span("backfill_target", p.BackfillTarget, false); err != nil {
		return err
	}
	if b.Interval, err = p.span("backfill_interval", p.BackfillInterval, true); err != nil {
		return err
	}
	switch {
	case !(b.Min > 0 && b.Min <= 1):
		return p.bad("backfill_min", p.BackfillMin, "a fraction in (0, 1]")
	case !(b.Max >= b.Min && b.Max <= 1):
		return p.bad("backfill_max", p.BackfillMax, fmt.Sprintf("a fraction in [%s %v, 1]", p.name("backfill_min"), b.Min))
	case !(b.Initial >= b.Min && b.Initial <= b.Max):
		return p.bad("backfill_fraction", p.BackfillFraction, fmt.Sprintf("a fraction in [%s %v, %s %v]", p.name("backfill_min"), b.Min, p.name("backfill_max"), b.Max))
	case !(b.Increase >= 0 && !math.IsInf(b.Increase, 0)):
		return p.bad("backfill_increase", p.BackfillIncrease, "a finite increase >= 0")
	case !(b.Decrease > 0 && b.Decrease <= 1):
		return p.bad("backfill_decrease", p.BackfillDecrease, "a factor in (0, 1]")
	}
	if err := b.Validate(); err != nil {
		return &ParamError{Param: "backfill", Value: p.Backfill, Err: err, text: fmt.Sprintf("%s: %v", p.name("backfill"), strings.TrimPrefix(err.Error(), "clients: "))}
	}
	// The backfill drains at least at Min·rate requests/s, so its
	// control loop runs for at most Backfill/(Min·rate) s: bounded to
	// MaxControlPeriods periods, a step each.
	if drain := float64(p.Backfill) / (b.Min * rate.Float64()); drain/b.Interval.Seconds() > MaxControlPeriods {
		least := math.Ceil(drain/MaxControlPeriods*1e9) / 1e9
		return p.bad("backfill_interval", p.BackfillInterval, fmt.Sprintf("a period >= %v s: %d backfill requests at %s %v of %v requests/s drain in up to %.4g s, more than %g control periods of %s",
			least, p.Backfill, p.name("backfill_min"), b.Min, rate, drain, float64(MaxControlPeriods), p.BackfillInterval))
	}
	sc.Backfill, sc.BackfillItems = &b, p.Backfill
	return nil
}

// MaxControlPeriods bounds the backfill's control periods over the time
// it takes to drain: 10^7, a step each.
const MaxControlPeriods = 1e7

// Bytes of state per closed-loop user and per backfill request, measured
// as the growth of the peak resident memory of ratesim clients from 10^5
// to 10^6 users (177 B per user) and backfill requests (145 B), rounded
// up.
const (
	bytesPerUser     = 256
	bytesPerBackfill = 192
)

// memoryBudget is MaxMemory, or half of the machine's memory.
func (p *ClientsParams) memoryBudget() uint64 {
	if p.MaxMemory > 0 {
		return p.MaxMemory
	}
	return budget.Default()
}
