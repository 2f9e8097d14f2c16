package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	readme       = flag.Bool("readme", false, "run every example of README.md and docs/*.md and compare its output with the block that follows it")
	readmeUpdate = flag.Bool("readme-update", false, "with -readme: rewrite the output blocks of README.md and docs/*.md with what the examples print")
	readmePages  = flag.String("readme-pages", "", "with -readme: run only the pages whose path (README.md, docs/cookbook.md) matches this regular expression")
)

// example is a ```sh block of a markdown file and, when a bare ``` block
// follows it (blank lines between allowed), the output it must print.
type example struct {
	line     int    // 1-based line of the sh block's opening fence
	script   string // the block's text
	out      string // the expected standard output; "" when no block follows
	hasOut   bool
	outFirst int // 0-based index of the output block's first content line
	outEnd   int // 0-based index of its closing fence
	exit     int // "# exit N" on any line of the script, else 0
}

var (
	exitNote = regexp.MustCompile(`#\s*exit (\d+)`)
	fromPath = regexp.MustCompile(`(^|[\s'"])ratesim (sweep|merge)`)
)

// examples extracts the sh blocks of a markdown text. Blocks whose first
// line is a "#!" (scripts shown for another machine, such as a Slurm
// batch file) and blocks that run `ratesim` from PATH are skipped.
func examples(lines []string) []example {
	var out []example
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sh" {
			continue
		}
		ex := example{line: i + 1}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		ex.script = strings.Join(lines[i+1:j], "\n")
		i = j
		k := j + 1
		for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k < len(lines) && strings.TrimSpace(lines[k]) == "```" {
			e := k + 1
			for e < len(lines) && strings.TrimSpace(lines[e]) != "```" {
				e++
			}
			ex.hasOut, ex.outFirst, ex.outEnd = true, k+1, e
			if e > k+1 {
				ex.out = strings.Join(lines[k+1:e], "\n") + "\n"
			}
			i = e
		}
		if m := exitNote.FindStringSubmatch(ex.script); m != nil {
			ex.exit, _ = strconv.Atoi(m[1])
		}
		if strings.HasPrefix(ex.script, "#!") || fromPath.MatchString(ex.script) {
			continue
		}
		out = append(out, ex)
	}
	return out
}

// TestREADME runs the examples of README.md and then of every page under
// docs/ (docs/*.md and docs/*/*.md, in lexical order) as a new user would,
// each page from its own directory laid out like a fresh clone next to
// ../shared (so a block may use the files an earlier block of the same
// page wrote, and no page depends on another), with `go run
// ./cmd/ratesim` replaced by a binary built once (same code, no rebuild
// per block), and compares what each prints with the output block below
// it. It needs -readme (the examples take a few minutes) and skips
// without ../shared; -readme-update rewrites the output blocks that
// differ, page by page.
//
//	go test ./cmd/ratesim -run TestREADME -readme -timeout 30m
func TestREADME(t *testing.T) {
	if !*readme {
		t.Skip("run with -readme")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(repo, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "traces")); err != nil {
		t.Skip("no ../shared/traces next to the repository")
	}
	root := t.TempDir()
	if err := os.Symlink(shared, filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "ratesim")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(repo, "cmd", "ratesim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pages, err := docPages(repo)
	if err != nil {
		t.Fatal(err)
	}
	only, err := regexp.Compile(*readmePages)
	if err != nil {
		t.Fatalf("-readme-pages: %v", err)
	}
	for i, page := range pages {
		if !only.MatchString(page) {
			continue
		}
		// Each page runs in a directory of its own beside ../shared
		// (root/ratesim-N/.. is root, where shared is).
		work := filepath.Join(root, "ratesim")
		if i > 0 {
			work += "-" + strconv.Itoa(i)
		}
		runPage(t, repo, work, bin, page)
	}
}

// docPages returns README.md and the Markdown pages under docs/ (one level
// of subfolders), relative to repo, in the order TestREADME runs them.
func docPages(repo string) ([]string, error) {
	pages := []string{"README.md"}
	for _, pat := range []string{"docs/*.md", "docs/*/*.md"} {
		m, err := filepath.Glob(filepath.Join(repo, filepath.FromSlash(pat)))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			rel, err := filepath.Rel(repo, f)
			if err != nil {
				return nil, err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
	}
	return pages, nil
}

// runPage runs the examples of one page (a path relative to repo) in work,
// a new directory laid out like a clone, and compares their outputs.
func runPage(t *testing.T, repo, work, bin, page string) {
	t.Helper()
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch e.Name() {
		case "testdata", "paper", "go.mod", "go.sum", "cmd", "engine", "exact", "arrivals", "buckets", "systems", "experiments", "plots", "internal", "docs", "profiles":
			if err := os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(work, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}

	path := filepath.Join(repo, filepath.FromSlash(page))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	exs := examples(lines)
	replaced := false
	got := make([]string, len(exs))
	for i, ex := range exs {
		var keep []string
		for _, l := range strings.Split(ex.script, "\n") {
			if !strings.HasPrefix(l, "go test ") { // the test command itself
				keep = append(keep, l)
			}
		}
		script := strings.ReplaceAll(strings.Join(keep, "\n"), "go run ./cmd/ratesim", bin)
		script = strings.ReplaceAll(script, "go build -o ratesim ./cmd/ratesim", "cp "+bin+" ./ratesim")
		cmd := exec.Command("bash", "-c", "set -o pipefail\n"+script)
		cmd.Dir = work
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s:%d: %v", page, ex.line, err)
		}
		if code != ex.exit {
			t.Errorf("%s:%d: exit %d, want %d\n%s\nstderr:\n%s", page, ex.line, code, ex.exit, ex.script, stderr.String())
		}
		got[i] = stdout.String()
		if ex.hasOut && got[i] != ex.out {
			if *readmeUpdate {
				replaced = true
				continue
			}
			t.Errorf("%s:%d: output differs\n%s\n--- got ---\n%s--- %s ---\n%s", page, ex.line, ex.script, got[i], page, ex.out)
		}
	}
	if replaced {
		for i := len(exs) - 1; i >= 0; i-- {
			ex := exs[i]
			if !ex.hasOut || got[i] == ex.out {
				continue
			}
			body := strings.Split(strings.TrimSuffix(got[i], "\n"), "\n")
			lines = append(lines[:ex.outFirst], append(body, lines[ex.outEnd:]...)...)
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: output blocks rewritten; review with git diff", page)
	}
}
