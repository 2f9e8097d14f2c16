package buckets

// waiting is a job waiting for a token.
type waiting[T Number] struct {
	id int64 // job number, 0-based, in order of arrival
	at T     // arrival instant
}

// jobQueue is a growable ring buffer of waiting jobs. It allocates only
// when it grows, so its memory is O(the most jobs ever waiting at once).
type jobQueue[T Number] struct {
	buf  []waiting[T]
	head int
	n    int
}

func (q *jobQueue[T]) len() int { return q.n }

func (q *jobQueue[T]) push(w waiting[T]) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = w
	q.n++
}

func (q *jobQueue[T]) grow() {
	size := 2 * len(q.buf)
	if size == 0 {
		size = 16
	}
	buf := make([]waiting[T], size)
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = buf, 0
}

// popFront removes and returns the oldest job. Panics if empty.
func (q *jobQueue[T]) popFront() waiting[T] {
	if q.n == 0 {
		panic("buckets: pop from an empty queue")
	}
	w := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return w
}

// popBack removes and returns the newest job. Panics if empty.
func (q *jobQueue[T]) popBack() waiting[T] {
	if q.n == 0 {
		panic("buckets: pop from an empty queue")
	}
	q.n--
	return q.buf[(q.head+q.n)&(len(q.buf)-1)]
}

// popAt removes and returns the i-th oldest job (0 <= i < len), moving the
// oldest job into its place. Panics if i is out of range.
func (q *jobQueue[T]) popAt(i int) waiting[T] {
	if i < 0 || i >= q.n {
		panic("buckets: queue index out of range")
	}
	mask := len(q.buf) - 1
	j := (q.head + i) & mask
	w := q.buf[j]
	q.buf[j] = q.buf[q.head]
	q.head = (q.head + 1) & mask
	q.n--
	return w
}
