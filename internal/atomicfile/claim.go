package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// LockName is the file by which a process claims an output folder for
// the time it writes there ([Claim]).
const LockName = ".ratesim-lock"

// ErrBusy is returned (wrapped, naming the folder and the other process)
// by [Claim] when another process writes to the folder.
var ErrBusy = errors.New("another ratesim is writing to this folder")

// claims holds the folders this process has claimed, by the absolute
// path of their lock file.
var claims struct {
	sync.Mutex
	held    map[string]*os.File
	created map[string]bool // made by Claim: removed at release if still empty
}

// Claim creates the folder dir with its parents (mode 0777 &^ umask, as
// os.MkdirAll gives it, so that folders honour the umask as files do) and
// claims it for this process until [ReleaseClaims]: an exclusive lock
// (flock(2), released by the kernel if the process dies) on the file
// dir/.ratesim-lock, which holds the process id. A second process that
// claims the same folder gets [ErrBusy] at once, so two runs writing one
// output folder never leave a mix of both: the second refuses. Claiming
// a folder this process holds already is allowed. On systems without
// flock the folder is created and not claimed.
func Claim(dir string) error { return ClaimAs(dir, LockName) }

// ClaimAs is [Claim] by the lock file dir/name: runs that write different
// files of one folder (the shards of a sweep, shard-i-of-n.json each)
// claim it under names of their own and run side by side, while two runs
// of the same shard refuse each other.
func ClaimAs(dir, name string) error {
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	lock := filepath.Join(abs, name)
	claims.Lock()
	defer claims.Unlock()
	if claims.held[lock] != nil {
		return nil
	}
	f, err := lockFolder(lock)
	if err != nil {
		if errors.Is(err, ErrBusy) {
			return fmt.Errorf("%s: %w; wait for it to finish, or write to another folder", dir, err)
		}
		return fmt.Errorf("claiming %s: %w", dir, err)
	}
	if claims.held == nil {
		claims.held, claims.created = map[string]*os.File{}, map[string]bool{}
	}
	claims.held[lock] = f
	claims.created[lock] = errors.Is(statErr, fs.ErrNotExist)
	track(f.Name()) // a forced exit removes it too
	return nil
}

// ReleaseClaims removes the lock file of every folder this process has
// claimed and releases the claims; a folder that Claim created and that
// is still empty (the run failed before writing) is removed too.
func ReleaseClaims() {
	claims.Lock()
	defer claims.Unlock()
	locks := slices.Collect(maps.Keys(claims.held))
	slices.SortFunc(locks, func(a, b string) int { return len(b) - len(a) }) // a folder's subfolders first
	for _, lock := range locks {
		f := claims.held[lock]
		untrack(f.Name())
		os.Remove(f.Name()) // before the unlock: a process locking it re-checks the name (lockFolder)
		f.Close()
		if claims.created[lock] {
			os.Remove(filepath.Dir(lock)) // only if empty
		}
		delete(claims.held, lock)
		delete(claims.created, lock)
	}
}

// busyError is [ErrBusy] naming the process that holds the folder.
type busyError struct{ pid string }

func (e busyError) Error() string {
	if e.pid == "" {
		return ErrBusy.Error()
	}
	return "another ratesim (process " + e.pid + ") is writing to this folder"
}

func (e busyError) Is(target error) bool { return target == ErrBusy }

// busy is the error of a folder claimed by process pid ("" if unknown).
func busy(pid string) error { return busyError{strings.TrimSpace(pid)} }
