package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/experiments/verify"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/systems"
)

type verifyFlags struct {
	cfg    verify.Config
	orders string
	claims string
	out    string
	known  string
}

func newVerifyCmd() *cobra.Command {
	f := &verifyFlags{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Search random instances for counterexamples to Theorem 2 and to stronger claims",
		Long: `Verify draws small random instances (arrivals on a 1 ms grid with ties,
bursts and idle gaps; k sub-buckets with rational rates and bursts, so b_l
may be fractional; any job sent to any sub-bucket; FCFS, LIFO or random
service) and runs the one bucket against its split on each, on the same
exact model as ratesim run, checking Theorem 2, S(t) <= S^(k)(t), and
Lemma 1, r·U(t) <= Σ r_l·U_l(t), at every instant, with no tolerance.

Before the random instances it runs the library of known counterexamples
(--known, by default the built-in one: every counterexample found so far,
in experiments/verify/testdata/known), so that a claim once refuted is
reported failing, "fails (known NAME)", whatever the seed; a folder that
verify wrote to --out is such a library too, so --known DIR replays it.
Every eighth random instance is drawn from a structured family, a burst
followed by a sparse tail, on which quantile claims can fail.

It also maps which stronger claims hold, each "the split system is never
better in ...": job (any single job's delay), max (maximum delay), p50,
p90, p99 (nearest-rank quantiles), delayed (number of delayed jobs),
squares (sum of squared delays), topm (the sum of the m largest delays,
for every m); under FCFS, and under any order. For each claim that fails
it keeps the smallest counterexample (shrunk by removing jobs) and writes
it to --out as a replayable trace with the ratesim run command that
replays it. Instances run on -j workers; the result is the same for any
number of them.

--inflate burst|rate breaks the theorem's hypotheses (Σ b_l > b or
Σ r_l > r) as a negative control: the search must then find a violation,
which it writes out the same way, and exit 1.

Exit codes: 0 Theorem 2 and Lemma 1 held on every instance, 1 a violation
was found, 2 bad usage, 3 internal error, 128 + the signal's number when
stopped (130 for SIGINT).`,
		Example: `  ratesim verify
  ratesim verify --instances 1000000 --seed 7 -j 1
  ratesim verify --inflate burst --out /tmp/nc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runVerify(cmd, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.cfg.Instances, "instances", 100_000, "random instances to run (>= 1)")
	fl.Uint64VarP(&f.cfg.Seed, "seed", "s", 1, "seed; instance i is drawn from PCG(seed, i)")
	fl.IntVar(&f.cfg.MaxK, "max-k", 8, "largest number of sub-buckets k (>= 2); k is drawn from [2, max-k]")
	fl.IntVar(&f.cfg.MaxJobs, "max-jobs", 40, "largest number of jobs per instance (>= 1)")
	fl.StringVar(&f.orders, "order", "all", "service orders to draw from: all, or a comma list of fcfs, lifo, random")
	fl.StringVar(&f.claims, "claims", "all", "stronger claims to map: all, none, or a comma list of "+strings.Join(verify.ClaimNames, ", "))
	fl.StringVar(&f.cfg.Inflate, "inflate", "", "negative control: burst (Σ b_l > b) or rate (Σ r_l > r)")
	fl.IntVarP(&f.cfg.Workers, "threads", "j", 0, "instances run in parallel; 0, the default, means all cores; the result does not depend on it")
	fl.StringVarP(&f.out, "out", "o", "ratesim-verify", "folder for counterexample traces (created when one is found)")
	fl.StringVar(&f.known, "known", "builtin", "known counterexamples run first: builtin (experiments/verify/testdata/known), none, or a folder of NAME.cmd + NAME.csv pairs as verify writes to --out")
	markOutput(cmd, "out", outputFolder)
	return cmd
}

// maxVerifyJobs bounds the jobs of one search: 10^10, issue 28's bound on
// the jobs a run states.
const maxVerifyJobs = 10_000_000_000

func (f *verifyFlags) parse() error {
	c := &f.cfg
	if c.Instances < 1 {
		return flagError("instances", c.Instances, "at least 1 instance")
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Workers < 1 || c.Workers > 4096 {
		return flagError("threads", c.Workers, "between 1 and 4096 workers, or 0 for all cores")
	}
	if c.MaxK < 2 {
		return flagError("max-k", c.MaxK, "at least 2 sub-buckets")
	}
	if c.MaxK > 64 {
		return flagError("max-k", c.MaxK, "at most 64 sub-buckets (their common exact unit must fit in 63 bits)")
	}
	if c.MaxJobs < 1 || c.MaxJobs > 10000 {
		return flagError("max-jobs", c.MaxJobs, "between 1 and 10000 jobs per instance")
	}
	// The work a search states is bounded before it starts (issue 28): an
	// instance has at most 4·MaxJobs + 100 jobs (verify.Config's default
	// LargeJobs, above MaxJobs), so N instances run at most N·(4·MaxJobs +
	// 100) jobs, which must not exceed maxVerifyJobs.
	if per := int64(4*c.MaxJobs + 100); int64(c.Instances) > maxVerifyJobs/per {
		return flagError("instances", c.Instances, fmt.Sprintf("at most %d instances: each has up to %d jobs (4·--max-jobs + 100) and a search runs at most 10^10 jobs; search longer with more seeds (--seed)", maxVerifyJobs/per, per))
	}
	if f.orders != "all" {
		for _, name := range strings.Split(f.orders, ",") {
			o, err := buckets.ParseOrder(strings.TrimSpace(name))
			if err != nil {
				return flagError("order", f.orders, "all, or a comma list of fcfs, lifo, random")
			}
			c.Orders = append(c.Orders, o)
		}
	}
	switch f.claims {
	case "all":
		c.Claims = verify.ClaimNames
	case "none", "":
	default:
		for _, name := range strings.Split(f.claims, ",") {
			c.Claims = append(c.Claims, strings.TrimSpace(name))
		}
	}
	switch f.known {
	case "builtin":
		c.Known = verify.BuiltinKnown()
	case "none":
	default:
		ks, err := verify.LoadKnown(os.DirFS(f.known), ".")
		if err != nil {
			return flagError("known", f.known, fmt.Sprintf("builtin, none, or a folder of NAME.cmd + NAME.csv pairs as verify writes them (%v)", err))
		}
		c.Known = ks
	}
	if err := c.Validate(); err != nil {
		if c.Inflate != "" && c.Inflate != "burst" && c.Inflate != "rate" {
			return flagError("inflate", c.Inflate, "burst or rate")
		}
		return flagError("claims", f.claims, "all, none, or a comma list of "+strings.Join(verify.ClaimNames, ", "))
	}
	return nil
}

func runVerify(cmd *cobra.Command, f *verifyFlags) error {
	if err := f.parse(); err != nil {
		return err
	}
	if err := checkOutputDir("out", f.out); err != nil {
		return err
	}
	start := time.Now()
	res, err := verify.Search(cmd.Context(), f.cfg)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	w := cmd.OutOrStdout()
	var orders []string
	for _, o := range f.cfg.Orders {
		orders = append(orders, o.String())
	}
	fmt.Fprintf(w, "instances          %d (seed %d, k 2..%d, 1..%d jobs, every eighth 1..%d, every eighth a burst and a sparse tail, orders %s; exact)\n",
		res.Instances, f.cfg.Seed, f.cfg.MaxK, f.cfg.MaxJobs, f.cfg.LargeJobs, strings.Join(orders, ","))
	if res.Known > 0 {
		fmt.Fprintf(w, "known              %d instances (%s), run before the random ones\n", res.Known, knownSource(f.known))
	}
	if f.cfg.Inflate != "" {
		fmt.Fprintf(w, "negative control   sub-bucket %s sums inflated: the theorem's hypotheses do not hold\n", f.cfg.Inflate)
	}
	fmt.Fprintf(w, "events             %d (%d instants evaluated exactly, the other intervals certified)\n", res.Events, res.Evaluated)
	fmt.Fprintf(w, "Theorem 2          %s (S(t) > S^(k)(t))\n", count(res.Violations, "violation"))
	fmt.Fprintf(w, "Lemma 1            %s (r·U(t) > Σ r_l·U_l(t))\n", count(res.LemmaViolations, "violation"))
	fmt.Fprintf(w, "smallest slack     min S^(k)(∞) - S(∞) = %.6g s over the %d instances where the one bucket delays a job\n", res.MinSlack, res.SlackInstances)
	if res.Violation != nil {
		cmdLine, err := writeCounterexample(f.out, "violation", *res.Violation, f.cfg.Inflate != "")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "first violation    %v\n", res.ViolationEvent)
		fmt.Fprintf(w, "                   smallest instance: %d jobs, k = %d; replay: %s\n", res.Violation.Jobs(), len(res.Violation.Subs), cmdLine)
	}
	if len(res.Claims) > 0 {
		if err := writeClaims(w, f, res.Claims); err != nil {
			return err
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: verify took %.2f s on %d workers\n", elapsed.Seconds(), f.cfg.Workers)
	if !res.Held() {
		return fmt.Errorf("%w: %d Theorem 2 and %d Lemma 1 violations (%v)", errCheckFailed, res.Violations, res.LemmaViolations, res.ViolationEvent)
	}
	return nil
}

func writeClaims(w io.Writer, f *verifyFlags, claims []verify.ClaimResult) error {
	fmt.Fprintf(w, "\nstronger claims: is the split system never better than the one bucket?\n")
	fmt.Fprintf(w, "%-10s %-6s %9s %9s  %s\n", "claim", "orders", "instances", "with delay", "result")
	var replays []string
	for _, c := range claims {
		if c.Counterexample == nil {
			fmt.Fprintf(w, "%-10s %-6s %9d %9d  holds (no counterexample)\n", c.Claim, c.Orders, c.Tested, c.Discriminating)
			continue
		}
		ce := *c.Counterexample
		name := "claim-" + c.Claim + "-" + c.Orders
		cmdLine, err := writeCounterexample(f.out, name, ce, f.cfg.Inflate != "")
		if err != nil {
			return err
		}
		how := "fails (found)"
		if c.Known != "" {
			how = "fails (known " + c.Known + ")"
		}
		fmt.Fprintf(w, "%-10s %-6s %9d %9d  %s: %d jobs, k = %d, %s order: %s\n",
			c.Claim, c.Orders, c.Tested, c.Discriminating, how, ce.Jobs(), len(ce.Subs), ce.Order, c.Detail)
		replays = append(replays, fmt.Sprintf("  %-24s %s", name+":", cmdLine))
	}
	if len(replays) > 0 {
		fmt.Fprintf(w, "\ncounterexamples written to %s/; replay each with ratesim run (--jobs-out shows the per-job delays):\n%s\n", f.out, strings.Join(replays, "\n"))
	}
	return nil
}

// knownSource says where the known instances come from.
func knownSource(flag string) string {
	if flag == "builtin" {
		return "the built-in library, " + verify.KnownDir
	}
	return flag
}

// writeCounterexample writes DIR/name.csv and DIR/name.cmd (the replay
// command) and returns the command line.
func writeCounterexample(dir, name string, in systems.Instance, allowUnequal bool) (string, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", fmt.Errorf("--out %s: %w", dir, err)
	}
	trace := filepath.Join(dir, name+".csv")
	if err := verify.WriteReplay(trace, in); err != nil {
		return "", fmt.Errorf("--out %s: %w", dir, err)
	}
	args := replayCommand(trace, in, allowUnequal)
	quoted := []string{"ratesim"}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	line := strings.Join(quoted, " ")
	return line, atomicfile.Write(context.Background(), filepath.Join(dir, name+".cmd"), func(w io.Writer) error {
		_, err := fmt.Fprintln(w, line)
		return err
	})
}

// shellQuote quotes s for a POSIX shell when it has characters other than
// letters, digits and ./_-:,+=
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("./_-:,+=", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// replayCommand returns the ratesim run arguments that replay in from the
// trace at path (written by verify.WriteReplay), exactly: rates and
// bursts are written as exact decimals or fractions.
func replayCommand(path string, in systems.Instance, allowUnequal bool) []string {
	var sub []string
	for _, s := range in.Subs {
		sub = append(sub, s.Rate.String()+":"+s.Burst.String())
	}
	args := []string{"run", "--trace", path, "--time-col", "arrival_s", "--sub-col", "sub_bucket", "--dispatch", "column",
		"--rate", in.One.Rate.String(), "--burst", in.One.Burst.String(), "--sub", strings.Join(sub, ","), "--order", in.Order.String(),
		"--seed", strconv.FormatUint(in.Seed, 10)}
	if allowUnequal {
		args = append(args, "--allow-unequal")
	}
	return args
}
