package systems

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// logObserver records every decision and release as text, in order.
type logObserver struct{ lines []string }

func (o *logObserver) Decided(j Job, side, node int, d buckets.Decision) error {
	o.lines = append(o.lines, fmt.Sprintf("job %d side %d node %d %v wait %v retry %v", j.ID, side, node, d.Verdict, d.Wait, d.RetryAfter))
	return nil
}

func (o *logObserver) Released(side, node int, at engine.Time, r buckets.Released) error {
	o.lines = append(o.lines, fmt.Sprintf("release at %v side %d node %d job %d wait %v", at, side, node, r.ID, r.Wait))
	return nil
}

type sliceSource struct {
	jobs []Job
	i    int
}

func (s *sliceSource) Next() (Job, error) {
	if s.i == len(s.jobs) {
		return Job{}, io.EOF
	}
	s.i++
	return s.jobs[s.i-1], nil
}

func jobsOf(in Instance) []Job {
	var js []Job
	for i, x := range in.Times {
		js = append(js, Job{T: x, Sub: in.Sub[i], Hash: uint64(i % 7)})
	}
	return js
}

// TestRunEqualsDrive: the fast path and the engine path make the same
// decisions and releases, in the same order, with the same check result,
// for every order and dispatch policy.
func TestRunEqualsDrive(t *testing.T) {
	src := rand.New(rand.NewPCG(22, 1))
	draw := func(lo, hi int) int { return lo + src.IntN(hi-lo+1) }
	for n := range 600 {
		in := GenInstance(draw, GenConfig{MaxK: 4, MaxJobs: 40, Orders: buckets.Orders})
		disp := DispatchNames[n%len(DispatchNames)]
		spec := SplitSpec{One: in.One, Subs: in.Subs, Dispatch: disp, Order: in.Order, Seed: uint64(n)}
		var logs [2]*logObserver
		var results [2]Result
		for path := range 2 {
			p := must(NewSplit(spec))
			logs[path] = &logObserver{}
			var err error
			if path == 0 {
				_, err = Run(context.Background(), p, &sliceSource{jobs: jobsOf(in)}, 0, logs[path])
			} else {
				_, err = Drive(context.Background(), engine.NewSim(), p, &sliceSource{jobs: jobsOf(in)}, 0, logs[path])
			}
			if err != nil {
				t.Fatalf("instance %d path %d: %v", n, path, err)
			}
			results[path] = p.Check().Result()
		}
		if !slices.Equal(logs[0].lines, logs[1].lines) {
			t.Fatalf("instance %d (%s, %v): fast path and engine differ:\n%v\n%v", n, disp, in.Order, logs[0].lines, logs[1].lines)
		}
		if fmt.Sprint(results[0]) != fmt.Sprint(results[1]) {
			t.Fatalf("instance %d: check results differ: %+v vs %+v", n, results[0], results[1])
		}
	}
}

// TestSplitAnyLimiter splits a GCRA and a fixed window across two nodes
// through the same dispatcher as token buckets, on both paths, with the
// decisions worked out by hand:
//
//   - GCRA(T = 1 s, τ = 1 s) (the policing bucket (1, 2)) against two
//     nodes of GCRA(T = 2 s, τ = 2 s) (buckets (0.5, 2)), round-robin, six
//     jobs at 0: the one GCRA admits τ/T + 1 = 2; each node admits 2 of its
//     3 jobs, so the split admits jobs 0 to 3.
//   - a fixed window of 3 per 1 s against two nodes of 1 per 1 s, jobs at
//     0, 0.5, 1 and 1.5 s: the one window admits 0 and 0.5 in [0, 1) and
//     1 and 1.5 in [1, 2); node 0 gets 0 and 1, node 1 gets 0.5 and 1.5,
//     one per window each: all admitted.
func TestSplitAnyLimiter(t *testing.T) {
	gcra := func(interval, tol string) buckets.Limiter {
		return must(buckets.NewGCRA(buckets.GCRAParams{Interval: rat(interval), Tolerance: rat(tol)}))
	}
	for _, c := range []struct {
		name  string
		times []string
		a, b  []buckets.Verdict
	}{
		{"gcra", []string{"0", "0", "0", "0", "0", "0"},
			[]buckets.Verdict{buckets.Admit, buckets.Admit, buckets.Reject, buckets.Reject, buckets.Reject, buckets.Reject},
			[]buckets.Verdict{buckets.Admit, buckets.Admit, buckets.Admit, buckets.Admit, buckets.Reject, buckets.Reject}},
		{"fixed window", []string{"0", "0.5", "1", "1.5"},
			[]buckets.Verdict{buckets.Admit, buckets.Admit, buckets.Admit, buckets.Admit},
			[]buckets.Verdict{buckets.Admit, buckets.Admit, buckets.Admit, buckets.Admit}},
	} {
		var jobs []Job
		for _, s := range c.times {
			jobs = append(jobs, Job{T: sec(s)})
		}
		var logs [2]*logObserver
		for path := range 2 {
			var one buckets.Limiter
			var nodes []buckets.Limiter
			if c.name == "gcra" {
				one, nodes = gcra("1", "1"), []buckets.Limiter{gcra("2", "2"), gcra("2", "2")}
			} else {
				one = must(buckets.NewFixedWindow(buckets.WindowParams{Limit: 3, Window: rat("1")}))
				nodes = []buckets.Limiter{
					must(buckets.NewFixedWindow(buckets.WindowParams{Limit: 1, Window: rat("1")})),
					must(buckets.NewFixedWindow(buckets.WindowParams{Limit: 1, Window: rat("1")}))}
			}
			a := must(New([]buckets.Limiter{one}, must(NewDispatcher("rr", nil, nil))))
			b := must(New(nodes, must(NewDispatcher("rr", nil, nil))))
			p := NewPair(a, b, nil)
			logs[path] = &logObserver{}
			var err error
			if path == 0 {
				_, err = Run(context.Background(), p, &sliceSource{jobs: jobs}, 0, logs[path])
			} else {
				_, err = Drive(context.Background(), engine.NewSim(), p, &sliceSource{jobs: jobs}, 0, logs[path])
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(logs[0].lines, logs[1].lines) {
			t.Errorf("%s: paths differ:\n%v\n%v", c.name, logs[0].lines, logs[1].lines)
		}
		var gotA, gotB []buckets.Verdict
		for _, l := range logs[0].lines {
			var id, side, node int
			var v string
			fmt.Sscanf(l, "job %d side %d node %d %s", &id, &side, &node, &v)
			verdict := map[string]buckets.Verdict{"admit": buckets.Admit, "reject": buckets.Reject}[v]
			if side == 0 {
				gotA = append(gotA, verdict)
			} else {
				gotB = append(gotB, verdict)
			}
		}
		if !slices.Equal(gotA, c.a) || !slices.Equal(gotB, c.b) {
			t.Errorf("%s: one %v split %v; want %v and %v", c.name, gotA, gotB, c.a, c.b)
		}
	}
}
