//go:build unix

package main

import (
	"os"
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

// TestShardsShareAFolder: the shards of a sweep write one folder side by
// side (docs/commands.md, "Shards"): shard 1 of 2 holding its claim does
// not stop shard 2 from writing shard-2-of-2.json there, while a second
// run of shard 1 is refused.
func TestShardsShareAFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ratesim as a subprocess")
	}
	dir := t.TempDir()
	o := filepath.Join(dir, "s")
	args := func(shard string) []string {
		return []string{"sweep", "--builtin", "split-ratio", "--shard", shard, "-j", "1", "-o", o, "--quiet"}
	}
	p := startRatesim(t, dir, args("1/2")...)
	p.waitFor(t, "the claim of shard 1", anyFile(filepath.Join(o, ".ratesim-lock-shard-1-of-2")))
	if _, errOut, code := ratesim(t, append(args("2/2"), "--replications", "1", "--jobs-per-replication", "100", "--warmup", "10")...); code != exitOK {
		t.Errorf("shard 2 beside shard 1: exit %d, %q; want 0", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(o, "shard-2-of-2.json")); err != nil {
		t.Errorf("shard 2 wrote nothing: %v", err)
	}
	if _, errOut, code := ratesim(t, args("1/2")...); code != exitUsage || !strings.Contains(errOut, "another ratesim (process ") {
		t.Errorf("a second shard 1: exit %d, %q; want 2, refused", code, errOut)
	}
}
