package experiments

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// replicate runs every replication (rep 0..reps-1) of every point of sel
// on workers goroutines (<= 0: GOMAXPROCS), the one pool of a split
// sweep and of a model's. run computes one replication; once all the
// replications of sel[i] are done, done(i, rs) receives them in
// replication order (so that what it computes does not depend on the
// order they finished in), from the calling goroutine; progress, if not
// nil, is called after each replication with the points and
// replications finished so far.
//
// The first error of run or done cancels the rest and is returned,
// naming the point (and replication); replications stopped by the
// caller's cancellation are not errors (the caller reports ctx.Err()).
func replicate[R any](ctx context.Context, sel []int, reps, workers int,
	run func(ctx context.Context, point, rep int) (R, error),
	done func(i int, rs []R) error,
	progress func(points, replications int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type task struct{ sel, rep int }
	type result struct {
		task
		r   R
		err error
	}
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	tasks := make(chan task)
	results := make(chan result, workers)
	go func() {
		defer close(tasks)
		for si := range sel {
			for rep := range reps {
				select {
				case tasks <- task{si, rep}:
				case <-ctx2.Done():
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range tasks {
				r, err := run(ctx2, sel[t.sel], t.rep)
				results <- result{t, r, err}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int][]R{}
	count := map[int]int{}
	var firstErr error
	points, n := 0, 0
	for d := range results {
		if d.err != nil {
			if firstErr == nil && !(ctx.Err() != nil && errors.Is(d.err, ctx.Err())) {
				firstErr = fmt.Errorf("experiments: point %d replication %d: %w", sel[d.sel], d.rep, d.err)
				cancel()
			}
			continue
		}
		if pending[d.sel] == nil {
			pending[d.sel] = make([]R, reps)
		}
		pending[d.sel][d.rep] = d.r
		count[d.sel]++
		if count[d.sel] == reps {
			if err := done(d.sel, pending[d.sel]); err != nil && firstErr == nil {
				firstErr = fmt.Errorf("experiments: point %d: %w", sel[d.sel], err)
				cancel()
			}
			delete(pending, d.sel)
			delete(count, d.sel)
			points++
		}
		n++
		if progress != nil {
			progress(points, n)
		}
	}
	return firstErr
}
