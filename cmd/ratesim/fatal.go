package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ratesim/ratesim/internal/crash"
)

// fatalError reports a run that the Go runtime ended with a fatal error
// (out of memory, an unrecovered panic in a goroutine), or that was killed
// by SIGKILL, as the internal error it is (exit 3, docs/outputs.md): the
// up-front memory budget (issue 28) should have refused a run too large,
// so the estimate it quoted was wrong, and that is a bug to report.
func fatalError(stderr io.Writer, args []string, f crash.Fatal) int {
	var what string
	switch {
	case f.Killed:
		what = "killed by SIGKILL, which the kernel's out-of-memory killer sends when the machine runs out of memory"
	case f.OutOfMemory:
		what = "out of memory: the Go runtime could not allocate (its report is above)"
	default:
		what = "the Go runtime ended the run with a fatal error (its report is above)"
	}
	if f.OutOfMemory {
		if len(f.Notes) == 0 {
			what += "; the run made no estimate of its memory before it started"
		} else {
			what += "; the run " + strings.Join(f.Notes, "; ") + ": that estimate was wrong, or the budget (--max-memory) is more than this process may use"
		}
	}
	return internalError(stderr, args, &crash.Error{Value: fmt.Sprint(what)})
}
