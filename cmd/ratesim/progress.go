package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ratesim/ratesim/experiments"
)

// progressLine is the line a sweep prints to a standard error that is not
// a terminal (a batch log): points and replications done, time elapsed and
// the time left at the pace so far.
func progressLine(p experiments.SweepProgress, elapsed time.Duration) string {
	eta := "unknown"
	if p.Replications > 0 {
		left := time.Duration(float64(elapsed) * float64(p.ReplicationsTotal-p.Replications) / float64(p.Replications))
		eta = left.Round(time.Second).String()
	}
	return fmt.Sprintf("ratesim: progress: %d of %s, %d of %s, %s elapsed, ETA %s",
		p.Points, count(p.PointsTotal, "point"), p.Replications, count(p.ReplicationsTotal, "replication"),
		elapsed.Round(time.Second), eta)
}

// progressLog prints progressLine to w every interval until stopped.
type progressLog struct {
	mu    sync.Mutex
	last  experiments.SweepProgress
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup
}

// startProgressLog starts printing progress lines to w every interval, the
// first one interval from now.
func startProgressLog(w io.Writer, every time.Duration, first experiments.SweepProgress) *progressLog {
	l := &progressLog{last: first, start: time.Now(), stop: make(chan struct{})}
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-tick.C:
				l.mu.Lock()
				p := l.last
				l.mu.Unlock()
				fmt.Fprintln(w, progressLine(p, time.Since(l.start)))
			}
		}
	}()
	return l
}

// update records how far the sweep has come.
func (l *progressLog) update(p experiments.SweepProgress) {
	l.mu.Lock()
	l.last = p
	l.mu.Unlock()
}

// close stops the lines; none is printed after it returns.
func (l *progressLog) close() {
	close(l.stop)
	l.done.Wait()
}
