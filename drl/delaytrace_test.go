package drl

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A round trip drawn from a 3-line file, worked by hand. Promise (1, 1),
// one node, jobs at 0, 0.5 and 5 s; the store decides at t + D/2 and the
// job's delay is D plus the bucket's wait:
//
//	job 0: the bucket is full at D0/2: delay D0.
//	job 1: at 0.5 + D1/2 the bucket's next token is due at D0/2 + 1, a
//	       wait of 0.5 + (D0 - D1)/2 (> 0 for D's in [0.2, 0.6] s): delay
//	       0.5 + (D0 + D1)/2.
//	job 2: the bucket is full again by 5 s (its token came at 2 + D0/2 <
//	       5): delay D2.
//
// D_i is line 1 + k_i of the file, k_i the i-th IntN(3) of the stream
// (seed, StreamStoreRTT).
func TestRTTTraceHandWorked(t *testing.T) {
	p := writeFile(t, "rtt.csv", "host,rtt_s\na,0.2\nb,400ms\nc,0.6\n")
	d, err := ParseDelay("trace:" + p + ":rtt_s")
	if err != nil {
		t.Fatal(err)
	}
	vals := []engine.Time{200e6, 400e6, 600e6}
	if d.Kind != "trace" || len(d.Samples()) != 3 || d.Samples()[0] != vals[0] || d.Samples()[1] != vals[1] || d.Samples()[2] != vals[2] {
		t.Fatalf("read %+v, want values %v", d, vals)
	}
	if d2, err := ParseDelay("trace:" + p + ":2"); err != nil || len(d2.Samples()) != 3 || d2.Samples()[1] != vals[1] {
		t.Fatalf("by column number: %+v, %v", d2, err)
	}
	for _, seed := range []uint64{1, 2, 3, 4} {
		rng := rand.New(rand.NewPCG(seed, StreamStoreRTT))
		var D [3]engine.Time
		for i := range D {
			D[i] = vals[rng.IntN(3)]
		}
		want := []engine.Time{D[0], 500e6 + (D[0]+D[1])/2, D[2]}
		s := Spec{Design: "store", Bucket: params("1", "1"), Nodes: 1, Dispatch: "rr", Seed: seed, Store: StoreParams{RTT: d}}
		r := run(t, s, at(0, sec/2, 5*sec).as)
		xs := r.Departures[0]
		if r.Admitted != 3 || len(xs) != 3 {
			t.Fatalf("seed %d: admitted %d, departures %v", seed, r.Admitted, xs)
		}
		for i, a := range []engine.Time{0, sec / 2, 5 * sec} {
			if got := xs[i] - a; got != want[i] {
				t.Errorf("seed %d (D = %v): job %d delay %v ns, want %v", seed, D, i, got, want[i])
			}
		}
	}
}

func TestRTTTraceErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, col, want string }{
		{"a,rtt\nx,0.1\ny,-0.2\n", "rtt", ":3: column rtt: delay \"-0.2\" is negative"},
		{"a,rtt\nx,\n", "rtt", ":2: column rtt: empty cell"},
		{"a,rtt\nx,fast\n", "rtt", ":2: column rtt: \"fast\" is not a delay"},
		{"a,rtt\nx,1\n", "lat", ":1: no column \"lat\": want one of the header's names (a, rtt) or a number from 1 to 2"},
		{"a,rtt\nx\n", "rtt", ":2: 1 fields, no column 2"},
		{"a,rtt\n", "rtt", "no values under the header"},
	} {
		p := filepath.Join(dir, "f.csv")
		os.WriteFile(p, []byte(c.text), 0o644)
		_, err := ParseDelay("trace:" + p + ":" + c.col)
		if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q col %s: error %v, want %q", c.text, c.col, err, c.want)
		}
	}
	if _, err := ParseDelay("trace:nofile"); err == nil || !strings.Contains(err.Error(), "trace:FILE:COL") {
		t.Errorf("trace:nofile: %v", err)
	}
	// Plain seconds are rounded to the nearest nanosecond, halves up.
	p := writeFile(t, "r.tsv", "rtt\n0.0000000015\n0.0000000014\n1.5us\n")
	d, err := ParseDelay("trace:" + p + ":rtt")
	if err != nil || d.Samples()[0] != 2 || d.Samples()[1] != 1 || d.Samples()[2] != 1500 {
		t.Errorf("rounding: %v, %v; want [2 1 1500]", d.Samples(), err)
	}
}

// The exec_time_seconds column of the Alibaba GenTD26 trace (26,823
// requests, PROVENANCE.md) as a round-trip distribution: every value
// read, whole seconds (the column has one decimal, always .0), 30 of them
// 0 (the PENDING rows), and a store run with it delays each
// job by at least the smallest of them.
func TestRTTTraceReal(t *testing.T) {
	p := "../../shared/traces/alibaba-gentd26/lora_request_trace.csv"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: real trace %s not found (../shared/traces is beside the repository, not in it): %v", p, err)
	}
	d, err := ParseDelay("trace:" + p + ":exec_time_seconds")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Samples()) != 26823 {
		t.Fatalf("%d values, want 26823", len(d.Samples()))
	}
	zeros := 0
	for _, v := range d.Samples() {
		if v%sec != 0 {
			t.Fatalf("value %v ns is not whole seconds", v)
		}
		if v == 0 {
			zeros++
		}
	}
	if zeros != 30 {
		t.Errorf("%d zero values, want 30", zeros)
	}
	s := Spec{Design: "store", Bucket: params("100", "100"), Nodes: 2, Dispatch: "rr", Seed: 7, Store: StoreParams{RTT: d}}
	r := run(t, s, zipfJobs(t, 2000, 50, 10))
	if r.Admitted != 2000 {
		t.Fatalf("admitted %d of 2000", r.Admitted)
	}
	for _, x := range r.Delays {
		if x < 1 {
			t.Fatalf("delay %v s: a non-zero round trip here is >= 1 s", x)
		}
	}
}

// TestDelayColumnHeaderless: with COL a number, a first line that is a
// delay is data (a file of one measurement a line): "0.5, 0.1" gives both
// values, 500 and 100 ms; with a header line its name is not a value.
func TestDelayColumnHeaderless(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text, col string
		want      []engine.Time
	}{
		{"0.5\n0.1\n", "1", []engine.Time{500 * engine.Millisecond, 100 * engine.Millisecond}},
		{"0.5\n", "1", []engine.Time{500 * engine.Millisecond}},
		{"rtt\n0.5\n", "1", []engine.Time{500 * engine.Millisecond}},
		{"rtt\n0.5\n", "rtt", []engine.Time{500 * engine.Millisecond}},
		{"a,b\n1ms,2ms\n", "2", []engine.Time{2 * engine.Millisecond}},
	} {
		path := filepath.Join(dir, "d.csv")
		if err := os.WriteFile(path, []byte(c.text), 0o666); err != nil {
			t.Fatal(err)
		}
		d, err := ReadDelayColumn(path, c.col)
		if err != nil || !slices.Equal(d.Samples(), c.want) {
			t.Errorf("%q column %s: %v (%v), want %v", c.text, c.col, d.Samples(), err, c.want)
		}
	}
}
