package arrivals

import (
	"errors"
	"strconv"
)

// Sentinel errors for trace conditions that callers may test with
// errors.Is. A [*TraceError] wraps one of them, or the underlying cause (a
// *csv.ParseError, an I/O error) when none applies, and maybe a [*Hint].
var (
	// ErrEmpty means the input has no header line: it is empty or blank.
	ErrEmpty = errors.New("arrivals: empty trace")
	// ErrNoArrivals means the trace has a header but no usable data line.
	ErrNoArrivals = errors.New("arrivals: no arrivals after the header")
	// ErrColumn means a column named in [TraceOptions] is not in the
	// header, or is ambiguous.
	ErrColumn = errors.New("arrivals: no such column")
	// ErrBadField means a time or sub-bucket field cannot be parsed.
	ErrBadField = errors.New("arrivals: bad field")
	// ErrOutOfOrder means a line's time is earlier than the previous
	// arrival's; set TraceOptions.Sort or SkipBad to accept such traces.
	ErrOutOfOrder = errors.New("arrivals: arrival out of time order")
	// ErrOptions means a [TraceOptions] value is invalid (an unknown time
	// format or delimiter); it names no line.
	ErrOptions = errors.New("arrivals: invalid trace options")
	// ErrHeaderLooksLikeData means the first line of a CSV or TSV trace,
	// which must name the columns, looks like data: every field is a
	// number, or the time column's field is a time. The file likely has
	// no header; it may be per-interval counts (a [Hint] says so).
	ErrHeaderLooksLikeData = errors.New("arrivals: the header looks like data")
	// ErrTooManyBad means SkipBad met more bad lines than
	// TraceOptions.MaxBad allows: the options likely do not fit the file.
	ErrTooManyBad = errors.New("arrivals: too many bad lines")
	// ErrOnePass means a trace that can be read only once (standard
	// input, a pipe) was to be read a second time.
	ErrOnePass = errors.New("arrivals: the input can be read only once")
	// ErrLineTooLong means a line is longer than [MaxLineBytes].
	ErrLineTooLong = errors.New("arrivals: line too long")
)

// Causes of a [Hint], for errors.Is.
var (
	// ErrTimeFormat means a time that does not parse in the time format
	// parses in another one (a datetime in a column read as Unix seconds).
	ErrTimeFormat = errors.New("arrivals: the times look like another time format")
	// ErrTimeColumn means the time column's values are not times in the
	// time format, but another column's are.
	ErrTimeColumn = errors.New("arrivals: another column looks like the time column")
	// ErrLooksLikeCounts means the values read as times look like counts
	// per interval: small whole numbers that go up and down.
	ErrLooksLikeCounts = errors.New("arrivals: the times look like counts per interval")
)

// Hint is a likely cause of a trace error and the option value that would
// fit the data, found by trying the data against other options: a
// datetime in a column read as Unix seconds fits TimeFormat "datetime".
// A [*TraceError] carries one in its Hint field, and errors.As finds it.
//
// Text says it in words, naming options by their TraceOptions fields (as
// `try TimeFormat="datetime"`); [Hint.Phrase] names them in a caller's
// words (ratesim's command line: "try --time-format datetime"), and a
// caller can also use Option and Value.
type Hint struct {
	Cause  error  // ErrTimeFormat, ErrTimeColumn or ErrLooksLikeCounts
	Option string // the TraceOptions field that would fit ("Format", "TimeFormat", "TimeCol"), or "" when none does
	Value  string // its value ("counts", "datetime", a column name), or ""
	Text   string // the hint in words
	say    string // Text as a template with option references (see wording.go)
}

// Error returns the Text.
func (h *Hint) Error() string { return h.Text }

// Unwrap returns the Cause.
func (h *Hint) Unwrap() error { return h.Cause }

// TraceError is bad input found while reading a trace. Its message is
//
//	arrivals: FILE:LINE: MSG[; HINT]
//
// (or "arrivals: FILE: MSG" when Line is 0), and errors.Is and errors.As
// see the wrapped Err and the Hint. Options the message suggests are named
// by their TraceOptions fields; [TraceError.Phrase] names them otherwise.
type TraceError struct {
	File string // name of the trace, as given to NewTrace or Open
	Line int    // 1-based line of the file; 0 for errors about no line (options)
	Text string // the offending text (a field, or a line's fields), or ""
	Msg  string // what is wrong and what was expected
	Err  error  // a sentinel such as ErrBadField, or the underlying cause; may be nil
	Hint *Hint  // what would likely fit the data, or nil
	say  string // Msg as a template with option references, or "" (see wording.go)
	// Option is the TraceOptions field whose value the error is about
	// ("TimeCol", "Series", "TimeFormat", ...), or "": [TraceError.Phrase]
	// then names that option first, so that a command line's message names
	// the flag the user typed (issue 28). Error leaves it out.
	Option string
}

// Error returns "arrivals: FILE:LINE: MSG", followed by "; " and the
// hint's text if there is one.
func (e *TraceError) Error() string {
	s := "arrivals: " + e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	s += ": " + e.Msg
	if e.Hint != nil {
		s += "; " + e.Hint.Text
	}
	return s
}

// Unwrap returns the wrapped sentinel or cause, and the hint.
func (e *TraceError) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Hint != nil {
		errs = append(errs, e.Hint)
	}
	return errs
}
