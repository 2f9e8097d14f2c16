package splitstudy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/param"
	"github.com/ratesim/ratesim/internal/specfile"
	"github.com/ratesim/ratesim/systems"
)

// MaxSubBuckets bounds k: each event costs O(k), and a split into more
// sub-buckets than this is almost certainly a typo.
const MaxSubBuckets = 65536

// RunParams are the parameters of one run as a user gives them (ratesim
// run's flags, declared once in [RunTable]): the one bucket, its split as
// k equal sub-buckets or as rate:burst pairs, dispatch, order, length and
// seed. [RunParams.Spec] checks them and builds the [RunSpec]; the
// arrivals are built apart.
type RunParams struct {
	Rate  string `yaml:"rate"`  // r, tokens/s, > 0: a decimal or a fraction p/q, exact
	Burst string `yaml:"burst"` // b, tokens, >= 1: a decimal or a fraction, exact
	K     int    `yaml:"k"`     // k equal sub-buckets (r/k, b/k), 1 to MaxSubBuckets; when Sub is not given
	// Sub gives the sub-buckets instead, as rate:burst pairs in
	// tokens/s:tokens separated by commas ("0.3:4,0.7:6"), exact.
	Sub          string `yaml:"sub"`
	AllowUnequal bool   `yaml:"allow_unequal"` // allow Σ r_l != r and Σ b_l != b (negative controls)
	Dispatch     string `yaml:"dispatch"`      // one of systems.DispatchNames
	Order        string `yaml:"order"`         // fcfs, lifo or random
	// Jobs counts the jobs of the run, warm-up included, >= 1; with
	// WholeTrace it applies only when given (Given("jobs")).
	Jobs       int64  `yaml:"jobs"`
	Warmup     int64  `yaml:"warmup"` // the first Warmup jobs are left out of the statistics, >= 0, < Jobs
	Seed       uint64 `yaml:"seed"`
	Engine     bool   `yaml:"engine"` // run on the engine rather than the fast path (same results)
	WholeTrace bool   // the arrivals are a trace, run whole unless jobs is given
	// Given reports whether a parameter (by key: rate, burst, k, sub, ...)
	// was given; nil: none was.
	Given func(key string) bool
	// Name words a parameter in errors as the caller's user knows it
	// ("--rate"); nil: its key.
	Name func(key string) string
}

// RunTable declares the parameters of [RunParams] once: ratesim run's
// flags are bound from it, and [RunParams.Spec] checks each value with
// the same check and message.
var RunTable = param.Register(param.New("run", "systems", RunParams{},
	param.Param{Key: "rate", Kind: param.Rat, Unit: "tokens/s", Default: "1", Check: ratAtLeast(0, true, "a rate > 0 tokens/s"),
		Usage: "token rate r of the one bucket, tokens/s (> 0; a decimal or a fraction p/q, exact)"},
	param.Param{Key: "burst", Kind: param.Rat, Unit: "tokens", Default: "10", Check: ratAtLeast(1, false, "a burst >= 1 token"),
		Usage: "capacity b of the one bucket, tokens (>= 1; a decimal or a fraction, exact)"},
	param.Param{Key: "k", Kind: param.Int, Default: "2", Check: intBetween(1, MaxSubBuckets, fmt.Sprintf("between 1 and %d sub-buckets", MaxSubBuckets)),
		Usage: "split into k equal sub-buckets (r/k, b/k); needs b/k >= 1"},
	param.Param{Key: "sub", Kind: param.Text, Unit: "tokens/s:tokens",
		Usage: "split into the given sub-buckets, rate:burst pairs in tokens/s:tokens, e.g. 0.3:4,0.7:6 (exact)"},
	param.Param{Key: "allow_unequal", Kind: param.Bool,
		Usage: "allow Σ r_l != r and Σ b_l != b (negative controls: the theorem need not hold)"},
	param.Param{Key: "dispatch", Kind: param.Enum, Choices: systems.DispatchNames, Default: "rr",
		Usage: "dispatch policy: rr, random (∝ r_l), hash (of --key-col, rendezvous ∝ r_l), least-loaded, column (--sub-col)"},
	param.Param{Key: "order", Kind: param.Enum, Choices: []string{"fcfs", "lifo", "random"}, Default: "fcfs",
		Usage: "service order among waiting jobs: fcfs, lifo or random"},
	param.Param{Key: "jobs", Kind: param.Int, Unit: "jobs", Default: "1000000", Check: intBetween(1, math.MaxInt64, "a number of jobs >= 1 (with --trace, leave it out to run the whole trace)"),
		Usage: "number of jobs (arrivals) of the run, the --warmup ones included; with --trace the default is the whole trace (sweep counts per replication: --jobs-per-replication)"},
	param.Param{Key: "warmup", Kind: param.Int, Unit: "jobs", Default: "0", Check: intBetween(0, math.MaxInt64, "a number of jobs >= 0"),
		Usage: "leave the first N jobs out of the delay statistics (not of the check or --jobs-out)"},
	param.Param{Key: "seed", Short: "s", Kind: param.Int, Default: "1", Usage: "root seed of every random stream"},
	param.Param{Key: "engine", Kind: param.Bool,
		Usage: "run on the general event-queue engine instead of the fast path (same results, slower)"},
))

