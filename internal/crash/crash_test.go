package crash

import (
	"errors"
	"strings"
	"testing"
)

// TestRecover: a panic becomes an *Error holding the panic's value and
// the stack; no panic leaves the error as it is.
func TestRecover(t *testing.T) {
	work := func(xs []int, i int) (err error) {
		defer Recover(&err)
		_ = xs[i]
		return nil
	}
	if err := work([]int{1}, 0); err != nil {
		t.Errorf("no panic: %v", err)
	}
	err := work([]int{1}, 3)
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "index out of range [3] with length 1") || !strings.Contains(string(ce.Stack), "TestRecover") {
		t.Errorf("panic: %v (%T)", err, err)
	}
}
