//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestClaimRefusesASecondHolder: flock(2) locks belong to an open file
// description, so a second description of the lock file, as another
// process would hold, is refused with ErrBusy naming this process's id
// (written by the first lock); after ReleaseClaims the lock file is gone
// and the folder can be claimed again.
func TestClaimRefusesASecondHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "figures")
	if err := Claim(dir); err != nil {
		t.Fatal(err)
	}
	if err := Claim(dir); err != nil {
		t.Errorf("claiming again from the same process: %v", err)
	}
	_, err := lockFolder(filepath.Join(dir, LockName))
	want := "another ratesim (process " + strconv.Itoa(os.Getpid()) + ") is writing to this folder"
	if !errors.Is(err, ErrBusy) || err.Error() != want {
		t.Errorf("second holder: %v, want %q", err, want)
	}
	ReleaseClaims()
	if _, err := os.Stat(filepath.Join(dir, LockName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after ReleaseClaims: %v", err)
	}
	if err := Claim(dir); err != nil {
		t.Fatalf("after release: %v", err)
	}
	ReleaseClaims()
}

// TestClaimRemovesTheFoldersItMadeIfEmpty: a run that fails before it
// writes leaves no folder it created; a folder that existed, or that
// received a file, stays.
func TestClaimRemovesTheFoldersItMadeIfEmpty(t *testing.T) {
	base := t.TempDir()
	made, kept, existed := filepath.Join(base, "a", "made"), filepath.Join(base, "kept"), filepath.Join(base, "existed")
	if err := os.Mkdir(existed, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{made, kept, existed} {
		if err := Claim(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(kept, "x"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	ReleaseClaims()
	for d, want := range map[string]bool{made: false, kept: true, existed: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", d, err == nil, want)
		}
	}
}

// TestClaimHonoursUmask: a folder gets 0777 &^ umask, as mkdir(1) gives
// it: 0777 &^ 0002 = 0775, 0777 &^ 0022 = 0755, 0777 &^ 0077 = 0700.
func TestClaimHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	defer ReleaseClaims()
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o002, 0o775}, {0o022, 0o755}, {0o077, 0o700}} {
		syscall.Umask(tc.umask)
		dir := filepath.Join(t.TempDir(), "p", "d")
		if err := Claim(dir); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{dir, filepath.Dir(dir)} {
			fi, err := os.Stat(d)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("umask %04o: %s mode %04o, want %04o", tc.umask, strings.TrimPrefix(d, filepath.Dir(filepath.Dir(dir))), got, tc.want)
			}
		}
	}
}
