package arrivals

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"unicode/utf8"
)

// csvReader splits comma-separated values (RFC 4180) exactly as
// encoding/csv's Reader does with its defaults (no LazyQuotes, no
// TrimLeadingSpace, no Comment, ReuseRecord) and a given Comma: the same
// records, the same line of every field, and the same *csv.ParseError
// (StartLine, Line, Column, Err) for a bare or unterminated quote. It
// works on bytes: a line without a quote, the common case in traces, is
// split in place and costs no allocation, where encoding/csv copies every
// record into a new string. FuzzCSVReader compares the two.
//
// Field counts are not checked here: the caller compares each record with
// its header (encoding/csv's FieldsPerRecord = 0), so that CSV and TSV fail
// alike.
type csvReader struct {
	br     *bufio.Reader
	comma  []byte   // the delimiter, UTF-8 encoded
	c0     byte     // comma[0]
	line   int      // 1-based number of the last line read; 0 before the first
	long   []byte   // a line longer than br's buffer, reused
	buf    []byte   // the unquoted text of a record with a quote, reused
	ends   []int    // end of each field in buf
	fields [][]byte // fields of the last record, reused
	lines  []int    // line of each field of the last record, reused
}

func newCSVReader(br *bufio.Reader, comma rune) *csvReader {
	c := utf8.AppendRune(nil, comma)
	return &csvReader{br: br, comma: c, c0: c[0]}
}

// rawLine reads the next line as encoding/csv does: with its '\n' (a CR LF
// ending becomes '\n'; a CR before the end of the input is dropped), and
// nil error for a last line without a newline. At the end of the input it
// returns an empty line and io.EOF.
func (r *csvReader) rawLine() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	if len(b) > 0 && err == io.EOF {
		err = nil
		if b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
	}
	r.line++
	if n := len(b); n >= 2 && b[n-2] == '\r' && b[n-1] == '\n' {
		b[n-2] = '\n'
		b = b[:n-1]
	}
	return b, err
}

// index returns the index of the first delimiter in b, or -1.
func (r *csvReader) index(b []byte) int {
	if len(r.comma) == 1 {
		return bytes.IndexByte(b, r.c0)
	}
	return bytes.Index(b, r.comma)
}

// read returns the fields of the next record; its fields start on the
// lines r.lines. The fields alias buffers that the next call overwrites.
// At the end of the input it returns io.EOF; a malformed record is a
// *csv.ParseError, and the next call reads on from the line after it.
func (r *csvReader) read() ([][]byte, error) {
	b, errRead := r.nextLine()
	if errRead == io.EOF {
		return nil, io.EOF
	}
	return r.split(b, errRead)
}

// nextLine returns the next line that is not empty, as rawLine does (and
// io.EOF at the end of the input); the line is r.line. The caller splits
// it with split unless it knows its one field (see Trace.readLine).
func (r *csvReader) nextLine() ([]byte, error) {
	for {
		b, err := r.rawLine()
		if err == nil && len(b) == lengthNL(b) {
			continue // an empty line
		}
		return b, err
	}
}

// split returns the fields of the record that starts with line b, read
// with error errRead (not io.EOF), as read does.
func (r *csvReader) split(b []byte, errRead error) ([][]byte, error) {
	r.fields, r.lines = r.fields[:0], r.lines[:0]
	if len(r.comma) == 1 && len(b) <= 128 {
		// A short line, split in one pass unless it holds a quote.
		body, from := b[:len(b)-lengthNL(b)], 0
		for i, c := range body {
			if c == r.c0 {
				r.fields = append(r.fields, body[from:i])
				r.lines = append(r.lines, r.line)
				from = i + 1
			} else if c == '"' {
				from = -1
				break
			}
		}
		if from >= 0 {
			r.fields = append(r.fields, body[from:])
			r.lines = append(r.lines, r.line)
			return r.fields, errRead
		}
		r.fields, r.lines = r.fields[:0], r.lines[:0]
	} else if bytes.IndexByte(b, '"') < 0 {
		b = b[:len(b)-lengthNL(b)]
		for {
			i := r.index(b)
			if i < 0 {
				break
			}
			r.fields = append(r.fields, b[:i])
			r.lines = append(r.lines, r.line)
			b = b[i+len(r.comma):]
		}
		r.fields = append(r.fields, b)
		r.lines = append(r.lines, r.line)
		return r.fields, errRead
	}
	err := r.quoted(b, errRead)
	for i, start := range r.ends {
		from := 0
		if i > 0 {
			from = r.ends[i-1]
		}
		r.fields = append(r.fields, r.buf[from:start:start])
	}
	return r.fields, err
}

// quoted parses the record that starts with line b, which holds a quote,
// into r.buf and r.ends (and r.lines), reading more lines while a quoted
// field spans them. The rules and the errors are encoding/csv's.
func (r *csvReader) quoted(b []byte, errRead error) error {
	r.buf, r.ends = r.buf[:0], r.ends[:0]
	// The position of b[0]: posLine is r.line except after the end of the
	// input inside quotes, where encoding/csv does not advance it.
	recLine, posLine, col := r.line, r.line, 1
	field := func(line int) {
		r.ends = append(r.ends, len(r.buf))
		r.lines = append(r.lines, line)
	}
	for {
		if len(b) == 0 || b[0] != '"' {
			// An unquoted field: up to the delimiter or the line's end,
			// and no quote in it.
			i := r.index(b)
			f := b
			if i >= 0 {
				f = f[:i]
			} else {
				f = f[:len(f)-lengthNL(f)]
			}
			if j := bytes.IndexByte(f, '"'); j >= 0 {
				return &csv.ParseError{StartLine: recLine, Line: r.line, Column: col + j, Err: csv.ErrBareQuote}
			}
			r.buf = append(r.buf, f...)
			field(posLine)
			if i < 0 {
				return errRead
			}
			b = b[i+len(r.comma):]
			col += i + len(r.comma)
			continue
		}
		// A quoted field: doubled quotes stand for one; it ends at a
		// quote followed by the delimiter or the line's end.
		start := posLine
		b = b[1:]
		col++
		for {
			i := bytes.IndexByte(b, '"')
			switch {
			case i >= 0:
				r.buf = append(r.buf, b[:i]...)
				b = b[i+1:]
				col += i + 1
				switch {
				case len(b) > 0 && b[0] == '"':
					r.buf = append(r.buf, '"')
					b = b[1:]
					col++
					continue
				case bytes.HasPrefix(b, r.comma):
					b = b[len(r.comma):]
					col += len(r.comma)
					field(start)
				case len(b) == lengthNL(b):
					field(start)
					return errRead
				default:
					return &csv.ParseError{StartLine: recLine, Line: r.line, Column: col - 1, Err: csv.ErrQuote}
				}
			case len(b) > 0:
				// The field goes on past this line.
				r.buf = append(r.buf, b...)
				if errRead != nil {
					field(start)
					return errRead
				}
				col += len(b)
				b, errRead = r.rawLine()
				if len(b) > 0 {
					posLine++
					col = 1
				}
				if errRead == io.EOF {
					errRead = nil
				}
				continue
			default:
				// The input ended inside the quotes.
				if errRead == nil {
					return &csv.ParseError{StartLine: recLine, Line: posLine, Column: col, Err: csv.ErrQuote}
				}
				field(start)
				return errRead
			}
			break // the field ended at a delimiter
		}
	}
}

// lengthNL returns 1 if b ends with a newline, 0 otherwise.
func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}
