package experiments

import (
	"github.com/ratesim/ratesim/internal/samepoint"
)

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
