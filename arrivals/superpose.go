package arrivals

import "io"

// Superpose returns the superposition of the processes ps: all their
// arrivals, merged in time order. Times are integer nanoseconds, so
// equal times are exactly equal; at equal times the process listed first
// comes first, and each process's own order is kept (a stable merge). Key, Sub and Line
// are those of the component. The result ends (io.EOF) when every
// component has ended; an error from a component ends it too, and Next
// returns that error again on every later call.
//
// Next looks at every component once per arrival, O(len(ps)), and does not
// allocate. Panics if ps is empty.
func Superpose(ps ...Process) Process {
	if len(ps) == 0 {
		panic("arrivals: Superpose of no processes")
	}
	return &superposed{ps: append([]Process(nil), ps...), heads: make([]Arrival, len(ps)), live: make([]bool, len(ps))}
}

type superposed struct {
	ps      []Process
	heads   []Arrival // the next arrival of each live component
	live    []bool
	started bool
	err     error
}

func (s *superposed) Next() (Arrival, error) {
	if s.err != nil {
		return Arrival{}, s.err
	}
	if !s.started {
		s.started = true
		for i := range s.ps {
			if err := s.pull(i); err != nil {
				return Arrival{}, err
			}
		}
	}
	best := -1
	for i, ok := range s.live {
		if ok && (best < 0 || s.heads[i].T < s.heads[best].T) {
			best = i
		}
	}
	if best < 0 {
		s.err = io.EOF
		return Arrival{}, io.EOF
	}
	a := s.heads[best]
	if err := s.pull(best); err != nil {
		return Arrival{}, err
	}
	return a, nil
}

// pull reads component i's next arrival into its head.
func (s *superposed) pull(i int) error {
	a, err := s.ps[i].Next()
	switch {
	case err == io.EOF:
		s.live[i] = false
	case err != nil:
		s.err = err
		return err
	default:
		s.heads[i], s.live[i] = a, true
	}
	return nil
}
