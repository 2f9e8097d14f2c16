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
	if light(os.Args[1:]) {
		os.Exit(Execute(os.Args[1:], os.Stdout, os.Stderr)) // nothing to supervise: start-up alone
	}
	if code, ok := crash.Supervise(func(f crash.Fatal) int { return fatalError(os.Stderr, os.Args[1:], f) }); ok {
		os.Exit(code) // a supervisor: the run was its child's (internal/crash)
	}
	budget.Noted = crash.Note
	os.Exit(Execute(os.Args[1:], os.Stdout, os.Stderr))
}

// light reports whether args ask for text only (the version, help, shell
// completion), which allocates nothing a fatal error could come from: it
// runs without the supervisor's second process, whose start costs as much
// as ratesim's own (issue 26: start-up under 10 ms of CPU).
func light(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "--version", "-v", "--help", "-h", "help", "completion", "__complete", "__completeNoDesc":
		return len(args) == 1 || args[0] != "--version" && args[0] != "-v"
	}
	return false
}
