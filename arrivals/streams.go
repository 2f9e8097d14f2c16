package arrivals

// Random streams of generated processes.
//
// Every random component of a generated process draws from its own
// math/rand/v2 source, and a caller derives each source from one root seed
// and a stream id, as ratesim run does with rand.NewPCG(seed, id). The ids
// of the components of a spec ([BuildSpec]) are
//
//	process i (the i-th from the left, from 0):   i·2^40
//	transform i (the i-th from the left, from 0): 2^63 + i·2^40
//
// so that the first process uses stream 0, the stream a lone Poisson
// process has always used, and the ids stay clear of the small ids a run
// gives to dispatch and service order (1 to 2^17). A component's draws
// depend only on the root seed, its own parameters and its position among
// the processes (or the transforms) of the spec: appending a process or a
// transform, or changing another component's parameters, does not change
// them. A PCG stream is the same on every machine, so the same seed gives
// the same arrivals everywhere.

// ProcessStream returns the stream id of the i-th process of a spec
// (0-based, counted from the left). Panics if i is negative or i >= 2^23.
func ProcessStream(i int) uint64 {
	if i < 0 || i >= 1<<23 {
		panic("arrivals: ProcessStream index out of range")
	}
	return uint64(i) << 40
}

// TransformStream returns the stream id of the i-th transform of a spec
// (0-based, counted from the left). Panics if i is negative or i >= 2^23.
func TransformStream(i int) uint64 {
	if i < 0 || i >= 1<<23 {
		panic("arrivals: TransformStream index out of range")
	}
	return 1<<63 | uint64(i)<<40
}
