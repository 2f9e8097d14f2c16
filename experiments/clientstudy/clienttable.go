package clientstudy

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/internal/param"
)

// ClientsTable declares the parameters of a run of reacting clients once
// (internal/param): the flags of ratesim clients (Table.Bind), the keys of
// a sweep spec's clients block ([ClientsParams.UnmarshalYAML] reads them
// through Table.Decode), the axes a clients sweep can vary and the
// defaults ([DefaultClientsParams]). The table owns each value's grammar
// (a whole number, a finite number, true or false) and its default;
// [ClientsParams.Spec] checks the values against each other, with the
// messages that name the parameters as the caller's user knows them.
// bin and seed are flags only: a sweep keeps no series, and seeds each
// replication itself.
var ClientsTable = param.Register(param.New("clients", "limiters", ClientsParams{},
	slices.Concat(clientsLimiterParams(), clientsRetryParams(), clientsServerParams(), clientsOverloadParams())...))

// clientsLimiterParams declares the limiter's and the arrivals'
// parameters, in ClientsParams' order.
func clientsLimiterParams() []param.Param {
	return []param.Param{
		{Key: "limiter", Kind: param.Text, Default: "token-police", Sweep: true, Usage: "the limiter, one of " + strings.Join(limiterstudy.LimiterNames, ", ")},
		{Key: "profile", Kind: param.Text, Sweep: true, Usage: "a library-faithful limiter instead of --limiter, 'NAME:key=value,...' (see 'ratesim limiters --help')"},
		{Key: "rate", Kind: param.Text, Unit: "tokens/s", Default: "10", Sweep: true, Usage: "--limiter: rate R, tokens/s (exact: a decimal or p/q, > 0)"},
		{Key: "limit", Kind: param.Int, Unit: "tokens", Default: "10", Sweep: true, Usage: "--limiter: burst b in tokens, or window limit in jobs (>= 1)"},
		{Key: "window", Kind: param.Text, Unit: "s", Default: "1", Sweep: true, Usage: "--limiter: window length of the window limiters, seconds or with a unit (> 0)"},
		{Key: "queue", Kind: param.Int, Unit: "jobs", Sweep: true, Usage: "--limiter: queue capacity of token-shape and leaky-queue, jobs (0: unbounded; default --limit)"},
		{Key: "soft", Kind: param.Text, Unit: "tokens", Sweep: true, Usage: "--limiter throttle: token deficit up to which every job passes, tokens (exact; default (L-1)/2)"},
		{Key: "hard", Kind: param.Text, Unit: "tokens", Sweep: true, Usage: "--limiter throttle: token deficit from which every job is rejected, tokens, <= L-1 (exact; default L-1)"},
		{Key: "offset", Kind: param.Text, Unit: "s", Default: "0", Sweep: true, Usage: "--limiter: fixed windows' edges at offset + k·W from the Unix epoch (the trace's own clock), seconds or with a unit, in [0, W)"},
		{Key: "arrivals", Kind: param.Text, Default: "poisson", Sweep: true, Usage: "open-loop requests: poisson, periodic (λ = load·rate) or an arrival spec as in ratesim run, such as 'cron:n=100,period=10'"},
		{Key: "load", Kind: param.Float, Default: "1.2", Sweep: true, Usage: "offered load λ/R where the arrival spec gives no rate (> 0)"},
		{Key: "jobs", Kind: param.Int, Unit: "requests", Default: "10000", Sweep: true, Usage: "open-loop requests (>= 0; 0 with --users for closed-loop users only); with --trace, all unless given"},
		{Key: "users", Kind: param.Int, Unit: "users", Sweep: true, Usage: "closed-loop users (>= 0), each sending its next request --think after the previous one ends"},
		{Key: "think", Kind: param.Text, Unit: "s", Default: "1", Sweep: true, Usage: "closed-loop users' think time, seconds or with a unit (>= 0)"},
		{Key: "horizon", Kind: param.Text, Unit: "s", Default: "60", Sweep: true, Usage: "closed-loop users start requests until this instant, seconds or with a unit (> 0)"},
	}
}

