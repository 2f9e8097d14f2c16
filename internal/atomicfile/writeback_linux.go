package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeBackRange starts the disk write of f's bytes [off, off+n) and
// waits until the chunk before it (of the same length) is on disk, as
// sync_file_range(2) documents for streaming writes. Errors are ignored:
// Commit's fsync reports them.
func writeBackRange(f *os.File, off, n int64) {
	fd := int(f.Fd())
	unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE)
	if off >= n {
		unix.SyncFileRange(fd, off-n, n, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	}
}
