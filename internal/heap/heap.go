// Package heap is the binary min-heap shared by ratesim's priority queues
// off the hottest paths (the downstream server's pending arrivals, the
// merge of a sorted trace's runs). Unlike container/heap it is generic,
// so Push and Pop neither box nor allocate beyond the slice's growth.
//
// Three heaps keep their own code: the event queue of package engine
// (which imports nothing of ours); the cron and on-off generators' heaps,
// on the per-arrival path, where this heap calls its comparison through a
// function value (the cron generator on it measured 1.2 to 2.8 times
// slower per arrival in BenchmarkGenerators/cron, side by side); and the
// heavy-hitter counter of arrivals.Stats, whose heap keeps an index of
// each key's position.
package heap

// Heap is a binary min-heap of T under less, a strict weak order. The
// zero Heap is not usable; make one with [New].
type Heap[T any] struct {
	items []T
	less  func(a, b T) bool
}

// New returns a heap of items (which it takes over and reorders) under
// less, in O(len(items)) time.
func New[T any](less func(a, b T) bool, items []T) *Heap[T] {
	h := &Heap[T]{items: items, less: less}
	for i := len(items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

// Len returns the number of items.
func (h *Heap[T]) Len() int { return len(h.items) }

// Items returns the items in heap order (the least first), for reading
// only.
func (h *Heap[T]) Items() []T { return h.items }

// Min returns a pointer to the least item, which the caller may change
// and then restore the order with [Heap.FixMin]. It panics on an empty
// heap.
func (h *Heap[T]) Min() *T { return &h.items[0] }

// Push adds x in O(log n) time.
func (h *Heap[T]) Push(x T) {
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

// Pop removes and returns the least item in O(log n) time. It panics on
// an empty heap.
func (h *Heap[T]) Pop() T {
	n := len(h.items) - 1
	x := h.items[0]
	h.items[0] = h.items[n]
	var zero T
	h.items[n] = zero // drop references held by the removed slot
	h.items = h.items[:n]
	if n > 0 {
		h.down(0)
	}
	return x
}

// FixMin restores the order after the least item was changed in place.
func (h *Heap[T]) FixMin() { h.down(0) }

func (h *Heap[T]) up(i int) {
	items := h.items
	x := items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(x, items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = x
}

func (h *Heap[T]) down(i int) {
	items := h.items
	n := len(items)
	x := items[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(items[r], items[l]) {
			m = r
		}
		if !h.less(items[m], x) {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = x
}
