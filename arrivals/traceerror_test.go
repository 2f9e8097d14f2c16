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
}

// Causes from encoding/csv that trace errors wrap.
var (
	csvErrFieldCount = csv.ErrFieldCount
	csvErrBareQuote  = csv.ErrBareQuote
)
