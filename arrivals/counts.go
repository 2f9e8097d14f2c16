package arrivals

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/engine"
)

// defaultInterval is the counting interval when TraceOptions.Interval is 0.
const defaultInterval = 60 * engine.Second

// MaxCount bounds one interval's count (and a wide trace's sum for one
// interval): 2^53 jobs.
const MaxCount = 1 << 53

// spread expands the count c of an interval [start, start+width) ns into
// arrival times, one at a time, without storing them.
type spread struct {
	rng *rand.Rand // nil: even spacing

	start, width int64 // the interval, ns
	c, j         int64 // count, and arrivals yielded so far
	u            float64
}

// newSpread returns the spread of TraceOptions.Spread.
func newSpread(name string, opt TraceOptions) (spread, *TraceError) {
	switch opt.Spread {
	case "", "even":
		return spread{}, nil
	case "random":
		if opt.Src == nil {
			return spread{}, &TraceError{File: name, Msg: "spread random needs a random source (TraceOptions.Src)", Err: ErrOptions}
		}
		return spread{rng: rand.New(opt.Src)}, nil
	}
	return spread{}, &TraceError{File: name, Text: opt.Spread, Msg: fmt.Sprintf("unknown spread %q: want even or random", opt.Spread), Err: ErrOptions, Option: "Spread"}
}

// countInterval returns TraceOptions.Interval in ns, or an error.
func countInterval(name string, opt TraceOptions) (int64, *TraceError) {
	d := opt.Interval
	if d == 0 {
		d = defaultInterval
	}
	if d < 0 {
		return 0, &TraceError{File: name, Msg: fmt.Sprintf("interval %v s is invalid: want > 0", d), Err: ErrOptions, Option: "Interval"}
	}
	return int64(d), nil
}

// reset starts the interval [start, start+width) with c arrivals.
func (s *spread) reset(start, width, c int64) {
	s.start, s.width, s.c, s.j, s.u = start, width, c, 0, 0
}

// more reports whether the interval has arrivals left.
func (s *spread) more() bool { return s.j < s.c }

// next returns the next arrival of the interval, ns since the epoch:
// start + floor(j·width/c) for even spacing (exact, in 128-bit
// arithmetic), or start + floor(U_(j)·width), U_(j) the j-th smallest of c
// uniform draws on [0, 1), drawn in order: U_(j) = 1 - (1 - U_(j-1))·V^(1/m)
// with m = c - j + 1 draws left and V uniform (the minimum of m uniforms on
// [U_(j-1), 1)).
func (s *spread) next() int64 {
	j := s.j
	s.j++
	if s.rng == nil {
		hi, lo := bits.Mul64(uint64(j), uint64(s.width))
		q, _ := bits.Div64(hi, lo, uint64(s.c)) // < width: j < c
		return s.start + int64(q)
	}
	m := float64(s.c - j)
	v := 1 - s.rng.Float64() // (0, 1]
	s.u += (1 - s.u) * -math.Expm1(math.Log(v)/m)
	off := int64(s.u * float64(s.width))
	return s.start + min(max(off, 0), s.width-1)
}

// recordReader reads CSV or TSV records as strings (for the count
// formats, whose lines are few next to their arrivals).
type recordReader struct {
	name  string
	delim rune
	cr    *csv.Reader
	tsv   *tsvReader
	width int // fields per record, set by the first
	last  int // line of the last record
}

func newRecordReader(br *bufio.Reader, name string, delim rune) (*recordReader, *TraceError) {
	if delim == 0 {
		delim = chooseDelimiter(withoutGz(name), peekHeader(br))
	} else if !validDelimiter(delim) {
		return nil, &TraceError{File: name, Msg: fmt.Sprintf("invalid delimiter %q", delim), Err: ErrOptions, Option: "Delimiter"}
	}
	r := &recordReader{name: name, delim: delim}
	if delim == '\t' {
		r.tsv = &tsvReader{br: br}
	} else {
		r.cr = csv.NewReader(br)
		r.cr.Comma = delim
	}
	return r, nil
}

