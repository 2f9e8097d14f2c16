package experiments

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered in one of the worker goroutines of
// [Sweep] or [Verify] and returned as an error, so that the caller (the
// CLI) can report a bug as a bug instead of the process crashing from a
// goroutine it cannot recover. Value is what was passed to panic and
// Stack the worker's stack at the panic.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("experiments: internal error: panic: %v", e.Value)
}

// recoverInto, deferred at the top of a worker goroutine, turns a panic
// into a *PanicError stored in *err.
func recoverInto(err *error) {
	if v := recover(); v != nil {
		*err = &PanicError{Value: v, Stack: debug.Stack()}
	}
}
