package arrivals

import (
	"cmp"
	"slices"

	"github.com/ratesim/ratesim/internal/heap"
)

// The runs of a sorted trace hold sortFirstRun entries, then twice as many
// in each run up to sortRunLen (4 MiB of 32-byte entries): large enough
// that few runs are merged, small enough that the unused room in the last
// run is small.
const (
	sortFirstRun = 1 << 10
	sortRunLen   = 1 << 17
)

// sortedRuns is a whole trace read for Sort: runs of entries in file order,
// each sorted by compareEntries, kept as a min-heap on the first unread
// entry of each run so that next yields the whole trace in order. A run is
// dropped, and its memory freed, once it has been read.
type sortedRuns struct {
	runs *heap.Heap[[]traceEntry] // the unread entries of each run; none is empty
}

// newSortedRuns sorts each of the non-empty runs and merges them.
// It costs O(n log n) time for n entries.
func newSortedRuns(runs [][]traceEntry) *sortedRuns {
	for _, r := range runs {
		slices.SortFunc(r, compareEntries)
	}
	return &sortedRuns{runs: heap.New(runBefore, runs)}
}

// runBefore orders runs by their first unread entry.
func runBefore(a, b []traceEntry) bool { return compareEntries(a[0], b[0]) < 0 }

// next returns the earliest unread entry, or false when all have been
// read. It costs O(log k) time for k runs.
func (h *sortedRuns) next() (traceEntry, bool) {
	if h.runs.Len() == 0 {
		return traceEntry{}, false
	}
	r := h.runs.Min()
	e := (*r)[0]
	if len(*r) == 1 {
		h.runs.Pop()
	} else {
		*r = (*r)[1:]
		h.runs.FixMin()
	}
	return e, true
}

// compareEntries orders entries by time and then by line, which is file
// order, so that sorting by it is stable.
func compareEntries(a, b traceEntry) int {
	if c := cmp.Compare(a.ns, b.ns); c != 0 {
		return c
	}
	return cmp.Compare(a.line, b.line)
}
