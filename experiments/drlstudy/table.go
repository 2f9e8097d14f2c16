package drlstudy

import (
	"strings"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/internal/param"
)

// Table declares every parameter of the drl study once (internal/param):
// its YAML key (a key of [Params] and of a sweep spec's drl block), its
// flag in ratesim drl, unit, default, help, the designs that read it and
// whether ratesim drl --sweep may vary it. The parameters every design
// shares are declared here, each design's own in the design's file of
// package drl (drl.Design.Params); [DefaultParams], ratesim drl's flags
// and their help are derived from it. Values are checked by
// [Params.Spec], the one parser of flags and YAML keys.
var Table = param.Register(param.New("drl", "designs", Params{}, append(commonParams(), drl.DesignParams()...)...))

// commonParams declares the parameters every design reads, and those of
// the arrivals.
func commonParams() []param.Param {
	return []param.Param{
		{Key: "designs", Kind: param.Text, Default: "all", Usage: "designs to run, comma-separated, or all: " + strings.Join(drl.Designs, ", ") + " (all leaves out sync when shaping, and says so on stderr)"},
		{Key: "rate", Kind: param.Rat, Unit: "tokens/s", Default: "10", Sweep: true, Usage: "limit rate R per key, tokens/s (> 0; a decimal or a fraction p/q, exact)"},
		{Key: "burst", Kind: param.Rat, Unit: "tokens", Default: "20", Sweep: true, Usage: "limit burst B per key, tokens (>= 1, and B/N >= 1 for the designs with a bucket per node: static, store with --fail local, reconcile with --local share, lease, grd, fps)"},
		{Key: "nodes", Kind: param.Int, Unit: "nodes", Default: "4", Sweep: true, Usage: "N: nodes of the fleet (>= 1)"},
		{Key: "dispatch", Kind: param.Text, Default: "rr", Sweep: true, Usage: "how jobs reach nodes: rr, random, or hash (of the key)"},
		{Key: "police", Kind: param.Bool, Usage: "reject a job that finds no token instead of delaying it (shaping)"},
		{Key: "arrivals", Kind: param.Text, Default: "poisson", Usage: "generated arrivals: poisson (rate λ = load·R), periodic, or an arrival spec as in ratesim run (Zipf keys: 'poisson | keys:n=100,s=1.1')"},
		{Key: "load", Kind: param.Float, Default: "0.9", Sweep: true, Usage: "offered load λ/R of generated arrivals (> 0)"},
		{Key: "jobs", Kind: param.Int, Unit: "jobs", Default: "100000", Usage: "number of arrivals; with --trace the default is the whole trace"},
		{Key: "rate_window", Kind: param.Duration, Unit: "s", Default: "10s", Usage: "the admitted rate is measured over windows of this length (the table's time > R), > 0"},
	}
}
