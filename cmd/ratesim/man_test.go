package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPages: ratesim man DIR writes a page per visible command, each
// with its flags and none of the unlisted old spellings, the same bytes
// on every run for a given SOURCE_DATE_EPOCH.
func TestManPages(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000") // Nov 2023
	var pages [2]map[string][]byte
	for i := range pages {
		dir := filepath.Join(t.TempDir(), "man1")
		_, stderr, code := ratesim(t, "man", dir)
		files, _ := filepath.Glob(filepath.Join(dir, "*.1"))
		if code != 0 || !strings.HasPrefix(stderr, fmt.Sprintf("ratesim: wrote %d man pages to ", len(files))) || len(files) < 14 {
			t.Fatalf("exit %d, %q, %d pages", code, stderr, len(files))
		}
		pages[i] = map[string][]byte{}
		for _, f := range files {
			pages[i][filepath.Base(f)] = readFile(t, f)
		}
	}
	for _, c := range []struct {
		page string
		want []string
	}{
		{"ratesim.1", []string{`.TH "RATESIM" "1" "Nov 2023"`, "ratesim-run(1)", "Exit codes"}},
		{"ratesim-sweep.1", []string{"--resume", "--jobs-per-replication", "--progress-every"}},
		{"ratesim-trace-stats.1", []string{"--plot", "--max-bad"}},
		{"ratesim-completion-bash.1", []string{"bash"}},
		// Each page names its own command; the limiter table is a no-fill
		// block; α*(d) keeps its star (Markdown took it for emphasis).
		{"ratesim-limiters.1", []string{`.TH "RATESIM-LIMITERS" "1"`, ".EX\n  token-police     token bucket", "and α*(d), the most jobs"}},
	} {
		p, ok := pages[0][c.page]
		if !ok {
			t.Errorf("no %s among %d pages", c.page, len(pages[0]))
			continue
		}
		for _, w := range c.want {
			if !bytes.Contains(p, []byte(w)) {
				t.Errorf("%s lacks %q", c.page, w)
			}
		}
	}
	for name, p := range pages[0] {
		if bytes.Contains(p, []byte("plot-o")) || bytes.Contains(p, []byte("\\-\\-jobs=")) || bytes.Contains(p, []byte("ratesim-man")) {
			t.Errorf("%s shows an unlisted flag or command", name)
		}
		if !bytes.Equal(p, pages[1][name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	if _, ok := pages[0]["ratesim-man.1"]; ok {
		t.Error("the hidden man command has a page")
	}
}

// TestCompletion: the completion scripts docs/commands.md documents exist.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		stdout, stderr, code := ratesim(t, "completion", sh)
		if code != 0 || !strings.Contains(stdout, "ratesim") || len(stdout) < 1000 {
			t.Errorf("completion %s: exit %d, %d bytes, %q", sh, code, len(stdout), stderr)
		}
	}
}

// TestManBadFolder: "ratesim man -" and "ratesim man" are bad usage (exit
// 2) with a message saying what to give; no folder named "-" appears.
func TestManBadFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"man", "-"}, "want the name of a folder, e.g. ratesim man ./man"},
		{[]string{"man"}, "want a folder for the man pages, e.g. ratesim man ./man"},
	} {
		_, stderr, code := ratesim(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat("-"); err == nil {
		t.Errorf("a folder named - was created")
	}
}
