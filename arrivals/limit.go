package arrivals

import (
	"fmt"
	"io"
)

// Limit returns a process that yields the first n arrivals of p and then
// io.EOF. Errors from p are passed through and do not count towards n.
// p's own end (io.EOF before n arrivals) ends the limited process too.
//
// Limit panics if n < 0.
func Limit(p Process, n int) Process {
	if n < 0 {
		panic(fmt.Sprintf("arrivals: Limit(n=%d) with negative n", n))
	}
	return &limited{p: p, left: n}
}

// limited is the process returned by Limit.
type limited struct {
	p    Process
	left int // arrivals still to yield
}

func (l *limited) Next() (Arrival, error) {
	if l.left <= 0 {
		return Arrival{}, io.EOF
	}
	a, err := l.p.Next()
	if err != nil {
		return Arrival{}, err
	}
	l.left--
	return a, nil
}
