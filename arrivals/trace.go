package arrivals

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/ratesim/ratesim/engine"
)

// Trace is a [Process] that reads arrivals from a trace file, as described
// by [TraceOptions]: a CSV or TSV file with a header line, one arrival per
// line; a Common or Combined Log Format access log; JSON lines; or
// per-interval counts (see TraceOptions.Format). Gzip-compressed input is
// read transparently.
//
// Times are measured from the first arrival, the trace's origin, so the
// first Arrival.T is 0. Each timestamp is converted exactly to int64
// nanoseconds since the Unix epoch and the origin's is subtracted in
// integer arithmetic: Arrival.T is exact (1700000000.3 after 1700000000.0
// is exactly 300000000 ns), with no float64 on the way. [Trace.Origin]
// gives the origin in Unix nanoseconds, so that windows can be aligned to
// the absolute clock (k·W from the epoch).
// Arrival.Line is the 1-based line the arrival starts on; Key and Sub come
// from KeyCol and SubCol.
//
// Unless Sort is set the file is streamed: memory does not grow with its
// length, and times must be non-decreasing. Bad input is a [*TraceError]
// naming the file and line. An error other than io.EOF ends the stream:
// Next returns it again on every later call and the reader's state (count,
// origin, previous arrival) stays as it was before the bad line. With
// SkipBad a bad line is skipped instead, counted by [Trace.Skipped].
//
// A Trace must be made with [NewTrace] or [Open]. It is not safe for
// concurrent use.
type Trace struct {
	name     string
	skipBad  bool
	maxBad   int         // TraceOptions.MaxBad
	interval engine.Time // the counting interval of a count format, or 0
	format   timeFormat
	delim    rune        // the field separator
	cr       *csvReader  // reads the records unless delim is a tab
	tsv      *tsvReader  // reads the records if delim is a tab
	src      entrySource // reads the entries of the other formats, or nil
	closer   io.Closer   // the file opened by Open, or nil
	// oneDecimal: cr reads one column of decimal times, and the delimiter
	// cannot occur in one (see readLine).
	oneDecimal bool

	header       []string
	timeCol      int // index of the time column
	keyCol       int // index of the key column, or -1
	subCol       int // index of the sub-bucket column, or -1
	lastLine     int // last line read, for messages about the end
	skipped      int
	firstSkipped *TraceError
	err          error       // sticky error, including io.EOF
	sorted       *sortedRuns // Sort: the whole trace, or nil
	n            int         // arrivals returned
	originNs     int64       // first arrival, ns since the epoch
	originLine   int         // its line
	prevNs       int64       // previous arrival, ns since the epoch
	text         []byte      // time text of the line just read (streaming)
	prevText     []byte      // previous arrival's time text (streaming)
	prevLine     int         // previous arrival's line
	keys         keyTable    // the key values seen, by id
	batchLines   []int       // the lines of the last NextTimes
}

// KeyName returns the value of key id (Arrival.Key) as it appears in the
// trace's key column, or "" for an id not seen.
func (t *Trace) KeyName(id uint64) string { return t.keys.name(id) }

// traceEntry is one parsed data line.
type traceEntry struct {
	ns   int64  // time, ns since the Unix epoch
	key  uint64 // the key's id (see keyTable), or 0
	sub  int    // sub-bucket index, or -1
	line int    // 1-based line the record starts on
}

