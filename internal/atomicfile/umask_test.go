//go:build unix

package atomicfile

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNewFileModeHonoursUmask: a new file gets 0666 &^ umask, like
// os.Create: 0666 &^ 0022 = 0644, 0666 &^ 0027 = 0640, 0666 &^ 0077 =
// 0600, 0666 &^ 0 = 0666. The umask is process-wide, so this test does not
// run in parallel and restores it.
func TestNewFileModeHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}, {0, 0o666}} {
		syscall.Umask(tc.umask)
		path := filepath.Join(dir, "f"+tc.want.String())
		if err := Write(context.Background(), path, writeString("x")); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != tc.want {
			t.Errorf("umask %04o: mode %04o, want %04o", tc.umask, got, tc.want)
		}
	}
}
