package splitstudy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// MaxSubBuckets bounds k: each event costs O(k), and a split into more
// sub-buckets than this is almost certainly a typo.
const MaxSubBuckets = 65536

// RunParams are the parameters of one run as a user gives them (ratesim
// run's flags): the one bucket, its split as k equal sub-buckets or as
// rate:burst pairs, dispatch, order, length and seed. [RunParams.Spec]
// checks them and builds the [RunSpec]; the arrivals are built apart.
type RunParams struct {
	Rate  string // r, tokens/s, > 0: a decimal or a fraction p/q, exact
	Burst string // b, tokens, >= 1: a decimal or a fraction, exact
	K     int    // k equal sub-buckets (r/k, b/k), 1 to MaxSubBuckets; when Sub is ""
	// Sub gives the sub-buckets instead, as rate:burst pairs in
	// tokens/s:tokens separated by commas ("0.3:4,0.7:6"), exact.
	Sub          string
	AllowUnequal bool   // allow Σ r_l != r and Σ b_l != b (negative controls)
	Dispatch     string // one of systems.DispatchNames
	Order        string // fcfs, lifo or random
	// Jobs counts the jobs of the run, warm-up included, >= 1; with
	// WholeTrace it applies only when given (Given("jobs")).
	Jobs       int64
	Warmup     int64 // the first Warmup jobs are left out of the statistics, >= 0, < Jobs
	Seed       uint64
	Engine     bool // run on the engine rather than the fast path (same results)
	WholeTrace bool // the arrivals are a trace, run whole unless jobs is given
	// Given reports whether a parameter (by key: rate, burst, k, sub, ...)
	// was given; nil: none was.
	Given func(key string) bool
	// Name words a parameter in errors as the caller's user knows it
	// ("--rate"); nil: its key.
	Name func(key string) string
}

// name is key as the caller's user knows it.
func (p *RunParams) name(key string) string {
	if p.Name != nil {
		return p.Name(key)
	}
	return key
}

func (p *RunParams) given(key string) bool { return p.Given != nil && p.Given(key) }

// bad is the error of parameter key with value: what would fit.
func (p *RunParams) bad(key string, value any, want string) error {
	if value == "" {
		value = "''" // an empty value, shown as a shell would take it
	}
	return fmt.Errorf("%s %v: want %s", p.name(key), value, want)
}

// rat parses the exact value s of parameter key, in unit.
func (p *RunParams) rat(key, s, unit string) (exact.Rat, error) {
	r, err := exact.ParseRat(s)
	switch {
	case errors.Is(err, exact.ErrRange):
		return r, p.bad(key, s, "a number whose exact value fits the model (a fraction with a denominator below 2^63, such as a decimal with at most 18 places), "+unit)
	case err != nil:
		return r, p.bad(key, s, "a decimal such as 0.7 or a fraction such as 10/13, "+unit)
	}
	return r, nil
}

// Spec checks the parameters and returns the run they describe. Errors
// name the parameter (see Name), its value and what would fit.
func (p *RunParams) Spec() (RunSpec, error) {
	var spec RunSpec
	one, err := p.one()
	if err != nil {
		return spec, err
	}
	spec.One = one
	if spec.Subs, err = p.subs(one); err != nil {
		return spec, err
	}
	spec.AllowUnequal = p.AllowUnequal
	if !slices.Contains(systems.DispatchNames, p.Dispatch) {
		return spec, p.bad("dispatch", p.Dispatch, "one of "+strings.Join(systems.DispatchNames, ", "))
	}
	spec.Dispatch = p.Dispatch
	if spec.Order, err = buckets.ParseOrder(p.Order); err != nil {
		return spec, p.bad("order", p.Order, "fcfs, lifo or random")
	}
	spec.Seed, spec.Engine = p.Seed, p.Engine
	if p.Jobs < 1 {
		return spec, p.bad("jobs", p.Jobs, fmt.Sprintf("a number of jobs >= 1 (with %s, leave it out to run the whole trace)", p.name("trace")))
	}
	if !p.WholeTrace || p.given("jobs") {
		spec.MaxJobs = p.Jobs
	}
	if p.Warmup < 0 {
		return spec, p.bad("warmup", p.Warmup, "a number of jobs >= 0")
	}
	if spec.MaxJobs > 0 && p.Warmup >= spec.MaxJobs {
		return spec, p.bad("warmup", p.Warmup, fmt.Sprintf("a number of jobs below %s %d", p.name("jobs"), spec.MaxJobs))
	}
	spec.Warmup = p.Warmup
	return spec, nil
}

