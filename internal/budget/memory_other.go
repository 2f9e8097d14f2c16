//go:build !linux

package budget

// physicalMemory returns the machine's memory in bytes, and false when it
// cannot be known (on this system, always).
func physicalMemory() (uint64, bool) { return 0, false }
