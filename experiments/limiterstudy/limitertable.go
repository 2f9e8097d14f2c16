package limiterstudy

import (
	"strings"

	"github.com/ratesim/ratesim/internal/param"
)

// LimitersParams are the parameters of ratesim limiters as a user writes
// them (the flags; each YAML key is the flag's name in snake case):
// [LimitersTable] declares them, and ratesim limiters checks them and
// builds a [LimitersSpec]. Rates are exact decimals or fractions p/q,
// times plain seconds or with a unit.
type LimitersParams struct {
	Limiters       string   `yaml:"limiters"`        // all, or a comma-separated list of LimiterNames
	Rate           string   `yaml:"rate"`            // R, tokens/s; "": Limit/Window
	Limit          int64    `yaml:"limit"`           // L: burst, tokens, and window limit, jobs
	Window         string   `yaml:"window"`          // W
	Offset         string   `yaml:"offset"`          // fixed windows' edges at Offset + k·W, in [0, W)
	Queue          int      `yaml:"queue"`           // token-shape's and leaky-queue's queue, jobs; 0: L
	Soft           string   `yaml:"soft"`            // throttle's soft deficit, tokens; "": (L-1)/2
	Hard           string   `yaml:"hard"`            // throttle's hard deficit, tokens; "": L-1
	Arrivals       string   `yaml:"arrivals"`        // boundary, poisson, periodic or an arrival spec
	Gap            string   `yaml:"gap"`             // boundary: bursts this long before and after each edge
	Cycles         int      `yaml:"cycles"`          // boundary: cycles, 3W apart
	Stream         int      `yaml:"stream"`          // boundary: jobs spread over the window after each edge
	Load           float64  `yaml:"load"`            // λ/R of poisson, periodic and specs
	Jobs           int64    `yaml:"jobs"`            // arrivals of poisson, periodic and specs
	Durations      string   `yaml:"durations"`       // interval lengths d of α*(d), comma-separated
	Seed           uint64   `yaml:"seed"`            // root seed
	Profile        []string `yaml:"profile"`         // library-faithful limiters, NAME:key=value,...
	ServiceRate    string   `yaml:"service_rate"`    // downstream rate-latency server's rate, jobs/s
	ServiceLatency string   `yaml:"service_latency"` // its latency T
	SizeBurst      float64  `yaml:"size_burst"`      // burst sizing's fraction of jobs rejected or delayed
}

// LimitersTable declares the parameters of ratesim limiters once
// (internal/param): its flags (Table.Bind) and their defaults. The table
// owns each value's grammar and default; ratesim limiters checks the
// values against each other. The --profile help is the command's (it
// lists the profiles and their keys). It is not registered
// (param.Register) while no sweep spec takes these keys: the tests that
// sweep every registered table's keys run them through a spec.
var LimitersTable = param.New("limiters", "limiters", LimitersParams{}, []param.Param{
	{Key: "limiters", Kind: param.Text, Default: "all", Usage: "limiters to run, comma-separated, or all: " + strings.Join(LimiterNames, ", ")},
	{Key: "rate", Kind: param.Text, Unit: "tokens/s", Usage: "rate R of the buckets, GCRA and leaky bucket, tokens/s (> 0, exact: a decimal or p/q; default L/W)"},
	{Key: "limit", Kind: param.Int, Unit: "tokens", Default: "100", Usage: "L: burst b of the buckets in tokens and limit of the windows in jobs (>= 1)"},
	{Key: "window", Kind: param.Text, Unit: "s", Default: "60", Usage: "W: window length, seconds or with a unit (60, 1m, 500ms, 1/3), > 0"},
	{Key: "offset", Kind: param.Text, Unit: "s", Default: "0", Usage: "fixed windows' edges at offset + k·W from the Unix epoch (the trace's own clock), seconds or with a unit, in [0, W)"},
	{Key: "queue", Kind: param.Int, Unit: "jobs", Usage: "queue capacity of token-shape and leaky-queue, jobs (0: unbounded; default L)"},
	{Key: "soft", Kind: param.Text, Unit: "tokens", Usage: "throttle: token deficit up to which every job passes, tokens (exact; default (L-1)/2)"},
	{Key: "hard", Kind: param.Text, Unit: "tokens", Usage: "throttle: token deficit from which every job is rejected, tokens, <= L-1 (exact; default L-1)"},
	{Key: "arrivals", Kind: param.Text, Default: "boundary", Usage: "generated arrivals: boundary (bursts at window edges), poisson, periodic (λ = load·R), or an arrival spec as in ratesim run"},
	{Key: "gap", Kind: param.Text, Unit: "s", Usage: "boundary: the bursts arrive this long before and after each edge, seconds or with a unit, in (0, W/2) (default 1 s, or W/4 when W <= 2 s)"},
	{Key: "cycles", Kind: param.Int, Default: "10", Usage: "boundary: number of cycles (>= 1), 3W apart"},
	{Key: "stream", Kind: param.Int, Unit: "jobs", Usage: "boundary: jobs spread over the window after each edge (>= 0; default L)"},
	{Key: "load", Kind: param.Float, Default: "1.2", Usage: "poisson, periodic, specs: offered load λ/R (> 0)"},
	{Key: "jobs", Kind: param.Int, Unit: "jobs", Default: "100000", Usage: "number of arrivals of poisson, periodic and specs; with --trace or boundary, all unless given"},
	{Key: "durations", Kind: param.Text, Unit: "s", Usage: "interval lengths d at which α*(d) is measured, seconds, comma-separated (default 0 and W/128 to 4W, 8 per doubling)"},
	{Key: "seed", Short: "s", Kind: param.Int, Default: "1", Usage: "root seed (poisson arrivals: stream 0; throttle: stream 1)"},
	{Key: "profile", Kind: param.List, Usage: "a library-faithful limiter, NAME:key=value,... (repeatable)"},
	{Key: "service_rate", Kind: param.Text, Unit: "jobs/s", Usage: "downstream: every limiter's passing jobs go through a rate-latency server of this rate, jobs/s (exact, >= --rate), and are compared with the network-calculus bounds"},
	{Key: "service_latency", Kind: param.Text, Unit: "s", Default: "0", Usage: "downstream: the server's latency T, seconds or with a unit (>= 0; with --service-rate)"},
	{Key: "size_burst", Kind: param.Float, Usage: "burst sizing: for each --profile, the smallest value of its burst key for which at most this fraction of the arrivals is rejected or delayed, in [0, 1), beside the ideal bucket's b(r) at the profile's rate (reads the arrivals twice)"},
}...)
