package report

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/oracle"
	"github.com/ratesim/ratesim/systems"
)

func sectionIntro(_ context.Context, d *doc) error {
	d.h(1, "When Two is Worse Than One, reproduced")
	d.p("This is a reproduction of R. Guérin, *When Two is Worse Than One* (2019; the note), by `ratesim`, a discrete-event simulator of token buckets with exact time (integer nanoseconds) and exact decisions. The note shows that splitting a token bucket (r, b) into k sub-buckets (r_l, b_l) with Σ r_l = r and Σ b_l = b, fed the same jobs dispatched in any way, never lowers the sum of the job delays: S(t) ≤ S^(k)(t) at every instant t (Theorem 2), because the unfinished work of the equivalent G/D/1 queue never exceeds the sum of the sub-queues' (Lemma 1).")
	d.p("Every table and figure below names the `ratesim` command that regenerates it (run from the repository root; `go run ./cmd/ratesim` works in place of `ratesim`), and so does the whole document:")
	mode := ""
	if d.cfg.Quick {
		mode = " --quick"
	}
	d.cmd(fmt.Sprintf("ratesim paper --out %s --seed %d%s", d.out, d.cfg.Seed, mode))
	if d.cfg.Quick {
		d.p("**This is the quick version** (fewer jobs, replications and instances, for CI): its numbers are noisier than the full version's; the last section lists its conclusions and says which differ from the full version's.")
	}
	if p := provenance(); p != "" {
		d.p("Built by %s.", p)
	}
	return nil
}

// handCase is the note's setting worked by hand: r = 1, b = 2, four jobs at
// t = 0. The bucket starts full: jobs 1 and 2 take its two tokens, job 3
// waits for the token due at 1 s and job 4 for the one due at 2 s.
var handCase = struct {
	One, Sub   buckets.Params
	Want       []float64 // one-bucket delays by hand, seconds
	WantSplit  []float64 // 2 × (1/2, 1), round-robin: sub-bucket 0 gets jobs 1, 3; 1 gets 2, 4
	WantTotals [2]float64
}{
	One:        buckets.Params{Rate: exact.Int(1), Burst: exact.Int(2)},
	Sub:        buckets.Params{Rate: exact.NewRat(1, 2), Burst: exact.Int(1)},
	Want:       []float64{0, 0, 1, 2},
	WantSplit:  []float64{0, 0, 2, 2}, // each sub-bucket: one token at 0, the next after 1/(1/2) = 2 s
	WantTotals: [2]float64{3, 4},
}

