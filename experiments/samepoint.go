package experiments

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/internal/samepoint"
)

// ValuesKey is the key of a model's point given by its swept values (a
// YAML value per swept key): the keys in order with each value's YAML.
// Points of one sweep share every other parameter, so equal keys are the
// same point; a point listed with different keys (a default written out
// in one grid) is not recognised, and runs again.
func ValuesKey(values map[string]*yaml.Node) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v, err := yaml.Marshal(values[k])
		if err != nil {
			v = []byte(values[k].Value)
		}
		b.WriteString(k + "=" + strings.TrimSpace(string(v)) + ";")
	}
	return b.String()
}

// modelSamePoints returns, for a model that tells equal points apart
// (PointKey), the first listing of each point and sel split between the
// points to run and those to copy (samepoint.Split); for another model,
// every point is its own and runs.
func modelSamePoints(m Model, sel []int, shard Shard) (canon, run, copies []int) {
	n := m.NumPoints()
	k, ok := m.(interface{ PointKey(point int) string })
	if !ok {
		canon = make([]int, n)
		for i := range canon {
			canon[i] = i
		}
		return canon, sel, nil
	}
	canon = samepoint.First(n, k.PointKey)
	run, copies = samepoint.Split(sel, canon, shard.Has)
	return canon, run, copies
}

// copyRows gives each point of copies the rows of its first listing, with
// its own index in the first column; a point whose first listing did not
// finish (an interrupted run) gets none.
func copyRows(byPoint map[int][][]any, canon, copies []int) {
	for _, c := range copies {
		rs, ok := byPoint[canon[c]]
		if !ok {
			continue
		}
		cp := make([][]any, len(rs))
		for j, r := range rs {
			cp[j] = append([]any{float64(c)}, r[1:]...)
		}
		byPoint[c] = cp
	}
}
