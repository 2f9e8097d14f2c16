//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// lockFolder opens the lock file at path and locks it (flock LOCK_EX,
// without waiting), writing this process's id into it; a lock held by
// another process is [ErrBusy] with that process's id. A lock file that
// its holder removed while this process opened it (the holder released
// it) is opened again, so that two processes never lock two files of the
// same name.
func lockFolder(path string) (*os.File, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, busy(string(b[:n]))
			}
			return nil, err
		}
		var held, named syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &held) != nil || syscall.Stat(path, &named) != nil || held.Ino != named.Ino || held.Dev != named.Dev {
			f.Close() // removed by its holder between our open and our lock
			continue
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	return nil, busy("")
}
