//go:build unix && !linux

package crash

import "syscall"

// childAttr: only Linux can signal a child when its parent dies.
func childAttr() *syscall.SysProcAttr { return nil }