// newDelimited returns a reader of the CSV or TSV trace in br (the
// "csv" format of [NewTrace]): it reads the header line, and with opt.Sort
// the whole input.
func newDelimited(br *bufio.Reader, name string, opt TraceOptions) (*Trace, error) {
	format, err := parseTimeFormat(opt.TimeFormat)
	if err != nil {
		return nil, &TraceError{File: name, Text: opt.TimeFormat, Msg: err.Error(), Err: ErrOptions, Option: "TimeFormat"}
	}
	delim := opt.Delimiter
	if delim == 0 {
		delim = chooseDelimiter(withoutGz(name), peekHeader(br))
	} else if !validDelimiter(delim) {
		return nil, &TraceError{File: name, Msg: fmt.Sprintf("invalid delimiter %q", delim), Err: ErrOptions, Option: "Delimiter"}
	}
	t := &Trace{name: name, skipBad: opt.SkipBad, maxBad: opt.MaxBad, format: format, delim: delim, keyCol: -1, subCol: -1}
	if delim == '\t' {
		t.tsv = &tsvReader{br: br}
	} else {
		t.cr = newCSVReader(br, delim)
	}

	err = t.readHeader()
	if err == io.EOF {
		return nil, &TraceError{File: name, Line: 1, Msg: "empty trace: want a header line naming the columns", Err: ErrEmpty}
	}
	if err != nil {
		return nil, t.readError(err)
	}
	for _, c := range []struct {
		spec, role, field string
		dst               *int
	}{{opt.TimeCol, "time", "TimeCol", &t.timeCol}, {opt.KeyCol, "key", "KeyCol", &t.keyCol}, {opt.SubCol, "sub", "SubCol", &t.subCol}} {
		i, msg := column(c.spec, c.role, t.header)
		if msg != "" {
			return nil, &TraceError{File: name, Line: t.fieldLine(0), Text: c.spec, Msg: msg, Err: ErrColumn, Option: c.field}
		}
		*c.dst = i
	}
	if t.timeCol < 0 {
		t.timeCol = 0
	}
	if te := headerError(name, t.fieldLine(0), &t.format, t.header, t.timeCol); te != nil {
		return nil, te
	}
	t.oneDecimal = t.cr != nil && len(t.header) == 1 && t.keyCol < 0 && t.subCol < 0 && t.format.kind == kindDecimal &&
		!unicode.IsSpace(delim) && !strings.ContainsRune("+-.0123456789", delim)
	if opt.Sort {
		if err := t.readAll(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Stdin is the path [Open] reads standard input for, and StdinName the
// name it gives the trace in errors.
const (
	Stdin     = "-"
	StdinName = "stdin"
)

// Standard input, for Open("-"); tests replace it. stdinUsed records that
// it has been opened: it can be read only once.
var (
	stdin     io.Reader = os.Stdin
	stdinUsed atomic.Bool
)

// Open opens the trace file at path and returns a reader of it, as
// [NewTrace] with the path as the name. Close the Trace to close the file.
//
// The path "-" ([Stdin]) reads standard input, named "stdin" in errors
// (give TraceOptions.Format, as there is no extension). Standard input is
// a stream that can be read only once, so a second Open("-") in the same
// process returns a [*TraceError] wrapping [ErrOnePass] rather than an
// empty trace; a command that reads a trace twice should check first with
// [CheckRereadable]. Close does not close standard input.
func Open(path string, opt TraceOptions) (*Trace, error) {
	return OpenContext(context.Background(), path, opt)
}

// OpenContext is [Open] whose reading stops once ctx is done: the next
// read of the file (Open's, which with TraceOptions.Sort reads the whole
// file, or a later [Trace.Next]'s) fails with an error wrapping
// ctx.Err(), within one buffer (64 KiB) of input.
func OpenContext(ctx context.Context, path string, opt TraceOptions) (*Trace, error) {
	if path == Stdin {
		if stdinUsed.Swap(true) {
			return nil, &TraceError{File: StdinName, Err: ErrOnePass,
				Msg: "standard input was already read: it can be read only once, and this reads the trace a second time (save the trace to a file and give its path)"}
		}
		return NewTrace(ctxReader{ctx, stdin}, StdinName, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("arrivals: %w", err)
	}
	t, err := NewTrace(ctxReader{ctx, f}, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.closer = f
	return t, nil
}

// ctxReader reads r until ctx is done, and then fails with ctx.Err().
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// CheckRereadable returns nil when the trace at path can be read more
// than once (a regular file, compressed or not), and otherwise a
// [*TraceError] wrapping [ErrOnePass] that says why: path is "-"
// (standard input) or names a pipe, a device or a socket, whose data a
// first reading consumes. A command that reads a trace in two passes (a
// statistic, then a fit) calls it before the first. A path that cannot
// be examined is an error from os.Stat.
func CheckRereadable(path string) error {
	if path == Stdin {
		return &TraceError{File: StdinName, Err: ErrOnePass,
			Msg: "standard input can be read only once, and this reads the trace twice: save the trace to a file and give its path"}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("arrivals: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return &TraceError{File: path, Err: ErrOnePass,
			Msg: fmt.Sprintf("is not a regular file (%v) and can be read only once, and this reads the trace twice: save the trace to a file and give its path", fi.Mode().Type())}
	}
	return nil
}

// Close closes the file opened by [Open]; for a Trace from [NewTrace] or
// standard input it does nothing. Later calls return nil.
func (t *Trace) Close() error {
	if t.closer == nil {
		return nil
	}
	c := t.closer
	t.closer = nil
	return c.Close()
}

// Next returns the next arrival, io.EOF after the last one, or a
// [*TraceError]. It wraps [ErrNoArrivals] when the trace has no usable data
// line, [ErrOutOfOrder] for a line earlier than the previous arrival,
// [ErrBadField] for an unparsable field, and a *csv.ParseError for a
// malformed line or a wrong number of fields.
func (t *Trace) Next() (Arrival, error) {
	if t.err != nil {
		return Arrival{}, t.err
	}
	var e traceEntry
	if t.sorted != nil {
		var ok bool
		if e, ok = t.sorted.next(); !ok {
			t.err = io.EOF
			return Arrival{}, t.err
		}
	} else {
		for {
			var err error
			e, err = t.readLine()
			if err == io.EOF {
				t.err = t.endError()
				return Arrival{}, t.err
			}
			if err == nil && t.n > 0 && e.ns < t.prevNs {
				err = t.orderError(e)
			}
			if err == nil {
				t.text, t.prevText = t.prevText, t.text
				break
			}
			if err = t.skip(err); err != nil {
				t.err = err
				return Arrival{}, err
			}
		}
	}
	origin := e.ns
	if t.n > 0 {
		origin = t.originNs
	}
	d, ok := subTime(e.ns, origin)
	if !ok {
		// Both are int64 ns since 1970, so only a span of more than 292
		// years (1677 to 2262) gets here.
		t.err = &TraceError{File: t.name, Line: e.line, Err: ErrBadField,
			Msg: fmt.Sprintf("time %s is more than 292 years after the first arrival (line %d, %s): beyond the range of engine.Time",
				time.Unix(0, e.ns).UTC().Format(time.RFC3339Nano), t.originLine, time.Unix(0, t.originNs).UTC().Format(time.RFC3339Nano))}
		return Arrival{}, t.err
	}
	if t.n == 0 {
		t.originNs, t.originLine = e.ns, e.line
	}
	t.prevNs, t.prevLine = e.ns, e.line
	t.n++
	return Arrival{T: d, Key: e.key, Hash: t.keys.hash(e.key), Sub: e.sub, Line: e.line}, nil
}

// orderError is the error of entry e, earlier than the previous arrival:
// it suggests what fits the data, sorting or skipping, or reading counts
// when the times are small whole numbers.
func (t *Trace) orderError(e traceEntry) *TraceError {
	text := string(t.text)
	te := &TraceError{File: t.name, Line: e.line, Text: text, Err: ErrOutOfOrder,
		Msg: fmt.Sprintf("time %s is earlier than the previous arrival %s (line %d)", text, t.prevText, t.prevLine)}
	col := "time"
	if t.header != nil {
		col = t.header[t.timeCol]
	}
	if te.Hint = orderHint(col, text, string(t.prevText)); te.Hint == nil {
		te.setMsg(te.Msg + "; use " + optRef("Sort", "") + " to sort the trace or " + optRef("SkipBad", "") + " to skip such lines")
	}
	return te
}

// Skipped returns the number of lines skipped so far because of SkipBad.
func (t *Trace) Skipped() int { return t.skipped }

// FirstSkipped returns the error describing the first skipped line, or nil
// if none was skipped.
func (t *Trace) FirstSkipped() error {
	if t.firstSkipped == nil {
		return nil
	}
	return t.firstSkipped
}

// Interval returns the counting interval of a count trace ([FormatCounts]
// or [FormatWide]): TraceOptions.Interval, or the 1-minute default when it
// was 0. It returns 0 for the other formats.
func (t *Trace) Interval() engine.Time { return t.interval }

// Count returns the number of arrivals returned so far.
func (t *Trace) Count() int { return t.n }

// Origin returns the instant of the first arrival (the origin of
// Arrival.T, T = 0) in nanoseconds since the Unix epoch, and true; or 0 and
// false before the first arrival has been read. An arrival is at
// Origin() + T nanoseconds since the epoch, exactly, so windows aligned to
// the absolute clock (edges at k·W since the epoch) are at k·W - Origin()
// on the trace's clock. time.Unix(0, ns).UTC() gives the instant as a
// time.Time.
//
// Traces read with Sort know their origin from [NewTrace] on.
func (t *Trace) Origin() (unixNanos int64, ok bool) {
	if t.n == 0 && t.sorted == nil {
		return 0, false
	}
	if t.n == 0 {
		return (*t.sorted.runs.Min())[0].ns, true
	}
	return t.originNs, true
}

// skip records err as a skipped line if SkipBad allows it, and returns
// nil; otherwise it returns the error to fail with: err itself, or an
// ErrTooManyBad error once the skipped lines exceed MaxBad.
func (t *Trace) skip(err error) error {
	var te *TraceError
	if !t.skipBad || !errors.As(err, &te) || !skippable(te) {
		return err
	}
	t.skipped++
	if t.firstSkipped == nil {
		t.firstSkipped = te
	}
	limit, rule := t.maxBad, fmt.Sprintf("more than %s = %d", optRef("MaxBad", ""), t.maxBad)
	if t.maxBad == 0 {
		limit = 10 + t.lastLine/100
		rule = fmt.Sprintf("more than 10 + 1%% of the %d lines read", t.lastLine)
	}
	if t.maxBad < 0 || t.skipped <= limit {
		return nil
	}
	f := t.firstSkipped
	tooMany := &TraceError{File: t.name, Line: te.Line, Err: ErrTooManyBad, Hint: f.Hint}
	tooMany.setMsg(fmt.Sprintf("%d bad lines skipped, %s: the options likely do not fit the file (raise %s if they do); the first bad line, %d: %s",
		t.skipped, rule, optRef("MaxBad", ""), f.Line, f.msgTemplate()))
	return tooMany
}

// skippable reports whether te is about one bad line the reader has moved
// past, rather than an I/O error.
func skippable(te *TraceError) bool {
	var pe *csv.ParseError
	return errors.Is(te, ErrBadField) || errors.Is(te, ErrOutOfOrder) || errors.As(te, &pe)
}

// endError is the error at the end of the input: io.EOF, or ErrNoArrivals
// when nothing was read.
func (t *Trace) endError() error {
	if t.n > 0 || t.sorted != nil {
		return io.EOF
	}
	msg := "no arrivals after the header"
	if t.skipped > 0 {
		f := t.firstSkipped
		msg = fmt.Sprintf("%s: all %d data lines were skipped as bad; the first, line %d: %s", msg, t.skipped, f.Line, f.msgTemplate())
	}
	te := &TraceError{File: t.name, Line: t.lastLine + 1, Err: ErrNoArrivals}
	te.setMsg(msg)
	return te
}

// readHeader reads the header line into t.header. It returns io.EOF when
// the input has no line, and otherwise an error from the record reader.
func (t *Trace) readHeader() error {
	if t.tsv != nil {
		fields, err := t.tsv.read()
		if err != nil {
			return err
		}
		t.header = make([]string, len(fields))
		for i, f := range fields {
			t.header[i] = string(f)
		}
	} else {
		hdr, err := t.cr.read()
		if err != nil {
			return err
		}
		t.header = make([]string, len(hdr))
		for i, f := range hdr {
			t.header[i] = string(f)
		}
	}
	t.lastLine = t.fieldLine(len(t.header) - 1)
	return nil
}

// readLine reads and parses the next data line, leaving its time text in
// t.text. It returns io.EOF at the end of the input and otherwise a
// *TraceError. A TSV line costs no allocation unless it is bad.
func (t *Trace) readLine() (traceEntry, error) {
	if t.src != nil {
		return t.src.next(t)
	}
	if t.tsv != nil {
		fields, err := t.tsv.read()
		if err == io.EOF {
			return traceEntry{}, io.EOF
		}
		if err != nil {
			return traceEntry{}, t.readError(err)
		}
		t.lastLine = t.tsv.line
		if len(fields) != len(t.header) {
			// As encoding/csv reports it, so that both formats fail alike.
			return traceEntry{}, t.readError(&csv.ParseError{StartLine: t.tsv.line, Line: t.tsv.line, Column: 1, Err: csv.ErrFieldCount})
		}
		return parseEntry(t, fields)
	}
	b, err := t.cr.nextLine()
	if err == io.EOF {
		return traceEntry{}, io.EOF
	}
	if t.oneDecimal && err == nil {
		// The common trace: one column of decimal times. A line that
		// parses as one is that one field (no delimiter, no quote); any
		// other goes the general way, which finds its error.
		body := b[:len(b)-lengthNL(b)]
		text := trimSpace(body)
		if ns, perr := parseDecimal(text, t.format.unit); perr == nil {
			t.cr.lines = append(t.cr.lines[:0], t.cr.line)
			t.lastLine = t.cr.line
			t.text = append(t.text[:0], text...)
			return traceEntry{ns: ns, sub: -1, line: t.cr.line}, nil
		}
	}
	rec, err := t.cr.split(b, err)
	if err != nil {
		return traceEntry{}, t.readError(err)
	}
	t.lastLine = t.fieldLine(len(rec) - 1)
	if len(rec) != len(t.header) {
		// encoding/csv's FieldsPerRecord rule, as the TSV branch reports it.
		line := t.fieldLine(0)
		return traceEntry{}, t.readError(&csv.ParseError{StartLine: line, Line: line, Column: 1, Err: csv.ErrFieldCount})
	}
	return parseEntry(t, rec)
}

// parseEntry parses the fields of the record just read, leaving its time
// text in t.text. It keeps no field.
func parseEntry[T byteText](t *Trace, rec []T) (traceEntry, error) {
	e := traceEntry{line: t.fieldLine(0), sub: -1}
	text := trimSpace(rec[t.timeCol])
	t.text = append(t.text[:0], text...)
	var err error
	if e.ns, err = parseTime(&t.format, text); err != nil {
		s := string(text)
		te := t.fieldError(s, t.timeCol, fmt.Sprintf("bad time %q in column %q: %v; want %s",
			clipLine(s), t.header[t.timeCol], err, t.format.want))
		if te.Hint = timeHint(&t.format, s); te.Hint == nil {
			te.Hint = columnHint(&t.format, t.header, t.timeCol, rec)
		}
		return e, te
	}
	if t.keyCol >= 0 {
		e.key, _ = keyID(&t.keys, rec[t.keyCol])
	}
	if t.subCol >= 0 {
		f := trimSpace(rec[t.subCol])
		sub, ok := parseIndex(f)
		if !ok {
			s := string(f)
			return e, t.fieldError(s, t.subCol, fmt.Sprintf("bad sub-bucket index %q in column %q: want a non-negative integer such as 0 or 3",
				clipLine(s), t.header[t.subCol]))
		}
		e.sub = sub
	}
	return e, nil
}

// fieldError is a bad field at column col of the current record.
func (t *Trace) fieldError(text string, col int, msg string) *TraceError {
	return &TraceError{File: t.name, Line: t.fieldLine(col), Text: text, Msg: msg, Err: ErrBadField}
}

// fieldLine returns the line of field i of the record just read.
func (t *Trace) fieldLine(i int) int {
	if t.tsv != nil {
		return t.tsv.line // a TSV record is one line
	}
	return t.cr.lines[i]
}

// readError converts an error from the record reader: a *csv.ParseError
// or an I/O error.
func (t *Trace) readError(err error) *TraceError {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return ioError(t.name, t.lastLine+1, err)
	}
	t.lastLine = pe.Line
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return &TraceError{File: t.name, Line: pe.StartLine, Err: pe,
			Msg: fmt.Sprintf("wrong number of fields: want %d as in the header, separated by %q", len(t.header), t.delim)}
	}
	return &TraceError{File: t.name, Line: pe.Line, Err: pe,
		Msg: fmt.Sprintf("malformed line: %v at column %d; a field with a quote must be quoted and its quotes doubled", pe.Err, pe.Column)}
}

// readAll reads the whole trace into t.sorted.
func (t *Trace) readAll() error {
	// Runs that double in size up to sortRunLen hold the trace in about 32
	// bytes per arrival and are never copied. One slice grown by append
	// would leave its earlier copies (together about 4 times the final
	// size, at Go's growth factor of 1.25 for large slices) as garbage.
	var runs [][]traceEntry
	run := make([]traceEntry, 0, sortFirstRun)
	for {
		e, err := t.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			if err = t.skip(err); err == nil {
				continue
			}
			return err
		}
		if len(run) == cap(run) {
			runs = append(runs, run)
			run = make([]traceEntry, 0, min(2*cap(run), sortRunLen))
		}
		run = append(run, e)
	}
	if len(run) == 0 {
		return t.endError()
	}
	t.sorted = newSortedRuns(append(runs, run))
	return nil
}

// Name returns the name the trace was opened with (its file name), as used
// in error messages.
func (t *Trace) Name() string { return t.name }
