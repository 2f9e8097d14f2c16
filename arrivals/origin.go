package arrivals

// PeekOrigin returns the absolute instant of proc's first arrival (its
// t = 0), in nanoseconds since the Unix epoch, when proc has one (a
// [*Trace] reports it through its Origin method), and a process that
// gives the same arrivals as proc from the start. To learn the origin of
// an unsorted trace it reads the first arrival (or error) ahead and hands
// it back first. Generated processes have no absolute clock: it returns
// 0, false and proc itself.
//
// Fixed windows that follow the trace's clock (edges at Offset + k·W from
// the Unix epoch) need the origin before the first arrival is decided:
// buckets.WindowParams.Aligned takes it.
func PeekOrigin(proc Process) (origin int64, ok bool, p Process) {
	o, has := proc.(interface{ Origin() (int64, bool) })
	if !has {
		return 0, false, proc
	}
	if origin, ok := o.Origin(); ok { // a sorted trace knows it at once
		return origin, true, proc
	}
	a, err := proc.Next()
	origin, ok = o.Origin()
	return origin, ok, &peeked{first: a, err: err, rest: proc}
}

// peeked is a process whose first arrival (or error) was read ahead.
type peeked struct {
	first Arrival
	err   error
	done  bool
	rest  Process
}

func (p *peeked) Next() (Arrival, error) {
	if !p.done {
		p.done = true
		return p.first, p.err
	}
	return p.rest.Next()
}
