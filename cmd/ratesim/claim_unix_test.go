//go:build unix

package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestConcurrentRunsOneFolder: while one ratesim (a subprocess) writes to
// a --plot folder, a second run writing there is refused at once, exit
// 2, naming the flag, the folder and the first process, instead of both
// exiting 0 with a folder mixing their figures (issue 29); a drl sweep's
// --plot and a sweep's --out are claimed the same way.
func TestConcurrentRunsOneFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ratesim as a subprocess")
	}
	dir := t.TempDir()
	p := startRatesim(t, dir, "clients", "--jobs", "100000000", "--bin", "0", "--plot", "o")
	p.waitFor(t, "the claim of o", anyFile(filepath.Join(dir, "o", ".ratesim-lock")))
	// The supervisor's child holds the claim: its pid is in the lock file's
	// message, and is not the supervisor's.
	o := filepath.Join(dir, "o")
	for _, args := range [][]string{
		{"clients", "--jobs", "100", "--plot", o},
		{"drl", "--jobs", "100", "--sweep", "nodes=2,4", "--plot", o},
		{"sweep", "../../testdata/drl-sync-period.yaml", "--out", o},
	} {
		_, errOut, code := ratesim(t, args...)
		flag := map[bool]string{true: "--out", false: "--plot"}[args[0] == "sweep"]
		want := "ratesim: " + flag + " " + o + ": another ratesim (process "
		if code != exitUsage || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "process "+strconv.Itoa(p.cmd.Process.Pid)+")") {
			t.Errorf("%s: exit %d, %q; want 2 starting %q", args[0], code, errOut, want)
		}
	}
}
