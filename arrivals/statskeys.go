package arrivals

import (
	"math"
	"math/bits"
	"slices"
)

// MaxStatsKeys bounds the keys [Stats] counts one by one: 2^20, about
// 40 MiB. Beyond it the counts are kept for the 2^20 most frequent keys
// (Space-Saving) and the distinct keys are estimated (HyperLogLog), so
// memory does not grow with the number of distinct keys of the input.
const MaxStatsKeys = 1 << 20

// keyCounter counts arrivals per key: exactly in a map while it holds at
// most limit keys, then with the Space-Saving algorithm of A. Metwally,
// D. Agrawal and A. El Abbadi, "Efficient computation of frequent and
// top-k elements in data streams" (2005): limit counters in a min-heap,
// and a new key takes over the smallest counter, whose count it inherits
// (an overestimate by at most that count). The distinct keys are then
// estimated with HyperLogLog (P. Flajolet et al., 2007) over the same
// keys.
type keyCounter struct {
	limit int
	exact map[uint64]int64 // while exact
	n     int64            // arrivals

	// after the limit
	index map[uint64]int // key -> position in heap
	heap  []keyCount     // min-heap on n
	hll   []uint8        // 2^hllBits registers
}

type keyCount struct {
	key  uint64
	n    int64 // an upper bound on the key's count
	over int64 // n minus a lower bound
}

const hllBits = 14 // 16384 registers: relative standard error 1.04/128, about 0.8%

func newKeyCounter(limit int) *keyCounter {
	return &keyCounter{limit: limit, exact: map[uint64]int64{}}
}

func (k *keyCounter) add(key uint64) {
	k.n++
	if k.exact != nil {
		if _, seen := k.exact[key]; seen || len(k.exact) < k.limit {
			k.exact[key]++
			return
		}
		k.spill()
	}
	k.hllAdd(key)
	if i, ok := k.index[key]; ok {
		k.heap[i].n++
		k.down(i)
		return
	}
	old := k.heap[0]
	delete(k.index, old.key)
	k.heap[0] = keyCount{key: key, n: old.n + 1, over: old.n}
	k.index[key] = 0
	k.down(0)
}

// spill moves the exact counts into the heap and the HyperLogLog.
func (k *keyCounter) spill() {
	k.heap = make([]keyCount, 0, len(k.exact))
	k.hll = make([]uint8, 1<<hllBits)
	for key, n := range k.exact {
		k.heap = append(k.heap, keyCount{key: key, n: n})
		k.hllAdd(key)
	}
	k.exact = nil
	slices.SortFunc(k.heap, func(a, b keyCount) int { return cmpInt64(a.n, b.n) }) // a sorted slice is a min-heap
	k.index = make(map[uint64]int, len(k.heap))
	for i, c := range k.heap {
		k.index[c.key] = i
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (k *keyCounter) down(i int) {
	h := k.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].n < h[l].n {
			m = r
		}
		if h[i].n <= h[m].n {
			return
		}
		h[i], h[m] = h[m], h[i]
		k.index[h[i].key], k.index[h[m].key] = i, m
		i = m
	}
}

// hllAdd adds a key to the HyperLogLog registers. Keys are FNV-1a hashes,
// mixed again (the splitmix64 finaliser) so that every bit is uniform.
func (k *keyCounter) hllAdd(key uint64) {
	x := key
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	reg := x >> (64 - hllBits)
	rank := uint8(bits.LeadingZeros64(x<<hllBits|1<<(hllBits-1)) + 1)
	k.hll[reg] = max(k.hll[reg], rank)
}

// distinct returns the number of distinct keys: exact, or the HyperLogLog
// estimate (with linear counting below 2.5·2^hllBits).
func (k *keyCounter) distinct() (int, bool) {
	if k.exact != nil {
		return len(k.exact), true
	}
	m := float64(len(k.hll))
	sum, zeros := 0.0, 0
	for _, r := range k.hll {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int(math.Round(e)), false
}

// top returns the counts of the 10 most frequent keys, most frequent first
// (upper bounds once inexact).
func (k *keyCounter) top() []int64 {
	var counts []int64
	if k.exact != nil {
		counts = make([]int64, 0, len(k.exact))
		for _, c := range k.exact {
			counts = append(counts, c)
		}
	} else {
		counts = make([]int64, 0, len(k.heap))
		for _, c := range k.heap {
			counts = append(counts, c.n)
		}
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	return append([]int64(nil), counts[:min(10, len(counts))]...)
}
