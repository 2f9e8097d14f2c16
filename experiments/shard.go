package experiments

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects a deterministic subset of a sweep's points, so that a
// sweep can run as n independent jobs (a Slurm job array, GNU parallel):
// shard i of n (1-based) runs the points whose index is i-1 modulo n.
// Interleaving spreads neighbouring points, which cost about the same,
// evenly over the shards. The zero value selects every point.
//
// Because each replication is seeded from (seed, point, replication)
// alone (see [ReplicationSeed]; the split study's from (seed,
// replication)), [MergeTables] of the n shards' results gives exactly the
// results of the whole sweep.
type Shard struct {
	Index int // 1-based; 0 with Count 0 for the whole sweep
	Count int // number of shards
}

// ParseShard parses "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	sh := Shard{Index: i, Count: n}
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("experiments: shard %q: want i/n, e.g. 2/8", s)
	}
	if err := sh.validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

func (s Shard) validate() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("experiments: shard %d/%d: want i/n with 1 <= i <= n", s.Index, s.Count)
	}
	return nil
}

// String returns "i/n", or "" for the whole sweep.
func (s Shard) String() string {
	if s == (Shard{}) {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the shard runs point.
func (s Shard) Has(point int) bool {
	return s.Count == 0 || point%s.Count == s.Index-1
}
