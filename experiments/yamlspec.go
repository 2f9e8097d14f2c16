package experiments

// MaxPoints bounds the number of points of a sweep, and MaxReplications
// the replications per point: ReplicationSeed packs both into 64 bits.
const (
	MaxPoints       = 1 << 24
	MaxReplications = 1 << 20
)
