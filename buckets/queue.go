package buckets

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
)

// Order is the service order among jobs waiting for a token. Every order
// here is work-conserving: a waiting job leaves as soon as one whole token
// is available, so the instants at which tokens are granted do not depend
// on the order, only which job receives each token does (R. Guérin, "When
// Two is Worse Than One", 2019, closing remark).
type Order int

const (
	FCFS   Order = iota // first come, first served (the note's default)
	LIFO                // last come, first served
	Random              // a uniformly random waiting job
)

// Orders lists every service order.
var Orders = []Order{FCFS, LIFO, Random}

// String returns the order's command-line name: "fcfs", "lifo" or "random".
func (o Order) String() string {
	switch o {
	case FCFS:
		return "fcfs"
	case LIFO:
		return "lifo"
	case Random:
		return "random"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// ParseOrder returns the Order named s ("fcfs", "lifo" or "random").
func ParseOrder(s string) (Order, error) {
	for _, o := range Orders {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, &ParamError{Name: "service order", Value: s, Want: "fcfs, lifo or random"}
}

// waiting is a job waiting in a limiter's queue.
type waiting struct {
	id int64       // the id the job was offered with
	at engine.Time // arrival instant
}

// jobQueue is a growable ring buffer of waiting jobs. It allocates only
// when it grows, so its memory is O(the most jobs ever waiting at once).
type jobQueue struct {
	buf  []waiting
	head int
	n    int
}

func (q *jobQueue) len() int { return q.n }

func (q *jobQueue) push(w waiting) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = w
	q.n++
}

func (q *jobQueue) grow() {
	size := 2 * len(q.buf)
	if size == 0 {
		size = 16
	}
	buf := make([]waiting, size)
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = buf, 0
}

// at returns the i-th oldest job (0 <= i < len).
func (q *jobQueue) at(i int) waiting { return q.buf[(q.head+i)&(len(q.buf)-1)] }

// popFront removes and returns the oldest job. Panics if empty.
func (q *jobQueue) popFront() waiting {
	if q.n == 0 {
		panic("buckets: pop from an empty queue")
	}
	w := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return w
}

// popBack removes and returns the newest job. Panics if empty.
func (q *jobQueue) popBack() waiting {
	if q.n == 0 {
		panic("buckets: pop from an empty queue")
	}
	q.n--
	return q.buf[(q.head+q.n)&(len(q.buf)-1)]
}

// popAt removes and returns the i-th oldest job (0 <= i < len), moving the
// oldest job into its place. Panics if i is out of range.
func (q *jobQueue) popAt(i int) waiting {
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
