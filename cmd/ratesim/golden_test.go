package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var (
	goldenRun    = flag.Bool("golden", false, "run TestGoldens: every command and study on small sizes, compared byte for byte with testdata/golden/")
	goldenUpdate = flag.Bool("golden-update", false, "with -golden: rewrite testdata/golden/ with what the commands print and write (review with git diff)")
	goldenOnly   = flag.String("golden-cases", "", "with -golden: run only the cases whose name matches this regular expression")
)

// goldenCase is one entry of TestGoldens: ratesim commands run in turn in
// a fresh folder laid out like a clone (testdata and cmd linked, ../shared
// beside it), whose outputs are compared with testdata/golden/NAME.txt.
type goldenCase struct {
	name   string
	shared bool       // reads ../shared/traces: skipped when it is missing
	steps  [][]string // ratesim arguments, run in order in the same folder
}

// The traces of ../shared read by the cases.
const (
	gNASA  = "../shared/traces/nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv"
	gAzure = "../shared/traces/azure-functions-2019/azure_functions_2019_invocations_per_minute_sample.csv"
	gCode  = "../shared/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv"
)

func g(args ...string) []string { return args }

// goldenCases covers every command and study with sizes of a few seconds
// at most on 2 cores. Every command that takes -j gets -j 2, so that the
// messages naming the workers do not depend on the machine (the results do
// not depend on -j).
var goldenCases = []goldenCase{
	// sweep: every spec of testdata/, full size where it takes a few
	// seconds, split-ratio (1026 points × 10 × 44000 jobs) shrunk by flags.
	{name: "sweep-small", steps: [][]string{g("sweep", "testdata/sweep-small.yaml", "-j", "2", "-o", "out", "--progress-every", "0")}},
	{name: "sweep-load", steps: [][]string{g("sweep", "testdata/sweep-load.yaml", "-j", "2", "-o", "out", "--progress-every", "0", "--replications", "3")}},
	{name: "sweep-md1-check", steps: [][]string{g("sweep", "testdata/md1-check.yaml", "-j", "2", "-o", "out", "--progress-every", "0", "--replications", "3")}},
	{name: "sweep-split-ratio", steps: [][]string{g("sweep", "testdata/split-ratio.yaml", "-j", "2", "-o", "out", "--progress-every", "0", "--replications", "2", "--jobs-per-replication", "1000", "--warmup", "100")}},
	{name: "sweep-clients-backoff", steps: [][]string{g("sweep", "testdata/clients-backoff.yaml", "-j", "2", "-o", "out", "--progress-every", "0")}},
	{name: "sweep-drl-sync-period", steps: [][]string{g("sweep", "testdata/drl-sync-period.yaml", "-j", "2", "-o", "out", "--progress-every", "0", "--plot-format", "svg")}},
	{name: "sweep-grid", steps: [][]string{
		g("sweep", "--burst", "2", "--k", "2", "--dispatch", "weighted", "--grid", "p=0.3,0.5,0.7", "--grid", "load=0.5,0.9", "--print-spec"),
		g("sweep", "--burst", "2", "--k", "2", "--dispatch", "weighted", "--grid", "p=0.3,0.5,0.7", "--grid", "load=0.5,0.9", "--replications", "3", "--jobs-per-replication", "2000", "--warmup", "200", "-j", "2", "-o", "out", "--progress-every", "0", "--plot-format", "svg"),
	}},
	{name: "sweep-builtin", steps: [][]string{
		g("sweep", "--builtin", "split-ratio", "--print-spec"),
		// metastability runs 132 points × 10 replications (52 s on 2 cores): paper-quick runs its map.
		g("sweep", "--builtin", "metastability", "--print-spec"),
		g("sweep", "--builtin", "backoff", "--replications", "2", "-j", "2", "-o", "backoff"),
	}},
	// merge and plot: the shards of a sweep merged, its figures redrawn.
	{name: "merge", steps: [][]string{
		g("sweep", "testdata/sweep-small.yaml", "--shard", "1/2", "-j", "2", "-o", "shards", "--progress-every", "0"),
		g("sweep", "testdata/sweep-small.yaml", "--shard", "2/2", "-j", "2", "-o", "shards", "--progress-every", "0"),
		g("merge", "shards/shard-1-of-2.json", "shards/shard-2-of-2.json", "-o", "merged"),
		g("plot", "merged/results.json", "--out", "figs", "--plot-format", "svg"),
	}},

	// run: generated, on a cmd testdata trace and on a ../shared trace.
	{name: "run-generated", steps: [][]string{
		g("run", "--jobs", "5000", "--rate", "5", "--burst", "20", "--sub", "3:12,2:8", "--dispatch", "random", "--load", "0.95", "--jobs-out", "jobs.csv", "--plot", "figs"),
		g("run", "--jobs", "3000", "--json", "--order", "lifo", "--arrivals", "periodic"),
		g("run", "--jobs", "2000", "--engine", "--order", "random", "--k", "3", "--burst", "9", "--json", "--jobs-out", "engine.csv"),
	}},
	{name: "run-four-at-zero", steps: [][]string{
		g("run", "--trace", "cmd/ratesim/testdata/four_at_zero.csv", "--rate", "1", "--burst", "2", "--sub", "0.5:1,0.5:1", "--jobs-out", "jobs.csv"),
		g("run", "--trace", "cmd/ratesim/testdata/four_at_zero.csv", "--rate", "1", "--burst", "2", "--sub", "0.5:1,0.5:1", "--json"),
	}},
	{name: "run-trace", shared: true, steps: [][]string{
		g("run", "--trace", gNASA, "--time-col", "ts_unix", "--rate", "0.7", "--burst", "10", "--k", "2", "--jobs-out", "jobs.csv", "--json"),
		g("run", "--trace", gNASA, "--time-col", "ts_unix", "--rate", "0.7", "--burst", "10", "--k", "2", "--plot", "figs", "--plot-format", "svg"),
	}},
	{name: "errors", steps: [][]string{
		g("run", "--rate", "0"),
		g("run", "--bogus"),
		g("sweep", "testdata/no-such-spec.yaml", "-o", "out"),
		g("clients", "--base", "-1s"),
		g("drl", "--designs", "nope"),
		g("limiters", "--window", "0"),
	}},

	// limiters: the family, profiles, the trace with keys, burst sizing.
	{name: "limiters-family", steps: [][]string{
		g("limiters", "--plot", "figs"),
		g("limiters", "--limiters", "fixed-window,sliding-log,token-police", "--arrivals", "poisson", "--load", "1.5", "--jobs", "5000", "--json"),
		g("limiters", "--arrivals", "cron:n=150,period=60,jitter=2", "--offset", "1", "--jobs", "3000", "--limiters", "all"),
		g("limiters", "--limiters", "throttle,token-shape,leaky-queue,gcra,sliding-counter", "--soft", "20", "--queue", "5", "--arrivals", "poisson", "--jobs", "4000", "--service-rate", "3", "--service-latency", "10ms"),
	}},
	{name: "limiters-profiles", steps: [][]string{
		g("limiters", "--profile", "nginx:rate=10r/s,burst=5", "--profile", "throttled:max_rate=10,max_burst=5", "--rate", "10", "--limit", "5", "--window", "1", "--arrivals", "poisson", "--load", "1.5", "--jobs", "5000", "--service-rate", "12"),
		g("limiters", "--profile", "xrate:limit=10,burst=5", "--profile", "guava-bursty:permits_per_second=10", "--profile", "bucket4j-greedy:capacity=5,refill_tokens=10,refill_period=1s", "--profile", "redis-cell:max_burst=4,count=10,period=1", "--profile", "envoy:max_tokens=5,tokens_per_fill=1,fill_interval=100ms", "--profile", "uber:rate=10", "--profile", "srtcm:cir=10,cbs=5,ebs=5", "--rate", "10", "--limit", "5", "--window", "1", "--arrivals", "poisson", "--load", "1.5", "--jobs", "3000", "--json", "--plot", "figs", "--plot-format", "svg"),
	}},
	{name: "limiters-trace", shared: true, steps: [][]string{
		g("limiters", "--trace", gNASA, "--time-col", "ts_unix", "--limit", "30", "--window", "60"),
		g("limiters", "--trace", gNASA, "--time-col", "ts_unix", "--limit", "30", "--window", "60", "--key-col", "client", "--top-keys", "5"),
		g("limiters", "--trace", gNASA, "--time-col", "ts_unix", "--profile", "xrate:limit=1,burst=5", "--size-burst", "0.01"),
	}},

	// clients: backoff, Retry-After, overload downstream, designs, users.
	{name: "clients-backoff", steps: [][]string{
		g("clients", "--arrivals", "cron:n=100,period=10", "--jobs", "1000", "--rate", "10", "--limit", "10", "--backoff", "exponential", "--plot", "figs"),
		g("clients", "--arrivals", "cron:n=100,period=10", "--jobs", "1000", "--rate", "10", "--limit", "10", "--backoff", "full", "--json"),
		g("clients", "--arrivals", "cron:n=100,period=10", "--jobs", "1000", "--rate", "10", "--limit", "10", "--backoff", "decorrelated", "--deadline", "5s"),
		g("clients", "--profile", "nginx:rate=10r/s,burst=20", "--arrivals", "poisson:rate=15", "--jobs", "2000", "--retry-after"),
	}},
	{name: "clients-overload", steps: [][]string{
		g("clients", "--arrivals", "cron:n=20,period=2", "--jobs", "2000", "--rate", "10", "--limit", "20", "--server-rate", "10", "--buffer", "2"),
		g("clients", "--arrivals", "poisson", "--jobs", "2000", "--server-rate", "5", "--backfill", "50", "--json"),
		g("clients", "--users", "5", "--horizon", "20", "--jobs", "0", "--plot", "figs", "--plot-format", "svg"),
	}},
	{name: "clients-designs", steps: [][]string{
		g("clients", "--design", "reconcile", "--nodes", "4", "--sync-period", "100ms", "--police", "--arrivals", "cron:n=100,period=10", "--jobs", "1000", "--rate", "10", "--limit", "10"),
		g("clients", "--design", "store", "--rtt", "2ms", "--arrivals", "cron:n=100,period=10", "--jobs", "1000", "--rate", "10", "--limit", "10", "--json"),
	}},

	// drl: every design (sync included), --plot, --sweep, a trace.
	{name: "drl-designs", steps: [][]string{
		g("drl", "--designs", "all", "--jobs", "3000", "--plot", "figs"),
		g("drl", "--designs", "one,sync", "--police", "--jobs", "3000", "--sync-period", "1s"),
		g("drl", "--designs", "one,sync", "--police", "--algorithm", "leaky-bucket", "--sync-period", "1s", "--jobs", "3000", "--json"),
		g("drl", "--designs", "lease,grd,fps", "--exchange", "gossip", "--loss", "0.1", "--jobs", "3000"),
	}},
	{name: "drl-store", steps: [][]string{
		g("drl", "--designs", "one,store", "--rtt", "lognormal:2ms:0.5", "--outage", "10s:20s", "--fail", "local", "--jobs", "3000", "--json"),
		g("drl", "--designs", "static", "--nodes", "2", "--scale", "30s:4", "--police", "--jobs", "3000"),
	}},
	{name: "drl-sweep", steps: [][]string{
		g("drl", "--designs", "one,static,reconcile", "--police", "--sweep", "sync-period=0,10ms,100ms,1s", "--jobs", "2000", "--plot", "figs", "--plot-format", "svg"),
	}},
	{name: "drl-trace", shared: true, steps: [][]string{
		g("drl", "--trace", gNASA, "--time-col", "ts_unix", "--key-col", "client", "--dispatch", "hash", "--rate", "1", "--burst", "5", "--designs", "one,static,store"),
	}},

	// verify, trace stats, paper.
	{name: "verify", steps: [][]string{
		g("verify", "--instances", "3000", "-j", "2"),
		g("verify", "--instances", "300", "--inflate", "burst", "-j", "2", "--out", "nc"),
	}},
	{name: "trace-stats", steps: [][]string{
		g("trace", "stats", "cmd/ratesim/testdata/access_sample.log", "--format", "clf", "--key-col", "host"),
		g("trace", "stats", "cmd/ratesim/testdata/access_sample.log", "--format", "clf", "--json", "--fit"),
	}},
	{name: "trace-stats-shared", shared: true, steps: [][]string{
		g("trace", "stats", gNASA, "--time-col", "ts_unix", "--key-col", "client", "--fit", "--plot", "nasa.png"),
		g("trace", "stats", gAzure, "--format", "wide", "--series", "function=func-07", "--spread", "random", "--json"),
		g("trace", "stats", gCode, "--time-col", "TIMESTAMP", "--time-format", "datetime"),
	}},
	{name: "paper-quick", shared: true, steps: [][]string{
		g("paper", "--quick", "--out", "paper", "-j", "2"),
	}},
}

