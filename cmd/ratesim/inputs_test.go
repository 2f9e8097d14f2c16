package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// perSecondCounts writes the file: a headerless .txt of n
// per-second counts, one per line, the counts 0..4 in the repeating order
// 0, 2, 4, 1, 3 (so 2 jobs a second on average). A header line may be
// put first.
func perSecondCounts(t *testing.T, header string, n int) (path string, jobs int) {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(header)
	for i := range n {
		c := (i * 2) % 5
		jobs += c
		fmt.Fprintf(&sb, "%d\n", c)
	}
	path = filepath.Join(t.TempDir(), "counts.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, jobs
}

// TestCountsFileAsTrace is the new user's per-second counts file. Read as
// times it fails, saying it looks like counts and what to give; the
// suggested options read it, and the output says the interval used. With
// a header naming the column, --skip-bad no longer succeeds with nonsense:
// most lines are bad, so the run fails and names --max-bad; --max-bad -1
// lets it through, on purpose.
func TestCountsFileAsTrace(t *testing.T) {
	const hint = "is this a counts file? try --format counts --interval 1s"
	path, jobs := perSecondCounts(t, "", 600)
	for _, extra := range [][]string{nil, {"--skip-bad"}, {"--sort"}} {
		args := append([]string{"run", "--trace", path}, extra...)
		if _, stderr, code := ratesim(t, args...); code != 2 || !strings.Contains(stderr, `counts.txt:1: the header "0" looks like data`) || !strings.Contains(stderr, hint) {
			t.Errorf("%v: exit %d, %q", extra, code, stderr)
		}
	}
	var res struct {
		Input string `json:"input"`
		Jobs  int    `json:"jobs"`
	}
	stdout, stderr, code := ratesim(t, "run", "--trace", path, "--format", "counts", "--interval", "1s", "--json")
	if code != 0 {
		t.Fatalf("--format counts: exit %d, %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Input, "counts.txt (counts per 1s interval, spread even)") || res.Jobs != jobs {
		t.Errorf("input %q, %d jobs; want the interval named and %d jobs", res.Input, res.Jobs, jobs)
	}
	// Without --interval the default minute is named too.
	stdout, _, _ = ratesim(t, "trace", "stats", path, "--format", "counts")
	if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasSuffix(first, "counts.txt (counts per 1m interval, spread even)") {
		t.Errorf("trace stats: first line %q", first)
	}

	named, _ := perSecondCounts(t, "jobs\n", 600)
	_, stderr, code = ratesim(t, "run", "--trace", named, "--skip-bad")
	if code != 2 || !strings.Contains(stderr, "bad lines skipped, more than 10 + 1% of the") || !strings.Contains(stderr, "raise --max-bad") || !strings.Contains(stderr, "try --format counts --interval 1s") {
		t.Errorf("--skip-bad on counts: exit %d, %q; want a failure naming --max-bad and counts", code, stderr)
	}
	if _, stderr, code := ratesim(t, "run", "--trace", named, "--skip-bad", "--max-bad", "-1"); code != 0 || !strings.Contains(stderr, "bad lines of") {
		t.Errorf("--max-bad -1: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{
		{"run", "--trace", named, "--max-bad", "5"},
		{"limiters", "--trace", named, "--max-bad", "5"},
		{"trace", "stats", named, "--max-bad", "5"},
	} {
		if _, stderr, code := ratesim(t, args...); code != 2 || !strings.Contains(stderr, "--max-bad bounds the lines --skip-bad skips: add --skip-bad") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if _, stderr, code := ratesim(t, "trace", "stats", named, "--skip-bad", "--max-bad", "-2"); code != 2 || !strings.Contains(stderr, "--max-bad -2: want") {
		t.Errorf("--max-bad -2: exit %d, %q", code, stderr)
	}
	// --help says a headerless column of counts is a counts file, and
	// gives the bad-line threshold.
	for _, c := range []string{"run", "limiters", "trace stats"} {
		help, _, _ := ratesim(t, append(strings.Fields(c), "--help")...)
		for _, want := range []string{"a headerless file of one count per line", "10 + 1% of the lines read", "--max-bad int"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q", c, want)
			}
		}
	}
}

// TestDatetimeHint: a datetime in a column read as Unix seconds names the
// line and value and suggests --time-format datetime (rfc3339 for an RFC
// 3339 time), in every command that reads traces.
func TestDatetimeHint(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"2024-11-15 16:57:50", "try --time-format datetime"},
		{"2024-11-15T16:57:50Z", "try --time-format rfc3339"},
	} {
		path := filepath.Join(dir, "d.csv")
		if err := os.WriteFile(path, []byte("time,host\n"+tc.text+",a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"run", "--trace", path}, {"limiters", "--trace", path}, {"trace", "stats", path}} {
			_, stderr, code := ratesim(t, args...)
			if code != 2 || !strings.Contains(stderr, `d.csv:2: bad time "`+tc.text+`"`) || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d, %q", args[:2], code, stderr)
			}
		}
	}
}

// TestMaxBadZero: --max-bad 0 would read as "no bad line allowed" but the
// option's 0 is the default bound, so it is refused with what to give.
func TestMaxBadZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte("t\n1\nx\n2\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := ratesim(t, "run", "--trace", path, "--skip-bad", "--max-bad", "0")
	if code != 2 || !strings.Contains(stderr, "to allow no bad line, leave out --skip-bad") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
