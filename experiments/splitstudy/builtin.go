package splitstudy

import (
	"fmt"
	"maps"
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

// BuiltinNames lists the built-in studies of the split model, sorted
// (package clientstudy lists those of the clients model).
func BuiltinNames() []string { return slices.Sorted(maps.Keys(builtinSpecs)) }

// Builtin returns the built-in study name (see [BuiltinNames]).
func Builtin(name string) (*Spec, error) {
	text, ok := builtinSpecs[name]
	if !ok {
		return nil, fmt.Errorf("experiments: no built-in study %q, want one of %s", name, strings.Join(BuiltinNames(), ", "))
	}
	return ParseSpec(strings.NewReader(text), "builtin "+name)
}
