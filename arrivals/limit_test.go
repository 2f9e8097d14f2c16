package arrivals

import (
	"errors"
	"io"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

func TestLimit(t *testing.T) {
	p, _ := NewPeriodic(exact.Int(1), exact.Rat{})
	l := Limit(p, 3)
	for i := range 3 {
		a, err := l.Next()
		if err != nil || a.T != engine.Time(i)*engine.Second {
			t.Fatalf("step %d: Next() = %+v, %v, want T %d s", i, a, err, i)
		}
	}
	for i := range 2 {
		if _, err := l.Next(); err != io.EOF {
			t.Errorf("after 3 arrivals, call %d: err = %v, want io.EOF", i, err)
		}
	}
}

func TestLimitZero(t *testing.T) {
	p, _ := NewPeriodic(exact.Int(1), exact.Rat{})
	if _, err := Limit(p, 0).Next(); err != io.EOF {
		t.Errorf("Limit(p, 0).Next() err = %v, want io.EOF", err)
	}
}

// failing fails once, then yields arrivals at 0.
type failing struct{ failed bool }

var errOnce = errors.New("once")

func (f *failing) Next() (Arrival, error) {
	if !f.failed {
		f.failed = true
		return Arrival{}, errOnce
	}
	return Arrival{Sub: -1}, nil
}

func TestLimitErrorsDoNotCount(t *testing.T) {
	l := Limit(&failing{}, 1)
	if _, err := l.Next(); err != errOnce {
		t.Fatalf("first Next err = %v, want %v", err, errOnce)
	}
	if _, err := l.Next(); err != nil {
		t.Fatalf("second Next err = %v, want nil", err)
	}
	if _, err := l.Next(); err != io.EOF {
		t.Fatalf("third Next err = %v, want io.EOF", err)
	}
}

func TestLimitNegativePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Limit(p, -1) did not panic")
		}
	}()
	Limit(&failing{}, -1)
}
