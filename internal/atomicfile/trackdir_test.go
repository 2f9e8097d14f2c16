package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTrackDir: a tracked staging folder (ratesim paper's) is removed
// with its contents by RemoveTemporary, which the signal backstop calls
// before exiting without unwinding (issue 28: no .ratesim-paper-* left);
// an untracked one is left alone.
func TestTrackDir(t *testing.T) {
	parent := t.TempDir()
	stage, err := os.MkdirTemp(parent, ".ratesim-paper-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(stage, "figures"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stage, "figures", "a.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(parent, "kept")
	if err := os.Mkdir(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	TrackDir(kept)() // tracked, then untracked: not removed
	TrackDir(stage)
	t.Cleanup(Reopen)
	if n := RemoveTemporary(); n != 1 {
		t.Errorf("RemoveTemporary removed %d, want 1 (the stage)", n)
	}
	if _, err := os.Stat(stage); !os.IsNotExist(err) {
		t.Errorf("stage %s still exists (%v)", stage, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("untracked folder removed: %v", err)
	}
}
