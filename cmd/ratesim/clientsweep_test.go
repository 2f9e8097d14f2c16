package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
)

// A clients spec of one point and one replication gives the numbers
// ratesim clients prints with the same flags and the replication's seed,
// experiments.ReplicationSeed(seed, 0, 0): with a downstream server (the
// goodput is then the served rate) and without.
func TestSweepClientsOnePointIsClients(t *testing.T) {
	for _, tt := range []struct {
		name, block string
		flags       []string
	}{{
		name:  "full jitter",
		block: "{arrivals: 'cron:n=20,period=2', jobs: 400, rate: 10, limit: 5, backoff: full, max_attempts: 4}",
		flags: []string{"--arrivals", "cron:n=20,period=2", "--jobs", "400", "--rate", "10", "--limit", "5", "--backoff", "full", "--max-attempts", "4"},
	}, {
		name:  "design",
		block: "{arrivals: 'cron:n=100,period=10', jobs: 1000, design: reconcile, nodes: 4, police: true, sync_period: 100ms, sync_delay: 5ms, backoff: full}",
		flags: []string{"--arrivals", "cron:n=100,period=10", "--jobs", "1000", "--design", "reconcile", "--nodes", "4", "--police", "--sync-period", "100ms", "--sync-delay", "5ms", "--backoff", "full"},
	}, {
		name:  "server",
		block: "{arrivals: poisson, load: 1.5, jobs: 500, backoff: decorrelated, server_rate: 8, buffer: 2}",
		flags: []string{"--arrivals", "poisson", "--load", "1.5", "--jobs", "500", "--backoff", "decorrelated", "--server-rate", "8", "--buffer", "2"},
	}} {
		spec := writeSpec(t, "model: clients\nseed: 5\nclients: "+tt.block+"\n")
		out := filepath.Join(t.TempDir(), "o")
		if _, errOut, code := ratesim(t, "sweep", spec, "-o", out, "-q", "--no-figures"); code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.name, code, errOut)
		}
		rows := readCSV(t, filepath.Join(out, "results.csv"))
		seed := strconv.FormatUint(experiments.ReplicationSeed(5, 0, 0), 10)
		js, errOut, code := ratesim(t, append([]string{"clients", "--json", "--seed", seed}, tt.flags...)...)
		if code != 0 {
			t.Fatalf("%s: clients exit %d: %s", tt.name, code, errOut)
		}
		var res struct {
			Foreground clientstudy.ClientSummary `json:"foreground"`
			Downstream []clientstudy.ServerClass `json:"downstream"`
		}
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatal(err)
		}
		fg := res.Foreground
		goodput := fg.Goodput
		if fg.ServedRate != nil {
			goodput = *fg.ServedRate
		}
		var over int64
		for _, c := range res.Downstream {
			over += c.Overflows
		}
		if tt.name == "server" && over == 0 || fg.GiveUps == 0 && tt.name == "full jitter" {
			t.Errorf("%s: %d overflows, %d give-ups: the case should have some", tt.name, over, fg.GiveUps)
		}
		if len(rows) != 2 {
			t.Fatalf("%s: %d rows, want a header and one", tt.name, len(rows))
		}
		for _, c := range []struct {
			name string
			want float64
		}{{"requests", float64(fg.Requests)}, {"attempts_per_request", float64(fg.Amplification)}, {"goodput_per_s", goodput},
			{"give_ups", float64(fg.GiveUps)}, {"mean_latency_s", fg.MeanLatency}, {"p99_latency_s", fg.P99Latency}, {"overflows", float64(over)}} {
			got, err := strconv.ParseFloat(rows[1][slices.Index(rows[0], c.name)], 64)
			if err != nil || got != c.want {
				t.Errorf("%s %s: sweep %v, clients %v", tt.name, c.name, got, c.want)
			}
		}
	}
}