// ratAtLeast checks an exact value >= min (> min when strict), want what
// fits.
func ratAtLeast(min int64, strict bool, want string) func(any) string {
	return func(v any) string {
		if c := v.(exact.Rat).Cmp(exact.Int(min)); c < 0 || strict && c == 0 {
			return want
		}
		return ""
	}
}

// intBetween checks a whole number in [lo, hi], want what fits.
func intBetween(lo, hi int64, want string) func(any) string {
	return func(v any) string {
		if n := v.(int64); n < lo || n > hi {
			return want
		}
		return ""
	}
}

// checkEach checks each parameter alone with its declaration's check
// ([RunTable]), in declaration order.
func (p *RunParams) checkEach() error {
	scratch := *p
	for _, d := range RunTable.Params() {
		f, _ := specfile.YAMLField(p, d.Key)
		text := fmt.Sprint(f.Interface())
		if err := RunTable.Set(&scratch, d.Key, text); err != nil {
			var pe *param.Error
			if errors.As(err, &pe) {
				return p.bad(d.Key, text, pe.Want)
			}
			return err
		}
	}
	return nil
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

// Spec checks the parameters, each alone as [RunTable] declares it, then
// together (the split, the warm-up within the jobs), and returns the run
// they describe. Errors name the parameter (see Name), its value and what
// would fit.
func (p *RunParams) Spec() (RunSpec, error) {
	var spec RunSpec
	if err := p.checkEach(); err != nil {
		return spec, err
	}
	one, err := p.one()
	if err != nil {
		return spec, err
	}
	spec.One = one
	if spec.Subs, err = p.subs(one); err != nil {
		return spec, err
	}
	spec.AllowUnequal, spec.Dispatch = p.AllowUnequal, p.Dispatch
	spec.Order, _ = buckets.ParseOrder(p.Order) // one of the choices (checkEach)
	spec.Seed, spec.Engine = p.Seed, p.Engine
	if !p.WholeTrace || p.given("jobs") {
		spec.MaxJobs = p.Jobs
	}
	if spec.MaxJobs > 0 && p.Warmup >= spec.MaxJobs {
		return spec, p.bad("warmup", p.Warmup, fmt.Sprintf("a number of jobs below %s %d", p.name("jobs"), spec.MaxJobs))
	}
	spec.Warmup = p.Warmup
	return spec, nil
}

// one is the one bucket (r, b), whose texts checkEach parsed.
func (p *RunParams) one() (buckets.Params, error) {
	rate, _ := exact.ParseRat(p.Rate)
	burst, _ := exact.ParseRat(p.Burst)
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
