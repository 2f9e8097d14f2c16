package arrivals

import (
	"bufio"
	"bytes"
)

// tsvReader splits tab-separated values as [IANA text/tab-separated-values]
// defines them: one record per line, fields separated by tabs, and no
// quoting, so a quote is an ordinary character. A CR before the line's LF
// (or at the end of the input) is dropped. Empty lines are skipped, as
// encoding/csv skips them, but still counted in line numbers.
//
// [IANA text/tab-separated-values]: https://www.iana.org/assignments/media-types/text/tab-separated-values
type tsvReader struct {
	br     *bufio.Reader
	line   int      // 1-based number of the line last read; 0 before the first
	long   []byte   // a line longer than br's buffer, reused
	fields [][]byte // fields of the last record, reused
}

// read returns the fields of the next non-blank line, whose number is then
// r.line. The fields alias buffers that the next call overwrites. At the
// end of the input read returns io.EOF; on an I/O error it returns the
// error and drops the partial line.
func (r *tsvReader) read() ([][]byte, error) {
	for {
		b, err := readLine(r.br, &r.long)
		if err != nil {
			return nil, err
		}
		r.line++
		if len(b) == 0 {
			continue
		}
		r.fields = r.fields[:0]
		for {
			i := bytes.IndexByte(b, '\t')
			if i < 0 {
				break
			}
			r.fields = append(r.fields, b[:i])
			b = b[i+1:]
		}
		r.fields = append(r.fields, b)
		return r.fields, nil
	}
}