// TestGoldens is issue 22's contract "every output of today's README,
// ratesim paper and testdata specs stays byte-identical: golden tests
// before the move, the same goldens after". It runs every command and
// study (goldenCases) with the binary built once, each case in a fresh
// folder beside ../shared, and compares with testdata/golden/NAME.txt:
// each step's exit code, standard output and standard error, and a
// manifest (path, size, sha256) of every file the case wrote, with the text
// of the small text files so that a difference is shown as a unified diff.
//
//	go test ./cmd/ratesim -run TestGoldens -golden -count=1
//	go test ./cmd/ratesim -run TestGoldens -golden -golden-update  # then review git diff
//
// What is normalised, narrowly, because it changes without the code's
// meaning changing:
//   - the VCS stamp: the binary is built with -buildvcs=false, so the
//     commit and "+dirty" (which every commit changes, and which the paper
//     and results.json embed) are never recorded; the version reads
//     "(devel)" as in any checkout;
//   - the Go toolchain (runtime.Version(), in results.json's go_version):
//     replaced by GOVERSION, as CI may install another patch release;
//   - wall-clock timings on standard error ("sweep took 0.27 s ... 474
//     ns/job", "verify took 0.52 s"): replaced by T;
//   - the case's absolute temporary folder, should an output print it:
//     replaced by $WORK.
//
// Cases reading ../shared/traces skip, saying so, when it is missing.
func TestGoldens(t *testing.T) {
	if !*goldenRun {
		t.Skip("run with -golden")
	}
	only, err := regexp.Compile(*goldenOnly)
	if err != nil {
		t.Fatalf("-golden-cases: %v", err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	shared := filepath.Join(repo, "..", "shared")
	haveShared := true
	if _, err := os.Stat(filepath.Join(shared, "traces")); err != nil {
		haveShared = false
	} else if err := os.Symlink(shared, filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "ratesim")
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatalf("go env GOVERSION: %v", err)
	}
	norm := goldenNormaliser(strings.TrimSpace(string(goVersion)))

	known := map[string]bool{}
	for _, c := range goldenCases {
		known[c.name+".txt"] = true
		if !only.MatchString(c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.shared && !haveShared {
				t.Skipf("no ../shared/traces next to the repository (%s): this case reads its traces", shared)
			}
			work := filepath.Join(root, c.name)
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, l := range []string{"testdata", "cmd"} {
				if err := os.Symlink(filepath.Join(repo, l), filepath.Join(work, l)); err != nil {
					t.Fatal(err)
				}
			}
			got := runGoldenCase(t, bin, work, c, func(s string) string { return norm(strings.ReplaceAll(s, work, "$WORK")) })
			checkGolden(t, filepath.Join("testdata", "golden", c.name+".txt"), got)
		})
	}
	if *goldenOnly == "" {
		ents, _ := os.ReadDir(filepath.Join("testdata", "golden"))
		for _, e := range ents {
			if !known[e.Name()] {
				t.Errorf("testdata/golden/%s belongs to no case of goldenCases: remove it", e.Name())
			}
		}
	}
}

