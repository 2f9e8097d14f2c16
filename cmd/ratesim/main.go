// Command ratesim compares a token bucket with its split into k sub-buckets,
// checking Theorem 2 of R. Guérin, "When Two is Worse Than One" (2019) at
// every event. Run "ratesim help" for the commands.
package main

import (
	"os"

	"github.com/ratesim/ratesim/internal/budget"
	"github.com/ratesim/ratesim/internal/crash"
)

func main() {
	if code, ok := crash.Supervise(func(f crash.Fatal) int { return fatalError(os.Stderr, os.Args[1:], f) }); ok {
		os.Exit(code) // a supervisor: the run was its child's (internal/crash)
	}
	budget.Noted = crash.Note
	os.Exit(Execute(os.Args[1:], os.Stdout, os.Stderr))
}
