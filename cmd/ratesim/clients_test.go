package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/internal/version"
)

// clientsOut is the part of ratesim clients --json the tests read.
type clientsOut struct {
	Schema     int     `json:"schema_version"`
	Version    string  `json:"ratesim_version"`
	Limiter    string  `json:"limiter"`
	Params     string  `json:"limiter_params"`
	Backoff    string  `json:"backoff"`
	Base       float64 `json:"backoff_base_s"`
	Foreground struct {
		Requests      int64   `json:"requests"`
		Attempts      int64   `json:"attempts"`
		Successes     int64   `json:"admitted"`
		GiveUps       int64   `json:"give_ups"`
		Amplification float64 `json:"retry_amplification"`
		Drain         float64 `json:"drain_s"`
		Mean          float64 `json:"mean_latency_s"`
		P50           float64 `json:"p50_latency_s"`
		Max           float64 `json:"max_latency_s"`
	} `json:"foreground"`
	Series []struct {
		Start    float64 `json:"start_s"`
		Requests int64   `json:"requests"`
		Attempts int64   `json:"attempts"`
	} `json:"foreground_series"`
	Backfill *struct {
		Requests  int64 `json:"requests"`
		Successes int64 `json:"admitted"`
	} `json:"backfill"`
	Controls   []struct{ Fraction float64 } `json:"backfill_controls"`
	Downstream []struct {
		Class     string  `json:"class"`
		Arrived   int64   `json:"arrived"`
		Overflows int64   `json:"overflows"`
		Departed  int64   `json:"departed"`
		MeanQueue float64 `json:"mean_queue_delay_s"`
		MaxQueue  string  `json:"max_queue_delay_s_exact"`
	} `json:"downstream"`
	Design *struct {
		Jobs      int64   `json:"jobs"`
		Admitted  int64   `json:"admitted"`
		Messages  int64   `json:"messages"`
		Overshoot float64 `json:"worst_overshoot"`
	} `json:"design"`
}

