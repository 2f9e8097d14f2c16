package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ratesim/ratesim/internal/crash"
)

// fakeFigure writes its name to the path, or fails.
type fakeFigure struct{ fail bool }

func (f fakeFigure) Save(path string) error {
	if f.fail {
		return fmt.Errorf("cannot draw %s", filepath.Base(path))
	}
	return os.WriteFile(path, []byte(filepath.Base(path)), 0o666)
}

// TestSaveFiguresOrder: figures drawn in parallel come back in the order
// given; after a failure the paths are those before the failing figure
// and its error is returned; a cancelled context draws nothing.
func TestSaveFiguresOrder(t *testing.T) {
	var figs []NamedFigure
	for i := range 20 {
		figs = append(figs, NamedFigure{Name: fmt.Sprintf("f%02d", i), Figure: fakeFigure{}})
	}
	dir := t.TempDir()
	paths, err := SaveFigures(t.Context(), figs, dir, "png")
	if err != nil || len(paths) != 20 {
		t.Fatalf("%d paths, %v", len(paths), err)
	}
	for i, p := range paths {
		if want := filepath.Join(dir, fmt.Sprintf("f%02d.png", i)); p != want {
			t.Errorf("path %d = %s, want %s", i, p, want)
		}
	}
	figs[7].Figure = fakeFigure{fail: true}
	paths, err = SaveFigures(t.Context(), figs, t.TempDir(), "png")
	if err == nil || err.Error() != "cannot draw f07.png" || len(paths) > 7 {
		t.Errorf("with figure 7 failing: %d paths, %v; want at most 7 and its error", len(paths), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	empty := t.TempDir()
	if paths, err := SaveFigures(ctx, figs, empty, "png"); !errors.Is(err, context.Canceled) || len(paths) != 0 {
		t.Errorf("cancelled: %d paths, %v", len(paths), err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("cancelled: %d files written", len(left))
	}
}

// TestSaveFiguresPanic: a figure that panics on its goroutine is returned
// as a *crash.Error (exit 3 in the CLI), not a crash of the process.
func TestSaveFiguresPanic(t *testing.T) {
	figs := []NamedFigure{{Name: "a", Figure: fakeFigure{}}, {Name: "b", Figure: panicFigure{}}}
	_, err := SaveFigures(t.Context(), figs, t.TempDir(), "png")
	var ce *crash.Error
	if !errors.As(err, &ce) || ce.Value != "log scale of 0" {
		t.Errorf("error %v (%T), want a *crash.Error", err, err)
	}
}

// panicFigure panics while drawing, as a plotting bug would.
type panicFigure struct{}

func (panicFigure) Save(string) error { panic("log scale of 0") }
