package verify

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// Known is an instance of the library of known counterexamples that
// [Search] runs before its random instances, so that a claim once refuted
// stays refuted in the map whatever the seed and the number of instances.
type Known struct {
	Name     string // the file's name without its extension, e.g. "p99-fcfs"
	Instance systems.Instance
	// AllowUnequal is set when the replay command carries --allow-unequal:
	// the instance breaks Σ r_l = r or Σ b_l = b (a negative control).
	AllowUnequal bool
}

// KnownDir is where the built-in library lives in the repository, and the
// folder of the embedded copy [BuiltinKnown] reads.
const KnownDir = "experiments/verify/testdata/known"

//go:embed testdata/known
var knownFS embed.FS

// BuiltinKnown returns the built-in library of known counterexamples, the
// files of experiments/verify/testdata/known (embedded in the binary), in
// name order. Each is a pair NAME.csv (the trace [WriteReplay] writes) and
// NAME.cmd (the ratesim run command that replays it, as ratesim verify
// writes it to --out, optionally preceded by # comment lines saying where
// the instance comes from): a folder that ratesim verify wrote can be
// copied there as it is. It panics if a file does not parse (a test reads
// them all).
func BuiltinKnown() []Known {
	ks, err := LoadKnown(knownFS, "testdata/known")
	if err != nil {
		panic(err)
	}
	return ks
}

// LoadKnown reads every NAME.cmd of dir in fsys with the NAME.csv beside
// it, in name order. Errors name the file and line.
func LoadKnown(fsys fs.FS, dir string) ([]Known, error) {
	cmds, err := fs.Glob(fsys, path.Join(dir, "*.cmd"))
	if err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("verify: %s: no counterexample (NAME.cmd with NAME.csv) in the folder", dir)
	}
	slices.Sort(cmds)
	var out []Known
	for _, c := range cmds {
		k, err := readKnown(fsys, c)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// readKnown reads NAME.cmd and NAME.csv.
func readKnown(fsys fs.FS, cmdPath string) (Known, error) {
	b, err := fs.ReadFile(fsys, cmdPath)
	if err != nil {
		return Known{}, err
	}
	k := Known{Name: strings.TrimSuffix(path.Base(cmdPath), ".cmd")}
	in := &k.Instance
	line, lineNo, err := knownCommand(cmdPath, string(b))
	if err != nil {
		return Known{}, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("verify: %s:%d: %s", cmdPath, lineNo, fmt.Sprintf(format, a...))
	}
	rate, burst, sub, err := k.readFlags(line, bad)
	if err != nil {
		return Known{}, err
	}
	if in.One, err = buckets.ParseParams(rate, burst); err != nil {
		return Known{}, bad("%v", err)
	}
	for _, s := range strings.Split(sub, ",") {
		r, b, ok := strings.Cut(s, ":")
		p, err := buckets.ParseParams(r, b)
		if !ok || err != nil {
			return Known{}, bad("--sub %s: want rate:burst pairs separated by commas", sub)
		}
		in.Subs = append(in.Subs, p)
	}
	csvPath := strings.TrimSuffix(cmdPath, ".cmd") + ".csv"
	if in.Times, in.Sub, err = readReplay(fsys, csvPath, len(in.Subs)); err != nil {
		return Known{}, err
	}
	return k, nil
}

// knownCommand returns the one command line of a NAME.cmd file (the
// others blank or # comments) and its line number.
func knownCommand(cmdPath, text string) (line string, lineNo int, err error) {
	for i, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			if line != "" {
				return "", 0, fmt.Errorf("verify: %s:%d: a second command; want one ratesim run command (and # comment lines)", cmdPath, i+1)
			}
			line, lineNo = t, i+1
		}
	}
	return line, lineNo, nil
}

// readFlags reads the flags of a ratesim run command as ratesim verify
// writes it into k (order, seed, --allow-unequal) and returns the texts
// of --rate, --burst and --sub; bad words an error about the line.
func (k *Known) readFlags(line string, bad func(string, ...any) error) (rate, burst, sub string, err error) {
	in := &k.Instance
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "ratesim" || f[1] != "run" {
		return "", "", "", bad("want a command starting \"ratesim run\" as ratesim verify writes it, got %q", line)
	}
	haveOrder := false
	for i := 2; i < len(f); i++ {
		name := f[i]
		if name == "--allow-unequal" {
			k.AllowUnequal = true
			continue
		}
		if i+1 == len(f) {
			return "", "", "", bad("%s has no value", name)
		}
		v := f[i+1]
		i++
		switch name {
		case "--rate":
			rate = v
		case "--burst":
			burst = v
		case "--sub":
			sub = v
		case "--order":
			o, err := buckets.ParseOrder(v)
			if err != nil {
				return "", "", "", bad("--order %s: want fcfs, lifo or random", v)
			}
			in.Order, haveOrder = o, true
		case "--seed":
			s, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return "", "", "", bad("--seed %s: want an unsigned integer", v)
			}
			in.Seed = s
		case "--trace", "--time-col", "--sub-col", "--dispatch":
			// The trace is NAME.csv beside the command wherever it was
			// written; the columns and dispatch are those WriteReplay
			// writes.
			if name == "--dispatch" && v != "column" || name == "--time-col" && v != "arrival_s" || name == "--sub-col" && v != "sub_bucket" {
				return "", "", "", bad("%s %s: want the replay's --time-col arrival_s --sub-col sub_bucket --dispatch column", name, v)
			}
		default:
			return "", "", "", bad("flag %s is not one ratesim verify writes (--rate, --burst, --sub, --order, --seed, --allow-unequal, and the trace's)", name)
		}
	}
	if rate == "" || burst == "" || sub == "" || !haveOrder {
		return "", "", "", bad("want --rate, --burst, --sub and --order")
	}
	return rate, burst, sub, nil
}

// readReplay reads a trace [WriteReplay] wrote: a header
// "arrival_s,sub_bucket", then one job a line, instants exact decimal
// seconds (whole nanoseconds), non-decreasing, sub-buckets in [0, k).
func readReplay(fsys fs.FS, p string, k int) ([]engine.Time, []int, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var times []engine.Time
	var subs []int
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if n == 1 {
			if l != "arrival_s,sub_bucket" {
				return nil, nil, fmt.Errorf("verify: %s:1: header %q, want \"arrival_s,sub_bucket\"", p, l)
			}
			continue
		}
		if l == "" {
			continue
		}
		a, s, ok := strings.Cut(l, ",")
		sec, err1 := exact.ParseRat(a)
		ns, err2 := sec.Mul(exact.Int(1e9))
		sub, err3 := strconv.Atoi(s)
		if !ok || err1 != nil || err2 != nil || err3 != nil || !ns.IsInt() || !ns.Floor().IsInt64() || sub < 0 || sub >= k {
			return nil, nil, fmt.Errorf("verify: %s:%d: %q: want arrival_s (exact seconds, whole ns),sub_bucket (0 to %d)", p, n, l, k-1)
		}
		t := engine.Time(ns.Floor().Int64())
		if len(times) > 0 && t < times[len(times)-1] {
			return nil, nil, fmt.Errorf("verify: %s:%d: arrival %v s before the previous one, %v s: want non-decreasing instants", p, n, t, times[len(times)-1])
		}
		times, subs = append(times, t), append(subs, sub)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("verify: %s: %w", p, err)
	}
	if len(times) == 0 {
		return nil, nil, fmt.Errorf("verify: %s: no job", p)
	}
	return times, subs, nil
}
