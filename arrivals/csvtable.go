package arrivals

import (
	"bufio"
	"bytes"
	"io"
)

// CSVTable reads the records of a CSV or TSV table with the reader traces
// use (csvReader, RFC 4180, compared with encoding/csv by FuzzCSVReader):
// lines longer than [MaxLineBytes] are an error wrapping [ErrLineTooLong]
// (so memory and time are linear in the input, whatever a cell holds), a
// UTF-8 byte order mark at the start is skipped, and a malformed record is
// a *csv.ParseError naming its line. It is the one CSV reader of ratesim;
// other packages (drl's delay traces) read tables through it.
//
// Its zero value is not usable: make one with [NewCSVTable].
type CSVTable struct {
	cr *csvReader
}

// NewCSVTable returns a reader of the table in r. The delimiter is a tab
// when the first line holds one and a comma otherwise; the first line is
// peeked (at most 4 KiB), not consumed, so r is read once (a fifo works).
func NewCSVTable(r io.Reader) *CSVTable {
	br := bufio.NewReaderSize(newLineLimit(r), 64<<10)
	skipBOM(br)
	head, _ := br.Peek(4096)
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	comma := ','
	if bytes.IndexByte(head, '\t') >= 0 {
		comma = '\t'
	}
	return &CSVTable{cr: newCSVReader(br, comma)}
}

// Read returns the fields of the next record (empty lines are skipped), and
// io.EOF after the last. The fields alias buffers that the next call
// overwrites. After an error the next call reads on from the following
// line.
func (t *CSVTable) Read() ([][]byte, error) {
	return t.cr.read()
}

// Line returns the 1-based line on which the last record read starts (for
// an error, the line it was found on when the record did not start).
func (t *CSVTable) Line() int {
	if len(t.cr.lines) > 0 {
		return t.cr.lines[0]
	}
	return t.cr.line
}

// Comma returns the delimiter chosen: ',' or '\t'.
func (t *CSVTable) Comma() rune {
	if t.cr.c0 == '\t' {
		return '\t'
	}
	return ','
}