func sectionModel(ctx context.Context, d *doc) error {
	d.h(2, "1. The model")
	d.p("A token bucket (r, b) in shaping mode starts full; a job takes one token and waits, in a queue of unbounded length, until a whole token is there. With unit service time 1/r it is a G/D/1 queue in which a job waits only when the unfinished work it finds exceeds (b − 1)/r: the note's eq. (1), d_i = max(0, U(a_i−) + (1 − b)/r). ratesim keeps exactly this unfinished work, in integer units; the check below compares it with a model written the other way, an explicit token count and queue in rational arithmetic (internal/oracle).")

	// Hand case.
	in := systems.Instance{
		One:   handCase.One,
		Subs:  []buckets.Params{handCase.Sub, handCase.Sub},
		Times: []engine.Time{0, 0, 0, 0},
		Sub:   []int{0, 1, 0, 1},
		Order: buckets.FCFS,
	}
	dl, _, err := systems.RunInstance(in, false)
	if err != nil {
		return err
	}
	tok := oracleWaits(in.One, in.Times, nil, in.Order)
	var rows [][]string
	for i := range in.Times {
		rows = append(rows, []string{
			fmt.Sprint(i + 1), "0",
			fmtS(handCase.Want[i]), fmtS(dl.One[i].QuoFloat64(1e9)), fmtS(tok[i]),
			fmt.Sprint(in.Sub[i]), fmtS(handCase.WantSplit[i]), fmtS(dl.Split[i].QuoFloat64(1e9)),
		})
		if dl.One[i].QuoFloat64(1e9) != handCase.Want[i] || tok[i] != handCase.Want[i] || dl.Split[i].QuoFloat64(1e9) != handCase.WantSplit[i] {
			return fmt.Errorf("report: the hand case disagrees at job %d: eq. (1) %v, token count %v, by hand %v", i+1, dl.One[i], tok[i], handCase.Want[i])
		}
	}
	trace, err := d.file("data/four-jobs.csv", []byte("t\n0\n0\n0\n0\n"))
	if err != nil {
		return err
	}
	d.table("Four jobs at t = 0 into (r, b) = (1 token/s, 2 tokens), and into its split 2 × (0.5 token/s, 1 token) with round-robin dispatch: delays in seconds by hand, by eq. (1) (ratesim) and by the explicit token count.",
		[]string{"job", "arrival (s)", "one bucket, by hand", "one bucket, eq. (1)", "one bucket, token count", "sub-bucket", "split, by hand", "split, eq. (1)"}, rows)
	d.p("By hand: the full bucket's two tokens go to jobs 1 and 2; job 3 waits for the token due at 1 s and job 4 for the one due at 2 s (delays 0, 0, 1, 2; S(∞) = 3 s). Split, each sub-bucket has one token and refills one every 2 s: jobs 3 and 4 each wait 2 s (S^(2)(∞) = 4 s ≥ 3 s).")
	d.cmd(fmt.Sprintf("ratesim run --trace %s --rate 1 --burst 2 --k 2 --jobs-out -", trace))

	// Random instances against the token count.
	n := pick(d, 300, 3000)
	jobs, diffs, err := crossCheck(d.cfg.Seed, n)
	if err != nil {
		return err
	}
	d.p("The same comparison on %d random instances of `ratesim verify` (seed %d; 1 to 40 jobs on a 1 ms grid with ties, k = 2 to 8 sub-buckets with rational rates, FCFS and LIFO order; %d jobs in all, in the one bucket and in every sub-bucket): **%d** jobs whose eq. (1) delay differs from the token count's, compared exactly.", n, d.cfg.Seed, jobs, diffs)
	if diffs != 0 {
		return fmt.Errorf("report: eq. (1) and the token count differ on %d jobs", diffs)
	}

	return md1Table(ctx, d)
}

// oracleWaits runs the arrivals (ns) through the explicit token-count
// model of bucket p (the jobs with keep[i], all when keep is nil) and
// returns the waits in seconds.
func oracleWaits(p buckets.Params, times []engine.Time, keep []bool, order buckets.Order) []float64 {
	o := oracle.NewBucket(p.Rate.Big(), p.Burst.Big(), -1, order == buckets.LIFO)
	for i, t := range times {
		if keep == nil || keep[i] {
			o.Offer(big.NewRat(int64(t), 1e9), int64(i))
		}
	}
	o.Drain()
	out := make([]float64, len(times))
	for i := range times {
		if w, ok := o.Waits[int64(i)]; ok {
			out[i], _ = w.Float64()
		}
	}
	return out
}

// crossCheck draws n instances as ratesim verify does and compares every
// job's delay, in the one bucket and in its sub-bucket, with the token
// count's, exactly. It returns the jobs compared and the differences.
func crossCheck(seed uint64, n int) (jobs, diffs int, err error) {
	for i := range n {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		draw := func(lo, hi int) int { return lo + r.IntN(hi-lo+1) }
		order := []buckets.Order{buckets.FCFS, buckets.LIFO}[i%2]
		in := systems.GenInstance(draw, systems.GenConfig{MaxK: 8, MaxJobs: 40, Orders: []buckets.Order{order}})
		dl, _, err := systems.RunInstance(in, false)
		if err != nil {
			return jobs, diffs, err
		}
		diffs += compareExact(in.One, in.Times, nil, in.Order, dl.One)
		for l, p := range in.Subs {
			keep := make([]bool, len(in.Times))
			var mine []exact.Rat
			for j := range keep {
				keep[j] = in.Sub[j] == l
			}
			for j := range keep {
				if keep[j] {
					mine = append(mine, dl.Split[j])
				} else {
					mine = append(mine, exact.Rat{})
				}
			}
			diffs += compareExact(p, in.Times, keep, in.Order, mine)
		}
		jobs += 2 * len(in.Times)
	}
	return jobs, diffs, nil
}

