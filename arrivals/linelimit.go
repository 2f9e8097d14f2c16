package arrivals

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds the length of a line of a trace, line end excluded:
// 1 MiB. A longer line is an error ([ErrLineTooLong]) naming it, so that
// memory is bounded whatever the input (a binary file, or a file with no
// line breaks, would otherwise be read whole as one line). The limit
// applies after decompression, to every format; a quoted CSV field that
// spans lines is limited line by line.
const MaxLineBytes = 1 << 20

// lineLimit passes its input through until a line longer than
// MaxLineBytes, and then returns a *lineTooLongError. The lines before the
// long one are passed through first, so readers report them as usual.
type lineLimit struct {
	r    io.Reader
	run  int   // bytes of the current line so far
	line int   // 1-based number of the current line
	err  error // to return once the bytes before it are read
}

// newline is the line end lineLimit counts.
var newline = []byte{'\n'}

func newLineLimit(r io.Reader) *lineLimit { return &lineLimit{r: r, line: 1} }

func (l *lineLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	if j := bytes.IndexByte(p[:n], '\n'); j >= 0 && n <= MaxLineBytes && l.run+j <= MaxLineBytes {
		// The line going on ends within the limit, and those after it
		// are no longer than p[:n]: count them at once.
		last := bytes.LastIndexByte(p[:n], '\n')
		l.line += bytes.Count(p[j:last+1], newline)
		l.run = n - last - 1
		return n, err
	}
	start := 0 // offset in p of the current line
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			l.run += n - i
			break
		}
		l.run += j
		if l.run > MaxLineBytes {
			break
		}
		i += j + 1
		start, l.run = i, 0
		l.line++
	}
	if l.run > MaxLineBytes {
		l.err = &lineTooLongError{line: l.line}
		if start > 0 {
			return start, nil // the complete lines before the long one
		}
		return 0, l.err
	}
	return n, err
}

// lineTooLongError is a line longer than MaxLineBytes.
type lineTooLongError struct{ line int }

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes (1 MiB): is this a binary file, or a file without line breaks?", e.line, MaxLineBytes)
}

func (e *lineTooLongError) Unwrap() error { return ErrLineTooLong }

// ioError converts an error from reading the input, at line (the line
// being read, as the caller knows it), into a *TraceError: a line too
// long names its own line.
func ioError(name string, line int, err error) *TraceError {
	var long *lineTooLongError
	if errors.As(err, &long) {
		return &TraceError{File: name, Line: long.line, Err: ErrLineTooLong, Msg: long.Error()}
	}
	return &TraceError{File: name, Line: line, Msg: "read error: " + err.Error(), Err: err}
}