// clientsRetryParams declares the retry and pacing parameters.
func clientsRetryParams() []param.Param {
	return []param.Param{
		{Key: "backoff", Kind: param.Text, Default: "exponential", Sweep: true, Usage: "retry backoff: " + strings.Join(clients.BackoffNames(), ", ")},
		{Key: "base", Kind: param.Text, Unit: "s", Default: "100ms", Sweep: true, Usage: "backoff base, seconds or with a unit (> 0 except for none)"},
		{Key: "cap", Kind: param.Text, Unit: "s", Default: "10s", Sweep: true, Usage: "backoff cap, seconds or with a unit (>= --base; not given: 10s, or --base when larger)"},
		{Key: "max_attempts", Kind: param.Int, Unit: "attempts", Default: "10", Sweep: true, Usage: "attempts of one request, the first included, before it is given up (>= 1; 0 for no bound)"},
		{Key: "deadline", Kind: param.Text, Unit: "s", Default: "0", Sweep: true, Usage: "give a request up when its next attempt would come this long after its arrival, seconds or with a unit (0: no deadline)"},
		{Key: "retry_after", Kind: param.Bool, Sweep: true, Usage: "obey the limiter's Retry-After where it gives one, and --backoff elsewhere"},
		{Key: "retry_after_jitter", Kind: param.Text, Unit: "s", Default: "0", Sweep: true, Usage: "with --retry-after: add a draw uniform on [0, this] to Retry-After, seconds or with a unit"},
		{Key: "pace", Kind: param.Text, Unit: "requests/s", Sweep: true, Usage: "pace the open-loop requests to at most this many per second in front of the limiter (exact, > 0)"},
		{Key: "pace_jitter", Kind: param.Text, Unit: "s", Default: "0", Sweep: true, Usage: "with --pace: add a draw uniform on [0, this] to each gap, seconds or with a unit"},
	}
}

// clientsServerParams declares the downstream server's and the
// backfill's parameters.
func clientsServerParams() []param.Param {
	return []param.Param{
		{Key: "server_rate", Kind: param.Text, Unit: "jobs/s", Sweep: true, Usage: "feed every passing request to a downstream FIFO server of this service rate, jobs/s (exact, > 0)"},
		{Key: "buffer", Kind: param.Int, Unit: "jobs", Default: "10", Sweep: true, Usage: "with --server-rate: the server's waiting room, jobs (>= 0), not counting the job in service"},
		{Key: "backfill", Kind: param.Int, Unit: "requests", Sweep: true, Usage: "add a backfill of this many requests, paced to a fraction of --server-rate adjusted by AIMD (needs --server-rate)"},
		{Key: "backfill_fraction", Kind: param.Float, Default: "0.5", Sweep: true, Usage: "backfill: initial fraction of --server-rate, in [--backfill-min, --backfill-max]"},
		{Key: "backfill_min", Kind: param.Float, Default: "0.05", Sweep: true, Usage: "backfill: least fraction, in (0, 1]"},
		{Key: "backfill_max", Kind: param.Float, Default: "1", Sweep: true, Usage: "backfill: largest fraction, in (0, 1]"},
		{Key: "backfill_increase", Kind: param.Float, Default: "0.05", Sweep: true, Usage: "backfill: added to the fraction after an interval at or under target (>= 0)"},
		{Key: "backfill_decrease", Kind: param.Float, Default: "0.5", Sweep: true, Usage: "backfill: factor of the fraction after an interval over target, in (0, 1]"},
		{Key: "backfill_target", Kind: param.Text, Unit: "s", Default: "10ms", Sweep: true, Usage: "backfill: the foreground's mean queueing delay downstream over which it slows down, seconds or with a unit"},
		{Key: "backfill_interval", Kind: param.Text, Unit: "s", Default: "1s", Sweep: true, Usage: "backfill: control period, seconds or with a unit (> 0)"},
	}
}

