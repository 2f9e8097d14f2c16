package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/systems"
)

// ErrInput is wrapped by errors about the arrivals (as opposed to the
// specification).
var ErrInput = errors.New("bad input")

// ErrOverflow is wrapped by the error of a run whose instants leave the
// clock's range (see systems.ErrOverflow).
var ErrOverflow = systems.ErrOverflow

// JobSource feeds an arrival process to a systems driver (systems.Run,
// systems.Drive) and remembers the last arrival, so that an error about it
// names its trace line (see [JobSource.Wrap]). Make one with
// [NewJobSource].
type JobSource struct {
	proc    arrivals.Process
	cur     arrivals.Arrival
	last    engine.Time
	failed  bool  // the error came from proc itself
	pending error // NextBatch: proc's error after a partial batch, for the next call
	// NextBatch: the trace lines of the last batch, whose first job is
	// number first
	lines []int
	first int64
	count int64 // jobs handed out
	// NextTimes: the process as a source of instants, the last batch of
	// instants (whose first job is number first) and the process's error
	times    arrivals.TimeFiller
	batch    []engine.Time
	timesErr error
}

// arrivalSource is the name the study files of this package use for
// [JobSource].
type arrivalSource = JobSource

// NewJobSource returns a JobSource of proc and the systems.Source to drive
// the systems with: the JobSource itself, or, when proc hands over
// instants alone (arrivals.Times), a systems.TimeSource that fills batches
// of instants.
func NewJobSource(proc arrivals.Process) (*JobSource, systems.Source) {
	src := &JobSource{proc: proc}
	if tf, ok := arrivals.Times(proc); ok {
		src.times = tf
		return src, timeSource{src}
	}
	return src, src
}

// Last returns the instant of the last arrival handed out (0 before the
// first).
func (s *JobSource) Last() engine.Time { return s.last }

// Wrap returns err, an error of the systems driven by s, naming the
// arrival it is about: its file and line for a trace, its instant
// otherwise, wrapping [ErrInput]. Errors of the process itself and
// cancellations come back unchanged.
func (s *JobSource) Wrap(err error) error { return s.wrap(err) }

// timeSource is an arrivalSource whose process hands over instants alone
// (a systems.TimeSource).
type timeSource struct{ *arrivalSource }

func (s timeSource) NextTimes(dst []engine.Time) (int, error) {
	n, err := s.times.NextTimes(dst)
	s.lines, s.first, s.batch = s.lines[:0], s.count, dst[:n]
	s.count += int64(n)
	if n > 0 {
		s.cur, s.last = arrivals.Arrival{T: dst[n-1], Sub: -1}, dst[n-1]
	}
	if bl, ok := s.times.(interface{ BatchLines() []int }); ok && n > 0 {
		s.lines = append(s.lines, bl.BatchLines()[:n]...) // a trace's: errors name the line
		s.cur.Line = s.lines[n-1]
	}
	if err != nil && err != io.EOF {
		s.timesErr = err
	}
	return n, err
}

func (s *arrivalSource) Next() (systems.Job, error) {
	a, err := s.proc.Next()
	if err != nil {
		s.failed = err != io.EOF
		return systems.Job{}, err
	}
	s.cur, s.last = a, a.T
	s.lines = s.lines[:0]
	s.count++
	return systems.Job{T: a.T, Key: a.Key, Hash: a.Hash, Sub: a.Sub}, nil
}

// NextBatch makes arrivalSource a systems.BatchSource. A job's error is
// returned after the jobs before it, on the next call, so that s.cur is
// then the arrival the error is about.
func (s *arrivalSource) NextBatch(dst []systems.Job) (int, error) {
	if err := s.pending; err != nil {
		s.pending, s.failed = nil, err != io.EOF
		return 0, err
	}
	if cap(s.lines) < len(dst) {
		s.lines = make([]int, len(dst))
	}
	s.lines, s.first = s.lines[:len(dst)], s.count
	lines := s.lines
	var last arrivals.Arrival // the last arrival handed out, s.cur after the batch
	for i := range dst {
		a, err := s.proc.Next()
		if err != nil {
			s.lines = s.lines[:i]
			if i > 0 {
				s.count += int64(i)
				s.cur, s.last = last, last.T
				s.pending = err
				return i, nil
			}
			s.failed = err != io.EOF
			return 0, err
		}
		lines[i] = a.Line
		dst[i] = systems.Job{T: a.T, Key: a.Key, Hash: a.Hash, Sub: a.Sub}
		last = a
	}
	s.count += int64(len(dst))
	s.cur, s.last = last, last.T
	return len(dst), nil
}

// wrap names the arrival's source position in an error of the systems.
func (s *arrivalSource) wrap(err error) error {
	if s.failed || s.timesErr != nil && err == s.timesErr || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	a := s.cur
	var je *systems.JobError
	if errors.As(err, &je) && je.ID >= s.first && je.ID < s.first+int64(len(s.lines)) {
		a.Line = s.lines[je.ID-s.first] // a job of the last batch, not its last
	}
	if je != nil && je.ID >= s.first && je.ID < s.first+int64(len(s.batch)) {
		a.T = s.batch[je.ID-s.first]
	}
	if a.Line > 0 {
		if n, ok := s.proc.(interface{ Name() string }); ok {
			return fmt.Errorf("%s:%d: %w (%w)", n.Name(), a.Line, err, ErrInput)
		}
		return fmt.Errorf("line %d: %w (%w)", a.Line, err, ErrInput)
	}
	return fmt.Errorf("arrival at %v s: %w (%w)", a.T, err, ErrInput)
}
