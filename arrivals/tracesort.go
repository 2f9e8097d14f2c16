package arrivals

import (
	"cmp"
	"container/heap"
	"slices"
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
// dropped, and its memory freed, once it has been read. It implements
// heap.Interface.
type sortedRuns struct {
	runs [][]traceEntry // the unread entries of each run; none is empty
}

// newSortedRuns sorts each of the non-empty runs and merges them.
// It costs O(n log n) time for n entries.
func newSortedRuns(runs [][]traceEntry) *sortedRuns {
	for _, r := range runs {
		slices.SortFunc(r, compareEntries)
	}
	h := &sortedRuns{runs: runs}
	heap.Init(h)
	return h
}

// next returns the earliest unread entry, or false when all have been
// read. It costs O(log k) time for k runs.
func (h *sortedRuns) next() (traceEntry, bool) {
	if len(h.runs) == 0 {
		return traceEntry{}, false
	}
	r := h.runs[0]
	e := r[0]
	if len(r) == 1 {
		heap.Pop(h)
	} else {
		h.runs[0] = r[1:]
		heap.Fix(h, 0)
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

func (h *sortedRuns) Len() int           { return len(h.runs) }
func (h *sortedRuns) Less(i, j int) bool { return compareEntries(h.runs[i][0], h.runs[j][0]) < 0 }
func (h *sortedRuns) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *sortedRuns) Push(x any)         { h.runs = append(h.runs, x.([]traceEntry)) }

func (h *sortedRuns) Pop() any {
	n := len(h.runs) - 1
	r := h.runs[n]
	h.runs[n] = nil
	h.runs = h.runs[:n]
	return r
}
