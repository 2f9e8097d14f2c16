package arrivals

import (
	"encoding/csv"
	"errors"
	"testing"
)

func TestTraceErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		err  *TraceError
		want string
	}{
		{&TraceError{File: "nasa.tsv", Line: 1234, Msg: "bad", Err: ErrBadField}, "arrivals: nasa.tsv:1234: bad"},
		{&TraceError{File: "x.csv", Msg: "unknown time format", Err: ErrOptions}, "arrivals: x.csv: unknown time format"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !errors.Is(tc.err, tc.err.Err) {
			t.Errorf("errors.Is(%v, %v) = false, want true", tc.err, tc.err.Err)
		}
	}
	// A hint follows the message, and errors.Is and As see it too.
	h := &Hint{Cause: ErrTimeFormat, Option: "TimeFormat", Value: "datetime", Text: "try --time-format datetime"}
	err := error(&TraceError{File: "d.csv", Line: 2, Msg: "bad time", Err: ErrBadField, Hint: h})
	if got, want := err.Error(), "arrivals: d.csv:2: bad time; try --time-format datetime"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var got *Hint
	if !errors.Is(err, ErrBadField) || !errors.Is(err, ErrTimeFormat) || !errors.As(err, &got) || got != h {
		t.Errorf("errors.Is/As do not see both the sentinel and the hint of %v", err)
	}
	if errs := (&TraceError{File: "x"}).Unwrap(); len(errs) != 0 {
		t.Errorf("Unwrap of an error with no cause = %v, want none", errs)
	}
}

// Causes from encoding/csv that trace errors wrap.
var (
	csvErrFieldCount = csv.ErrFieldCount
	csvErrBareQuote  = csv.ErrBareQuote
)
