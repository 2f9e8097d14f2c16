package arrivals

import (
	"cmp"
	"slices"
)

// sortEntries sorts a trace by time, keeping file order among equal times.
// It costs O(n log n) time for n lines.
func sortEntries(all []traceEntry) {
	slices.SortStableFunc(all, func(a, b traceEntry) int { return cmp.Compare(a.ns, b.ns) })
}
