//go:build unix

package arrivals

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckRereadablePipe: a named pipe is read only once.
func TestCheckRereadablePipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := CheckRereadable(fifo); !errors.Is(err, ErrOnePass) || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("named pipe: %v, want ErrOnePass", err)
	}
}
