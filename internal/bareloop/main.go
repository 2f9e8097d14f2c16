// Command bareloop is the reference `ratesim run` is measured against: the
// same job done as cheaply as Go allows. It draws Poisson arrivals at load
// λ = load·r jobs/s from the same random stream as `ratesim run --load
// load --seed seed` (rand.ExpFloat64 on rand.NewPCG(seed, 0), divided by
// λ and rounded to the nanosecond, as arrivals.NewPoisson), offers each
// job to one token bucket (r, b) and, round-robin, to k sub-buckets
// (r/k, b/k), and computes every job's exact wait in whole nanoseconds by
// the Lindley recursion on int64 (the note's eq. (1)), with no check of
// Theorem 2, no statistics but the totals, and no interface call. It
// prints the jobs delayed and the total waits of both systems, exact, so
// that its work can be compared with ratesim's (a test does).
//
//	go run ./internal/bareloop -jobs 10000000 -load 0.9
//
// r and b are whole tokens/s and tokens, and k must divide 10^9/r's
// multiples so that every token time is a whole number of nanoseconds
// (r = 1, b = 10, k = 2 are ratesim run's defaults).
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

// totals are one system's delayed jobs and total wait, ns.
type totals struct {
	delayed int64
	wait    int64
}

// loop runs jobs Poisson arrivals at lambda jobs/s through one bucket of
// token time tok ns and burst time burst ns (b/r) and through k
// round-robin sub-buckets of token time k·tok and the same burst time.
// It panics if an instant overflows int64 (about 292 years).
func loop(jobs int64, lambda float64, tok, burst int64, k int, seed uint64) (one, split totals) {
	rng := rand.New(rand.NewPCG(seed, 0))
	subTok := int64(k) * tok
	finish := make([]int64, k) // each sub-bucket's F (ns): its queue empties then
	var f int64                // the one bucket's F
	var t int64
	l := 0
	for range jobs {
		t += int64(math.Round(rng.ExpFloat64() / lambda * 1e9))
		f = max(f, t) + tok
		if w := f - t - burst; w > 0 {
			one.delayed++
			one.wait += w
		}
		fl := max(finish[l], t) + subTok
		finish[l] = fl
		if w := fl - t - burst; w > 0 {
			split.delayed++
			split.wait += w
		}
		if l++; l == k {
			l = 0
		}
	}
	if t < 0 || f < 0 {
		panic("bareloop: an instant overflowed int64")
	}
	return one, split
}

func main() {
	jobs := flag.Int64("jobs", 10_000_000, "arrivals")
	load := flag.Float64("load", 0.9, "offered load λ/r")
	rate := flag.Int64("rate", 1, "r, tokens/s (whole)")
	burst := flag.Int64("burst", 10, "b, tokens (whole)")
	k := flag.Int("k", 2, "sub-buckets, round-robin")
	seed := flag.Uint64("seed", 1, "seed of the arrival stream")
	flag.Parse()
	if *jobs < 0 || !(*load > 0) || *rate < 1 || *burst < 1 || *k < 1 || 1_000_000_000%*rate != 0 {
		fmt.Fprintln(os.Stderr, "bareloop: want -jobs >= 0, -load > 0, -rate >= 1 dividing 10^9, -burst >= 1, -k >= 1")
		os.Exit(2)
	}
	tok := 1_000_000_000 / *rate
	one, split := loop(*jobs, *load*float64(*rate), tok, *burst*tok, *k, *seed)
	fmt.Printf("jobs %d\none: %d delayed, total wait %d ns\nsplit: %d delayed, total wait %d ns\n",
		*jobs, one.delayed, one.wait, split.delayed, split.wait)
}
