package arrivals

import (
	"errors"
	"strconv"
)

// Sentinel errors for trace conditions that callers may test with
// errors.Is. A [*TraceError] wraps one of them, or the underlying cause (a
// *csv.ParseError, an I/O error) when none applies.
var (
	// ErrEmpty means the input has no header line: it is empty or blank.
	ErrEmpty = errors.New("arrivals: empty trace")
	// ErrNoArrivals means the trace has a header but no usable data line.
	ErrNoArrivals = errors.New("arrivals: no arrivals after the header")
	// ErrColumn means a column named in [TraceOptions] is not in the header.
	ErrColumn = errors.New("arrivals: no such column")
	// ErrBadField means a time or sub-bucket field cannot be parsed.
	ErrBadField = errors.New("arrivals: bad field")
	// ErrOutOfOrder means a line's time is earlier than the previous
	// arrival's; set TraceOptions.Sort or SkipBad to accept such traces.
	ErrOutOfOrder = errors.New("arrivals: arrival out of time order")
	// ErrOptions means a [TraceOptions] value is invalid (an unknown time
	// format or delimiter); it names no line.
	ErrOptions = errors.New("arrivals: invalid trace options")
)

// TraceError is bad input found while reading a trace. Its message is
//
//	arrivals: FILE:LINE: MSG
//
// (or "arrivals: FILE: MSG" when Line is 0), and errors.Is and errors.As
// see the wrapped Err.
type TraceError struct {
	File string // name of the trace, as given to NewTrace or Open
	Line int    // 1-based line of the file; 0 for errors about no line (options)
	Text string // the offending text (a field, or a line's fields), or ""
	Msg  string // what is wrong and what was expected
	Err  error  // a sentinel such as ErrBadField, or the underlying cause; may be nil
}

// Error returns "arrivals: FILE:LINE: MSG".
func (e *TraceError) Error() string {
	if e.Line <= 0 {
		return "arrivals: " + e.File + ": " + e.Msg
	}
	return "arrivals: " + e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Unwrap returns the wrapped sentinel or cause.
func (e *TraceError) Unwrap() error { return e.Err }
