package verify

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/internal/crash"
	"github.com/ratesim/ratesim/systems"
)

// Search searches random instances for violations of Theorem 2 and Lemma 1
// and for counterexamples to the stronger claims, exactly. It runs the
// instances on cfg.Workers goroutines and takes their outcomes in instance
// order, so the result is the same on every machine and for any number of
// workers. It stops early, returning ctx's error, when ctx is done.
func Search(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	s := newSearch(cfg)
	// The library first, in its order.
	for _, k := range cfg.Known {
		if k.AllowUnequal && !s.allow {
			return s.res, fmt.Errorf("verify: known instance %s breaks the hypotheses (its replay has --allow-unequal): it belongs to a negative control (--inflate)", k.Name)
		}
		o, err := runOutcome(k.Instance, s.allow)
		if err != nil {
			return s.res, fmt.Errorf("verify: known instance %s: %w", k.Name, err)
		}
		s.take(k.Instance, o, s.claimFails(o), k.Name)
	}
	if err := s.rounds(ctx); err != nil {
		return s.res, err
	}
	for _, cr := range s.claims {
		s.res.Claims = append(s.res.Claims, *cr)
	}
	if s.minSlack != nil {
		s.res.MinSlack, _ = new(big.Rat).Quo(s.minSlack, big.NewRat(1e9, 1)).Float64()
	}
	return s.res, nil
}

// claimKey names a claim under an order ("fcfs" or "any").
type claimKey struct{ claim, orders string }

// search is a Search under way: the result so far, taken in instance
// order.
type search struct {
	cfg      Config
	allow    bool // cfg.Inflate: the hypotheses are broken on purpose
	res      Result
	minSlack *big.Rat
	found    map[claimKey]*ClaimResult
	claims   []*ClaimResult // in the order of the result
}

func newSearch(cfg Config) *search {
	s := &search{cfg: cfg, allow: cfg.Inflate != "", res: Result{Instances: cfg.Instances, Known: len(cfg.Known)}, found: map[claimKey]*ClaimResult{}}
	for _, c := range cfg.Claims {
		for _, ord := range []string{"fcfs", "any"} {
			cr := &ClaimResult{Claim: c, Orders: ord}
			s.found[claimKey{c, ord}] = cr
			s.claims = append(s.claims, cr)
		}
	}
	return s
}

// gen draws random instance i (its own stream of the seed).
func (s *search) gen(i int) systems.Instance {
	cfg := s.cfg
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	draw := func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }
	g := systems.GenConfig{MaxK: cfg.MaxK, MaxJobs: cfg.MaxJobs, Orders: cfg.Orders,
		InflateBurst: cfg.Inflate == "burst", InflateRate: cfg.Inflate == "rate"}
	switch {
	case i%8 == 7 && cfg.LargeJobs > cfg.MaxJobs:
		return burstTail(draw, g, cfg.LargeJobs, s.allow)
	case i%4 == 3 && cfg.LargeJobs > cfg.MaxJobs:
		g.MaxJobs = cfg.LargeJobs
	}
	return systems.GenInstance(draw, g)
}

// claimFails returns, per cfg.Claims, whether o refutes the claim.
func (s *search) claimFails(o *outcome) []bool {
	fails := make([]bool, len(s.cfg.Claims))
	for c, name := range s.cfg.Claims {
		fails[c], _ = o.claimFails(name)
	}
	return fails
}

// take records the outcome of instance in (named known when it comes from
// the library, which is not shrunk), in instance order.
func (s *search) take(in systems.Instance, o *outcome, fails []bool, known string) {
	res := &s.res
	res.Events += o.events
	res.Evaluated += o.check.Evaluated
	res.Violations += o.check.Violations
	res.LemmaViolations += o.check.LemmaViolations
	if !o.check.Held() && (res.Violation == nil || in.Jobs() < res.Violation.Jobs()) {
		small := in
		if known == "" {
			small = shrink(in, func(x systems.Instance) bool {
				ox, err := runOutcome(x, s.allow)
				return err == nil && !ox.check.Held()
			})
		}
		os, _ := runOutcome(small, s.allow)
		res.Violation, res.ViolationEvent = &small, os.check.First
	}
	discriminating := countPositive(o.one) > 0
	if discriminating {
		res.SlackInstances++
		d := new(big.Rat).Sub(o.check.SSplit.Big(), o.check.S.Big())
		if s.minSlack == nil || d.Cmp(s.minSlack) < 0 {
			s.minSlack = d
		}
	}
	for c, name := range s.cfg.Claims {
		for _, ord := range []string{"fcfs", "any"} {
			if ord == "fcfs" && in.Order != buckets.FCFS {
				continue
			}
			cr := s.found[claimKey{name, ord}]
			cr.Tested++
			if discriminating {
				cr.Discriminating++
			}
			if fails[c] && (cr.Counterexample == nil || in.Jobs() < cr.Counterexample.Jobs()) {
				s.counterexample(cr, in, name, known)
			}
		}
	}
}

// counterexample records in, shrunk unless it is the library's instance
// known, as the smallest counterexample so far to the claim of cr.
func (s *search) counterexample(cr *ClaimResult, in systems.Instance, name, known string) {
	small := in
	if known == "" {
		small = shrink(in, func(x systems.Instance) bool {
			ox, err := runOutcome(x, s.allow)
			if err != nil {
				return false
			}
			f, _ := ox.claimFails(name)
			return f
		})
	}
	os, _ := runOutcome(small, s.allow)
	_, cr.Detail = os.claimFails(name)
	cr.Counterexample, cr.Known = &small, known
}

// searched is a random instance run by a worker.
type searched struct {
	in    systems.Instance
	o     *outcome
	fails []bool // per cfg.Claims
	err   error
}

// rounds runs the random instances: a round runs in parallel on the
// workers; its outcomes are then taken in instance order, here, where the
// shrinking happens (rarely).
func (s *search) rounds(ctx context.Context) error {
	workers := s.cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	round := make([]searched, 256*workers)
	for first := 0; first < s.cfg.Instances; first += len(round) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(round), s.cfg.Instances-first)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for j := w; j < n; j += workers {
					s.run(&round[j], first+j)
				}
			})
		}
		wg.Wait()
		for j := range n {
			if err := round[j].err; err != nil {
				return fmt.Errorf("experiments: instance %d: %w", first+j, err)
			}
			s.take(round[j].in, round[j].o, round[j].fails, "")
			round[j] = searched{}
		}
	}
	return nil
}

// run draws and runs random instance i into d, a panic returned as an
// error.
func (s *search) run(d *searched, i int) {
	defer crash.Recover(&d.err)
	d.in = s.gen(i)
	d.o, d.err = runOutcome(d.in, s.allow)
	if d.err != nil {
		return
	}
	d.fails = s.claimFails(d.o)
}
