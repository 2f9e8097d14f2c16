package experiments

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// samePoints returns, for each of n points, the index of the first point
// with the same key (its own index when none comes before): a point listed
// twice in a sweep (in two grids of a union, say) runs once, and its
// second listing takes the first one's results (issue 29).
func samePoints(n int, key func(i int) string) []int {
	first := make(map[string]int, n)
	canon := make([]int, n)
	for i := range n {
		k := key(i)
		if j, ok := first[k]; ok {
			canon[i] = j
			continue
		}
		first[k] = i
		canon[i] = i
	}
	return canon
}

// pointKey is the value of every sweepable parameter at p: two points
// with the same key run the same model.
func pointKey(p *Point) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(axisKind)) {
		b.WriteString(name + "=" + formatAxisValue(p.axisValue(name)) + ";")
	}
	return b.String()
}

// splitSame divides the points of a run (a shard's, those not finished
// yet) between those it runs and those whose results it copies from an
// equal point that runs, or ran, in the same run: a point is run when its
// first equal point is not in this run (another shard's), with that
// point's seed, so that every listing of a point gets the same results.
func splitSame(pts []int, canon []int, here func(i int) bool) (run, copies []int) {
	for _, i := range pts {
		if canon[i] != i && here(canon[i]) {
			copies = append(copies, i)
		} else {
			run = append(run, i)
		}
	}
	return run, copies
}

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
// points to run and those to copy (see splitSame); for another model,
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
	canon = samePoints(n, k.PointKey)
	run, copies = splitSame(sel, canon, shard.Has)
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
