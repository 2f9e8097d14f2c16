package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue28Instants: issue 28's "instants past the clock's range" and
// "errors that name the wrong thing" reproducers. Each must exit 2 (a
// usage error, not the internal error 3 or an invariant failure), name
// the flag as typed, and give the bound that fits, derived by hand:
//
//   - drl delays are at most MaxDelay = 86400 s = 24h0m0s; a lognormal
//     with median 1 ms fits while 1 ms · e^(8.5 σ) <= 86400 s, σ <=
//     ln(8.64e7)/8.5 = 18.2744/8.5 = 2.1499 (printed floored to 4 places:
//     2.1499).
//   - clients times are at most 2^61 ns = 2305843009.213693952 s.
//   - drl generated arrivals span jobs/(load·rate) <= 2^61 ns: 200 jobs at
//     load 0.9 need rate >= 200/(0.9 · 2305843009.213693952) =
//     9.6372e-8, rounded up to 4 digits 9.638e-08; at rate 10, load >=
//     200/(10 · 2305843009.2137) = 8.6736e-9, rounded up 8.674e-09.
//   - a drl rate is at most 2^63-1 = 9223372036854775807 tokens/s.
//   - --scale AT:N with burst 20 fits N <= 20.
func TestIssue28Instants(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"drl", "--jobs", "200", "--rtt", "inf"}, []string{"--rtt inf", "at most 24h0m0s"}},
		{[]string{"drl", "--jobs", "200", "--rtt", "9223372036.854775807"}, []string{"--rtt 9223372036.854775807", "at most 24h0m0s"}},
		{[]string{"drl", "--jobs", "200", "--rtt", "2562047h47m16.854775807s"}, []string{"--rtt 2562047h47m16.854775807s", "at most 24h0m0s"}},
		{[]string{"drl", "--jobs", "200", "--rtt", "86400.000000001"}, []string{"--rtt 86400.000000001", "at most 24h0m0s", "this is 24h0m0.000000001s"}},
		{[]string{"drl", "--jobs", "200", "--rtt", "lognormal:1ms:50"}, []string{"--rtt lognormal:1ms:50", "a shape <= 2.1499 with median 1ms"}},
		{[]string{"drl", "--jobs", "200", "--rtt", "lognormal:1ms:1e308"}, []string{"--rtt lognormal:1ms:1e308", "a shape <= 2.1499"}},
		{[]string{"drl", "--jobs", "200", "--sync-delay", "inf", "--designs", "sync"}, []string{"--sync-delay inf", "at most 24h0m0s"}},
		{[]string{"clients", "--jobs", "200", "--design", "store", "--rtt", "inf"}, []string{"--rtt inf", "at most 24h0m0s"}},
		{[]string{"clients", "--jobs", "200", "--server-rate", "5", "--backfill", "10", "--backfill-interval", "9223372036.854775807"}, []string{"--backfill-interval 9223372036.854775807", "a time <= 2305843009.213693952 s"}},
		{[]string{"clients", "--users", "3", "--think", "9223372036.854775807"}, []string{"--think 9223372036.854775807", "a time <= 2305843009.213693952 s"}},
		{[]string{"clients", "--users", "3", "--horizon", "2305843009.213693953"}, []string{"--horizon 2305843009.213693953", "a time <= 2305843009.213693952 s"}},
		{[]string{"drl", "--jobs", "200", "--rate", "1e-9"}, []string{"--rate 1e-9", "a rate >= 9.638e-08 tokens/s"}},
		{[]string{"drl", "--jobs", "200", "--load", "1e-300"}, []string{"--load 1e-300", "a load >= 8.674e-09"}},
		// 2305843009.213693952 s · 9 jobs/s = 20752587082.9: at most 20752587082 jobs.
		{[]string{"drl", "--jobs", "9223372036854775807"}, []string{"--jobs 9223372036854775807", "at most 20752587082 jobs"}},
		{[]string{"drl", "--jobs", "200", "--rate", "18446744073709551616"}, []string{"--rate 18446744073709551616", "a rate <= 9223372036854775807 tokens/s"}},
		{[]string{"drl", "--jobs", "200", "--scale", "1:10000000"}, []string{"--scale 1:10000000", "N <= 20 nodes"}},
		{[]string{"sweep", "-j", "-1", "../../testdata/sweep-small.yaml"}, []string{"-j -1: want between 1 and 4096"}},
		{[]string{"sweep", "-j", "100000", "../../testdata/sweep-small.yaml"}, []string{"-j 100000: want between 1 and 4096"}},
		{[]string{"sweep", "--threads", "100000", "../../testdata/sweep-small.yaml"}, []string{"--threads 100000: want between 1 and 4096"}},
		{[]string{"verify", "-j", "-1"}, []string{"-j -1: want between 1 and 4096"}},
		{[]string{"paper", "-j", "100000"}, []string{"-j 100000: want between 1 and 4096"}},
		// clients: 10000 requests (9999 gaps) at load·rate, rate 10: load >=
		// 9999/(10 · 2305843009.213693952) = 4.33634e-7, rounded up 4.337e-07;
		// the run's bins (--bin 1s) are not what is wrong.
		{[]string{"clients", "--load", "1e-300"}, []string{"--load 1e-300: want a load >= 4.337e-07, or fewer --jobs"}},
		{[]string{"clients", "--load", "4.336e-07", "--bin", "0"}, []string{"--load 4.336e-07: want a load >= 4.337e-07"}},
		{[]string{"clients", "--jobs", "MAX"}, []string{"--jobs MAX: want a whole number"}},
		// A guava rate of 1e-9 permits/s: its promise is beyond the exact
		// arithmetic (1e-7: a job waits beyond the clock); the key is named.
		{[]string{"limiters", "--profile", "guava-bursty:permits_per_second=1e-9"}, []string{"permits_per_second=1e-9", "want a larger permits_per_second"}},
		{[]string{"limiters", "--profile", "guava-bursty:permits_per_second=1e-7"}, []string{"permits_per_second=1e-7", "want a larger permits_per_second, or fewer jobs"}},
	} {
		_, errOut, code := ratesim(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", c.args, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q does not say %q", c.args, errOut, w)
			}
		}
	}
	// The bounds themselves fit: they run (exit 0).
	for _, args := range [][]string{
		{"drl", "--jobs", "200", "--designs", "store", "--rtt", "86400"},
		{"drl", "--jobs", "200", "--designs", "store", "--rtt", "lognormal:1ms:2.1499"},
		{"drl", "--jobs", "200", "--designs", "one", "--rate", "9.638e-08"},
		{"drl", "--jobs", "200", "--designs", "one", "--load", "8.674e-09"},
		{"drl", "--jobs", "200", "--designs", "static", "--scale", "1:20"},
		{"clients", "--users", "1", "--think", "2305843009.213693952", "--horizon", "10"},
		{"clients", "--load", "4.337e-07", "--bin", "0"},
	} {
		if _, errOut, code := ratesim(t, args...); code != 0 {
			t.Errorf("%v: exit %d, want 0 (the bound fits); stderr %q", args, code, errOut)
		}
	}
}

