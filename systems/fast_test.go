package systems

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// timesOf is a TimeSource over instants, handing out at most chunk at a
// time.
type timesOf struct {
	ts    []engine.Time
	i     int
	chunk int
}

func (s *timesOf) Next() (Job, error) { panic("the batch path calls NextTimes only") }

func (s *timesOf) NextTimes(dst []engine.Time) (int, error) {
	if s.i == len(s.ts) {
		return 0, io.EOF
	}
	n := copy(dst[:min(len(dst), s.chunk)], s.ts[s.i:])
	s.i += n
	return n, nil
}

// batchLog records the waits of the batch path, whichever way they come.
type batchLog struct {
	one, split []exact.Rat
	nodes      []int
	batches    int
}

func (b *batchLog) Decided(Job, int, int, buckets.Decision) error {
	panic("the batch path decides nothing")
}
func (b *batchLog) Released(int, int, engine.Time, buckets.Released) error {
	panic("the batch path releases nothing")
}
func (b *batchLog) Waits(j Job, node int, scale int64, wa, wb exact.Int128) error {
	if j.ID != int64(len(b.one)) {
		return fmt.Errorf("job %d reported after %d", j.ID, len(b.one))
	}
	b.one = append(b.one, exact.Frac(wa, scale))
	b.split = append(b.split, exact.Frac(wb, scale))
	b.nodes = append(b.nodes, node)
	return nil
}
func (b *batchLog) WaitsBatch(first int64, ts []engine.Time, node0, k int, scale int64, wa, wb []int64) error {
	b.batches++
	for i := range ts {
		if err := b.Waits(Job{ID: first + int64(i), T: ts[i]}, (node0+i)%k, scale, exact.I128(wa[i]), exact.I128(wb[i])); err != nil {
			return err
		}
	}
	return nil
}

// TestBatchPath: the batch path (round-robin dispatch, a source of
// instants, an observer of batches, batches of 1 to 8 jobs) gives every
// job the waits the per-job path gives it (RunInstance, column dispatch
// on the same sub-buckets) and the check the same verdict, slack and
// first violation, which are also the definition's (bruteCheck), on
// random FCFS instances at light loads and in overload, negative
// controls included. The check may evaluate fewer instants: the batch
// certificate skips whole batches.
func TestBatchPath(t *testing.T) {
	defer func(n int) { batchJobs = n }(batchJobs)
	src := rand.New(rand.NewPCG(26, 1))
	draw := func(lo, hi int) int { return lo + src.IntN(hi-lo+1) }
	batches := 0
	for n := range 400 {
		cfg := GenConfig{MaxK: 4, MaxJobs: 60, Orders: []buckets.Order{buckets.FCFS}, InflateBurst: n%5 == 3, InflateRate: n%5 == 4}
		in := GenInstance(draw, cfg)
		if n%2 == 1 {
			// Overload: gaps of 0 to 1.6 token times, on the ms grid
			// (mean load about 1.25).
			token := new(exact.Rat)
			*token, _ = exact.Int(1000).Quo(in.One.Rate)
			tk := int64(token.Float64())
			x := int64(0)
			for i := range in.Times {
				x += int64(draw(0, int(tk*8/5)))
				in.Times[i] = engine.Time(x) * engine.Millisecond
			}
		}
		k := len(in.Subs)
		for i := range in.Sub {
			in.Sub[i] = i % k
		}
		batchJobs = draw(1, 8)
		unequal := cfg.InflateBurst || cfg.InflateRate
		want, wantRes, err := RunInstance(in, unequal)
		if err != nil {
			t.Fatal(err)
		}
		p := must(NewSplit(SplitSpec{One: in.One, Subs: in.Subs, AllowUnequal: unequal, Dispatch: "rr", Seed: in.Seed}))
		log := &batchLog{}
		if _, err := Run(context.Background(), p, &timesOf{ts: in.Times, chunk: draw(1, 9)}, 0, log); err != nil {
			t.Fatalf("instance %d: %v", n, err)
		}
		batches += log.batches
		for i := range in.Times {
			if log.one[i].Cmp(want.One[i]) != 0 || log.split[i].Cmp(want.Split[i]) != 0 || log.nodes[i] != in.Sub[i] {
				t.Fatalf("instance %d job %d: waits %v, %v at node %d; per-job path %v, %v at %d", n, i, log.one[i], log.split[i], log.nodes[i], want.One[i], want.Split[i], in.Sub[i])
			}
		}
		res := p.Check().Result()
		if res.Evaluated > wantRes.Evaluated {
			t.Errorf("instance %d: batch path evaluated %d instants, per-job path %d", n, res.Evaluated, wantRes.Evaluated)
		}
		res.Evaluated = wantRes.Evaluated
		if fmt.Sprint(res) != fmt.Sprint(wantRes) {
			t.Fatalf("instance %d: check %+v, per-job path %+v", n, res, wantRes)
		}
		b := bruteCheck(in)
		if (res.Violations > 0) != b.violS || res.HasSlack != (b.minSlack != nil) || res.HasSlack && seconds(res.MinSlack).Cmp(b.minSlack) != 0 {
			t.Fatalf("instance %d: violations %d, min slack %v s (has %v); definition %v, %v s", n, res.Violations, seconds(res.MinSlack), res.HasSlack, b.violS, b.minSlack)
		}
	}
	if batches == 0 {
		t.Error("no batch went through the batch path")
	}
}
