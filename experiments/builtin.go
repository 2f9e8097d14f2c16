package experiments

import (
	"fmt"
	"slices"
	"strings"
)

// builtinSpecs are the studies ratesim sweep --builtin runs, as YAML.
var builtinSpecs = map[string]string{
	// split-ratio: how much worse is a split of (r, b) into two sub-buckets
	// when a share p of the traffic goes to sub-bucket 1 and a share q of
	// the rate (and burst) is given to it? Grid 0 splits b = 10 tokens by
	// q; grid 1 splits b = 2 as 1 + 1 and varies the rate share only, so
	// that every sub-bucket is an M/D/1 queue and the split system's mean
	// delay is known in closed form (Pollaczek-Khinchine).
	"split-ratio": `# ratesim sweep --builtin split-ratio
name: split-ratio
arrivals: poisson
rate: 1            # r, tokens/s
burst: 10          # b, tokens (grid 1 overrides it)
k: 2
dispatch: weighted # each job to sub-bucket 1 with probability p
order: fcfs
jobs: 40000        # measured jobs per replication
warmup: 4000       # jobs before them, left out of the statistics
replications: 10
seed: 1
sweep:
  - burst: [10]
    load: [0.7, 0.8, 0.9]
    q: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    p: [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
  - burst: [2]
    load: [0.5, 0.7, 0.9]
    q_rate: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    p: [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
`,
}

// metastability is the map of issue 25: which mechanism keeps the
// metastable-retry scenario (two servers of concurrency 5, exponential
// service of mean 0.1 s: 100 jobs/s; a 1 s timeout; 3 retries with
// full-jitter backoff; server 1 crashing at 20 s, after a baseline long enough for the 5%
// rule of the recovery) out of a metastable state,
// at which load (the offered rate over the servers' 100 jobs/s) and for
// which crash length, and how fast each recovers.
const metastabilitySpec = `# ratesim sweep --builtin metastability
name: metastability
model: clients
clients:
  service: exp:100ms
  servers: 2
  server_concurrency: 5
  timeout: 1s
  arrivals: poisson
  rate: 100            # the servers' capacity, jobs/s: load is their utilisation
  jobs: 8000           # 100 s at load 0.8, 160 s at 0.5
  backoff: full
  base: 100ms
  cap: 10s
  max_attempts: 4      # 3 retries
  recovery_hold: 10s
replications: 10
seed: 1
sweep:
  - retry_budget: [none, aws, grpc, finagle, bucket, breaker]
    load: [0.5, 0.6, 0.7, 0.8]
    fault: [crash:20s:22s, crash:20s:25s, crash:20s:30s]
  - client_throttle: [sre]
    load: [0.5, 0.6, 0.7, 0.8]
    fault: [crash:20s:22s, crash:20s:25s, crash:20s:30s]
  - server_order: [lifo]
    load: [0.5, 0.6, 0.7, 0.8]
    fault: [crash:20s:22s, crash:20s:25s, crash:20s:30s]
  - concurrency: [aimd, gradient2, vegas]
    load: [0.5, 0.6, 0.7, 0.8]
    fault: [crash:20s:22s, crash:20s:25s, crash:20s:30s]
`

// builtinModelSpecs are the built-in studies of other models than the
// split, as YAML spec files (see [BuiltinModelSpec]).
var builtinModelSpecs = map[string]string{
	"metastability": metastabilitySpec,
}

// BuiltinModelSpec returns the YAML spec of the built-in study name when
// it is of another model than the split (run as a spec file of that
// model), and its model.
func BuiltinModelSpec(name string) (text, model string, ok bool) {
	text, ok = builtinModelSpecs[name]
	if !ok {
		return "", "", false
	}
	model, err := SpecModel([]byte(text), "builtin "+name)
	return text, model, err == nil
}

// BuiltinNames lists the built-in studies.
func BuiltinNames() []string {
	var names []string
	for n := range builtinSpecs {
		names = append(names, n)
	}
	for n := range builtinModelSpecs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Builtin returns the built-in study name (see [BuiltinNames]).
func Builtin(name string) (*Spec, error) {
	text, ok := builtinSpecs[name]
	if !ok {
		return nil, fmt.Errorf("experiments: no built-in study %q, want one of %s", name, strings.Join(BuiltinNames(), ", "))
	}
	return ParseSpec(strings.NewReader(text), "builtin "+name)
}