// TestIssue29RetriesAdvanceTime: issue 29's retry loops that never let
// time advance are refused up front (exit 2 naming --max-attempts and what
// fits); a settled sleep of MinUnboundedSleep = 1 ms runs. 1 s / 1 ns =
// 1e9 attempts per second of refusal.
func TestIssue29RetriesAdvanceTime(t *testing.T) {
	common := []string{"clients", "--jobs", "3", "--max-attempts", "0", "--rate", "1", "--limit", "1", "--arrivals", "periodic:rate=100"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--backoff", "none"}, []string{"--max-attempts 0: want a number of attempts >= 1 with --backoff none", "never lets time advance"}},
		{[]string{"--backoff", "none", "--deadline", "1s"}, []string{"--max-attempts 0", "never lets time advance"}},
		{[]string{"--backoff", "constant", "--base", "1ns"}, []string{"--max-attempts 0", "--base 1ns", "retries 1e+09 times", "--base >= 0.001 s"}},
		{[]string{"--backoff", "exponential", "--base", "1ns", "--cap", "999999ns"}, []string{"--max-attempts 0", "--cap 999999ns", "--cap >= 0.001 s"}},
	} {
		args := append(append([]string{}, common...), c.args...)
		_, errOut, code := ratesim(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", c.args, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q does not say %q", c.args, errOut, w)
			}
		}
	}
	for _, extra := range [][]string{{"--backoff", "constant", "--base", "1ms"}, {"--backoff", "exponential", "--base", "1ns", "--cap", "1ms"}} {
		args := append(append([]string{}, common...), extra...)
		if _, errOut, code := ratesim(t, args...); code != 0 {
			t.Errorf("%v: exit %d, want 0; stderr %q", extra, code, errOut)
		}
	}
}

