package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// everyCommand calls f for ratesim and each of its subcommands.
func everyCommand(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		everyCommand(sub, f)
	}
}

// TestOutputFlagsRefuseStdout: every flag that names an output (--out,
// --plot, --*-out and their old spellings) is marked as one, and "-" is
// refused by each that cannot write to standard output, with the flag,
// what it wants and an example.
func TestOutputFlagsRefuseStdout(t *testing.T) {
	marked := 0
	everyCommand(newRootCmd(), func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			kind := fl.Annotations[outputAnnotation]
			isOutput := fl.Name == "out" || fl.Name == "plot" || strings.HasSuffix(fl.Name, "-out") || strings.HasPrefix(fl.Name, "plot-o")
			if isOutput != (len(kind) == 1) {
				t.Errorf("%s --%s: output annotation %v", c.CommandPath(), fl.Name, kind)
				return
			}
			if !isOutput {
				return
			}
			marked++
			if err := c.Flags().Set(fl.Name, "-"); err != nil {
				t.Fatal(err)
			}
			err := checkOutputFlags(c, nil)
			if kind[0] == outputStdout {
				if err != nil {
					t.Errorf("%s --%s -: %v, want standard output", c.CommandPath(), fl.Name, err)
				}
			} else if err == nil || !strings.HasPrefix(err.Error(), "--"+fl.Name+" -: want the name of a "+kind[0]+", e.g. --"+fl.Name+" ") {
				t.Errorf("%s --%s -: error %v", c.CommandPath(), fl.Name, err)
			}
			fl.Value.Set(fl.DefValue)
		})
	})
	if marked < 7 { // sweep, merge, plot, verify --out; run, limiters, trace stats --plot
		t.Errorf("%d output flags found, want at least 7", marked)
	}
	// End to end: exit 2, and no file or folder named "-".
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"run", "--jobs", "10", "--plot", "-"},
		{"sweep", "-o", "-", "--jobs-per-replication", "10", "--warmup", "0", "--replications", "2"},
		{"limiters", "--plot", "-"},
		{"trace", "stats", "x.csv", "-o", "-"},
	} {
		_, stderr, code := ratesim(t, args...)
		if code != 2 || !strings.Contains(stderr, " -: want the name of a ") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		if _, err := os.Stat("-"); err == nil {
			t.Fatalf("%v created -", args)
		}
	}
}

// TestFiguresListed: run --plot and trace stats --plot say on standard
// error which files they wrote, each by its path, as limiters and sweep
// do in their reports; trace stats' old -o still works, with a warning
// on standard error only.
func TestFiguresListed(t *testing.T) {
	dir := t.TempDir()
	figs := filepath.Join(dir, "figs")
	_, stderr, code := ratesim(t, "run", "--jobs", "2000", "--plot", figs)
	if code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	want := "ratesim: wrote 4 figures:\n"
	for _, n := range []string{"latency-cdf", "latency-ccdf", "accrued-delay", "queue"} {
		want += "  " + filepath.Join(figs, n+".png") + "\n"
	}
	if stderr != want {
		t.Errorf("run --plot: stderr\n%s\nwant\n%s", stderr, want)
	}
	trace := filepath.Join("testdata", "four_at_zero.csv")
	png := filepath.Join(dir, "t.png")
	stdout, stderr, code := ratesim(t, "trace", "stats", trace, "--plot", png)
	if code != 0 || stderr != "ratesim: wrote "+png+"\n" {
		t.Errorf("trace stats --plot: exit %d, stderr %q", code, stderr)
	}
	old, oldErr, code := ratesim(t, "trace", "stats", trace, "-o", png)
	if code != 0 || old != stdout || !strings.HasPrefix(oldErr, "ratesim: warning: -o FILE is deprecated: use --plot FILE") {
		t.Errorf("trace stats -o: exit %d, stderr %q, stdout the same: %v", code, oldErr, old == stdout)
	}
	if _, _, code := ratesim(t, "trace", "stats", trace, "-o", png, "--plot", png); code != 2 {
		t.Errorf("-o with --plot: exit %d, want 2", code)
	}
}

// TestSweepJobsPerReplication: sweep counts its jobs per replication
// under a name of its own; the old --jobs still works, with a warning on
// standard error only.
func TestSweepJobsPerReplication(t *testing.T) {
	want, _, code := ratesim(t, "sweep", "--jobs-per-replication", "1234", "--print-spec")
	if code != 0 || !strings.Contains(want, "jobs: 1234\n") {
		t.Fatalf("exit %d, spec\n%s", code, want)
	}
	got, stderr, code := ratesim(t, "sweep", "--jobs", "1234", "--print-spec")
	if code != 0 || got != want || !strings.Contains(stderr, "sweep --jobs is deprecated: use --jobs-per-replication") {
		t.Errorf("--jobs: exit %d, stderr %q, same spec %v", code, stderr, got == want)
	}
	help, _, _ := ratesim(t, "sweep", "--help")
	if strings.Contains(help, "--jobs int") || !strings.Contains(help, "--jobs-per-replication int") {
		t.Errorf("sweep --help lists --jobs, or not --jobs-per-replication")
	}
}