func clientsRun(t *testing.T, args ...string) clientsOut {
	t.Helper()
	out, errOut, code := ratesim(t, append([]string{"clients", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res clientsOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return res
}

// TestClientsThreeAtZero is the hand-worked case: 3 clients at
// t = 0 ('cron:n=3' fires all three at 0) into a policing bucket of burst 1
// and rate 1, retried until success.
//
// Constant backoff 0.5 s: A passes at 0 (the bucket is full); B and C
// retry at 0.5 (half a token: both refused) and at 1 (one token: B passes,
// C refused), C at 1.5 (refused) and 2 (passes). Attempts 1 + 3 + 5 = 9,
// latencies 0, 1, 2 s: mean 1, median 1, max 2, drained at 2 s.
//
// Exponential backoff, base 0.5 s: the n-th retry sleeps 0.5·2^n s, so B
// and C retry at 1 (B passes), C sleeps 2 s more and passes at 3 (the
// bucket holds at most one token). Attempts 1 + 2 + 3 = 6, latencies 0,
// 1, 3 s: mean 4/3.
func TestClientsThreeAtZero(t *testing.T) {
	common := []string{"--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1", "--max-attempts", "0", "--base", "0.5"}
	for _, c := range []struct {
		backoff               string
		attempts              int64
		mean, p50, max, drain float64
	}{
		{"constant", 9, 1, 1, 2, 2},
		{"exponential", 6, 4.0 / 3, 1, 3, 3},
	} {
		res := clientsRun(t, append(common, "--backoff", c.backoff, "--cap", "100")...)
		f := res.Foreground
		if f.Requests != 3 || f.Successes != 3 || f.GiveUps != 0 || f.Attempts != c.attempts || !near(f.Amplification, float64(c.attempts)/3, 1e-12) {
			t.Errorf("%s: %+v, want 3 requests, 3 successes, %d attempts", c.backoff, f, c.attempts)
		}
		if !near(f.Mean, c.mean, 1e-12) || f.P50 != c.p50 || f.Max != c.max || f.Drain != c.drain {
			t.Errorf("%s: latency mean %v p50 %v max %v drain %v, want %v %v %v %v", c.backoff, f.Mean, f.P50, f.Max, f.Drain, c.mean, c.p50, c.max, c.drain)
		}
		if res.Schema != version.Schema || res.Version == "" || res.Limiter != "token-police" || res.Backoff != c.backoff || res.Base != 0.5 {
			t.Errorf("%s: header %d %q, limiter %q, backoff %q base %v", c.backoff, res.Schema, res.Version, res.Limiter, res.Backoff, res.Base)
		}
	}
}

// TestClientsMaxAttempts: with --max-attempts 2 and constant backoff, A
// passes at 0 and B and C are refused at 0 and 0.5 s and give up: 5
// attempts, 1 success, 2 give-ups.
func TestClientsMaxAttempts(t *testing.T) {
	res := clientsRun(t, "--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1", "--max-attempts", "2", "--backoff", "constant", "--base", "0.5")
	if f := res.Foreground; f.Attempts != 5 || f.Successes != 1 || f.GiveUps != 2 {
		t.Errorf("%+v, want 5 attempts, 1 success, 2 give-ups", f)
	}
}

// TestClientsRetryAfter: honouring the policing bucket's Retry-After, B
// and C are told the instant of the next token, 1 s: B passes, C is told
// 2 s and passes. Attempts 1 + 2 + 3 = 6, latencies 0, 1, 2.
func TestClientsRetryAfter(t *testing.T) {
	res := clientsRun(t, "--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1", "--max-attempts", "0", "--retry-after")
	if f := res.Foreground; f.Attempts != 6 || f.Successes != 3 || f.Max != 2 || f.Drain != 2 {
		t.Errorf("%+v, want 6 attempts, max latency 2 s, drained at 2 s", f)
	}
}

// TestClientsDownstreamBuffer is the article's point with exact counts:
// 20 requests every 2 s ('cron:n=20,period=2', 10 periods, 200 requests)
// into a token bucket of rate 10/s and burst 20, which refills whole in
// each period and admits every request: the traffic keeps b + r·d. The
// server serves 10/s, the average, with a waiting room of 2: at each burst
// one request goes into service, 2 wait (0.1 and 0.2 s) and 17 are lost;
// with one attempt each, the 17 are given up: 170 in all, 30 served with
// a mean queueing delay of 0.1 s, their latencies (to the end of service)
// 0.1, 0.2 and 0.3 s: mean 0.2 s. Paced at 10/s the same requests reach
// the server 0.1 s apart, each as the one before leaves: nothing is lost,
// nothing waits, and the j-th request of a period (j = 0..19) waits 0.1·j
// s in the pacer and 0.1 s in service: at most 2 s, 1.05 s on average.
func TestClientsDownstreamBuffer(t *testing.T) {
	common := []string{"--arrivals", "cron:n=20,period=2", "--jobs", "200", "--rate", "10", "--limit", "20", "--server-rate", "10", "--buffer", "2", "--max-attempts", "1"}
	res := clientsRun(t, common...)
	if f := res.Foreground; f.Successes != 200 || f.Attempts != 200 || f.GiveUps != 170 || !near(f.Mean, 0.2, 1e-12) || !near(f.Max, 0.3, 1e-12) {
		t.Errorf("burst: %+v, want all 200 admitted at the first attempt, 170 given up, latency mean 0.2 s, max 0.3 s", f)
	}
	if len(res.Downstream) != 1 {
		t.Fatalf("downstream %+v, want one class", res.Downstream)
	}
	if d := res.Downstream[0]; d.Class != "foreground" || d.Arrived != 200 || d.Overflows != 170 || d.Departed != 30 || !near(d.MeanQueue, 0.1, 1e-12) || d.MaxQueue != "0.2" {
		t.Errorf("burst: downstream %+v, want 170 of 200 lost, 30 served, mean queue 0.1 s, max 0.2 s", d)
	}
	paced := clientsRun(t, append(common, "--pace", "10")...)
	if d := paced.Downstream[0]; d.Overflows != 0 || d.Departed != 200 || d.MaxQueue != "0" {
		t.Errorf("paced: downstream %+v, want none lost and no queueing", d)
	}
	if f := paced.Foreground; f.Successes != 200 || !near(f.Max, 2, 1e-12) || !near(f.Mean, 1.05, 1e-12) {
		t.Errorf("paced: %+v, want latency max 2 s, mean 1.05 s", f)
	}
}

// TestClientsServedRetried: the hand case of clients.TestServedIsSuccess
// through the command. Three requests at 0 through a loose limiter (a
// bucket of burst 3 at 100/s, full again by each retry) into a server of 1 job/s with room for 1, constant
// backoff 0.5 s: A is served 0 to 1 s, B 1 to 2 s; C is lost at 0 and
// 0.5 s and, arriving at 1 s as A leaves, is served 2 to 3 s. 5 attempts,
// all admitted, 2 lost; 3 served at 1, 2, 3 s: mean latency 2 s.
func TestClientsServedRetried(t *testing.T) {
	res := clientsRun(t, "--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "100", "--limit", "3", "--max-attempts", "0",
		"--backoff", "constant", "--base", "0.5", "--server-rate", "1", "--buffer", "1")
	f := res.Foreground
	if f.Attempts != 5 || f.Successes != 5 || f.GiveUps != 0 || !near(f.Mean, 2, 1e-12) || f.Max != 3 || f.Drain != 3 {
		t.Errorf("%+v, want 5 attempts admitted, latency mean 2 s, max 3 s, drained at 3 s", f)
	}
	if d := res.Downstream[0]; d.Arrived != 5 || d.Overflows != 2 || d.Departed != 3 {
		t.Errorf("downstream %+v, want 5 arrived, 2 lost, 3 served", d)
	}
}

// TestClientsSeries: bins of 1 s count the cron bursts' requests at 0, 2,
// 4, ... s and nothing between.
func TestClientsSeries(t *testing.T) {
	res := clientsRun(t, "--arrivals", "cron:n=20,period=2", "--jobs", "60", "--rate", "10", "--limit", "20")
	if len(res.Series) != 5 {
		t.Fatalf("%d bins, want 5 (0 to 4 s)", len(res.Series))
	}
	for i, b := range res.Series {
		want := int64(0)
		if i%2 == 0 {
			want = 20
		}
		if b.Start != float64(i) || b.Requests != want || b.Attempts != want {
			t.Errorf("bin %d: %+v, want start %d s, %d requests and attempts", i, b, i, want)
		}
	}
}

// TestClientsBackfillAndProfile: a backfill reports its own summary and
// downstream class, and a profile names the limiter.
func TestClientsBackfillAndProfile(t *testing.T) {
	res := clientsRun(t, "--profile", "xrate:limit=100,burst=10", "--arrivals", "poisson:rate=5", "--jobs", "200",
		"--server-rate", "50", "--buffer", "100", "--backfill", "300")
	if res.Limiter != "xrate" || !strings.HasPrefix(res.Params, "xrate:limit=100,burst=10") {
		t.Errorf("limiter %q %q, want xrate and its canonical spec", res.Limiter, res.Params)
	}
	if res.Backfill == nil || res.Backfill.Requests != 300 || res.Backfill.Successes != 300 || len(res.Controls) == 0 {
		t.Errorf("backfill %+v, %d controls, want 300 requests done and control steps", res.Backfill, len(res.Controls))
	}
	if len(res.Downstream) != 2 || res.Downstream[0].Class != "foreground" || res.Downstream[1].Class != "backfill" || res.Downstream[1].Arrived != 300 {
		t.Errorf("downstream %+v, want foreground and backfill classes", res.Downstream)
	}
}

// TestClientsDeterministic: the same seed gives the same bytes; another
// seed other jitter.
func TestClientsDeterministic(t *testing.T) {
	args := []string{"clients", "--arrivals", "cron:n=50,period=5", "--jobs", "500", "--backoff", "decorrelated", "--json"}
	a, _, _ := ratesim(t, args...)
	b, _, _ := ratesim(t, args...)
	c, _, _ := ratesim(t, append(args, "--seed", "2")...)
	if a != b || a == c {
		t.Errorf("same seed differs: %v; other seed equal: %v", a != b, a == c)
	}
}

// TestClientsTable checks the table's rows and notes.
func TestClientsTable(t *testing.T) {
	out, errOut, code := ratesim(t, "clients", "--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1",
		"--max-attempts", "0", "--backoff", "constant", "--base", "0.5", "--server-rate", "1", "--buffer", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{
		"limiter    token-police: r = 1 tokens/s, b = 1 tokens, policing",
		"retry      backoff constant, base 0.5, cap 10s",
		"server     FIFO at 1 jobs/s, waiting room 0 jobs",
		"foreground          3         9         3        0    3.000    3.000",
		"foreground          3         0         3", // the downstream row: 3 arrived 1 s apart, none lost
	} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
}

// TestClientsErrors checks that bad flags exit 2 with an error naming the
// flag and what fits.
func TestClientsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--limiter", "bucket"}, []string{"--limiter bucket", "token-police, token-shape"}},
		{[]string{"--limiter", "gcra", "--profile", "xrate"}, []string{"limiter", "profile", "none of the others"}},
		{[]string{"--profile", "xrate:brust=1"}, []string{`--profile "xrate:brust=1"`, `unknown key "brust"`, "xrate keys: limit"}},
		{[]string{"--profile", "xrate", "--rate", "5"}, []string{"--rate applies to --limiter only"}},
		{[]string{"--profile", "xrate", "--arrivals", "poisson"}, []string{"--arrivals poisson", "'poisson:rate=15'"}},
		{[]string{"--backoff", "linear"}, []string{"--backoff linear", "none, exponential, full, equal, decorrelated, constant"}},
		{[]string{"--base", "-1"}, []string{"--base -1", "a time > 0 s"}},
		{[]string{"--base", "2s", "--cap", "1s"}, []string{"--cap 1s", ">= --base 2 s"}},
		{[]string{"--max-attempts", "-1"}, []string{"--max-attempts -1", ">= 1, or 0 for no bound"}},
		{[]string{"--deadline", "x"}, []string{"--deadline x", "a time in seconds"}},
		{[]string{"--retry-after-jitter", "1"}, []string{"--retry-after-jitter applies with --retry-after only"}},
		{[]string{"--pace", "0"}, []string{"--pace 0", "(0, 1e9]"}},
		{[]string{"--pace-jitter", "1"}, []string{"--pace-jitter applies with --pace only"}},
		{[]string{"--buffer", "3"}, []string{"--buffer applies with --server-rate only"}},
		{[]string{"--server-rate", "10", "--buffer", "-1"}, []string{"--buffer -1", ">= 0 jobs"}},
		{[]string{"--server-rate", "10", "--backfill-min", "0.1"}, []string{"--backfill-min applies with --backfill only"}},
		{[]string{"--server-rate", "10", "--backfill", "5", "--backfill-fraction", "2"}, []string{"--backfill-fraction 2", "[--backfill-min 0.05, --backfill-max 1]"}},
		{[]string{"--server-rate", "10", "--backfill", "5", "--backfill-decrease", "0"}, []string{"--backfill-decrease 0", "(0, 1]"}},
		{[]string{"--server-rate", "10", "--backfill", "5", "--backfill-interval", "0"}, []string{"--backfill-interval 0", "> 0 s"}},
		{[]string{"--backfill", "5"}, []string{"--backfill applies with --server-rate only"}},
		{[]string{"--jobs", "0"}, []string{"--jobs 0", "--users"}},
		{[]string{"--think", "1"}, []string{"--think and --horizon apply with --users only"}},
		{[]string{"--users", "2", "--horizon", "0"}, []string{"--horizon 0", "> 0 s"}},
		{[]string{"--users", "-1"}, []string{"--users -1", ">= 0"}},
		{[]string{"--limit", "0"}, []string{"--limit 0", "between 1 and 2^40"}},
		{[]string{"--rate", "0"}, []string{"--rate 0", "> 0 tokens/s"}},
		{[]string{"--time-col", "1"}, []string{"--time-col applies to trace input only"}},
		{[]string{"--trace", "testdata/backwards.csv"}, []string{"backwards.csv"}},
		{[]string{"--arrivals", "nonsense"}, []string{"--arrivals nonsense"}},
		{[]string{"--bin", "-1s"}, []string{"--bin -1s", ">= 0 s"}},
	} {
		out, errOut, code := ratesim(t, append([]string{"clients"}, c.args...)...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q, want exit 2 and no output", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errOut, w)
			}
		}
	}
}

// TestClientsPlot: --plot draws the series and the latency tail of the
// hand case, lists them on stderr, and refuses a bad format before the
// run.
func TestClientsPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	_, errOut, code := ratesim(t, "clients", "--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1",
		"--max-attempts", "0", "--base", "0.5", "--backoff", "constant", "--plot", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	want := "ratesim: wrote 2 figures:\n  " + filepath.Join(dir, "clients-series.png") + "\n  " + filepath.Join(dir, "latency-ccdf.png") + "\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	for _, name := range []string{"clients-series.png", "latency-ccdf.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, errOut, code = ratesim(t, "clients", "--jobs", "3", "--plot", dir, "--plot-format", "gif")
	if code != 2 || !strings.Contains(errOut, "--plot-format") {
		t.Errorf("--plot-format gif: exit %d, stderr %q", code, errOut)
	}
}

// TestClientsNewUserErrors: the defects a new-user trial found. --bin 1ns
// over 100 Poisson requests at 12/s (an expected span of 99/12 = 8.25 s)
// is refused before the run naming a bin that fits (8.25e9/10^6 + 1 ns
// rounded up to 1-2-5: 10 µs), and cron requests at a mean 10/s likewise
// (99/10 = 9.9 s); --plot ” and --limit 0.5 say what fits; the help lists every
// exit code.
func TestClientsNewUserErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"clients", "--jobs", "100", "--bin", "1ns"}, "--bin 1ns: the run reaches 8.25 s, more than 10^6 bins (the most a series keeps): want --bin 0.00001 s or wider"},
		{[]string{"clients", "--arrivals", "cron:n=20,period=2", "--jobs", "100", "--bin", "1us"}, "--bin 1us: the run reaches 9.9 s"},
		{[]string{"clients", "--jobs", "10", "--plot", ""}, "--plot '': want a folder"},
		{[]string{"clients", "--limit", "0.5"}, "--limit 0.5: want a whole number (--limit: "},
	} {
		out, errOut, code := ratesim(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
	for _, cmd := range []string{"clients", "drl"} {
		out, _, _ := ratesim(t, cmd, "--help")
		if !strings.Contains(out, "3 internal error") || !strings.Contains(out, "143 SIGTERM") {
			t.Errorf("ratesim %s --help lacks the exit codes 3 and 143", cmd)
		}
	}
}

// TestClientsServed: the burst into a small buffer of docs/commands.md, with one
// attempt per request. 20 requests every 2 s, all admitted by a bucket of
// burst 20; a server of 10 jobs/s with room for 2 serves 3 of each burst
// (one in service, two waiting) and the 17 others are given up. 200
// requests are 10 bursts: 30 served, 200 admitted; the drain ends with the
// last service, at 18.3 s: 30/18.3 served per s. The JSON says "admitted"
// and "served", and a bin of retries without new requests has a null
// amplification (JSON has no infinity), not "+Inf".
func TestClientsServed(t *testing.T) {
	args := []string{"clients", "--arrivals", "cron:n=20,period=2", "--jobs", "200", "--rate", "10", "--limit", "20",
		"--server-rate", "10", "--buffer", "2", "--max-attempts", "1"}
	out, errOut, code := ratesim(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res struct {
		Foreground struct {
			Admitted   int64    `json:"admitted"`
			Served     *int64   `json:"served"`
			ServedRate *float64 `json:"served_per_s"`
		} `json:"foreground"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	f := res.Foreground
	if f.Admitted != 200 || f.Served == nil || *f.Served != 30 || f.ServedRate == nil || !near(*f.ServedRate, 30/18.3, 1e-12) {
		t.Errorf("admitted %d, served %v at %v/s; want 200, 30 at 30/18.3", f.Admitted, f.Served, f.ServedRate)
	}
	table, _, _ := ratesim(t, args...)
	if !strings.Contains(table, "served     30 of 200 requests served downstream") {
		t.Errorf("table lacks the served line:\n%s", table)
	}
	// A bucket of burst 1 at 1/s, three requests at 0, constant backoff
	// 0.5 s, bins of 1 s: the bins at 1 s and 2 s hold retries only.
	out, _, _ = ratesim(t, "clients", "--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1",
		"--max-attempts", "0", "--base", "0.5", "--backoff", "constant", "--json")
	if strings.Contains(out, "Inf") || !strings.Contains(out, `"retry_amplification": null`) {
		t.Errorf("series amplification not null in bins without requests:\n%s", out)
	}
}

// TestClientsDesign: the hand case of TestClientsThreeAtZero through DRL
// designs. The one bucket, and sync over 1 node with no reconciliation
// delay, are the policing bucket: 9 attempts, latencies 0, 1, 2 s. A
// store with a fixed round trip of 0.1 s answers every attempt 0.1 s
// late (drl.TestOnlineHandWorked works it out): B and C learn their
// refusal at 0.1 s and retry at 0.6 and 1.2 s, B passes at 1.3 s, C is
// refused at 1.2 and 1.8 s and passes at 2.5 s: latencies 0.1, 1.3, 2.5 s,
// drained at 2.5 s. The design decided the 9 attempts, admitted 3, the
// store with one message (a round trip) each; no design breaks the
// promise (B + R·d: A at 0 and B at 1 s, or 1.3 s for the store).
func TestClientsDesign(t *testing.T) {
	common := []string{"--arrivals", "cron:n=3,period=100", "--jobs", "3", "--rate", "1", "--limit", "1", "--max-attempts", "0",
		"--base", "0.5", "--backoff", "constant", "--police", "--nodes", "1"}
	for _, c := range []struct {
		args             []string
		mean, max, drain float64
		messages         int64
	}{
		{[]string{"--design", "one"}, 1, 2, 2, 0},
		{[]string{"--design", "reconcile", "--sync-period", "0"}, 1, 2, 2, 0},
		{[]string{"--design", "store", "--rtt", "100ms"}, 1.3, 2.5, 2.5, 9},
	} {
		res := clientsRun(t, append(common, c.args...)...)
		f := res.Foreground
		if f.Requests != 3 || f.Successes != 3 || f.Attempts != 9 || !near(f.Mean, c.mean, 1e-12) || !near(f.Max, c.max, 1e-12) || !near(f.Drain, c.drain, 1e-12) {
			t.Errorf("%v: %+v, want 9 attempts, latency mean %v max %v, drained at %v s", c.args, f, c.mean, c.max, c.drain)
		}
		if d := res.Design; d == nil || d.Jobs != 9 || d.Admitted != 3 || d.Messages != c.messages || d.Overshoot > 1 {
			t.Errorf("%v: design %+v, want 9 jobs, 3 admitted, %d messages, overshoot <= 1", c.args, d, c.messages)
		}
		if want := "drl " + c.args[1]; res.Limiter != want {
			t.Errorf("%v: limiter %q, want %q", c.args, res.Limiter, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--design", "ring"}, "--design ring: want one of one, static"},
		{[]string{"--nodes", "2"}, "--nodes applies with --design only"},
		{[]string{"--design", "static", "--nodes", "4", "--limit", "2"}, "--limit 2: want a burst of at least one token per node"},
		{[]string{"--design", "reconcile", "--window", "2"}, "--window applies to --limiter only"},
		{[]string{"--design", "store", "--rtt", "soon"}, "--rtt soon"},
		{[]string{"--design", "one", "--limiter", "gcra"}, "none of the others"},
	} {
		out, errOut, code := ratesim(t, append([]string{"clients"}, c.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}