// TestIssue28Budget: a stated number that would set the run's memory or
// time is refused before any work, naming the parameter, the estimate and
// what fits. With --max-memory 1GB (10^9 B): 10^7 users × 256 B = 2.56 GB,
// 10^9/256 = 3906250 users fit; 10^7 backfill requests × 192 B = 1.92 GB,
// 10^9/192 = 5208333 fit; 10^7 nodes × 128 B = 1.28 GB, 10^9/128 =
// 7812500 fit. A backfill of 10 at --backfill-min 0.05 of 5 requests/s
// drains in 10/(0.05·5) = 40 s: 10^7 control periods need >= 4 µs. drl's
// default run (10^5 jobs at λ = 0.9·10 = 9/s) spans 11111.1 s: 10^6 outage
// cycles need UP+DOWN >= 0.011112 s, shown rounded up as 0.01112.
func TestIssue28Budget(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"clients", "--max-memory", "1GB", "--users", "10000000"}, []string{"--users 10000000: want at most 3906250 closed-loop users", "about 2.56 GB of state (256 B per user)", "memory budget 1 GB"}},
		{[]string{"clients", "--users", "9223372036854775807"}, []string{"--users 9223372036854775807: want at most", "256 B per user"}},
		{[]string{"clients", "--max-memory", "1GB", "--server-rate", "5", "--backfill", "10000000"}, []string{"--backfill 10000000: want at most 5208333 backfill requests", "about 1.92 GB"}},
		{[]string{"clients", "--server-rate", "5", "--backfill", "9223372036854775807"}, []string{"--backfill 9223372036854775807: want at most"}},
		{[]string{"clients", "--server-rate", "5", "--backfill", "10", "--backfill-interval", "1ns"}, []string{"--backfill-interval 1ns: want a period >= 4e-06 s", "drain in up to 40 s"}},
		{[]string{"drl", "--max-memory", "1GB", "--nodes", "10000000", "--burst", "1e8"}, []string{"--nodes 10000000: want at most 7812500 nodes", "about 1.28 GB"}},
		{[]string{"drl", "--nodes", "9223372036854775807"}, []string{"--nodes 9223372036854775807: want at most"}},
		{[]string{"drl", "--outage-process", "1ns:1ns"}, []string{"--outage-process 1ns:1ns: want mean durations with UP+DOWN >= 0.01112 s"}},
		{[]string{"drl", "--max-memory", "0"}, []string{"--max-memory 0: want a memory size > 0"}},
	} {
		_, errOut, code := ratesim(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", c.args, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q does not say %q", c.args, errOut, w)
			}
		}
	}
	for _, args := range [][]string{
		{"clients", "--max-memory", "1GB", "--users", "100", "--horizon", "1"},
		{"clients", "--server-rate", "5", "--backfill", "10", "--backfill-interval", "4us", "--jobs", "10"},
		{"drl", "--jobs", "1000", "--designs", "store", "--outage-process", "0.112ms:0.001ms"},
	} {
		if _, errOut, code := ratesim(t, args...); code != 0 {
			t.Errorf("%v: exit %d, want 0 (it fits); stderr %q", args, code, errOut)
		}
	}
}

// TestIssue28YAMLLimits: a spec over 1 MiB, a value over 4 KiB and a tag
// outside YAML's core schema are refused (exit 2) naming the file (and the
// line), for every model: the split model, drl and clients. A list of 10^6
// axis values takes at least 2·10^6 bytes ("0," each), so it is refused by
// the size limit before anything is expanded.
func TestIssue28YAMLLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	values := make([]string, 1_000_000)
	for i := range values {
		values[i] = "0"
	}
	for _, c := range []struct {
		name, text string
		want       string
	}{
		{"tag.yaml", "model: drl\nname: !!python/object:os.system x\ndrl: {jobs: 10}\n", "tag.yaml:2: tag !!python/object:os.system"},
		{"tag-split.yaml", "name: !!python/object:os.system x\njobs: 10\n", "tag-split.yaml:1: tag !!python/object:os.system"},
		{"tag-clients.yaml", "model: clients\nclients: {jobs: !custom 10}\n", "tag-clients.yaml:2: tag !custom"},
		{"long.yaml", "model: drl\ndrl: {jobs: 10}\nname: " + strings.Repeat("a", 4097) + "\n", "long.yaml:3: a value of 4097 bytes: want at most 4096"},
		{"big.yaml", "model: clients\nclients: {jobs: 10}\nsweep:\n  users: [" + strings.Join(values, ",") + "]\n", "big.yaml: larger than 1048576 bytes"},
	} {
		p := write(c.name, c.text)
		_, errOut, code := ratesim(t, "sweep", p, "--out", filepath.Join(dir, "out-"+c.name))
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 saying %q", c.name, code, errOut, c.want)
		}
	}
}

// TestIssue29PlotKeepsDelayTrace: drl --plot DIR and clients --plot DIR
// refuse a folder where a figure's name is the --rtt trace: input (here a
// symbolic link latency.png -> rtt.csv), and the input is unchanged.
func TestIssue29PlotKeepsDelayTrace(t *testing.T) {
	dir := t.TempDir()
	rtt := filepath.Join(dir, "rtt.csv")
	text := "rtt\n0.001\n0.002\n"
	if err := os.WriteFile(rtt, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("rtt.csv", filepath.Join(dir, "latency.png")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"drl", "--jobs", "200", "--designs", "store", "--rtt", "trace:" + rtt + ":rtt", "--plot", dir},
		{"drl", "--jobs", "200", "--designs", "sync", "--sync-delay", "trace:" + rtt + ":rtt", "--plot", dir},
		{"clients", "--jobs", "20", "--design", "store", "--rtt", "trace:" + rtt + ":rtt", "--plot", dir},
	} {
		_, errOut, code := ratesim(t, args...)
		if code != 2 || !strings.Contains(errOut, "--plot "+dir) || !strings.Contains(errOut, "is the input "+rtt) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --plot and the input", args, code, errOut)
		}
		if b, _ := os.ReadFile(rtt); string(b) != text {
			t.Fatalf("%v replaced the input: %q", args, b)
		}
	}
}