// clientsOverloadParams declares the parameters of servers that can
// collapse, retry budgets and client throttling (issue 25), then bin,
// seed (flags only) and design.
func clientsOverloadParams() []param.Param {
	return []param.Param{
		{Key: "service", Kind: param.Text, Sweep: true, Usage: "run against servers that can collapse instead of a limiter, with this service time: exp:MEAN, det:D, lognormal:MEDIAN:SHAPE or trace:FILE:COL (times in seconds or with a unit)"},
		{Key: "servers", Kind: param.Int, Unit: "servers", Default: "1", Sweep: true, Usage: "with --service: servers, each attempt sent to the next in round-robin order (>= 1)"},
		{Key: "server_concurrency", Kind: param.Int, Unit: "jobs", Default: "1", Sweep: true, Usage: "with --service: jobs each server serves at once (>= 1)"},
		{Key: "server_queue", Kind: param.Text, Unit: "jobs", Default: "unbounded", Sweep: true, Usage: "with --service: each server's waiting room, jobs (>= 0), or unbounded; an attempt that finds it full fails at once"},
		{Key: "server_order", Kind: param.Text, Default: "fifo", Sweep: true, Usage: "with --service: the waiting room's order, fifo or lifo"},
		{Key: "contention", Kind: param.Float, Sweep: true, Usage: "with --service: a job starting as the n-th in service takes its draw times 1 + contention·(n − 1) (>= 0)"},
		{Key: "timeout", Kind: param.Text, Unit: "s", Default: "0", Sweep: true, Usage: "with --service: the client gives an attempt up after this long, seconds or with a unit (0: never); the server still serves it"},
		{Key: "fault", Kind: param.List, Sweep: true, Usage: "with --service, repeatable: KIND[@SERVER]:FROM:TO[:X], KIND crash (server down), error (answers fail with probability X), slow (service X times slower), capacity (concurrency times X); server 1 unless @SERVER"},
		{Key: "retry_budget", Kind: param.Text, Sweep: true, Usage: "with --service: aws, aws-adaptive, grpc[:max_tokens=10,token_ratio=0.1], finagle[:percent=20,min_per_s=10,window=10s], bucket[:deposit=0.1,size=10] or breaker[:threshold=0.1,window=10s]"},
		{Key: "client_throttle", Kind: param.Text, Sweep: true, Usage: "with --service: sre[:k=2,window=2m], client-side adaptive throttling (SRE book, Handling Overload)"},
		{Key: "recovery_hold", Kind: param.Text, Unit: "s", Default: "10s", Sweep: true, Usage: "with --service and --fault: goodput must average within 5% of its pre-trigger level over this long to count as recovered"},
		{Key: "concurrency", Kind: param.Text, Sweep: true, Usage: "with --service: an adaptive concurrency limit in front of each server, aimd[:initial=10,backoff=0.9,timeout=5s], gradient2[:initial=20,min=20,max=200,smoothing=0.2,queue=4,long_window=600], vegas[:initial=20,max=1000,smoothing=1,probe=30] (Netflix concurrency-limits) or envoy[:min=3,max=1000,request_count=50,buffer=0.25,jitter=0.15,update=100ms,min_rtt_interval=60s] (Envoy's adaptive concurrency gradient controller)"},
		{Key: "bin", Kind: param.Text, Unit: "s", Default: "1s", Usage: "width of the series bins in the JSON and --plot, seconds or with a unit (0: no series; at most 10^6 bins over the run)"},
		{Key: "seed", Short: "s", Kind: param.Int, Default: "1", Usage: "root seed: each client's jitter and each component draw from their own streams of it"},
		{Key: "design", Kind: param.Text, Sweep: true, Usage: "a distributed rate-limiting design instead of --limiter, with limit (--rate, --limit) and the design flags of ratesim drl"},
	}
}

// DefaultClientsParams returns the table's defaults, those of ratesim
// clients' flags: 10000 Poisson requests at load 1.2 against a policing
// token bucket of rate 10 tokens/s and burst 10, retried with exponential
// backoff (base 100 ms, cap 10 s, at most 10 attempts); with a service,
// one server of concurrency 1 with an unbounded FIFO queue, no timeout.
func DefaultClientsParams() ClientsParams {
	var p ClientsParams
	ClientsTable.Defaults(&p)
	return p
}

// traceKeys are the keys of a clients block's trace.
var traceKeys = []string{"path", "format", "time_col", "time_format", "sort", "skip_bad"}

// UnmarshalYAML reads a sweep spec's clients block: the table's keys
// through ClientsTable.Decode (the flags' parser), the trace block, and
// the keys of no clients parameter into DesignParams (the design's, which
// [ParseClientsStudy] checks). Keys not given keep their values.
func (p *ClientsParams) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: cannot unmarshal %s into %T", n.Line, n.Tag, p)}}
	}
	own := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "trace":
			if err := p.decodeTrace(v); err != nil {
				return err
			}
		case ClientsTable.Lookup(k.Value) != nil && ClientsTable.Lookup(k.Value).Key == k.Value:
			own.Content = append(own.Content, k, v)
		default:
			var x any
			if err := v.Decode(&x); err != nil {
				return err
			}
			if p.DesignParams == nil {
				p.DesignParams = map[string]any{}
			}
			p.DesignParams[k.Value] = x
		}
	}
	return ClientsTable.Decode("", own, p)
}

// decodeTrace reads the trace block, refusing keys it has not as yaml's
// KnownFields does.
func (p *ClientsParams) decodeTrace(v *yaml.Node) error {
	if v.Kind == yaml.MappingNode {
		for i := 0; i < len(v.Content); i += 2 {
			if k := v.Content[i]; !slices.Contains(traceKeys, k.Value) {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: field %s not found in type clientstudy.ClientsTrace", k.Line, k.Value)}}
			}
		}
	}
	var t ClientsTrace
	if err := v.Decode(&t); err != nil {
		return err
	}
	p.Trace = &t
	return nil
}
