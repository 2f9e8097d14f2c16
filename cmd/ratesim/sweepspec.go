package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/specfile"
)

// specFlags are the experiment parameters given as flags; each overrides
// the spec file or built-in study when set.
type specFlags struct {
	s                                splitstudy.Spec
	rateShares, burstShares, traffic string
	grid                             []string
}

// specFlagNames maps spec fields to their flags.
var specFlagNames = map[string]string{
	"name": "name", "arrivals": "arrivals", "load": "load", "rate": "rate", "burst": "burst", "k": "k",
	"rate_shares": "rate-shares", "burst_shares": "burst-shares", "dispatch": "dispatch",
	"traffic_shares": "traffic-shares", "order": "order", "jobs": "jobs-per-replication", "warmup": "warmup",
	"replications": "replications", "seed": "seed", "sweep": "grid",
}

// scalarSpecKeys are the spec keys whose flag sets them as it is.
var scalarSpecKeys = []string{"name", "arrivals", "load", "rate", "burst", "k", "dispatch", "order", "jobs", "warmup", "replications", "seed"}

// buildSpec reads the spec (file, built-in or defaults) and applies the
// flags that were set.
func (f *sweepFlags) buildSpec(cmd *cobra.Command, args []string) (*splitstudy.Spec, error) {
	spec, err := f.baseSpec(args)
	if err != nil {
		return nil, err
	}
	given, err := f.applyFlags(cmd, spec)
	if err != nil {
		return nil, err
	}
	// A trace study measures the whole trace unless --jobs-per-replication
	// or --warmup (or the spec) says otherwise, and its loads come from
	// the trace's mean rate.
	var fit []string
	for _, k := range []string{"jobs", "warmup"} {
		if given[k] {
			fit = append(fit, k)
		}
	}
	if err := spec.FitTrace(cmd.Context(), fit...); err != nil {
		return nil, err
	}
	// Validating builds every point: refuse a whole sweep too large for
	// the machine first (a shard is checked once its points are known).
	if n := spec.NumPoints(); f.shard == "" && n <= experiments.MaxPoints {
		if err := checkSweepMemory(n); err != nil {
			return nil, err
		}
	}
	if err := spec.Validate(); err != nil {
		return nil, specFlagError(err, cmd.Flags().Changed, args)
	}
	return spec, nil
}

// baseSpec is the spec the flags apply to: the file, the built-in study,
// or the defaults.
func (f *sweepFlags) baseSpec(args []string) (*splitstudy.Spec, error) {
	switch {
	case len(args) == 1 && f.builtin != "":
		return nil, fmt.Errorf("give a SPEC file or --builtin, not both")
	case len(args) == 1:
		return splitstudy.ReadSpec(args[0])
	case f.builtin != "":
		spec, err := splitstudy.Builtin(f.builtin)
		if err != nil {
			return nil, flagError("builtin", f.builtin, "one of "+strings.Join(builtinNames(), ", "))
		}
		return spec, nil
	}
	d := splitstudy.DefaultSpec()
	return &d, nil
}

// applyFlags sets the spec's parameters whose flags were given and returns
// their keys.
func (f *sweepFlags) applyFlags(cmd *cobra.Command, spec *splitstudy.Spec) (map[string]bool, error) {
	changed := cmd.Flags().Changed
	src := f.spec.s
	if changed("jobs") {
		if changed("jobs-per-replication") {
			return nil, fmt.Errorf("--jobs is the old spelling of --jobs-per-replication: give --jobs-per-replication only")
		}
		deprecated(cmd, "sweep --jobs", "--jobs-per-replication (run's --jobs counts all the jobs of one run)")
		src.Jobs = f.oldJobs
	}
	given := map[string]bool{}
	for _, k := range scalarSpecKeys {
		if changed(specFlagNames[k]) || k == "jobs" && changed("jobs") {
			given[k] = true
			spec.Override(&src, k)
		}
	}
	for _, l := range []struct {
		flag string
		text string
		dst  *[]float64
	}{{"rate-shares", f.spec.rateShares, &spec.RateShares}, {"burst-shares", f.spec.burstShares, &spec.BurstShares}, {"traffic-shares", f.spec.traffic, &spec.TrafficShares}} {
		if !changed(l.flag) {
			continue
		}
		xs, err := parseFloats(l.text)
		if err != nil {
			return nil, flagError(l.flag, l.text, "shares separated by commas, e.g. 0.7,0.3")
		}
		*l.dst = xs
		if !changed("k") {
			spec.K = len(xs)
		}
	}
	if changed("grid") {
		g, err := parseGrid(f.spec.grid)
		if err != nil {
			return nil, err
		}
		spec.Sweep = splitstudy.Sweep{g}
	}
	return given, nil
}

// parseGrid reads the --grid axes.
func parseGrid(axes []string) (splitstudy.Grid, error) {
	var g splitstudy.Grid
	for _, a := range axes {
		ax, err := splitstudy.ParseAxis(a)
		if err != nil {
			return nil, flagError("grid", a, fmt.Sprintf("name=v1,v2,... (%v)", err))
		}
		for _, prev := range g {
			if prev.Name == ax.Name {
				return nil, flagError("grid", a, "each parameter once")
			}
		}
		g = append(g, ax)
	}
	return g, nil
}

// specFlagError words an invalid spec by the flag that set the field, or
// the file, or the flag that would set it.
func specFlagError(err error, changed func(string) bool, args []string) error {
	var se *specfile.Error
	if !errors.As(err, &se) {
		return err
	}
	top, _, _ := strings.Cut(se.Field, ".")
	if fl, ok := specFlagNames[top]; ok && changed(fl) {
		return fmt.Errorf("--%s: %v", fl, se.Err)
	}
	if len(args) == 1 {
		return fmt.Errorf("%s with the flags given: %s: %v", args[0], se.Field, se.Err)
	}
	return fmt.Errorf("%s: %v (set it with --%s)", se.Field, se.Err, specFlagNames[top])
}

func parseFloats(s string) ([]float64, error) {
	var xs []float64
	for _, p := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	return xs, nil
}

// sweepBytesPerPoint is the memory a sweep keeps per point until it
// writes its results: the point's statistics and its rows, measured as
// the growth of the peak resident memory over 10^4 points (7.6 KB per
// point, rounded up).
const sweepBytesPerPoint = 8 << 10

// checkSweepMemory refuses, before anything runs, a sweep of points whose
// results would need more memory than the machine has, with the estimate.
func checkSweepMemory(points int) error {
	need := uint64(points) * sweepBytesPerPoint
	have, ok := physicalMemory()
	if !ok || need <= have {
		return nil
	}
	return fmt.Errorf("the sweep has %s and would keep about %.3g GB of results in memory (%d KiB per point), more than the machine's %.3g GB: use fewer points, or split it with --shard i/n (n >= %d) and merge the shards",
		count(points, "point"), float64(need)/1e9, sweepBytesPerPoint>>10, float64(have)/1e9, need/have+1)
}
