// Package memprobe measures the peak reachable heap of a run, for the
// memory benchmarks of the commands (a run's memory must not grow with
// its jobs; see BenchmarkLimitersMemory in package experiments).
//
// A [Probe] takes checkpoints: each runs a full garbage collection
// (runtime.GC, which returns once the heap is swept) and reads the bytes
// of the heap's live objects (runtime.MemStats.HeapAlloc, then exactly
// what is reachable); the peak is the largest checkpoint minus the heap
// at Start. [Process] takes a checkpoint every so many arrivals, so state
// that grows with the jobs shows at the last checkpoints; garbage never
// counts.
package memprobe

import (
	"runtime"

	"github.com/ratesim/ratesim/arrivals"
)

// Probe records the peak of its checkpoints. The zero value is ready
// after Start.
type Probe struct {
	base, peak uint64
	checks     int
}

func heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Start takes the baseline: the reachable heap before the run.
func (p *Probe) Start() { p.base, p.peak, p.checks = heap(), 0, 0 }

// Check takes a checkpoint.
func (p *Probe) Check() {
	p.checks++
	if h := heap(); h > p.base {
		p.peak = max(p.peak, h-p.base)
	}
}

// Peak returns the largest checkpoint above the baseline, bytes, and the
// number of checkpoints.
func (p *Probe) Peak() (bytes uint64, checks int) { return p.peak, p.checks }

// process wraps an arrival process with checkpoints.
type process struct {
	arrivals.Process
	p     *Probe
	every int64
	n     int64
}

func (q *process) Next() (arrivals.Arrival, error) {
	q.n++
	if q.n%q.every == 0 {
		q.p.Check()
	}
	return q.Process.Next()
}

// Process returns proc with a checkpoint of p before every every-th
// arrival (every >= 1).
func Process(proc arrivals.Process, p *Probe, every int64) arrivals.Process {
	return &process{Process: proc, p: p, every: max(1, every)}
}