// read returns the next record and its line, io.EOF, or a *TraceError.
func (r *recordReader) read() ([]string, int, error) {
	var rec []string
	if r.tsv != nil {
		fields, err := r.tsv.read()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, ioError(r.name, r.last+1, err)
		}
		r.last = r.tsv.line
		if r.width > 0 && len(fields) != r.width {
			pe := &csv.ParseError{StartLine: r.last, Line: r.last, Column: 1, Err: csv.ErrFieldCount}
			return nil, r.last, &TraceError{File: r.name, Line: r.last, Err: pe,
				Msg: fmt.Sprintf("wrong number of fields: want %d as in the first line, separated by %q", r.width, r.delim)}
		}
		rec = make([]string, len(fields))
		for i, f := range fields {
			rec[i] = string(f)
		}
	} else {
		var err error
		rec, err = r.cr.Read()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			r.last = pe.Line
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, pe.StartLine, &TraceError{File: r.name, Line: pe.StartLine, Err: pe,
					Msg: fmt.Sprintf("wrong number of fields: want %d as in the first line, separated by %q", r.width, r.delim)}
			}
			return nil, pe.Line, &TraceError{File: r.name, Line: pe.Line, Err: pe,
				Msg: fmt.Sprintf("malformed line: %v at column %d; a field with a quote must be quoted and its quotes doubled", pe.Err, pe.Column)}
		}
		if err != nil {
			return nil, 0, ioError(r.name, r.last+1, err)
		}
		r.last, _ = r.cr.FieldPos(len(rec) - 1)
	}
	if r.width == 0 {
		r.width = len(rec)
	}
	line := r.last
	if r.cr != nil {
		line, _ = r.cr.FieldPos(0)
	}
	return rec, line, nil
}

// countsSource reads per-interval counts in long form (FormatCounts).
type countsSource struct {
	rr       *recordReader
	header   []string
	timeCol  int // -1: no time column
	countCol int
	format   timeFormat
	interval int64 // ns
	sp       spread
	pending  []string // a first line that is data, not a header
	pendLine int
	pendLast int           // the record reader's last line after pending was read
	ahead    []aheadRecord // records read ahead (see Trace.CountsAhead), first out first
	idx      int64         // intervals read, for files without a time column
	line     int           // line of the current interval
	lineText []byte        // its time text
	sorting  bool          // TraceOptions.Sort: overlapping intervals are sorted, not errors
	havePrev bool
	prevEnd  int64 // end of the previous interval, ns
	prevLine int
}

func newCounts(br *bufio.Reader, name string, opt TraceOptions) (*Trace, error) {
	format, err := parseTimeFormat(opt.TimeFormat)
	if err != nil {
		return nil, &TraceError{File: name, Text: opt.TimeFormat, Msg: err.Error(), Err: ErrOptions, Option: "TimeFormat"}
	}
	s := &countsSource{format: format, sorting: opt.Sort}
	var te *TraceError
	if s.interval, te = countInterval(name, opt); te != nil {
		return nil, te
	}
	if s.sp, te = newSpread(name, opt); te != nil {
		return nil, te
	}
	if s.rr, te = newRecordReader(br, name, opt.Delimiter); te != nil {
		return nil, te
	}
	first, line, err := s.rr.read()
	if err == io.EOF {
		return nil, &TraceError{File: name, Line: 1, Msg: "empty trace: want counts, one per line, or time,count lines", Err: ErrEmpty}
	}
	if err != nil {
		return nil, err
	}
	// Without a header, columns are known only by their 1-based index.
	cc := strings.TrimSpace(opt.CountCol)
	countIdx := len(first) - 1
	byIndex := cc == "" || countDigits(cc) == len(cc)
	if cc != "" && byIndex {
		if i, err := strconv.Atoi(cc); err == nil && i >= 1 && i <= len(first) {
			countIdx = i - 1
		}
	}
	if _, ok := parseIndex(trimSpace(first[countIdx])); byIndex && ok {
		s.pending, s.pendLine, s.pendLast = first, line, s.rr.last
		s.header = make([]string, len(first))
		for i := range s.header {
			s.header[i] = strconv.Itoa(i + 1)
		}
	} else {
		s.header = first
	}
	cols := []struct {
		spec, role, field string
		dst               *int
	}{{opt.CountCol, "count", "CountCol", &s.countCol}, {opt.TimeCol, "time", "TimeCol", &s.timeCol}}
	for _, c := range cols {
		i, msg := column(c.spec, c.role, s.header)
		if msg != "" {
			return nil, &TraceError{File: name, Line: line, Text: c.spec, Msg: msg, Err: ErrColumn, Option: c.field}
		}
		*c.dst = i
	}
	if s.countCol < 0 {
		s.countCol = len(s.header) - 1
	}
	if s.timeCol < 0 && opt.TimeCol == "" && len(s.header) >= 2 {
		s.timeCol = 0 // the first column other than the counts
		if s.countCol == 0 {
			s.timeCol = 1
		}
	}
	if s.timeCol == s.countCol {
		return nil, &TraceError{File: name, Line: line, Msg: fmt.Sprintf("the time and count columns are both column %d (%q): %s",
			s.countCol+1, s.header[s.countCol], listColumns(s.header)), Err: ErrColumn}
	}
	t, err := newSourceTrace(name, opt, s)
	if err != nil {
		return nil, err
	}
	t.interval = engine.Time(s.interval)
	return t, nil
}