// Same seed, same bytes on one worker or two.
func TestSweepClientsWorkers(t *testing.T) {
	spec := writeSpec(t, `
model: clients
clients: {arrivals: 'cron:n=10,period=1', jobs: 200, rate: 5, limit: 5}
replications: 2
sweep:
  backoff: [constant, full]
  max_attempts: [2, 5]
`)
	var files [2][]byte
	for i, j := range []string{"1", "2"} {
		dir := filepath.Join(t.TempDir(), "o"+j)
		if _, errOut, code := ratesim(t, "sweep", spec, "-o", dir, "-q", "-j", j); code != 0 {
			t.Fatalf("-j %s: exit %d: %s", j, code, errOut)
		}
		for _, n := range []string{"results.csv", "results.json"} {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			files[i] = append(files[i], b...)
		}
		figs, _ := filepath.Glob(filepath.Join(dir, "figures", "clients-sweep-*"))
		if len(figs) != 2 {
			t.Errorf("-j %s: figures %v, want attempts and p99 versus max_attempts", j, figs)
		}
	}
	if string(files[0]) != string(files[1]) {
		t.Errorf("-j 1 and -j 2 wrote different results")
	}
}

// A bad key or value of a clients spec is refused naming the file, line
// and parameter, with the flag's words of ratesim clients.
func TestSweepClientsErrors(t *testing.T) {
	for _, tt := range []struct{ spec, want string }{
		{"model: clients\nclients:\n  jobs: 10\n  bakoff: full\n", `:4: clients: field bakoff is not a clients parameter (want one of limiter, profile, rate`},
		{"model: clients\nclients:\n  jobs: 10\n  design: sink\n", `:4: clients.design: design sink: want one of one, static, store`},
		{"model: clients\nclients:\n  jobs: 10\n  limiter: gcra\n  design: sync\n", `:4: clients.limiter: limiter and design: give one`},
		{"model: clients\nclients:\n  jobs: 10\n  nodes: 4\n", `:4: clients.nodes: nodes applies with design only`},
		{"model: clients\nclients:\n  jobs: 10\n  nodez: 4\n", `:4: clients: field nodez is not a clients parameter (want one of limiter, profile`},
		{"model: clients\nclients: {jobs: 10, design: static, limit: 10}\nsweep:\n  nodes: [4, 20]\n", `:2: clients.limit: at sweep point 1 (nodes=20): limit 10: want a burst of at least one token per node`},
		{"model: clients\nclients: {jobs: 10}\nsweep:\n  backoff: [full, slow]\n", `:4: sweep.backoff: at sweep point 1 (backoff=slow): backoff slow: want one of none, exponential`},
		{"model: clients\nclients:\n  jobs: 10\n  cap: 1ms\n", `:4: clients.cap: cap 1ms: want a cap >= base 0.1 s`},
		{"model: clients\nclients:\n  jobs: 10\n  buffer: 3\n", `:4: clients.buffer: buffer applies with server_rate only`},
		{"model: clients\nclients: {jobs: 10}\nsweep:\n  seed: [1, 2]\n", `:4: sweep: "seed": the seed is the study's top-level seed`},
	} {
		spec := writeSpec(t, tt.spec)
		_, errOut, code := ratesim(t, "sweep", spec, "-o", filepath.Join(t.TempDir(), "o"), "-q")
		if code != 2 || !strings.Contains(errOut, spec+tt.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tt.spec, code, errOut, tt.want)
		}
	}
}

// The flags of ratesim clients default to clientstudy.DefaultClientsParams,
// the defaults of a clients spec: one set of defaults for both.
func TestClientsFlagDefaults(t *testing.T) {
	cmd := newClientsCmd()
	def := clientstudy.DefaultClientsParams()
	v := reflect.ValueOf(def)
	n := 0
	for i := range v.NumField() {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" || key == "trace" {
			continue
		}
		fl := cmd.Flags().Lookup(strings.ReplaceAll(key, "_", "-"))
		if fl == nil {
			t.Errorf("no flag for the parameter %s", key)
			continue
		}
		n++
		if want := fmt.Sprint(v.Field(i).Interface()); fl.DefValue != want {
			t.Errorf("--%s defaults to %q, the spec's %s to %q", fl.Name, fl.DefValue, key, want)
		}
	}
	if n < 30 {
		t.Errorf("%d parameters checked", n)
	}
}
