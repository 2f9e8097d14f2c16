package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink is a Markdown inline link [text](target); targets with spaces or
// angle brackets are not used in these pages.
var mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// mdAnchor returns the anchor GitHub gives a heading: lower case, the
// characters other than letters, digits, '_', '-' and ' ' dropped, spaces
// turned into '-' (so "## 7. limit × instances × workers" is
// "7-limit--instances--workers").
func mdAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isLetter reports whether a non-ASCII rune is a letter or digit as
// GitHub's anchors keep it (é, ρ); symbols such as × and · are dropped.
func isLetter(r rune) bool { return letterOrDigit.MatchString(string(r)) }

var letterOrDigit = regexp.MustCompile(`^[\pL\pN]$`)

// mdAnchors returns the anchors of a Markdown text's headings, outside
// fenced code blocks.
func mdAnchors(text string) map[string]bool {
	out := map[string]bool{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimLeft(l, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		out[mdAnchor(h)] = true
	}
	return out
}

// TestDocLinks checks every relative link of README.md and the pages under
// docs/ (outside code blocks): the file it names exists in the repository,
// and the anchor, if any, is a heading of that file (or of the page itself
// for "#anchor"). It catches the links a page move breaks.
func TestDocLinks(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := docPages(repo)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	load := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = mdAnchors(string(b))
		return anchors[path], nil
	}
	checked := 0
	for _, page := range pages {
		path := filepath.Join(repo, filepath.FromSlash(page))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fence := false
		for n, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fence = !fence
				continue
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				}
				checked++
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %s: no file %s", page, n+1, target, dest)
					continue
				}
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				a, err := load(dest)
				if err != nil {
					t.Fatal(err)
				}
				if !a[frag] {
					t.Errorf("%s:%d: link %s: no heading with anchor #%s in %s", page, n+1, target, frag, dest)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found: the pages or the link pattern changed")
	}
}

func TestMdAnchor(t *testing.T) {
	for _, c := range []struct{ h, want string }{
		// GitHub's rule by hand: lower case, punctuation dropped, spaces to '-'.
		{"7. limit × instances × workers", "7-limit--instances--workers"},
		{"9. Gubernator GLOBAL at 20+ instances", "9-gubernator-global-at-20-instances"},
		{"`ratesim drl`: distributed rate limiting", "ratesim-drl-distributed-rate-limiting"},
		{"Beyond one machine: shards", "beyond-one-machine-shards"},
		{"Interrupting, resuming and batch logs", "interrupting-resuming-and-batch-logs"},
	} {
		if got := mdAnchor(c.h); got != c.want {
			t.Errorf("mdAnchor(%q) = %q, want %q", c.h, got, c.want)
		}
	}
}
