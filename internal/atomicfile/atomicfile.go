package atomicfile

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// ErrNotRegular is returned (wrapped, with the path) when the target
// exists and is not a regular file.
var ErrNotRegular = errors.New("atomicfile: target is not a regular file")

// maxLinks bounds the symbolic links followed from a target, as Linux's
// MAXSYMLINKS does.
const maxLinks = 40

// Hooks for tests that inject failures into the last steps.
var (
	syncFile = (*os.File).Sync
	rename   = os.Rename
)

// temps holds the names of the temporary files of this process that are
// neither committed nor removed yet, for [RemoveTemporary]; true marks a
// folder ([TrackDir]).
var temps struct {
	sync.Mutex
	names  map[string]bool
	closed bool // RemoveTemporary ran: no temporary file may be created after it
}

// errStopping is the error of a file created after [RemoveTemporary].
var errStopping = errors.New("the process is stopping: no new file is written")

func track(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[name] = false
}

func untrack(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// RemoveTemporary removes every temporary file of this process that is
// not yet committed or aborted, and returns how many it removed. It is
// meant for a process about to exit (a signal, or a writer that did not
// stop in time): afterwards a Commit of those files fails and leaves its
// target untouched, and [Create] fails, so that a writer still running on
// another goroutine (a figure a stopped command gave up waiting for)
// leaves nothing behind. It is safe to call from any goroutine.
func RemoveTemporary() int {
	temps.Lock()
	temps.closed = true
	defer temps.Unlock()
	n := 0
	for name, dir := range temps.names {
		var err error
		if dir {
			err = os.RemoveAll(name)
		} else {
			err = os.Remove(name)
		}
		if err == nil {
			n++
		}
		delete(temps.names, name)
	}
	return n
}

// Reopen lets files be created again after [RemoveTemporary]: for a
// process that runs another command after one was stopped (tests that
// run commands in process).
func Reopen() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = false
}

// TrackDir registers dir, a temporary folder of this process (a staging
// folder renamed or removed at the end), so that [RemoveTemporary] removes
// it with everything in it; the function returned unregisters it, for
// the caller that removed or installed it.
func TrackDir(dir string) (untrack func()) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[dir] = true
	return func() {
		temps.Lock()
		defer temps.Unlock()
		delete(temps.names, dir)
	}
}

// File is an output file being written whole or not at all (see the
// package documentation). Writes are buffered; nothing is visible at the
// target until [File.Commit] succeeds. A File is not safe for concurrent
// use. It must be made by [Create]; the zero value is not usable.
type File struct {
	ctx    context.Context
	w      *bufio.Writer
	f      *os.File
	target string // the file replaced, after following symbolic links
	state  state
}

type state int

const (
	open state = iota
	committed
	aborted
)

// Create starts writing the file at path (see the package documentation
// for symbolic links and modes). ctx is checked here and again at
// [File.Commit], which fails if it is done by then.
//
// It returns an error naming path when ctx is done, a symbolic link
// cannot be followed, the target exists and is not a regular file
// ([ErrNotRegular]), or the temporary file cannot be created (a missing or
// read-only directory, say).
func Create(ctx context.Context, path string) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	target, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	perm, keep := fs.FileMode(0o666), false
	switch fi, err := os.Stat(target); {
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s", ErrNotRegular, path)
	case err == nil:
		perm, keep = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	f, err := createTemp(target, perm)
	if err != nil {
		return nil, fmt.Errorf("atomicfile: %s: %w", path, err)
	}
	// The open applied the umask; a replaced file's bits are copied exactly.
	if keep {
		if err := f.Chmod(perm); err != nil {
			f.Close()
			os.Remove(f.Name())
			untrack(f.Name())
			return nil, fmt.Errorf("atomicfile: %s: %w", path, err)
		}
	}
	return &File{ctx: ctx, w: bufio.NewWriterSize(&writeBack{f: f}, 1<<16), f: f, target: target}, nil
}

// writeBackChunk is how many bytes a File writes between two requests to
// the kernel to write them to disk (see writeBack).
const writeBackChunk = 32 << 20

