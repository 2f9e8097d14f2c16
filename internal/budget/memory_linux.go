package budget

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// physicalMemory returns the memory this process may use in bytes: the
// machine's memory, or less when the address-space limit (ulimit -v,
// RLIMIT_AS) or the cgroup's memory.max (a container's limit) is lower;
// false when the machine's memory cannot be known.
func physicalMemory() (uint64, bool) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0, false
	}
	have := uint64(si.Totalram) * uint64(si.Unit)
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur > 0 && rl.Cur < have {
		have = rl.Cur
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < have {
			have = n // "max" (no limit) does not parse
		}
	}
	return have, true
}
