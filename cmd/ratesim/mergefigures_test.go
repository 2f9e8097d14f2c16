package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestMergedModelFiguresEqualSingle: a drl sweep (testdata/drl-sync-period
// .yaml, 8 points) run whole, and run as 2 shards then merged, writes the
// same figures byte for byte (issue 29: the single run's captions named the
// spec's path, which merge cannot know, so every merged figure differed).
func TestMergedModelFiguresEqualSingle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a sweep three times")
	}
	dir := t.TempDir()
	spec := "../../testdata/drl-sync-period.yaml"
	run := func(args ...string) {
		t.Helper()
		if _, errOut, code := ratesim(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	run("sweep", spec, "-o", filepath.Join(dir, "single"), "-q", "-j", "2")
	run("sweep", spec, "--shard", "1/2", "-o", filepath.Join(dir, "sh"), "-q", "-j", "2")
	run("sweep", spec, "--shard", "2/2", "-o", filepath.Join(dir, "sh"), "-q", "-j", "2")
	run("merge", filepath.Join(dir, "sh", "shard-1-of-2.json"), filepath.Join(dir, "sh", "shard-2-of-2.json"), "-o", filepath.Join(dir, "merged"), "-q")
	figs, _ := filepath.Glob(filepath.Join(dir, "single", "figures", "*.png"))
	if len(figs) == 0 {
		t.Fatal("the single run drew no figure")
	}
	for _, f := range append(figs, filepath.Join(dir, "single", "results.json")) {
		rel, _ := filepath.Rel(filepath.Join(dir, "single"), f)
		a, err1 := os.ReadFile(f)
		b, err2 := os.ReadFile(filepath.Join(dir, "merged", rel))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: merged differs from the single run (%v, %v)", rel, err1, err2)
		}
	}
}
