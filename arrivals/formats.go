package arrivals

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Trace formats, the values of TraceOptions.Format.
const (
	// FormatCSV is CSV or TSV with a header line and one arrival per line,
	// as TraceOptions describes.
	FormatCSV = "csv"

	// FormatCLF is the Common Log Format of web-server access logs, and
	// the Combined Log Format that extends it (Apache, nginx):
	//
	//	host ident authuser [01/Jul/1995:00:00:01 -0400] "GET / HTTP/1.0" 200 1839 ["referer" "agent"]
	//
	// Each line with a valid [timestamp] is one arrival, at one-second
	// resolution, converted to UTC with the line's own zone offset; lines
	// of the same second keep file order. Only the timestamp must be
	// valid: a line whose request, status or size is malformed still
	// counts. A line without a valid timestamp is bad (ErrBadField). The
	// first '[' of the line opens the timestamp, which must read
	// dd/Mon/yyyy:HH:MM:SS ±hhmm (month names in English, any case).
	// KeyCol may name the host, ident or user field (the first three
	// space-separated fields; a missing one is the empty key). There is
	// no header line; TimeCol, SubCol and TimeFormat (other than "unix")
	// do not apply.
	FormatCLF = "clf"

	// FormatJSONL is JSON lines: one JSON object per line, one arrival per
	// object. TimeCol names the top-level field holding the time ("" means
	// "time"), read with TimeFormat: a JSON number is read by its literal
	// text (1700000000.25, exactly, with the unix formats; no exponents),
	// and a JSON string by its unescaped contents (any format). KeyCol and
	// SubCol name optional fields: a string key is hashed as its unescaped
	// text, so "alice" gives the key a CSV field alice gives, and a missing
	// key field is the empty key; the sub-bucket field is required, a
	// non-negative integer. Other fields, nested objects and arrays
	// are ignored; of duplicate fields the last counts, as in
	// encoding/json. There is no header line.
	FormatJSONL = "jsonl"

	// FormatCounts is per-interval counts in long form: CSV or TSV with one
	// interval per line, either one count per line or a time and a count
	// (time,count). CountCol names the count column ("" means the last);
	// TimeCol the column of interval start times in TimeFormat ("" means
	// the first column other than the counts if there are two or more
	// columns, else none: data line k, from 0, is the interval starting at
	// k·Interval after the Unix epoch).
	// The first line is a header unless CountCol is a 1-based index or ""
	// and the first line's count field is a whole number. A count is a
	// whole number >= 0; its c jobs become arrivals in [t, t+Interval) as
	// TraceOptions.Spread says. KeyCol and SubCol do not apply.
	FormatCounts = "counts"

	// FormatWide is per-interval counts in wide form: CSV or TSV with a
	// header line and one row per series, whose columns are the series'
	// key columns (any header that is not a whole number) and one count
	// column per interval (headers that are whole numbers, as 1..1440 in
	// the Azure Functions 2019 traces), in order: the i-th count column
	// (from 0) is the interval starting at i·Interval after the Unix
	// epoch. TraceOptions.Series picks the rows whose counts are summed,
	// and Spread expands them as for FormatCounts. The rows are read when
	// the trace is opened (keeping one sum per interval, not the rows);
	// with SkipBad a selected row with a bad count is skipped. Arrivals
	// carry the row's line when one row is selected, else Line 0. KeyCol,
	// SubCol and TimeCol do not apply.
	FormatWide = "wide"
)

// Formats lists the trace formats.
var Formats = []string{FormatCSV, FormatCLF, FormatJSONL, FormatCounts, FormatWide}

// NewTrace returns a reader of the trace in r, in the format opt.Format
// (see [TraceOptions]). name identifies the trace in error messages (a
// file name) and, after any .gz suffix, picks the format when opt.Format
// is "" and the CSV delimiter by its extension. Input that starts with the
// gzip magic bytes (1f 8b) is decompressed on the fly. A line longer than
// [MaxLineBytes] (1 MiB) is an error wrapping [ErrLineTooLong] that ends
// the reading, even with SkipBad. NewTrace reads the header line (of csv
// and counts), the whole input for wide and with opt.Sort.
//
// It returns a [*TraceError] wrapping [ErrOptions] for an option that is
// invalid or does not apply to the format, [ErrEmpty] when there is no
// header, [ErrColumn] when a column is missing or ambiguous (the message
// lists the header), [ErrHeaderLooksLikeData] when a CSV or TSV trace's
// first line is data rather than column names (with a [*Hint] to read it
// as counts when it fits), and with Sort any error Next would return. The
// caller keeps ownership of r.
//
// Errors about a line carry a [*Hint] when another option fits the data:
// a time that parses in another time format, another column that holds
// times, or times that look like counts per interval.
func NewTrace(r io.Reader, name string, opt TraceOptions) (*Trace, error) {
	format, err := FormatFor(name, opt.Format)
	if err != nil {
		return nil, &TraceError{File: name, Text: opt.Format, Msg: err.Error(), Err: ErrOptions, Option: "Format"}
	}
	if field, msg := notApplicable(format, opt); msg != "" {
		return nil, &TraceError{File: name, Msg: msg, Err: ErrOptions, Option: field}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var in io.Reader = br
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &TraceError{File: name, Line: 1, Msg: "bad gzip header: " + err.Error(), Err: err}
		}
		in = zr
	}
	// Lines are limited after decompression, for every format.
	br = bufio.NewReaderSize(newLineLimit(in), 64<<10)
	skipBOM(br)
	switch format {
	case FormatCLF:
		return newCLF(br, name, opt)
	case FormatJSONL:
		return newJSONL(br, name, opt)
	case FormatCounts:
		return newCounts(br, name, opt)
	case FormatWide:
		return newWide(br, name, opt)
	}
	return newDelimited(br, name, opt)
}

