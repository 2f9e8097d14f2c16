package experiments

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ratesim/ratesim/plots"
)

// blockedFigure is a figure whose drawing does not end until release is
// closed, as a gonum/plot drawing of many points runs without looking at
// a context; then it closes ended.
type blockedFigure struct {
	started, release, ended chan struct{}
}

func (b blockedFigure) Save(path string) error {
	close(b.started)
	<-b.release
	close(b.ended)
	return nil
}

// TestSaveFiguresStopsWaiting: cancelled while a figure is being drawn,
// SaveFigures returns context.Canceled without waiting for the
// drawing (which here never ends until the test releases it: waiting
// would hang the test); a plots figure cancelled before it is encoded
// writes no file.
func TestSaveFiguresStopsWaiting(t *testing.T) {
	dir := t.TempDir()
	fig := blockedFigure{started: make(chan struct{}), release: make(chan struct{}), ended: make(chan struct{})}
	defer func() { close(fig.release); <-fig.ended }()
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		paths []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		paths, err := SaveFigures(ctx, []NamedFigure{{Name: "blocked", Figure: fig}}, dir, "png")
		done <- result{paths, err}
	}()
	<-fig.started
	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) || len(r.paths) != 0 {
			t.Errorf("SaveFigures = %v, %v; want no path and context.Canceled", r.paths, r.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("SaveFigures waited for a drawing after its context was cancelled")
	}

	lp := &plots.LinePlot{Title: "t", Lines: []plots.Line{{Label: "a", X: []float64{0, 1}, Y: []float64{0, 1}}}}
	path := filepath.Join(dir, "line.png")
	if err := plots.SaveContext(ctx, lp, path); !errors.Is(err, context.Canceled) {
		t.Errorf("plots.SaveContext after cancel: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled figure was written: %v", err)
	}
	if err := plots.SaveContext(context.Background(), lp, path); err != nil {
		t.Errorf("plots.SaveContext: %v", err)
	}
}