func (s *countsSource) next(t *Trace) (traceEntry, error) {
	for !s.sp.more() {
		if err := s.readInterval(t); err != nil {
			return traceEntry{}, err
		}
	}
	t.text = append(t.text[:0], s.lineText...)
	return traceEntry{ns: s.sp.next(), line: s.line, sub: -1}, nil
}

// readInterval reads the next line and starts its interval.
func (s *countsSource) readInterval(t *Trace) error {
	rec, line, last := s.pending, s.pendLine, s.pendLast
	s.pending = nil
	if rec == nil {
		var err error
		if rec, line, last, err = s.read(); err != nil {
			if err != io.EOF {
				t.lastLine = last
			}
			return err
		}
	}
	t.lastLine = last
	bad := func(text string, msg string) *TraceError {
		return &TraceError{File: t.name, Line: line, Text: text, Msg: msg, Err: ErrBadField}
	}
	cf := trimSpace(rec[s.countCol])
	c, ok := parseIndex(cf)
	if !ok || c > MaxCount {
		return bad(cf, fmt.Sprintf("bad count %q in column %q: want a whole number of jobs from 0 to 2^53", clipLine(cf), s.header[s.countCol]))
	}
	var start int64
	if s.timeCol >= 0 {
		tf := trimSpace(rec[s.timeCol])
		var err error
		if start, err = parseTime(&s.format, tf); err != nil {
			te := bad(tf, fmt.Sprintf("bad time %q in column %q: %v; want %s", clipLine(tf), s.header[s.timeCol], err, s.format.want))
			te.Hint = timeHint(&s.format, tf)
			return te
		}
		s.lineText = append(s.lineText[:0], tf...)
	} else {
		hi, lo := bits.Mul64(uint64(s.idx), uint64(s.interval))
		if hi != 0 || lo > math.MaxInt64 {
			return bad("", fmt.Sprintf("interval %d starts beyond the int64 nanosecond range", s.idx))
		}
		start = int64(lo)
		s.lineText = strconv.AppendInt(append(s.lineText[:0], "interval "...), s.idx, 10)
		s.idx++
	}
	end, ok := addInt64(start, s.interval)
	if !ok {
		return bad(string(s.lineText), fmt.Sprintf("interval starting at %s ends beyond the int64 nanosecond range (2262-04-11)", s.lineText))
	}
	if s.havePrev && !s.sorting && start < s.prevEnd {
		te := &TraceError{File: t.name, Line: line, Text: string(s.lineText), Err: ErrOutOfOrder}
		te.setMsg(fmt.Sprintf("interval starting at %s begins before the previous interval (line %d) ends, %v s after its start: intervals must not overlap (check %s, or use %s to merge them)",
			s.lineText, s.prevLine, engine.Time(s.interval), optRef("Interval", ""), optRef("Sort", "")))
		return te
	}
	s.havePrev, s.prevEnd, s.prevLine = true, end, line
	s.line = line
	s.sp.reset(start, s.interval, int64(c))
	return nil
}
