package arrivals

import (
	"fmt"
	"io"
	"time"

	"github.com/ratesim/ratesim/engine"
)

// Bin is one interval of a counts trace ([FormatCounts]) whose arrivals
// are spread evenly, handed over whole rather than arrival by arrival:
// its arrivals First, First+1, …, Count-1 are at
//
//	Start + floor(i·Width/Count)  ns since the trace's origin
//
// (the instants [Trace.Next] gives them, one per call, with Spread "even").
// Start may be before the origin when the interval's first arrivals were
// taken by Next before. Width is the counting interval, ns; Count >= 1
// the interval's count (at most [MaxCount]); Line its line in the file.
type Bin struct {
	Start engine.Time
	Width int64
	Count int64
	First int64
	Line  int
}

// Jobs returns the number of arrivals of b, Count - First.
func (b Bin) Jobs() int64 { return b.Count - b.First }

// Last returns the instant of b's last arrival, ns since the origin.
func (b Bin) Last() engine.Time {
	return b.Start + engine.Time(spreadOffset(b.Count-1, b.Width, b.Count))
}

// spreadOffset returns floor(j·w/c) for 0 <= j < c, in 128-bit arithmetic.
func spreadOffset(j, w, c int64) int64 {
	s := spread{start: 0, width: w, c: c, j: j}
	return s.next()
}

// aheadRecord is a record of a counts trace read ahead, with what the
// record reader said when it was read.
type aheadRecord struct {
	rec  []string
	line int
	last int // the reader's last line afterwards
	err  error
}

// read returns the next record of the counts file: read ahead, or from
// the file.
func (s *countsSource) read() (rec []string, line, last int, err error) {
	if len(s.ahead) > 0 {
		a := s.ahead[0]
		s.ahead[0] = aheadRecord{}
		s.ahead = s.ahead[1:]
		return a.rec, a.line, a.last, a.err
	}
	rec, line, err = s.rr.read()
	return rec, line, s.rr.last, err
}

// HasBins reports whether [Trace.NextBin] applies: t reads a counts trace
// ([FormatCounts]) spread evenly, streamed (not Sort).
func (t *Trace) HasBins() bool {
	s, ok := t.src.(*countsSource)
	return ok && s.sp.rng == nil && t.sorted == nil
}

// CountsAhead reads at most lines lines of a counts trace ahead, without
// consuming them (Next and NextBin return the same arrivals and errors as
// without), and reports whether their counts, with the arrivals left of
// the current interval, reach jobs. It stops, reporting false, when the
// file ends, a line cannot be read or has no valid count (which is then
// left for Next or NextBin to report), or lines lines are held without
// reaching jobs. The lines read ahead are kept in memory. It returns
// false for a trace without bins (see HasBins).
func (t *Trace) CountsAhead(jobs int64, lines int) bool {
	if !t.HasBins() || t.err != nil {
		return false
	}
	s := t.src.(*countsSource)
	total := s.sp.c - s.sp.j
	add := func(rec []string) bool {
		if rec == nil || s.countCol >= len(rec) {
			return false
		}
		c, ok := parseIndex(trimSpace(rec[s.countCol]))
		if !ok || c > MaxCount {
			return false
		}
		total += int64(c)
		return true
	}
	held := len(s.ahead) // lines held, the first data line read with the header included
	if s.pending != nil {
		held++
		if !add(s.pending) {
			return false
		}
	}
	for _, a := range s.ahead {
		if a.err != nil || !add(a.rec) {
			return false
		}
	}
	for ; total < jobs && held < lines; held++ {
		rec, line, err := s.rr.read()
		s.ahead = append(s.ahead, aheadRecord{rec: rec, line: line, last: s.rr.last, err: err})
		if err != nil || !add(rec) {
			return false
		}
	}
	return total >= jobs
}

// NextBin returns the next interval of a counts trace with at least one
// arrival left, whole (see [Bin]); intervals of count 0 are passed over.
// It returns io.EOF after the last, or the error Next would return for the
// interval's line (a bad line is skipped as Next skips it with SkipBad).
// NextBin and Next may be called in turn: NextBin hands over whatever
// Next left of the current interval. The trace's count, origin and last
// arrival advance as if Next had returned each arrival of the bin.
//
// Panics if t has no bins (see HasBins).
func (t *Trace) NextBin() (Bin, error) {
	if !t.HasBins() {
		panic("arrivals: Trace.NextBin on a trace that is not counts spread evenly")
	}
	if t.err != nil {
		return Bin{}, t.err
	}
	s := t.src.(*countsSource)
	for !s.sp.more() {
		err := s.readInterval(t)
		if err == io.EOF {
			t.err = t.endError()
			return Bin{}, t.err
		}
		if err != nil {
			if err = t.skip(err); err != nil {
				t.err = err
				return Bin{}, err
			}
		}
	}
	sp := &s.sp
	first := sp.start + spreadOffset(sp.j, sp.width, sp.c)
	last := sp.start + spreadOffset(sp.c-1, sp.width, sp.c)
	origin := first
	if t.n > 0 {
		origin = t.originNs
	}
	if _, ok := subTime(last, origin); !ok {
		t.err = &TraceError{File: t.name, Line: s.line, Err: ErrBadField,
			Msg: fmt.Sprintf("time %s is more than 292 years after the first arrival (line %d, %s): beyond the range of engine.Time",
				time.Unix(0, last).UTC().Format(time.RFC3339Nano), t.originLine, time.Unix(0, origin).UTC().Format(time.RFC3339Nano))}
		return Bin{}, t.err
	}
	if t.n == 0 {
		t.originNs, t.originLine = first, s.line
	}
	b := Bin{Start: engine.Time(sp.start - origin), Width: sp.width, Count: sp.c, First: sp.j, Line: s.line}
	t.n += int(sp.c - sp.j)
	sp.j = sp.c
	t.prevNs, t.prevLine = last, s.line
	t.prevText = append(t.prevText[:0], s.lineText...)
	return b, nil
}
