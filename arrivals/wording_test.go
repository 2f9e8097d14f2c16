package arrivals

import (
	"errors"
	"strings"
	"testing"
)

// phrased returns err's message with options named as flags.
func phrased(err error) string {
	var te *TraceError
	if !errors.As(err, &te) {
		return err.Error()
	}
	return strings.Replace(err.Error(), te.Error(), te.Phrase(FlagNamer), 1)
}

// TestPhrase: a message names options by their TraceOptions fields, and
// Phrase by a caller's words, the rest unchanged.
func TestPhrase(t *testing.T) {
	_, _, err := readTrace(t, "t\n5\n3\n", "c.csv", TraceOptions{})
	lib := `arrivals: c.csv:3: time 3 is earlier than the previous arrival 5 (line 2); the times 5 and 3 are small whole numbers: if column "t" holds counts per interval, try Format="counts" Interval="1s"; if they are times, use Sort to sort the trace or SkipBad to skip such lines`
	cli := `arrivals: c.csv:3: time 3 is earlier than the previous arrival 5 (line 2); the times 5 and 3 are small whole numbers: if column "t" holds counts per interval, try --format counts --interval 1s; if they are times, use --sort to sort the trace or --skip-bad to skip such lines`
	if err == nil || err.Error() != lib || phrased(err) != cli {
		t.Errorf("error\n\t%v\nphrased\n\t%s\nwant\n\t%s\nand\n\t%s", err, phrased(err), lib, cli)
	}
	if strings.ContainsAny(err.Error(), refMark+refSep) {
		t.Errorf("error %q holds template marks", err)
	}
}
