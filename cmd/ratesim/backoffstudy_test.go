package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSweepBackoff runs Brooker's study with 2 runs per point: results.csv
// has the columns and one row per strategy (none, exponential,
// full, equal, decorrelated) and number of clients (10 to 190 by 10), the
// same bytes for -j 1 and -j 3, and the two figures.
func TestSweepBackoff(t *testing.T) {
	var csvs []string
	for _, j := range []string{"1", "3"} {
		dir := t.TempDir()
		out, errOut, code := ratesim(t, "sweep", "--builtin", "backoff", "--replications", "2", "-j", j, "-o", dir, "-q")
		if code != 0 {
			t.Fatalf("-j %s: exit %d: %s", j, code, errOut)
		}
		if !strings.Contains(out, "Brooker's backoff study: 2 runs per point") {
			t.Errorf("summary:\n%s", out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "results.csv"))
		if err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, string(b))
		for _, fig := range []string{"backoff-calls.png", "backoff-time.png"} {
			if _, err := os.Stat(filepath.Join(dir, "figures", fig)); err != nil {
				t.Errorf("figure: %v", err)
			}
		}
	}
	if csvs[0] != csvs[1] {
		t.Errorf("results.csv differs between -j 1 and -j 3")
	}
	rows, err := csv.NewReader(strings.NewReader(csvs[0])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"strategy", "clients", "calls_mean", "time_ms_mean"} {
		if !slices.Contains(rows[0], col) {
			t.Errorf("header %v lacks %s", rows[0], col)
		}
	}
	if len(rows) != 1+5*19 {
		t.Fatalf("%d rows, want 95 and a header", len(rows)-1)
	}
	if rows[1][0] != "none" || rows[1][1] != "10" || rows[95][0] != "decorrelated" || rows[95][1] != "190" {
		t.Errorf("first row %v, last %v: want none 10 ... decorrelated 190", rows[1], rows[95])
	}
}

func TestSweepBackoffErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "2"}, "--rate: not for --builtin backoff"},
		{[]string{"--replications", "1"}, "--replications 1: want at least 2 runs"},
		{[]string{"spec.yaml"}, "give a SPEC file or --builtin, not both"},
		{[]string{"--plot-format", "gif"}, "--plot-format gif"},
	} {
		out, errOut, code := ratesim(t, append([]string{"sweep", "--builtin", "backoff", "-o", t.TempDir()}, c.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}
