package netcalc_test

import (
	"math/big"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// Shared helpers: independent oracles (the curves evaluated from their
// definitions, brute-force window counts) and random curves and streams.

// q parses a constant.
func q(s string) exact.Rat { return exact.MustParse(s) }

// tb builds a token bucket from rate and burst strings.
func tb(rate, burst string) netcalc.TokenBucket {
	return netcalc.TokenBucket{Rate: q(rate), Burst: q(burst)}
}

// rl builds a rate-latency curve from rate and latency strings.
func rl(rate, latency string) netcalc.RateLatency {
	return netcalc.RateLatency{Rate: q(rate), Latency: q(latency)}
}

// alphaRight is α(d+) from the definitions in the type docs, for d >= 0
// seconds: the jobs a closed window of length d may hold.
func alphaRight(a netcalc.Arrival, d *big.Rat) *big.Rat {
	switch a := a.(type) {
	case netcalc.TokenBucket:
		z := new(big.Rat).Mul(a.Rate.Big(), d)
		return z.Add(z, a.Burst.Big())
	case netcalc.Concave:
		var m *big.Rat
		for _, t := range a {
			if v := alphaRight(t, d); m == nil || v.Cmp(m) < 0 {
				m = v
			}
		}
		return m
	case netcalc.Staircase:
		k := new(big.Rat).Quo(d, a.Window.Big())
		f := new(big.Int).Div(k.Num(), k.Denom()) // Euclidean: floor for a positive divisor
		return new(big.Rat).SetInt(f.Mul(f.Add(f, big.NewInt(1)), big.NewInt(a.Jobs)))
	}
	panic("unknown curve")
}

// bruteViolation counts every closed window between two instants of the
// stream (x[i] seconds, sorted) and returns the one ending earliest, the
// shortest among those, that holds more than α(d+) jobs. O(n²) windows.
func bruteViolation(x []*big.Rat, a netcalc.Arrival) (netcalc.Violation, bool) {
	n := len(x)
	for e := 0; e < n; e++ {
		if e+1 < n && x[e+1].Cmp(x[e]) == 0 {
			continue // e must be the last job at its instant
		}
		for f := e; f >= 0; f-- {
			if f > 0 && x[f-1].Cmp(x[f]) == 0 {
				continue // f must be the first job at its instant
			}
			d := new(big.Rat).Sub(x[e], x[f])
			jobs := e - f + 1
			bound := alphaRight(a, d)
			if big.NewRat(int64(jobs), 1).Cmp(bound) > 0 {
				return netcalc.Violation{First: f, Last: e, Length: ratOf(d), Jobs: jobs, Bound: ratOf(bound)}, true
			}
		}
	}
	return netcalc.Violation{}, false
}

func ratOf(z *big.Rat) exact.Rat { return exact.MustParse(z.RatString()) }

func secondsOfNanos(ts []engine.Time) []*big.Rat {
	x := make([]*big.Rat, len(ts))
	for i, t := range ts {
		x[i] = big.NewRat(int64(t), int64(engine.Second))
	}
	return x
}

func bigs(ts []exact.Rat) []*big.Rat {
	x := make([]*big.Rat, len(ts))
	for i, t := range ts {
		x[i] = t.Big()
	}
	return x
}

// sameViolation compares violations exactly (Rat fields with Cmp).
func sameViolation(a, b netcalc.Violation) bool {
	return a.First == b.First && a.Last == b.Last && a.Jobs == b.Jobs &&
		a.Length.Cmp(b.Length) == 0 && a.Bound.Cmp(b.Bound) == 0
}

// randRat returns n/d with n in [lo·d, hi·d] and d in 1..maxDen.
func randRat(src *rand.Rand, lo, hi int64, maxDen int64) exact.Rat {
	d := 1 + src.Int64N(maxDen)
	return exact.NewRat(lo*d+src.Int64N((hi-lo)*d+1), d)
}

// randArrival returns a token bucket, a concave curve of 2 to 4 buckets or
// a staircase, with α(0+) >= 1 and rates of up to 20 jobs/s.
func randArrival(src *rand.Rand) netcalc.Arrival {
	switch src.IntN(3) {
	case 0:
		return netcalc.TokenBucket{Rate: randRat(src, 0, 20, 4), Burst: randRat(src, 1, 6, 3)}
	case 1:
		c := make(netcalc.Concave, 2+src.IntN(3))
		for i := range c {
			c[i] = netcalc.TokenBucket{Rate: randRat(src, 0, 20, 4), Burst: randRat(src, 1, 8, 3)}
		}
		return c
	}
	return netcalc.Staircase{Jobs: 1 + src.Int64N(5), Window: exact.NewRat(1+src.Int64N(20), 1+src.Int64N(10))}
}

// randStream returns n sorted instants: a third of the gaps 0 (ties), the
// others a multiple of grid of up to 10 grid steps.
func randStream(src *rand.Rand, n int, grid engine.Time) []engine.Time {
	ts := make([]engine.Time, n)
	for i := 1; i < n; i++ {
		ts[i] = ts[i-1]
		if src.IntN(3) > 0 {
			ts[i] += grid * engine.Time(1+src.IntN(10))
		}
	}
	return ts
}

// police keeps the jobs of ts that keep the stream conforming to a, checking
// every closed window that ends at the new job against alphaRight: an
// oracle independent of the package, O(n²).
func police(ts []engine.Time, a netcalc.Arrival) []engine.Time {
	var kept []engine.Time
	for _, t := range ts {
		ok := true
		for i := len(kept) - 1; i >= -1 && ok; i-- {
			// The window [kept[i], t] (or [t, t] for i = -1) with the new job.
			start, jobs := t, 1
			if i >= 0 {
				start, jobs = kept[i], len(kept)-i+1
			}
			d := big.NewRat(int64(t-start), int64(engine.Second))
			ok = big.NewRat(int64(jobs), 1).Cmp(alphaRight(a, d)) <= 0
		}
		if ok {
			kept = append(kept, t)
		}
	}
	return kept
}
