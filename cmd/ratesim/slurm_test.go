package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSlurm runs scripts/slurm-test: the Slurm job-array example of docs/commands.md
// on a single-node Slurm installed from the Debian packages, its merged
// results compared byte for byte with a single sweep. It needs root, apt
// access and a few free ports, so it runs only when RATESIM_SLURM=1
// (RATESIM_SLURM_SHARDS sets the number of array tasks, default 4).
func TestSlurm(t *testing.T) {
	if os.Getenv("RATESIM_SLURM") != "1" {
		t.Skip("set RATESIM_SLURM=1 to run scripts/slurm-test (needs root and apt)")
	}
	args := []string{}
	if n := os.Getenv("RATESIM_SLURM_SHARDS"); n != "" {
		args = append(args, n)
	}
	cmd := exec.Command("../../scripts/slurm-test", args...)
	out, err := cmd.CombinedOutput()
	t.Logf("scripts/slurm-test:\n%s", out)
	if err != nil {
		t.Fatalf("scripts/slurm-test: %v", err)
	}
	if !strings.Contains(string(out), "identical to the single run") {
		t.Fatal("scripts/slurm-test exited 0 without reporting identical results")
	}
}
