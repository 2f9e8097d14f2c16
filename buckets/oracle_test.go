package buckets

import (
	"math/big"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/oracle"
)

// The oracles are independent of the limiters under test: they keep an
// explicit token count (not the G/D/1 unfinished work), in math/big
// rationals of seconds (package internal/oracle).

// newBucketOracle returns the explicit-token oracle of p (package
// internal/oracle).
func newBucketOracle(p Params, limit int, lifo bool) *bucketOracle {
	return &bucketOracle{oracle.NewBucket(p.Rate.Big(), p.Burst.Big(), limit, lifo)}
}

type bucketOracle struct{ *oracle.Bucket }

func (o *bucketOracle) offer(t *big.Rat, id int64) bool { return o.Offer(t, id) }
func (o *bucketOracle) advance(t *big.Rat)              { o.Advance(t) }
func (o *bucketOracle) waiting() int                    { return o.Waiting() }

func nsRat(t engine.Time) *big.Rat { return big.NewRat(int64(t), 1e9) }

// waitRat converts an exact wait in ns to a big.Rat of seconds.
func waitRat(w exact.Rat) *big.Rat { return new(big.Rat).Quo(w.Big(), big.NewRat(1e9, 1)) }

// instance is a random decimal-grid instance: arrival instants on a grid
// of 1 ms, 0.1 s or 1 s with many ties, and a rate and a burst written as
// short decimals or fractions.
type instance struct {
	times []engine.Time
	p     Params
}

var (
	gridRates  = []string{"1", "0.5", "0.7", "2.5", "3", "10", "10/13", "0.35", "1/3", "1.000000001", "0.015"}
	gridBursts = []string{"1", "2", "2.5", "3", "10", "7/3"}
	grids      = []engine.Time{engine.Millisecond, 100 * engine.Millisecond, engine.Second}
)

func randInstance(src *rand.Rand, n int) instance {
	g := grids[src.IntN(len(grids))]
	base := engine.Time(0)
	if src.IntN(3) == 0 {
		base = 1700000000 * engine.Second // a Unix-epoch trace
	}
	times := make([]engine.Time, n)
	t := base
	for i := range times {
		if src.IntN(3) > 0 {
			t += g * engine.Time(src.IntN(4))
		}
		times[i] = t
	}
	return instance{times: times, p: params(gridRates[src.IntN(len(gridRates))], gridBursts[src.IntN(len(gridBursts))])}
}
