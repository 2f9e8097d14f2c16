package systems

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/buckets"
)

func nodes(k int) []buckets.Limiter {
	ns := make([]buckets.Limiter, k)
	for l := range ns {
		ns[l] = must(buckets.NewTokenBucket(params("1", "1")))
	}
	return ns
}

// TestWeightedShares: node l receives a fraction w_l/Σ w of the jobs.
// With n = 200000 jobs the standard error of a fraction is at most
// sqrt(0.25/n) = 0.0011; a tolerance of 0.006 (more than 5 standard
// errors) fails by chance with probability below 1e-6; the seed is fixed.
func TestWeightedShares(t *testing.T) {
	for _, name := range []string{"weighted", "hash"} {
		w := []float64{1, 3, 0, 4}
		d := must(NewDispatcher(name, w, rand.NewPCG(1, 2)))
		ns := nodes(len(w))
		counts := make([]int, len(w))
		src := rand.New(rand.NewPCG(3, 4))
		const n = 200000
		for i := range n {
			l := must(d.Dispatch(Job{ID: int64(i), Hash: src.Uint64()}, ns))
			counts[l]++
		}
		for l, c := range counts {
			want := w[l] / 8
			if got := float64(c) / n; math.Abs(got-want) > 0.006 {
				t.Errorf("%s: node %d got %v of the jobs, want %v", name, l, got, want)
			}
		}
	}
}

// TestHashStable: a key always goes to the same node, and adding a node
// moves only keys to the new node (rendezvous hashing).
func TestHashStable(t *testing.T) {
	d3 := must(NewDispatcher("hash", []float64{1, 1, 1}, nil))
	d4 := must(NewDispatcher("hash", []float64{1, 1, 1, 1}, nil))
	src := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		h := src.Uint64()
		a := must(d3.Dispatch(Job{Hash: h}, nodes(3)))
		if b := must(d3.Dispatch(Job{Hash: h}, nodes(3))); a != b {
			t.Fatalf("key %x went to %d then %d", h, a, b)
		}
		if c := must(d4.Dispatch(Job{Hash: h}, nodes(4))); c != a && c != 3 {
			t.Fatalf("adding node 3 moved key %x from %d to %d", h, a, c)
		}
	}
}

// TestLeastLoaded: fewest waiting jobs first, then most tokens, then the
// lowest index. Node 0 (1, 2) holds 2 tokens, node 1 (1, 3) 3: node 1.
// After two jobs at 0 on node 1 (1 token left) node 0 has more tokens.
func TestLeastLoaded(t *testing.T) {
	ns := []buckets.Limiter{must(buckets.NewTokenBucket(params("1", "2"))), must(buckets.NewTokenBucket(params("1", "3")))}
	d := must(NewDispatcher("least-loaded", nil, nil))
	if l := must(d.Dispatch(Job{}, ns)); l != 1 {
		t.Errorf("first job to %d, want 1 (3 tokens)", l)
	}
	ns[1].Offer(0, 0)
	ns[1].Offer(0, 1)
	if l := must(d.Dispatch(Job{}, ns)); l != 0 {
		t.Errorf("after two jobs on node 1, to %d, want 0", l)
	}
	// Equal tokens: the lowest index.
	eq := []buckets.Limiter{must(buckets.NewTokenBucket(params("1", "2"))), must(buckets.NewTokenBucket(params("2", "2")))}
	if l := must(d.Dispatch(Job{}, eq)); l != 0 {
		t.Errorf("tie to %d, want 0", l)
	}
	gcra := []buckets.Limiter{must(buckets.NewGCRA(buckets.GCRAParams{Interval: rat("1")}))}
	if _, err := d.Dispatch(Job{}, gcra); !errors.Is(err, buckets.ErrParam) {
		t.Errorf("least-loaded over a GCRA: %v", err)
	}
}

func TestDispatchErrors(t *testing.T) {
	col := must(NewDispatcher("column", nil, nil))
	for _, sub := range []int{-1, 2} {
		if _, err := col.Dispatch(Job{Sub: sub}, nodes(2)); err == nil {
			t.Errorf("column dispatch of node %d among 2: no error", sub)
		}
	}
	for _, c := range []struct {
		name string
		w    []float64
	}{{"nope", nil}, {"weighted", nil}, {"weighted", []float64{1, -1}}, {"weighted", []float64{0, 0}}, {"hash", []float64{math.NaN()}}} {
		if _, err := NewDispatcher(c.name, c.w, rand.NewPCG(1, 1)); !errors.Is(err, buckets.ErrParam) {
			t.Errorf("NewDispatcher(%q, %v): %v, want ErrParam", c.name, c.w, err)
		}
	}
	if _, err := NewDispatcher("random", []float64{1}, nil); !errors.Is(err, buckets.ErrParam) {
		t.Errorf("random without a source: %v", err)
	}
	rr := must(NewDispatcher("rr", nil, nil))
	for i, want := range []int{0, 1, 2, 0, 1} {
		if l := must(rr.Dispatch(Job{}, nodes(3))); l != want {
			t.Errorf("rr job %d to %d, want %d", i, l, want)
		}
	}
}

// TestRendezvousEqualWeights: with equal weights the highest hash decides
// (no logarithm) unless the two highest are within rendezvousGap; either
// way the node equals the one the scores -w/log(u) pick (the same
// dispatcher with the shortcut turned off), for 1, 2, 3, 16 and 1000
// nodes and weights 1, 2.5 and 2^-400.
func TestRendezvousEqualWeights(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 16, 1000} {
		for _, w := range []float64{1, 2.5, 0x1p-400} {
			ws := make([]float64, n)
			for i := range ws {
				ws[i] = w
			}
			fast := newRendezvous(ws)
			if !fast.equal {
				t.Fatalf("%d nodes of weight %v: shortcut not taken", n, w)
			}
			slow := &rendezvous{w: ws}
			ns := nodes(n)
			keys := 200000 / n
			for range keys {
				j := Job{Hash: src.Uint64()}
				a, b := must(fast.Dispatch(j, ns)), must(slow.Dispatch(j, ns))
				if a != b {
					t.Fatalf("%d nodes of weight %v, key %x: shortcut %d, scores %d", n, w, j.Hash, a, b)
				}
			}
		}
	}
	// Unequal or extreme weights keep the scores.
	for _, ws := range [][]float64{{1, 2}, {0, 1}, {0x1p600, 0x1p600}} {
		if newRendezvous(ws).equal {
			t.Errorf("weights %v took the shortcut", ws)
		}
	}
}
