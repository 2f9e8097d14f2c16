package experiments

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// AtomicFile is an output file written whole or not at all: writes go to a
// temporary file in the same directory, which Commit renames over the target
// and Abort removes.
type AtomicFile struct {
	*bufio.Writer
	f    *os.File
	path string
	done bool
}

// CreateAtomic starts writing the file at path. If path is a symbolic link
// the file it points to is replaced (the link stays). The new file gets the
// permissions of the file it replaces, or 0644 for a new file. The error
// names the path.
func CreateAtomic(path string) (*AtomicFile, error) {
	mode := os.FileMode(0o644)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
		if fi, err := os.Stat(real); err == nil {
			if !fi.Mode().IsRegular() {
				return nil, fmt.Errorf("experiments: %s is not a regular file", path)
			}
			mode = fi.Mode().Perm()
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("experiments: cannot create %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("experiments: cannot create %s: %w", path, err)
	}
	return &AtomicFile{Writer: bufio.NewWriterSize(f, 1<<16), f: f, path: path}, nil
}

// Commit flushes, syncs and renames the temporary file to the target path.
func (a *AtomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	err := a.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("experiments: writing %s: %w", a.path, err)
	}
	return nil
}

// Abort discards the temporary file, leaving any existing target untouched.
// It is a no-op after Commit, so it can be deferred.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}
