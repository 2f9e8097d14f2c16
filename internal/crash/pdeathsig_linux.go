package crash

import "syscall"

// childAttr makes the kernel send the child SIGTERM when the supervisor
// dies (killed by SIGKILL, say), so that the child stops and removes its
// unfinished outputs rather than running on alone.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
