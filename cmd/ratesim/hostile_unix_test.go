//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIssue29FifoReadTwice: a command that reads its trace twice refuses
// a fifo at once (exit 2, naming the file and why), as it refuses standard
// input, instead of waiting forever for a second reading. Nothing writes
// to the fifo: a command that opened it would block, and the test time
// out.
func TestIssue29FifoReadTwice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ff")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no fifos here: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "stats", "--fit", fifo}, "--fit: arrivals: " + fifo + ": is not a regular file"},
		{[]string{"limiters", "--trace", fifo, "--profile", "xrate", "--size-burst", "0"}, "--size-burst: arrivals: " + fifo + ": is not a regular file"},
		{[]string{"drl", "--trace", fifo, "--designs", "one,store"}, "2 designs read it in turn"},
	} {
		_, errOut, code := ratesim(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying %q", c.args, code, errOut, c.want)
		}
	}
}
