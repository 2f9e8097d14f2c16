// Command ratesim compares a token bucket with its split into k sub-buckets,
// checking Theorem 2 of R. Guérin, "When Two is Worse Than One" (2019) at
// every event. Run "ratesim help" for the commands.
package main

import "os"

func main() {
	os.Exit(Execute(os.Args[1:], os.Stdout, os.Stderr))
}