// writeBack writes to f and keeps what the kernel holds unwritten to at
// most about two chunks: after each chunk it starts the disk write of that
// chunk and waits for the one before (sync_file_range on Linux; nothing
// elsewhere). The fsync of [File.Commit] then has little left to do, so a
// signal during it is answered promptly: a process cannot exit while one
// of its threads waits in fsync, and the fsync of a 1 GB file that was
// never written back takes seconds.
type writeBack struct {
	f       *os.File
	written int64 // bytes written to f
	started int64 // bytes whose disk write was started
}

func (w *writeBack) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if w.written-w.started >= writeBackChunk {
		writeBackRange(w.f, w.started, w.written-w.started)
		w.started = w.written
	}
	return n, err
}

// createTemp creates a new file next to target with mode perm &^ umask.
func createTemp(target string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(target)
	// Created and tracked under the lock, so that RemoveTemporary sees
	// every temporary file or stops this one from being created.
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, errStopping
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+rand.Text()[:10])
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			if temps.names == nil {
				temps.names = map[string]bool{}
			}
			temps.names[name] = false
		}
		return f, err
	}
	return nil, errors.New("cannot find an unused temporary name")
}

// resolve follows symbolic links from path to the name they end at, which
// need not exist. A relative link is read from the real directory holding
// it, as the kernel reads it.
func resolve(path string) (string, error) {
	for range maxLinks + 1 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", err
			}
			link = filepath.Join(dir, link)
		}
		path = link
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// Target returns the name of the file that Commit replaces: the path
// given to Create with its symbolic links followed.
func (f *File) Target() string { return f.target }

// Write writes p to the temporary file. After Commit or Abort it returns
// an error wrapping [fs.ErrClosed].
func (f *File) Write(p []byte) (int, error) {
	if f.state != open {
		return 0, fmt.Errorf("atomicfile: %s: %w", f.target, fs.ErrClosed)
	}
	return f.w.Write(p)
}

// WriteString is Write for a string.
func (f *File) WriteString(s string) (int, error) {
	if f.state != open {
		return 0, fmt.Errorf("atomicfile: %s: %w", f.target, fs.ErrClosed)
	}
	return f.w.WriteString(s)
}

// Commit flushes the buffered bytes, syncs and closes the temporary file
// and renames it over the target. If ctx is done by then, or any step
// fails, the temporary file is removed, the target is left as it was and
// the error names the target. Commit after Abort or after a failed Commit
// returns an error wrapping [fs.ErrClosed]; after a successful one it
// returns nil.
func (f *File) Commit() error {
	switch f.state {
	case committed:
		return nil
	case aborted:
		return fmt.Errorf("atomicfile: %s: %w", f.target, fs.ErrClosed)
	}
	// Whatever happens next, the temporary file is gone or renamed.
	f.state = aborted
	err := f.w.Flush()
	if err == nil {
		err = syncFile(f.f)
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.ctx.Err()
	}
	if err == nil {
		err = rename(f.f.Name(), f.target)
	}
	untrack(f.f.Name())
	if err != nil {
		os.Remove(f.f.Name())
		return fmt.Errorf("atomicfile: writing %s: %w", f.target, err)
	}
	f.state = committed
	// Make the rename itself durable. Some file systems refuse to sync a
	// directory; the new file is in place either way, so this is best
	// effort.
	if d, err := os.Open(filepath.Dir(f.target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort removes the temporary file and leaves the target untouched. It
// is a no-op after Commit or Abort, so it can be deferred.
func (f *File) Abort() {
	if f.state != open {
		return
	}
	f.state = aborted
	f.f.Close()
	os.Remove(f.f.Name())
	untrack(f.f.Name())
}

// Write writes the file at path whole or not at all: write is called with
// a buffered writer to a temporary file, which is then committed as by
// [File.Commit]. If write returns an error or panics, or ctx is done
// before the rename, the temporary file is removed and the target is left
// untouched. write is not interrupted when ctx is done; a long writer
// should watch ctx itself.
//
// The error is write's own error (wrapped, naming the path) or one of
// those of [Create] and [File.Commit].
func Write(ctx context.Context, path string, write func(w io.Writer) error) error {
	f, err := Create(ctx, path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	return f.Commit()
}