// goldenNormaliser returns the normalisation TestGoldens documents.
func goldenNormaliser(goVersion string) func(string) string {
	took := regexp.MustCompile(`(ratesim: (?:sweep|verify) took )[0-9.]+( s on [^\n(]*)(?:\(([^,\n]+) jobs, [0-9.]+ ns/job per worker\))?`)
	return func(s string) string {
		s = strings.ReplaceAll(s, `"`+goVersion+`"`, `"GOVERSION"`)
		return took.ReplaceAllStringFunc(s, func(m string) string {
			p := took.FindStringSubmatch(m)
			if p[3] != "" {
				return p[1] + "T" + p[2] + "(" + p[3] + " jobs, T ns/job per worker)"
			}
			return p[1] + "T" + p[2]
		})
	}
}

// goldenSection is one named part of a golden file.
type goldenSection struct{ name, body string }

// runGoldenCase runs c's steps in work and returns its record: for each
// step the command, exit code, stdout and stderr; then the manifest of the
// files written and the text of the small text files.
func runGoldenCase(t *testing.T, bin, work string, c goldenCase, norm func(string) string) []goldenSection {
	t.Helper()
	var secs []goldenSection
	for i, args := range c.steps {
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("step %d %v: %v", i+1, args, err)
		}
		if stdout.Len()+stderr.Len() > goldenStreamMax {
			t.Errorf("step %d %v printed %d bytes: too large for a golden file, make the case smaller", i+1, args, stdout.Len()+stderr.Len())
		}
		p := fmt.Sprintf("step %d ", i+1)
		secs = append(secs,
			goldenSection{p + "command", "ratesim " + goldenQuote(args) + "\n"},
			goldenSection{p + "exit", strconv.Itoa(code) + "\n"},
			goldenSection{p + "stdout", norm(stdout.String())},
			goldenSection{p + "stderr", norm(stderr.String())})
	}
	var manifest strings.Builder
	var texts []goldenSection
	err := filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(work, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if isGoldenText(data) {
			data = []byte(norm(string(data)))
			if ext := filepath.Ext(rel); len(data) <= goldenTextMax && ext != ".svg" && ext != ".pdf" {
				texts = append(texts, goldenSection{"file " + rel, string(data)})
			}
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&manifest, "%s %d %s\n", rel, len(data), hex.EncodeToString(sum[:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	secs = append(secs, goldenSection{"files (path, size in bytes, sha256; text after normalisation)", manifest.String()})
	return append(secs, texts...)
}

// goldenTextMax is the largest text output file kept whole in a golden
// file (larger ones, figures and binary ones by their sha256 only).
const goldenTextMax = 64 << 10

// goldenStreamMax bounds what one step may print (kept whole).
const goldenStreamMax = 256 << 10

// isGoldenText reports whether data is UTF-8 text (no NUL byte).
func isGoldenText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}

// goldenQuote writes args as a shell would need them (the golden files' command lines).
func goldenQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " '\"$*?;&|<>()\\`") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

// encodeGolden writes sections as "=== NAME (N bytes)\n" + body + "\n".
func encodeGolden(secs []goldenSection) string {
	var b strings.Builder
	for _, s := range secs {
		fmt.Fprintf(&b, "=== %s (%d bytes)\n%s\n", s.name, len(s.body), s.body)
	}
	return b.String()
}

// decodeGolden reads what encodeGolden wrote.
func decodeGolden(text string) ([]goldenSection, error) {
	head := regexp.MustCompile(`^=== (.*) \(([0-9]+) bytes\)\n`)
	var secs []goldenSection
	for text != "" {
		m := head.FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("bad section header at %q", firstLine(text))
		}
		n, _ := strconv.Atoi(m[2])
		text = text[len(m[0]):]
		if len(text) < n+1 || text[n] != '\n' {
			return nil, fmt.Errorf("section %q: body shorter than %d bytes", m[1], n)
		}
		secs = append(secs, goldenSection{m[1], text[:n]})
		text = text[n+1:]
	}
	return secs, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkGolden compares got with the golden file at path section by
// section (or rewrites it with -golden-update), printing a unified diff of
// each section that differs.
func checkGolden(t *testing.T, path string, got []goldenSection) {
	t.Helper()
	if *goldenUpdate {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(encodeGolden(got)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -golden-update to create it)", err)
	}
	want, err := decodeGolden(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	wantBy := map[string]string{}
	for _, s := range want {
		wantBy[s.name] = s.body
	}
	gotBy := map[string]bool{}
	for _, s := range got {
		gotBy[s.name] = true
		w, ok := wantBy[s.name]
		switch {
		case !ok:
			t.Errorf("%s: %s is new:\n%s", path, s.name, s.body)
		case w != s.body:
			t.Errorf("%s: %s differs (-golden +now):\n%s", path, s.name, unifiedDiff(w, s.body))
		}
	}
	for _, s := range want {
		if !gotBy[s.name] {
			t.Errorf("%s: %s is gone (the golden has %d bytes)", path, s.name, len(s.body))
		}
	}
}

// unifiedDiff returns the lines of a and b that differ, as a unified diff
// with 3 lines of context, from a longest common subsequence of lines.
// Large inputs (over 4000 lines each) are compared by their first
// differing line only.
func unifiedDiff(a, b string) string {
	al, bl := splitLines(a), splitLines(b)
	if len(al)*len(bl) > 16e6 {
		i := 0
		for i < len(al) && i < len(bl) && al[i] == bl[i] {
			i++
		}
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		return fmt.Sprintf("first difference at line %d:\n-%s\n+%s\n", i+1, strings.TrimSuffix(x, "\n"), strings.TrimSuffix(y, "\n"))
	}
	// lcs[i][j]: length of the longest common subsequence of al[i:], bl[j:].
	n, m := len(al), len(bl)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int
		bi   int
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			ops = append(ops, op{' ', al[i], i, j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', al[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', bl[j], i, j})
			j++
		}
	}
	// Hunks: runs of changes with 3 lines of context around them.
	var out strings.Builder
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(run, end+ctx)
				break
			}
			end = run
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ops[start].ai+1, na, ops[start].bi+1, nb)
		for _, o := range ops[start:end] {
			line := o.line
			if !strings.HasSuffix(line, "\n") {
				line += "\n\\ No newline at end of file\n"
			}
			out.WriteString(string(o.kind) + line)
		}
		k = end
	}
	return out.String()
}