// FormatFor returns the format in which [NewTrace] reads a trace called
// name with TraceOptions.Format format: format itself (tsv is csv), or for
// "" the format its extension picks. An unknown format is an error.
func FormatFor(name, format string) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(format)); f {
	case FormatCSV, FormatCLF, FormatJSONL, FormatCounts, FormatWide:
		return f, nil
	case "tsv":
		return FormatCSV, nil
	case "":
		switch strings.ToLower(filepath.Ext(withoutGz(name))) {
		case ".log", ".clf":
			return FormatCLF, nil
		case ".jsonl", ".ndjson":
			return FormatJSONL, nil
		}
		return FormatCSV, nil
	}
	return "", fmt.Errorf("unknown trace format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// notApplicable names an option set for a format that ignores it (its
// TraceOptions field and a message), or returns "", "".
func notApplicable(format string, opt TraceOptions) (field, msg string) {
	type opt1 struct {
		field, name string
		set         bool
		ok          []string // formats that use it
	}
	tf := opt.TimeFormat != "" && opt.TimeFormat != "unix"
	for _, o := range []opt1{
		{"TimeCol", "time column", opt.TimeCol != "", []string{FormatCSV, FormatJSONL, FormatCounts}},
		{"TimeFormat", "time format", tf, []string{FormatCSV, FormatJSONL, FormatCounts}},
		{"KeyCol", "key column", opt.KeyCol != "", []string{FormatCSV, FormatJSONL, FormatCLF}},
		{"SubCol", "sub-bucket column", opt.SubCol != "", []string{FormatCSV, FormatJSONL}},
		{"Delimiter", "delimiter", opt.Delimiter != 0, []string{FormatCSV, FormatCounts, FormatWide}},
		{"Interval", "interval", opt.Interval != 0, []string{FormatCounts, FormatWide}},
		{"Spread", "spread", opt.Spread != "", []string{FormatCounts, FormatWide}},
		{"CountCol", "count column", opt.CountCol != "", []string{FormatCounts}},
		{"Series", "series", opt.Series != "", []string{FormatWide}},
	} {
		if o.set && !containsString(o.ok, format) {
			return o.field, fmt.Sprintf("the %s option does not apply to format %s (only to %s)", o.name, format, strings.Join(o.ok, ", "))
		}
	}
	return "", ""
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// withoutGz returns name without a trailing .gz (any case).
func withoutGz(name string) string {
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		return name[:len(name)-3]
	}
	return name
}

// entrySource reads the arrivals of a format other than csv. next returns
// the next entry, io.EOF at the end, or a *TraceError; it leaves the
// entry's time text in t.text and the last line read in t.lastLine.
type entrySource interface {
	next(t *Trace) (traceEntry, error)
}

// newSourceTrace returns a Trace reading src, read whole with opt.Sort.
func newSourceTrace(name string, opt TraceOptions, src entrySource) (*Trace, error) {
	t := &Trace{name: name, skipBad: opt.SkipBad, maxBad: opt.MaxBad, keyCol: -1, subCol: -1, src: src}
	if opt.Sort {
		if err := t.readAll(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// lineReader reads lines, as tsvReader does without splitting them: a CR
// before the LF is dropped, and blank lines (nothing but spaces) are
// skipped but counted.
type lineReader struct {
	br   *bufio.Reader
	line int    // 1-based number of the line last read
	long []byte // a line longer than br's buffer, reused
}

// read returns the next non-blank line, whose number is then r.line. The
// bytes alias a buffer that the next call overwrites. At the end of the
// input it returns io.EOF.
func (r *lineReader) read() ([]byte, error) {
	for {
		b, err := readLine(r.br, &r.long)
		if err != nil {
			return nil, err
		}
		r.line++
		if len(trimSpace(b)) == 0 {
			continue
		}
		return b, nil
	}
}

// readLine returns the next line of br without its "\n" or "\r\n", or
// io.EOF at the end of the input (a last line without "\n" is returned
// first). A line longer than br's buffer is gathered in *long, which is
// reused. The bytes alias br's buffer or *long and are overwritten by the
// next call.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		*long = append((*long)[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = br.ReadSlice('\n')
			*long = append(*long, b...)
		}
		b = *long
	}
	if err != nil && (err != io.EOF || len(b) == 0) {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// lineError is a bad line of a line-based format.
func lineError(t *Trace, line int, text []byte, msg string) *TraceError {
	const most = 200
	s := string(text)
	if len(s) > most {
		s = s[:most] + "..."
	}
	return &TraceError{File: t.name, Line: line, Text: s, Msg: msg, Err: ErrBadField}
}

// readLineError converts an I/O error while reading the line after last.
// entry reads the next non-blank line of a one-arrival-per-line format
// and returns it with an entry for it (its line number, no sub-bucket),
// recording the line in t. At the end it returns io.EOF; a read error
// names the line.
func (r *lineReader) entry(t *Trace) ([]byte, traceEntry, error) {
	line, err := r.read()
	if err == io.EOF {
		return nil, traceEntry{}, io.EOF
	}
	if err != nil {
		return nil, traceEntry{}, readLineError(t, r.line, err)
	}
	t.lastLine = r.line
	return line, traceEntry{line: r.line, sub: -1}, nil
}

func readLineError(t *Trace, last int, err error) *TraceError {
	return ioError(t.name, last+1, err)
}