// compareExact counts the jobs whose wait (ns, exact) differs from the
// token count's (seconds, big.Rat).
func compareExact(p buckets.Params, times []engine.Time, keep []bool, order buckets.Order, got []exact.Rat) int {
	o := oracle.NewBucket(p.Rate.Big(), p.Burst.Big(), -1, order == buckets.LIFO)
	for i, t := range times {
		if keep == nil || keep[i] {
			o.Offer(big.NewRat(int64(t), 1e9), int64(i))
		}
	}
	o.Drain()
	n := 0
	for i := range times {
		if keep != nil && !keep[i] {
			continue
		}
		w := new(big.Rat).Mul(o.Waits[int64(i)], big.NewRat(1e9, 1))
		if w.Cmp(got[i].Big()) != 0 {
			n++
		}
	}
	return n
}

// md1Table compares the one bucket's simulated mean delay under Poisson
// arrivals with Pollaczek–Khinchine (b = 1) and Crommelin (b > 1).
func md1Table(ctx context.Context, d *doc) error {
	s := splitstudy.DefaultSpec()
	s.Name = "md1"
	s.Rate, s.K, s.Dispatch = 1, 1, "rr"
	s.Jobs = pick[int64](d, 40000, 200000)
	s.Warmup = pick[int64](d, 4000, 10000)
	s.Replications = pick(d, 8, 20)
	s.Seed = d.cfg.Seed
	grid, err := axes("load=0.5,0.8,0.9", "burst=1,2,5,10")
	if err != nil {
		return err
	}
	s.Sweep = splitstudy.Sweep{grid}
	path, err := d.spec("md1", &s)
	if err != nil {
		return err
	}
	res, err := d.sweep(ctx, &s)
	if err != nil {
		return err
	}
	var rows [][]string
	inside := 0
	for _, pr := range res.Points {
		sim, ci := float64(pr.One.MeanDelay), float64(pr.One.MeanDelayCI)
		ex, err := whileRunning(ctx, func() float64 { return MD1Delay(pr.Lambda(), pr.Rate, pr.Burst) })
		if err != nil {
			return err
		}
		ref := "Crommelin"
		if pr.Burst == 1 {
			ref = fmt.Sprintf("Crommelin; PK %s", fmtF(splitstudy.MD1Wait(pr.Lambda(), pr.Rate)))
		}
		ok := math.Abs(sim-ex) <= ci
		if ok {
			inside++
		}
		rows = append(rows, []string{fmtF(pr.Load), fmtF(pr.Burst), fmt.Sprintf("%.6f ± %.6f", sim, ci), fmt.Sprintf("%.7f", ex), ref, fmt.Sprintf("%+.2f", (sim-ex)/ci), yes(ok)})
	}
	d.table(fmt.Sprintf("One bucket (r = 1 token/s, b) under Poisson arrivals at λ = ρ·r: mean delay in seconds, simulated (mean of %d replications of %d jobs after %d warm-up, ± the half-width of the 95%% Student t interval) against the exact value, E[max(0, W − (b − 1)/r)] from the M/D/1 waiting-time distribution W (Crommelin's series, summed in 640-bit arithmetic), which for b = 1 is the Pollaczek–Khinchine mean ρ/(2r(1 − ρ)). The column z is (simulated − exact)/half-width.",
		s.Replications, s.Jobs, s.Warmup),
		[]string{"load ρ", "burst b (tokens)", "simulated mean delay (s)", "exact mean delay (s)", "exact by", "z", "exact inside the 95% CI"}, rows)
	ex, err := whileRunning(ctx, func() float64 { return MD1Delay(0.8, 1, 5) })
	if err != nil {
		return err
	}
	d.p("%d of %d exact values fall inside the simulated 95%% intervals (about 95%% are expected to). For λ = 0.8, r = 1, b = 5 the exact mean delay is %.7f s (0.358879 s to six decimals; the series gives the same digits with 1280 bits and a 32-point rule).", inside, len(rows), ex)
	d.cmd(fmt.Sprintf("ratesim sweep %s -o ratesim-md1", path))
	return nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// fmtS writes seconds compactly.
func fmtS(x float64) string { return fmt.Sprintf("%g", x) }

// fmtF writes a parameter compactly.
func fmtF(x float64) string { return fmt.Sprintf("%.6g", x) }

// axes parses sweep axes written as on the command line (load=0.5,0.9).
func axes(specs ...string) (splitstudy.Grid, error) {
	var g splitstudy.Grid
	for _, s := range specs {
		a, err := splitstudy.ParseAxis(s)
		if err != nil {
			return nil, err
		}
		g = append(g, a)
	}
	return g, nil
}