// splitLines splits s after each newline; a last line without one is kept.
func splitLines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// TestGoldenDiff checks the golden file codec and the unified diff on a
// case worked by hand: a = x,a,b,c,d,e,f,g,h and b = the same with c
// replaced by C. The longest common subsequence keeps 8 lines; the hunk
// starts 3 lines before c (line 1) and ends 3 lines after it (line 7):
// 7 lines on each side.
func TestGoldenDiff(t *testing.T) {
	a := "x\na\nb\nc\nd\ne\nf\ng\nh\n"
	b := strings.Replace(a, "c\n", "C\n", 1)
	want := "@@ -1,7 +1,7 @@\n x\n a\n b\n-c\n+C\n d\n e\n f\n"
	if got := unifiedDiff(a, b); got != want {
		t.Errorf("unifiedDiff:\n%s\nwant:\n%s", got, want)
	}
	if got := unifiedDiff("a", "b"); got != "@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n" {
		t.Errorf("unifiedDiff without final newlines: %q", got)
	}
	secs := []goldenSection{{"step 1 stdout", "two\nlines\n"}, {"step 1 stderr", ""}, {"file a.txt", "=== x (3 bytes)\nno newline"}}
	back, err := decodeGolden(encodeGolden(secs))
	if err != nil || len(back) != len(secs) {
		t.Fatalf("decodeGolden(encodeGolden) = %v, %v", back, err)
	}
	for i := range secs {
		if back[i] != secs[i] {
			t.Errorf("section %d: %q, want %q", i, back[i], secs[i])
		}
	}
	norm := goldenNormaliser("go1.2.3")
	in := "ratesim: sweep took 0.27 s on 2 workers (1.13e+06 jobs, 474 ns/job per worker)\nratesim: verify took 0.52 s on 2 workers\n\"go_version\": \"go1.2.3\",\n"
	wantN := "ratesim: sweep took T s on 2 workers (1.13e+06 jobs, T ns/job per worker)\nratesim: verify took T s on 2 workers\n\"go_version\": \"GOVERSION\",\n"
	if got := norm(in); got != wantN {
		t.Errorf("normalised:\n%s\nwant:\n%s", got, wantN)
	}
}
