package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountsNoteEverywhere reads the same counts file with --interval 1s
// --spread random in every command that reads arrivals, and requires each
// output, text and JSON, to record how the counts became arrivals.
func TestCountsNoteEverywhere(t *testing.T) {
	counts := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(counts, []byte("3\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "(counts per 1s interval, spread random)"
	common := []string{"--trace", counts, "--format", "counts", "--interval", "1s", "--spread", "random"}
	for _, args := range [][]string{
		{"run", "--burst", "2"},
		{"limiters", "--limiters", "token-police"},
		{"clients"},
		{"drl", "--designs", "one"},
	} {
		for _, json := range []bool{false, true} {
			a := append(append([]string{}, args...), common...)
			if json {
				a = append(a, "--json")
			}
			out, stderr, code := ratesim(t, a...)
			if code != 0 {
				t.Fatalf("ratesim %v: exit %d: %s", a, code, stderr)
			}
			if !strings.Contains(out, want) {
				t.Errorf("ratesim %v: output does not record %q:\n%s", a, want, out)
			}
		}
	}
}
