package main

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// promiseCommands returns every `ratesim drl`, `ratesim limiters` and
// `ratesim clients` command of the sh blocks of README.md and the pages
// under docs/ (continuation lines joined, one command per line or
// pipeline stage; with -readme-pages, of the matching pages only; a
// command with a shell variable exits 2 and is logged) and of paper/README.md's
// tables (`ratesim drl ...` in backticks), as argument lists without the
// program name, --plot DIR and -o DIR.
func promiseCommands(t *testing.T, repo string) map[string][]string {
	t.Helper()
	cmds := map[string][]string{}
	add := func(where, line string) {
		args, ok := shellFields(line)
		if !ok || len(args) == 0 {
			t.Fatalf("%s: cannot split %q", where, line)
		}
		var keep []string
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "--plot", "-o", "--out":
				i++
				continue
			case "--force", "-q", "--quiet":
				continue
			}
			keep = append(keep, args[i])
		}
		cmds[where+": "+line] = keep
	}
	pages, err := docPages(repo)
	if err != nil {
		t.Fatal(err)
	}
	only, err := regexp.Compile(*readmePages)
	if err != nil {
		t.Fatalf("-readme-pages: %v", err)
	}
	cmd := regexp.MustCompile(`go run \./cmd/ratesim ((?:drl|limiters|clients)\b.*)`)
	for _, page := range pages {
		if !only.MatchString(page) {
			continue
		}
		text, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range examples(strings.Split(string(text), "\n")) {
			script := strings.ReplaceAll(ex.script, "\\\n", " ")
			for _, l := range strings.Split(script, "\n") {
				for _, m := range cmd.FindAllStringSubmatch(l, -1) {
					add(page+":"+itoa(ex.line), strings.TrimSpace(m[1]))
				}
			}
		}
	}
	paper, err := os.ReadFile(filepath.Join(repo, "paper", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tick := regexp.MustCompile("`ratesim ((?:drl|limiters|clients) [^`]*)`")
	for i, l := range strings.Split(string(paper), "\n") {
		for _, m := range tick.FindAllStringSubmatch(l, -1) {
			add("paper/README.md:"+itoa(i+1), m[1])
		}
	}
	return cmds
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// shellFields splits a command line as the shell would for the plain
// words, single and double quotes of the README's commands, up to the
// first unquoted |, ;, &, > or #.
func shellFields(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '|' || c == ';' || c == '&' || c == '>' || c == '#':
			i = len(s)
			continue
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		out = append(out, cur.String())
	}
	return out, true
}

// ratOf parses an exact fraction of the JSON.
func ratOf(t *testing.T, where string, v any) *big.Rat {
	t.Helper()
	s, _ := v.(string)
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("%s: %v is not an exact fraction", where, v)
	}
	return r
}

// checkPromises walks a JSON value and checks, in every drl summary (an
// object with jobs_delayed_by_shaper) and every exact limiter overshoot
// (an object with ratio_exact), that the verdicts agree exactly: the
// shaper delays a job, the excess is above 0 and the overshoot above 1,
// all or none; and that the longest shaper delay is the excess over R.
// It returns the number of objects checked.
func checkPromises(t *testing.T, where string, v any, rate *big.Rat) int {
	t.Helper()
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["rate_tokens_per_s_exact"].(string); ok {
			rate, _ = new(big.Rat).SetString(r)
		}
		if _, ok := v["jobs_delayed_by_shaper"]; ok {
			n++
			over := ratOf(t, where, v["worst_overshoot_exact"]).Cmp(big.NewRat(1, 1)) > 0
			excess := ratOf(t, where, v["promise_excess_exact"])
			shaped := v["jobs_delayed_by_shaper"].(float64) > 0
			if over != (excess.Sign() > 0) || shaped != over {
				t.Errorf("%s: design %v: overshoot %v, excess %v, jobs delayed by the shaper %v: the verdicts disagree", where, v["design"], v["worst_overshoot_exact"], excess, v["jobs_delayed_by_shaper"])
			}
			// The shaper's longest delay is max(excess, 0)/R (its departure
			// is max over i <= j of t_i + (j − i + 1 − B)/R).
			if rate != nil {
				want, _ := new(big.Rat).Quo(excess, rate).Float64()
				want = max(want, 0)
				got := v["shaper_max_delay_s"].(float64)
				if d := got - want; d > 1e-9*max(1, want) || d < -1e-9*max(1, want) {
					t.Errorf("%s: design %v: longest shaper delay %v s, excess/R %v s", where, v["design"], got, want)
				}
			}
		}
		if _, ok := v["ratio_exact"]; ok {
			n++
			over := ratOf(t, where, v["ratio_exact"]).Cmp(big.NewRat(1, 1)) > 0
			excess := ratOf(t, where, v["excess_exact"])
			if over != (excess.Sign() > 0) {
				t.Errorf("%s: against %v: overshoot %v, excess %v: the verdicts disagree", where, v["against"], v["ratio_exact"], excess)
			}
		}
		for _, c := range v {
			n += checkPromises(t, where, c, rate)
		}
	case []any:
		for _, c := range v {
			n += checkPromises(t, where, c, rate)
		}
	}
	return n
}

// TestREADMEPromise runs every drl, limiters and clients command of
// README.md, docs/ and paper/README.md with --json and checks that the shaper
// count, the exact excess and the exact overshoot agree for every design,
// limiter and key: a design whose admitted jobs a shaping bucket (R, B)
// would delay has an overshoot above 1, and the other way round. It needs
// -readme (it runs the README's commands, a few minutes) and ../shared.
//
//	go test ./cmd/ratesim -run TestREADMEPromise -readme -timeout 30m
func TestREADMEPromise(t *testing.T) {
	if !*readme {
		t.Skip("run with -readme")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "..", "shared", "traces")); err != nil {
		t.Skip("no ../shared/traces next to the repository")
	}
	cmds := promiseCommands(t, repo)
	if len(cmds) < 20 {
		t.Fatalf("found %d commands, want the README's and the paper's (20 or more)", len(cmds))
	}
	t.Chdir(repo)
	ran, checked := 0, 0
	for where, args := range cmds {
		if slices.Contains(args, "--help") {
			continue
		}
		out, errOut, code := ratesim(t, append(args, "--json")...)
		if code != 0 {
			// Commands the README shows failing (exit 2) check nothing here.
			t.Logf("%s: exit %d: %s", where, code, strings.TrimSpace(errOut))
			continue
		}
		ran++
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: --json: %v\n%s", where, err, errOut)
			continue
		}
		n := checkPromises(t, where, v, nil)
		checked += n
		// A clients run reports an overshoot only with a drl design (its
		// design line); with a limiter of the family it measures none.
		if n == 0 && (args[0] != "clients" || slices.Contains(args, "--design") || strings.Contains(strings.Join(args, " "), "--limiter drl")) {
			t.Errorf("%s: no overshoot in the JSON", where)
		}
	}
	t.Logf("%d commands, %d ran, %d overshoots checked", len(cmds), ran, checked)
}
