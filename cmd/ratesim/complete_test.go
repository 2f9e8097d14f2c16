package main

import (
	"strings"
	"testing"
)

// TestCompleteValues: the shell completion of a flag with a fixed set of
// values offers them (the dispatch names of systems; --format is a trace
// format, --plot-format a figure format), and no file names.
func TestCompleteValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "run", "--dispatch", ""}, "rr\nrandom\nhash\nleast-loaded\ncolumn\nweighted\n:4\n"},
		{[]string{"__complete", "run", "--format", ""}, "csv\nclf\njsonl\ncounts\nwide\n:4\n"},
		{[]string{"__complete", "sweep", "--plot-format", ""}, "png\nsvg\npdf\n:4\n"},
		{[]string{"__complete", "run", "--order", ""}, "fcfs\nlifo\nrandom\n:4\n"},
	} {
		stdout, _, code := ratesim(t, tc.args...)
		if code != 0 || stdout != tc.want {
			t.Errorf("ratesim %s: exit %d, stdout %q, want %q", strings.Join(tc.args, " "), code, stdout, tc.want)
		}
	}
}

// TestCompletionUnknownShell: a shell without a script is refused (exit
// 2, naming the shells there are), not answered with the help and exit 0.
func TestCompletionUnknownShell(t *testing.T) {
	_, stderr, code := ratesim(t, "completion", "tcsh")
	if code != 2 || !strings.Contains(stderr, "want one of bash, fish, powershell, zsh") {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, stderr)
	}
}