// one is the one bucket (r, b).
func (p *RunParams) one() (buckets.Params, error) {
	rate, err := p.rat("rate", p.Rate, "tokens/s")
	if err != nil {
		return buckets.Params{}, err
	}
	if rate.Sign() <= 0 {
		return buckets.Params{}, p.bad("rate", p.Rate, "a rate > 0 tokens/s")
	}
	burst, err := p.rat("burst", p.Burst, "tokens")
	if err != nil {
		return buckets.Params{}, err
	}
	if burst.Cmp(exact.Int(1)) < 0 {
		return buckets.Params{}, p.bad("burst", p.Burst, "a burst >= 1 token")
	}
	one := buckets.Params{Rate: rate, Burst: burst}
	if _, err := buckets.CommonScale(one); err != nil {
		return one, p.bad("rate", p.Rate, fmt.Sprintf("a rate and burst whose exact units fit the model (1/r and b/r in nanoseconds with a denominator below 2^63): %v", err))
	}
	return one, nil
}

// subs is the split of one: Sub's pairs when given, K equal sub-buckets
// otherwise, checked against one unless AllowUnequal.
func (p *RunParams) subs(one buckets.Params) ([]buckets.Params, error) {
	key, value := "k", strconv.Itoa(p.K)
	var subs []buckets.Params
	var err error
	if p.given("sub") {
		key, value = "sub", p.Sub
		subs, err = p.parseSubs()
	} else {
		subs, err = p.equalSubs(one)
	}
	if err != nil {
		return nil, err
	}
	if err := buckets.ValidateSplit(one, subs, p.AllowUnequal); err != nil {
		return nil, fmt.Errorf("%s %s with %s %v %s %v: %w (use %s for a negative control)",
			p.name(key), value, p.name("rate"), p.Rate, p.name("burst"), p.Burst, err, p.name("allow_unequal"))
	}
	return subs, nil
}

// equalSubs splits one into K equal sub-buckets.
func (p *RunParams) equalSubs(one buckets.Params) ([]buckets.Params, error) {
	if p.K < 1 || p.K > MaxSubBuckets {
		return nil, p.bad("k", p.K, fmt.Sprintf("between 1 and %d sub-buckets", MaxSubBuckets))
	}
	if one.Burst.Cmp(exact.Int(int64(p.K))) < 0 {
		return nil, p.bad("k", p.K, fmt.Sprintf("k <= %v: burst %v split %d ways leaves less than 1 token per sub-bucket", one.Burst.Floor(), one.Burst, p.K))
	}
	subs, err := buckets.EqualSplit(one, p.K)
	if err != nil {
		return nil, p.bad("k", p.K, fmt.Sprintf("a split of %s %v %s %v into valid sub-buckets (%v)", p.name("rate"), p.Rate, p.name("burst"), p.Burst, err))
	}
	return subs, nil
}

// parseSubs parses Sub, "r1:b1,r2:b2,...".
func (p *RunParams) parseSubs() ([]buckets.Params, error) {
	s := p.Sub
	if strings.TrimSpace(s) == "" {
		return nil, p.bad("sub", `""`, "rate:burst pairs separated by commas, e.g. 0.5:5,0.5:5")
	}
	pairs := strings.Split(s, ",")
	if len(pairs) > MaxSubBuckets {
		return nil, p.bad("sub", fmt.Sprintf("(%d sub-buckets)", len(pairs)), fmt.Sprintf("at most %d sub-buckets", MaxSubBuckets))
	}
	var subs []buckets.Params
	for i, pair := range pairs {
		rs, bs, ok := strings.Cut(strings.TrimSpace(pair), ":")
		r, err1 := exact.ParseRat(rs)
		b, err2 := exact.ParseRat(bs)
		switch {
		case !ok || err1 != nil || err2 != nil:
			return nil, p.bad("sub", s, fmt.Sprintf("rate:burst pairs separated by commas, each a decimal or a fraction p/q; sub-bucket %d is %q", i, pair))
		case r.Sign() <= 0:
			return nil, p.bad("sub", s, fmt.Sprintf("a rate > 0 tokens/s for sub-bucket %d, got %v", i, r))
		case b.Cmp(exact.Int(1)) < 0:
			return nil, p.bad("sub", s, fmt.Sprintf("a burst >= 1 token for sub-bucket %d, got %v", i, b))
		}
		sub := buckets.Params{Rate: r, Burst: b}
		if err := sub.Validate(); err != nil {
			return nil, p.bad("sub", s, fmt.Sprintf("valid sub-bucket %d (%v)", i, err))
		}
		subs = append(subs, sub)
	}
	return subs, nil
}
