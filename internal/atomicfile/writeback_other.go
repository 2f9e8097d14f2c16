//go:build !linux

package atomicfile

import "os"

// writeBackRange does nothing where sync_file_range(2) is missing: Commit's
// fsync writes everything.
func writeBackRange(f *os.File, off, n int64) {}
