package arrivals

import (
	"errors"
	"strings"
	"testing"
	"unicode"
)

// flagWords names options as ratesim's command line does (its flags are
// the fields in kebab case, values shell-quoted when they need it), so the
// tests below check the messages the command prints.
func flagWords(field, value string) string {
	var b strings.Builder
	b.WriteString("--")
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	if value == "" {
		return b.String()
	}
	if strings.Trim(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
		value = "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
	}
	return b.String() + " " + value
}

// phrased returns err's message with options named as flags.
func phrased(err error) string {
	var te *TraceError
	if !errors.As(err, &te) {
		return err.Error()
	}
	return strings.Replace(err.Error(), te.Error(), te.Phrase(flagWords), 1)
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
