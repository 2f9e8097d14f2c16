package splitstudy

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/specfile"
)

// sweepOf runs a one-point sweep of 2 replications of 2000 jobs with the
// given arrivals at load 0.5, r = 1, burst b, k sub-buckets, random
// dispatch.
func sweepOf(t *testing.T, arr string, k int, b float64) *Results {
	t.Helper()
	s := DefaultSpec()
	s.Arrivals, s.Load, s.K, s.Burst, s.Dispatch = arr, 0.5, k, b, "random"
	s.Jobs, s.Warmup, s.Replications = 2000, 100, 2
	res, err := RunSweep(context.Background(), &s, experiments.SweepOptions{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSweepArrivalSpecs: a sweep takes any arrival spec. "poisson" and
// "poisson:rate=0.5" at load 0.5, r = 1 are the same process drawn from
// the same stream, so their results agree to the byte; the
// Pollaczek–Khinchine columns follow the process's type: an exponential
// renewal process is Poisson, a gamma renewal process is not. With k = 1,
// b = 1 both systems are the M/D/1 queue with λ = 0.5, μ = 1:
// W = ρ/(2μ(1-ρ)) = 0.5 s. With k = 2, b = 2 the one bucket has no closed
// form (b > 1) and each sub-bucket (rate 0.5, burst 1) gets Poisson
// arrivals at 0.25 jobs/s: W = 0.5/(2·0.5·0.5) = 1 s each.
func TestSweepArrivalSpecs(t *testing.T) {
	a, b := sweepOf(t, "poisson", 2, 2), sweepOf(t, "poisson:rate=0.5", 2, 2)
	ca, _ := encode(t, a)
	cb, _ := encode(t, b)
	// The CSVs differ in the arrivals column only.
	if got := strings.ReplaceAll(string(cb), "poisson:rate=0.5", "poisson"); got != string(ca) {
		t.Errorf("poisson:rate=0.5 differs from poisson at load 0.5:\n%s\n%s", ca, cb)
	}
	nan := math.NaN()
	for _, c := range []struct {
		arr     string
		k       int
		b       float64
		one, pk float64 // NaN: no closed form
	}{
		{"poisson", 1, 1, 0.5, 0.5},
		{"renewal:dist=exp,scv=1", 1, 1, 0.5, 0.5},
		{"poisson", 2, 2, nan, 1},
		{"renewal:dist=exp", 2, 2, nan, 1},
		{"renewal:dist=gamma,scv=4", 1, 1, nan, nan},
		{"periodic", 2, 2, nan, nan},
	} {
		res := sweepOf(t, c.arr, c.k, c.b)
		pr := res.Points[0]
		if got := float64(pr.One.PK); !(got == c.one || math.IsNaN(got) && math.IsNaN(c.one)) {
			t.Errorf("%s k=%d: PK one = %v, want %v", c.arr, c.k, got, c.one)
		}
		if got := float64(pr.Split.PK); !(math.Abs(got-c.pk) < 1e-15 || math.IsNaN(got) && math.IsNaN(c.pk)) {
			t.Errorf("%s k=%d: PK split = %v, want %v", c.arr, c.k, got, c.pk)
		}
		if pr.Lambda() != 0.5 {
			t.Errorf("%s: λ = %v, want 0.5", c.arr, pr.Lambda())
		}
	}
}

// TestSweepArrivalSpecErrors: a bad arrival spec is a spec error naming
// the field and the component.
func TestSweepArrivalSpecErrors(t *testing.T) {
	s := DefaultSpec()
	s.Arrivals = "renewal:dist=gamma,scv=-1"
	_, err := s.Points()
	var se *specfile.Error
	if !errors.As(err, &se) || se.Field != "arrivals" || !strings.Contains(err.Error(), "scv") {
		t.Errorf("error %v, want a SpecError on arrivals naming scv", err)
	}
}

// TestSweepTrace: a sweep reads a trace instead of generated arrivals.
// Three arrivals at 0 s, r = 1 token/s, warm-up 0. With b = 2 the one
// bucket delays them 0, 0, 1 s (mean 1/3 s); split round-robin into two
// sub-buckets (0.5 tokens/s, 1 token), jobs 0 and 2 go to sub-bucket 0,
// whose second token comes at 2 s: delays 0, 0, 2 s (mean 2/3 s). With
// b = 4 (sub-buckets of 2 tokens) nobody waits.
func TestSweepTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "three.csv")
	if err := os.WriteFile(path, []byte("t\n0\n0\n0\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("rate: 1\nk: 2\ndispatch: rr\njobs: 10\nwarmup: 0\nreplications: 2\ntrace:\n  path: %s\nsweep:\n  burst: [2, 4]\n", path)
	s, err := ParseSpec(strings.NewReader(text), "trace.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{1.0 / 3, 2.0 / 3}, {0, 0}}
	for i, pr := range res.Points {
		one, split := float64(pr.One.MeanDelay), float64(pr.Split.MeanDelay)
		if math.Abs(one-want[i][0]) > 1e-12 || math.Abs(split-want[i][1]) > 1e-12 {
			t.Errorf("burst %v: mean delays %v and %v s, want %v and %v", pr.Burst, one, split, want[i][0], want[i][1])
		}
		if pr.Arrivals != "trace "+path || !math.IsNaN(pr.Lambda()) || !math.IsNaN(float64(pr.One.PK)) {
			t.Errorf("burst %v: arrivals %q, λ %v, PK %v; want the trace, NaN, NaN", pr.Burst, pr.Arrivals, pr.Lambda(), pr.One.PK)
		}
	}
	// The CSV leaves load and λ empty (they do not apply), and the
	// replications, identical under rr and fcfs, draw a warning.
	var csvOut bytes.Buffer
	if err := res.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		if rec[2] != "" || rec[3] != "" {
			t.Errorf("row %v: load %q, λ %q; want both empty", rec[:4], rec[2], rec[3])
		}
	}
	if ws := SpecWarnings(s); len(ws) == 0 || !strings.Contains(strings.Join(ws, "\n"), "the 2 replications of each point read the same trace, so with dispatch rr and order fcfs they are identical") {
		t.Errorf("warnings %q, want one on the identical replications of a trace", ws)
	}
	// Load does not apply to a trace.
	bad := strings.Replace(text, "burst: [2, 4]", "load: [0.5, 0.9]", 1)
	if _, err := ParseSpec(strings.NewReader(bad), "trace.yaml"); err == nil || !strings.Contains(err.Error(), "sweep.load") {
		t.Errorf("a load axis with a trace: error %v, want one naming sweep.load", err)
	}
	stdin := strings.Replace(text, "path: "+path, `path: "-"`, 1)
	if _, err := ParseSpec(strings.NewReader(stdin), "trace.yaml"); err == nil || !strings.Contains(err.Error(), "trace.path") {
		t.Errorf("standard input: error %v, want one naming trace.path", err)
	}
}
