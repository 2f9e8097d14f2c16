//go:build !unix

package crash

// Supervise runs nothing on this system: the caller runs the program
// itself, and a fatal runtime error ends it as the runtime does.
func Supervise(report func(Fatal) int) (code int, supervised bool) { return 0, false }
