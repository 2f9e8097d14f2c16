// Package crash turns a panic in a worker goroutine into an error value,
// so that the command line can report a bug in ratesim as an internal
// error (exit 3, with what to report) instead of the process dying from a
// goroutine nobody can recover. Every package that starts goroutines
// (experiments' sweeps, searches and figures, clients' studies) defers
// [Recover] at the top of each.
package crash

import (
	"fmt"
	"runtime/debug"
)

// Error is a recovered panic: Value is what was passed to panic and Stack
// the goroutine's stack at the panic.
type Error struct {
	Value any
	Stack []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("internal error: panic: %v", e.Value)
}

// Recover, deferred at the top of a goroutine (or function), turns a
// panic into an *Error stored in *err; without a panic *err is left as
// it is.
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = &Error{Value: v, Stack: debug.Stack()}
	}
}
