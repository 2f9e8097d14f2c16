// Package samepoint finds the points a sweep lists more than once (in two
// grids of a union, say), so that each runs once and its later listings
// take the first one's results (issue 29).
package samepoint

// First returns, for each of n points, the index of the first point with
// the same key (its own index when none comes before).
func First(n int, key func(i int) string) []int {
	seen := make(map[string]int, n)
	first := make([]int, n)
	for i := range n {
		k := key(i)
		if j, ok := seen[k]; ok {
			first[i] = j
			continue
		}
		seen[k] = i
		first[i] = i
	}
	return first
}

// Split divides the points sel of a run (a shard's, those not finished
// yet) between those it runs and those whose results it copies from their
// first listing, which runs, or ran, in the same run (here reports the
// points of this run): a point is run when its first listing is not in
// this run (another shard's); the caller runs it with that listing's seed,
// so that every listing of a point gets the same results.
func Split(sel, first []int, here func(i int) bool) (run, copies []int) {
	for _, i := range sel {
		if first[i] != i && here(first[i]) {
			copies = append(copies, i)
		} else {
			run = append(run, i)
		}
	}
	return run, copies
}
