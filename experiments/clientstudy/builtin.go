package clientstudy

import (
	"maps"
	"slices"

	"github.com/ratesim/ratesim/internal/specfile"
)

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

// builtinModelSpecs are the built-in studies of the clients model, as
// YAML spec files (see [BuiltinSpec]).
var builtinModelSpecs = map[string]string{
	"metastability": metastabilitySpec,
}

// BuiltinSpec returns the YAML spec of the built-in study name (ratesim
// sweep --builtin NAME runs it as a spec file of its model), and its
// model; ok is false when name is not one of [BuiltinNames].
func BuiltinSpec(name string) (text, model string, ok bool) {
	text, ok = builtinModelSpecs[name]
	if !ok {
		return "", "", false
	}
	model, err := specfile.Model([]byte(text), "builtin "+name)
	return text, model, err == nil
}

// BuiltinNames lists the built-in studies of this package (see
// [BuiltinSpec]), sorted; package splitstudy lists the split's.
func BuiltinNames() []string { return slices.Sorted(maps.Keys(builtinModelSpecs)) }
