package experiments

import (
	"fmt"
	"math/rand/v2"
)

// ReplicationSeed returns the root seed of replication rep of point in a
// model's sweep ([RunModel]; a split sweep uses splitstudy.CommonSeed) with root
// seed seed: the first output of
//
//	PCG(seed, point·2^32 + rep)
//
// The replication then draws random stream s from PCG(ReplicationSeed, s),
// as every run does (see [Source]): arrivals from stream 0, dispatch from
// stream 1, service order from streams 2 and up. A replication's result is
// thus a function of (seed, point, rep) alone, not of the number of
// workers, of the order the points run in, or of the shard that runs them;
// and both systems of a replication see the same arrivals (common random
// numbers), so the split/one ratio is paired.
//
// Panics if point or rep is outside [0, 2^32) (a programmer error: a spec
// has at most [MaxPoints] points and [MaxReplications] replications).
func ReplicationSeed(seed uint64, point, rep int) uint64 {
	if point < 0 || rep < 0 || uint64(point) >= 1<<32 || uint64(rep) >= 1<<32 {
		panic(fmt.Sprintf("experiments: replication (%d, %d) out of range", point, rep))
	}
	return rand.New(rand.NewPCG(seed, uint64(point)<<32|uint64(rep))).Uint64()
}

// Source returns the random source of stream of a run with the given seed
// (see systems.StreamArrivals and its siblings).
func Source(seed, stream uint64) rand.Source { return rand.NewPCG(seed, stream) }
