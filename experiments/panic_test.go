package experiments

import (
	"errors"
	"strings"
	"testing"
)

// TestRecoverInto: a worker's panic becomes a *PanicError holding the
// panic's value and the worker's stack; no panic leaves the error as it is.
func TestRecoverInto(t *testing.T) {
	work := func(xs []int, i int) (err error) {
		defer recoverInto(&err)
		_ = xs[i]
		return nil
	}
	if err := work([]int{1}, 0); err != nil {
		t.Errorf("no panic: %v", err)
	}
	err := work([]int{1}, 3)
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "index out of range [3] with length 1") || !strings.Contains(string(pe.Stack), "TestRecoverInto") {
		t.Errorf("panic: %v (%T)", err, err)
	}
}
