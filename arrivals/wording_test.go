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

// TestPhraseNamesOption: an error about an option's value names that
// option first when phrased for a command line (issue 28: a message names
// the flag the user typed), and Error is unchanged.
func TestPhraseNamesOption(t *testing.T) {
	for _, c := range []struct {
		opt       TraceOptions
		lib, flag string
	}{
		{TraceOptions{TimeCol: "text"}, `arrivals: c.csv:1: time column "text" is not in the header: the header has 2 columns: "t", "k"`, "--time-col: "},
		{TraceOptions{KeyCol: "0"}, `arrivals: c.csv:1: key column 0 is out of range: columns are numbered from 1 to 2: the header has 2 columns: "t", "k"`, "--key-col: "},
		{TraceOptions{Series: "a=b"}, `arrivals: c.csv: the series option does not apply to format csv (only to wide)`, "--series: "},
		{TraceOptions{CountCol: "2"}, `arrivals: c.csv: the count column option does not apply to format csv (only to counts)`, "--count-col: "},
		{TraceOptions{TimeFormat: "text"}, `arrivals: c.csv: unknown time format "text"`, "--time-format: "},
		{TraceOptions{Format: "counts", Spread: "text", Interval: 1e9}, `arrivals: c.csv: unknown spread "text": want even or random`, "--spread: "},
	} {
		_, _, err := readTrace(t, "t,k\n1,a\n", "c.csv", c.opt)
		if err == nil || !strings.HasPrefix(err.Error(), c.lib) || phrased(err) != c.flag+err.Error() {
			t.Errorf("%+v: error\n\t%v\nphrased\n\t%s\nwant\n\t%s...\nphrased with the prefix %q", c.opt, err, phrased(err), c.lib, c.flag)
		}
	}
}
