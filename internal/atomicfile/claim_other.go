//go:build !unix

package atomicfile

import "os"

// lockFolder: without flock a folder is not claimed; the lock file is
// still made, so that ReleaseClaims removes what Claim made.
func lockFolder(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
}
