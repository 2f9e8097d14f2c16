package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names returns the names in dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWriteNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := Write(context.Background(), path, writeString("a,b\n")); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); got != "a,b\n" {
		t.Errorf("new file holds %q, want %q", got, "a,b\n")
	}
	if err := Write(context.Background(), path, writeString("c\n")); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); got != "c\n" {
		t.Errorf("replaced file holds %q, want %q", got, "c\n")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.csv"}) {
		t.Errorf("directory holds %q, want only out.csv (no temporary file)", got)
	}
}

// TestReplaceKeepsMode: a file that replaces a 0600 file is 0600 too,
// whatever the umask (chmod is not subject to it).
func TestReplaceKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want -rw------- (the replaced file's)", fi.Mode().Perm())
	}
}

// TestSymlink: writing through a link keeps the link (same text) and
// replaces the file it names, in that file's directory; relative links
// are read from the link's directory, chains are followed, a dangling link
// creates its target, and a loop is an error.
func TestSymlink(t *testing.T) {
	root := t.TempDir()
	data, out := filepath.Join(root, "data"), filepath.Join(root, "out")
	for _, d := range []string{data, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(data, "results.csv")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(out, "results.csv")
	if err := os.Symlink("../data/results.csv", link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(out, "latest.csv")
	if err := os.Symlink("results.csv", chain); err != nil {
		t.Fatal(err)
	}
	for i, path := range []string{link, chain} {
		want := fmt.Sprintf("new %d", i)
		if err := Write(context.Background(), path, writeString(want)); err != nil {
			t.Fatal(err)
		}
		if got := content(t, target); got != want {
			t.Errorf("via %s: target holds %q, want %q", path, got, want)
		}
	}
	for path, want := range map[string]string{link: "../data/results.csv", chain: "results.csv"} {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", path, err)
			continue
		}
		if got, _ := os.Readlink(path); got != want {
			t.Errorf("%s points to %q, want %q", path, got, want)
		}
	}
	if got := names(t, data); !slices.Equal(got, []string{"results.csv"}) {
		t.Errorf("data holds %q, want only results.csv", got)
	}
	if got := names(t, out); !slices.Equal(got, []string{"latest.csv", "results.csv"}) {
		t.Errorf("out holds %q, want the two links only", got)
	}

	dangling := filepath.Join(out, "new.csv")
	if err := os.Symlink("../data/new.csv", dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), dangling, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if got := content(t, filepath.Join(data, "new.csv")); got != "x" {
		t.Errorf("dangling link: target holds %q, want %q", got, "x")
	}

	loop := filepath.Join(out, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	err := Write(context.Background(), loop, writeString("x"))
	if err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link to itself: error %v, want one about symbolic links", err)
	}
}

// TestLinkThroughLinkedDirectory: a relative link is read from the real
// directory that holds it, as the kernel reads it, even when the path
// reaches that directory through a link (root/alias -> root/a/b).
func TestLinkThroughLinkedDirectory(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(root, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	// Seen from the real directory root/a/b, "../out.csv" is root/a/out.csv;
	// the textual join with root/alias would give root/out.csv.
	if err := os.Symlink("../out.csv", filepath.Join(real, "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), filepath.Join(alias, "link.csv"), writeString("y")); err != nil {
		t.Fatal(err)
	}
	if got := content(t, filepath.Join(root, "a", "out.csv")); got != "y" {
		t.Errorf("root/a/out.csv holds %q, want %q", got, "y")
	}
	if _, err := os.Stat(filepath.Join(root, "out.csv")); err == nil {
		t.Error("root/out.csv was written: the link was read from the wrong directory")
	}
}

// TestFailureLeavesOldFile: every way a write can fail removes the
// temporary file and leaves the old file as it was.
func TestFailureLeavesOldFile(t *testing.T) {
	errWrite := errors.New("disk on fire")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		run   func(path string) error
		check func(error) bool
	}{
		{"writer error", func(path string) error {
			return Write(context.Background(), path, func(w io.Writer) error {
				io.WriteString(w, "half")
				return errWrite
			})
		}, func(err error) bool { return errors.Is(err, errWrite) }},
		{"writer panic", func(path string) (err error) {
			defer func() {
				if recover() != nil {
					err = errWrite
				}
			}()
			return Write(context.Background(), path, func(w io.Writer) error {
				io.WriteString(w, "half")
				panic("boom")
			})
		}, func(err error) bool { return errors.Is(err, errWrite) }},
		{"context done before", func(path string) error {
			return Write(cancelled, path, writeString("new"))
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"context done while writing", func(path string) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			return Write(ctx, path, func(w io.Writer) error {
				io.WriteString(w, "new")
				cancel()
				return nil
			})
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"abort", func(path string) error {
			f, err := Create(context.Background(), path)
			if err != nil {
				return err
			}
			f.WriteString("new")
			f.Abort()
			if err := f.Commit(); !errors.Is(err, fs.ErrClosed) {
				return fmt.Errorf("commit after abort: %v, want fs.ErrClosed", err)
			}
			return errWrite
		}, func(err error) bool { return errors.Is(err, errWrite) }},
		{"sync error", func(path string) error {
			syncFile = func(*os.File) error { return errWrite }
			defer func() { syncFile = (*os.File).Sync }()
			return Write(context.Background(), path, writeString("new"))
		}, func(err error) bool { return errors.Is(err, errWrite) }},
		{"rename error", func(path string) error {
			rename = func(string, string) error { return errWrite }
			defer func() { rename = os.Rename }()
			return Write(context.Background(), path, writeString("new"))
		}, func(err error) bool { return errors.Is(err, errWrite) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.csv")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := tc.run(path)
			if !tc.check(err) {
				t.Errorf("error %v, want the failure's own", err)
			}
			if err != nil && !strings.Contains(err.Error(), "out.csv") && !errors.Is(err, errWrite) {
				t.Errorf("error %q does not name the file", err)
			}
			if got := content(t, path); got != "old" {
				t.Errorf("old file now holds %q, want %q", got, "old")
			}
			if got := names(t, dir); !slices.Equal(got, []string{"out.csv"}) {
				t.Errorf("directory holds %q, want only out.csv", got)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), sub, writeString("x")); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), sub) {
		t.Errorf("a directory as target: error %v, want ErrNotRegular naming it", err)
	}
	missing := filepath.Join(dir, "missing", "out.csv")
	if err := Write(context.Background(), missing, writeString("x")); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing directory: error %v, want one naming the path", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"sub"}) {
		t.Errorf("directory holds %q, want only sub", got)
	}
}

func TestFileAfterCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.csv")
	f, err := Create(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort() // a no-op after Commit
	if _, err := f.WriteString("t_s\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("target visible before Commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Errorf("second Commit: %v, want nil", err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Commit: %v, want fs.ErrClosed", err)
	}
	if got := content(t, path); got != "t_s\n" {
		t.Errorf("file holds %q", got)
	}
	if f.Target() != path {
		t.Errorf("Target() = %q, want %q", f.Target(), path)
	}
}

// TestRemoveTemporary: the temporary files of open Files are removed, a
// later Commit fails and leaves the target untouched, and committed or
// aborted files are not counted.
func TestRemoveTemporary(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	target := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	done, err := Create(ctx, filepath.Join(dir, "done.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	aborted, _ := Create(ctx, filepath.Join(dir, "aborted.csv"))
	aborted.Abort()
	a, _ := Create(ctx, target)
	b, _ := Create(ctx, filepath.Join(dir, "new.csv"))
	a.WriteString("new")
	t.Cleanup(Reopen)
	if n := RemoveTemporary(); n != 2 {
		t.Errorf("RemoveTemporary removed %d files, want 2", n)
	}
	// A writer still running after it (a figure a stopped command gave
	// up waiting for) can start no file.
	if late, err := Create(ctx, filepath.Join(dir, "late.csv")); err == nil {
		late.Abort()
		t.Error("Create after RemoveTemporary succeeded")
	}
	if a.Commit() == nil {
		t.Error("Commit after RemoveTemporary succeeded")
	}
	b.Abort()
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Errorf("target holds %q, want the old bytes", got)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"done.csv", "out.csv"}; !slices.Equal(names, want) {
		t.Errorf("folder holds %v, want %v", names, want)
	}
}
