package buckets

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Spread is a run of N arrivals spread evenly over an interval, as a
// counts trace expands an interval's count (arrivals' "spread even"): the
// i-th, i = 0 … N-1, arrives at
//
//	Start + floor((First + i·Step)·Width / Count)  ns
//
// With First = 0 and Step = 1 these are the Count arrivals of the
// interval [Start, Start+Width) spread evenly; with Step = k and First =
// l they are those of them that round-robin dispatch sends to the l-th of
// k sub-buckets. Width = 0 is a batch: every arrival at Start.
//
// Ranges: Width >= 0 ns, Count >= 1, First >= 0, Step >= 1, N >= 0, and
// First + (N-1)·Step < Count (each arrival inside the interval), so that
// every instant is in [Start, Start+Width).
type Spread struct {
	Start engine.Time // the interval's first instant, ns
	Width int64       // the interval's length, ns
	Count int64       // the arrivals of the whole interval
	First int64       // index of the first arrival of this run in the interval
	Step  int64       // index step between consecutive arrivals of this run
	N     int64       // arrivals in this run
}

// Valid reports whether s is within the ranges of [Spread].
func (s Spread) Valid() bool {
	if s.Width < 0 || s.Count < 1 || s.First < 0 || s.Step < 1 || s.N < 0 {
		return false
	}
	if s.N == 0 {
		return true
	}
	hi, lo := bits.Mul64(uint64(s.N-1), uint64(s.Step))
	last, carry := bits.Add64(lo, uint64(s.First), 0)
	return hi == 0 && carry == 0 && last < uint64(s.Count)
}

// At returns the i-th instant of s, ns (0 <= i < N; exact, in 128-bit
// arithmetic). Panics if i is out of range.
func (s Spread) At(i int64) engine.Time {
	if i < 0 || i >= s.N {
		panic(fmt.Sprintf("buckets: Spread.At(%d) of %d arrivals", i, s.N))
	}
	return s.Start + engine.Time(s.offset(s.First+i*s.Step))
}

// offset returns floor(j·Width/Count) for 0 <= j < Count: below Width.
func (s Spread) offset(j int64) int64 {
	hi, lo := bits.Mul64(uint64(j), uint64(s.Width))
	q, _ := bits.Div64(hi, lo, uint64(s.Count)) // hi < Count: j < Count
	return int64(q)
}

// gaps returns the smallest and the largest gap between consecutive
// instants of s, ns: floor(Step·Width/Count) and that or one more (the
// gap of floor(x + y) - floor(x) is floor(y) or floor(y) + 1), the latter
// only when Step·Width/Count is not whole. Both are -1 when the gap is
// beyond 2^62 ns (longer than the clock).
func (s Spread) gaps() (gmin, gmax int64) {
	hi, lo := bits.Mul64(uint64(s.Step), uint64(s.Width))
	if hi >= uint64(s.Count) {
		return -1, -1 // a gap beyond 2^64 ns: not on the clock
	}
	q, r := bits.Div64(hi, lo, uint64(s.Count))
	if q > 1<<62 {
		return -1, -1
	}
	if r == 0 {
		return int64(q), int64(q)
	}
	return int64(q), int64(q) + 1
}

// SpreadWaits describes the FCFS waits of the arrivals of a [Spread] in a
// token bucket, in the bucket's units of 1/Scale ns. The positive waits
// are those of the arrivals Lo … Hi-1 of the spread (0 <= Lo <= Hi <= N),
// and arrival i of them waits
//
//	w_i = E + i·T - Scale·floor((First + i·Step)·Width / Count)
//
// units, where T = 1/r is one token's time and E = F_0 - b/r -
// Scale·Start (F_0 the bucket's instant after the first arrival); the
// waits are non-decreasing in i when Rising (the bucket is busy
// throughout: the arrivals come faster than tokens) and non-increasing
// otherwise (the bucket drains). Every other arrival of the spread waits
// 0.
type SpreadWaits struct {
	Spread Spread
	Scale  int64 // units per ns
	Lo, Hi int64
	Rising bool

	e, tok       exact.Int128 // E and T, units, when small (both fit 128 bits)
	eBig, tokBig *big.Int     // E and T otherwise (small is false)
	small        bool
}

// newSpreadWaits returns the waits of s with E = e and T = tok units.
func newSpreadWaits(s Spread, scale int64, e, tok *big.Int) SpreadWaits {
	w := SpreadWaits{Spread: s, Scale: scale}
	e128, ok1 := exact.FromBig(e)
	tok128, ok2 := exact.FromBig(tok)
	if ok1 && ok2 {
		w.e, w.tok, w.small = e128, tok128, true
	} else {
		w.eBig, w.tokBig = e, tok
	}
	return w
}

// bigE returns E and T as big integers.
func (w SpreadWaits) bigE() (e, tok *big.Int) {
	if w.small {
		return w.e.Big(), w.tok.Big()
	}
	return w.eBig, w.tokBig
}

// Delayed returns the number of positive waits, Hi - Lo.
func (w SpreadWaits) Delayed() int64 { return w.Hi - w.Lo }

// Wait returns w_i, units (exact; positive for Lo <= i < Hi).
func (w SpreadWaits) Wait(i int64) *big.Int {
	if x, ok := w.Wait128(i); ok && !spreadBigOnly {
		return x.Big()
	}
	e, tok := w.bigE()
	x := new(big.Int).Mul(tok, big.NewInt(i))
	x.Add(x, e)
	off := new(big.Int).Mul(big.NewInt(w.Spread.offset(w.Spread.First+i*w.Spread.Step)), big.NewInt(w.Scale))
	return x.Sub(x, off)
}

// Wait128 returns w_i, units, as a 128-bit integer, and false when E +
// i·T or w_i does not fit one: Wait with a few integer operations.
func (w SpreadWaits) Wait128(i int64) (exact.Int128, bool) {
	if !w.small {
		return exact.Int128{}, false
	}
	x, ok := w.tok.Mul64OK(i)
	if !ok {
		return exact.Int128{}, false
	}
	if x, ok = x.AddOK(w.e); !ok {
		return exact.Int128{}, false
	}
	s := w.Spread
	return x.AddOK(exact.Mul64(s.offset(s.First+i*s.Step), w.Scale).Neg())
}

// Sum returns Σ w_i over the positive waits with index in [from, to)
// (clipped to [Lo, Hi)), units, in O(log Count) operations: an
// arithmetic series less Scale times a floor sum ([FloorSum]).
func (w SpreadWaits) Sum(from, to int64) *big.Int {
	from, to = max(from, w.Lo), min(to, w.Hi)
	if from >= to {
		return new(big.Int)
	}
	if x, ok := w.Sum128(from, to); ok {
		return x.Big()
	}
	n := to - from
	s := w.Spread
	e, tok := w.bigE()
	// Σ_{i=from}^{to-1} (E + i·T) = n·E + T·(from + to - 1)·n/2
	tri := new(big.Int).Mul(big.NewInt(from+to-1), big.NewInt(n))
	tri.Rsh(tri, 1) // (from + to - 1)·n is even: one of n and from + to - 1 = 2·from + n - 1 is
	sum := new(big.Int).Mul(tok, tri)
	sum.Add(sum, new(big.Int).Mul(e, big.NewInt(n)))
	// Σ_{j=0}^{n-1} floor((Step·Width·j + (First + from·Step)·Width) / Count)
	a := new(big.Int).Mul(big.NewInt(s.Step), big.NewInt(s.Width))
	b := new(big.Int).Mul(big.NewInt(s.First+from*s.Step), big.NewInt(s.Width))
	fs := FloorSum(big.NewInt(n), big.NewInt(s.Count), a, b)
	return sum.Sub(sum, fs.Mul(fs, big.NewInt(w.Scale)))
}

// Sum128 is Sum in 128-bit arithmetic, and false when a term does not
// fit.
func (w SpreadWaits) Sum128(from, to int64) (exact.Int128, bool) {
	from, to = max(from, w.Lo), min(to, w.Hi)
	if from >= to {
		return exact.Int128{}, true
	}
	if !w.small || spreadBigOnly {
		return exact.Int128{}, false
	}
	n := to - from
	s := w.Spread
	h, l := bits.Mul64(uint64(from+to-1), uint64(n))
	tri := (h<<63 | l>>1) // (from + to - 1)·n/2, exact: the product is even
	if h>>1 != 0 || tri >= 1<<63 {
		return exact.Int128{}, false
	}
	sum, ok1 := w.tok.Mul64OK(int64(tri))
	en, ok2 := w.e.Mul64OK(n)
	if !ok1 || !ok2 {
		return exact.Int128{}, false
	}
	sum, ok := sum.AddOK(en)
	ah, al := bits.Mul64(uint64(s.Step), uint64(s.Width))
	bh, bl := bits.Mul64(uint64(s.First+from*s.Step), uint64(s.Width))
	if !ok || ah != 0 || bh != 0 {
		return exact.Int128{}, false
	}
	fs, ok := floorSum64(uint64(n), uint64(s.Count), al, bl)
	if !ok {
		return exact.Int128{}, false
	}
	off, ok := exact.I128(int64(fs)).Mul64OK(w.Scale)
	if !ok {
		return exact.Int128{}, false
	}
	return sum.AddOK(off.Neg())
}

// spreadBigOnly makes every SpreadWaits computation take its big-integer
// path (for tests of that path).
var spreadBigOnly = false

// floorSum64 is FloorSum in uint64 arithmetic, and false unless y = a·n
// + b and n·y are below 2^63: then the sum (at most n·y) and every
// partial result fit, as y never grows through the reduction.
func floorSum64(n, m, a, b uint64) (uint64, bool) {
	h, y := bits.Mul64(a, n)
	y, c := bits.Add64(y, b, 0)
	if h != 0 || c != 0 || y >= 1<<63 {
		return 0, false
	}
	if h, l := bits.Mul64(n, y); h != 0 || l >= 1<<63 {
		return 0, false
	}
	ans := uint64(0)
	for n > 0 {
		if a >= m {
			ans += n * (n - 1) / 2 * (a / m)
			a %= m
		}
		if b >= m {
			ans += n * (b / m)
			b %= m
		}
		y := a*n + b
		if y < m {
			break
		}
		n, b = y/m, y%m
		m, a = a, m
	}
	return ans, true
}

// FloorSum returns Σ_{j=0}^{n-1} floor((a·j + b)/m) for n >= 0, m >= 1,
// a >= 0, b >= 0, in O(log m) steps: the Euclid-like reduction of the
// lattice points under a line (the quotients a/m and b/m are taken out,
// then the roles of a and m swap; see e.g. the AtCoder Library's
// floor_sum, math.hpp, and Graham, Knuth and Patashnik, "Concrete
// Mathematics", 2nd ed., Section 3.5). The arguments are not changed.
//
// Special cases: n = 0 gives 0. Panics if m < 1 or a, b or n < 0.
func FloorSum(n, m, a, b *big.Int) *big.Int {
	if m.Sign() < 1 || a.Sign() < 0 || b.Sign() < 0 || n.Sign() < 0 {
		panic("buckets: FloorSum needs n, a, b >= 0 and m >= 1")
	}
	n, m, a, b = new(big.Int).Set(n), new(big.Int).Set(m), new(big.Int).Set(a), new(big.Int).Set(b)
	ans := new(big.Int)
	q, t := new(big.Int), new(big.Int)
	for n.Sign() > 0 {
		if a.Cmp(m) >= 0 {
			// Σ floor(a/m)·j = floor(a/m)·n·(n-1)/2
			q.QuoRem(a, m, a)
			t.Sub(n, big.NewInt(1))
			t.Mul(t, n)
			t.Rsh(t, 1)
			ans.Add(ans, t.Mul(t, q))
		}
		if b.Cmp(m) >= 0 {
			q.QuoRem(b, m, b)
			ans.Add(ans, t.Mul(n, q))
		}
		// Now a, b < m: the last term's numerator y = a·n + b; the sum
		// counts the lattice points (j, y') with 1 <= y' <= (a·j + b)/m,
		// which read along y' is a floor sum with a and m swapped.
		y := new(big.Int).Mul(a, n)
		y.Add(y, b)
		if y.Cmp(m) < 0 {
			break
		}
		n.QuoRem(y, m, b)
		m, a = a, m
	}
	return ans
}

// AdmitSpread admits the arrivals of s to a bucket for which
// [TokenBucket.FastFCFS] holds, as N calls of [TokenBucket.AdmitFCFS]
// would, in O(log N) big-integer operations, and returns their waits. The
// bucket's state afterwards (its instant F, total wait, counts and last
// instant) is the one the N calls leave.
//
// It applies when the gaps between the instants of s are all at most
// 1/r (then the bucket is busy from the first arrival on and the waits
// rise) or all at least 1/r (it drains, and the waits fall): with the gap
// g = Step·Width/Count ns that is when ceil(g) <= 1/r or floor(g) >= 1/r;
// a batch (Width = 0) always qualifies. Otherwise, or when a release
// would be beyond the clock (where AdmitFCFS fails), it returns ok =
// false and leaves the bucket unchanged: the caller admits the arrivals
// one by one.
//
// The waits follow from the Lindley recursion F_i = max(F_{i-1}, t_i) +
// 1/r and eq. (1), d_i = max(0, F_i - t_i - b/r) (see [TokenBucket]):
// when every gap is at most 1/r, F_i = F_0 + i/r for all i, and d_i + b/r
// - F_0 = i/r - (t_i - t_0) - t_0 never decreases; when every gap is at
// least 1/r, the bucket stays busy (F_i = F_0 + i/r) while d_i > 0 and
// d_i never increases, and once it empties every later job finds F_{i-1}
// <= t_i and waits 1/r - b/r <= 0. So the positive waits are a suffix or
// a prefix of the run, found by binary search.
//
// Panics if s is not valid or starts before the bucket's last instant.
func (b *TokenBucket) AdmitSpread(s Spread) (w SpreadWaits, ok bool) {
	if !s.Valid() {
		panic(fmt.Sprintf("buckets: TokenBucket.AdmitSpread(%+v): not a valid spread", s))
	}
	if !b.FastFCFS() {
		panic("buckets: TokenBucket.AdmitSpread on a bucket that is not FCFS shaping with an unbounded queue")
	}
	tok := b.token.Big()
	if s.N == 0 {
		return newSpreadWaits(s, b.scale, new(big.Int), tok), true
	}
	t0 := s.At(0)
	if t0 < b.last {
		panic(fmt.Sprintf("buckets: TokenBucket.AdmitSpread at %v after instant %v", t0, b.last))
	}
	scale := big.NewInt(b.scale)
	rising := true // one arrival: both cases at once
	if s.N >= 2 {
		gmin, gmax := s.gaps()
		if gmin < 0 {
			return SpreadWaits{}, false
		}
		rising = exact.Mul64(gmax, b.scale).Cmp(b.token) <= 0
		if !rising && exact.Mul64(gmin, b.scale).Less(b.token) {
			return SpreadWaits{}, false
		}
	}
	// F_0 = max(F, t_0) + T; E = F_0 - B - Scale·Start, so that w_i = E +
	// i·T - Scale·offset_i while the bucket is busy.
	f0 := b.finish
	if x := at(t0, b.scale); f0.Less(x) {
		f0 = x
	}
	f0 = f0.Add(b.token)
	e := f0.Big()
	e.Sub(e, b.burst.Big())
	e.Sub(e, new(big.Int).Mul(big.NewInt(int64(s.Start)), scale))
	w = newSpreadWaits(s, b.scale, e, tok)
	w.Rising = rising
	pos := func(i int64) bool {
		if x, ok := w.Wait128(i); ok && !spreadBigOnly {
			return x.Sign() > 0
		}
		return w.Wait(i).Sign() > 0
	}
	// p: the first index with a positive wait (rising), or the first
	// without (falling).
	lo, hi := int64(0), s.N
	for lo < hi {
		m := lo + (hi-lo)/2
		if pos(m) != rising {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if rising {
		w.Lo, w.Hi = lo, s.N
	} else {
		w.Lo, w.Hi = 0, lo
	}
	// The state after: F_{N-1} = max(F + N/r, max_j t_j + (N-j)/r), whose
	// inner maximum is at j = 0 when gaps are at most 1/r and at j = N-1
	// when they are at least 1/r.
	tLast := s.At(s.N - 1)
	f, sum, ok := b.spreadState(w, t0, tLast)
	if !ok {
		return SpreadWaits{}, false
	}
	b.finish, b.waits, b.last = f, sum, tLast
	b.admitted += s.N
	b.delayed += w.Delayed()
	return w, true
}

// spreadState returns the bucket's instant F and total wait after the
// arrivals of w (first at t0, last at tLast), and false when they do not
// fit 128 bits (where the bucket's state cannot go) or a release would be
// beyond the clock.
func (b *TokenBucket) spreadState(w SpreadWaits, t0, tLast engine.Time) (f, sum exact.Int128, ok bool) {
	nT, ok1 := b.token.Mul64OK(w.Spread.N)
	f, ok2 := b.finish.AddOK(nT)
	var cand exact.Int128
	var ok3 bool
	if w.Rising {
		cand, ok3 = at(t0, b.scale).AddOK(nT)
	} else {
		cand, ok3 = at(tLast, b.scale).AddOK(b.token)
	}
	if !ok1 || !ok2 || !ok3 {
		return f, sum, false
	}
	if f.Less(cand) {
		f = cand
	}
	total, ok := w.Sum128(w.Lo, w.Hi)
	if !ok {
		if total, ok = exact.FromBig(w.Sum(w.Lo, w.Hi)); !ok {
			return f, sum, false
		}
	}
	if sum, ok = b.waits.AddOK(total); !ok {
		return f, sum, false
	}
	// Every release before the end of the clock: the last grant F - B
	// (the latest of all, F never decreases) below Forever·Scale.
	if w.Delayed() > 0 && !f.Sub(b.burst).Less(exact.Mul64(int64(engine.Forever), b.scale)) {
		return f, sum, false
	}
	return f, sum, true
}

// SpreadBeyondClock returns the index of the first arrival of s whose
// release would be beyond the clock's range (where [TokenBucket.AdmitFCFS]
// fails) were the arrivals of s admitted one by one from the bucket's
// present state, and true; or false when every release is on the clock,
// or when the gaps of s straddle 1/r (see [TokenBucket.AdmitSpread]: then
// the index has no closed form here). The bucket is not changed.
//
// While the bucket is busy, F_i = F_0 + i/r and arrival i is released at
// F_i - b/r, which grows with i: the first release at or beyond the end
// of the clock, Forever, is that of i* = ceil((Forever + b/r - F_0)·r),
// provided arrival i* still waits (it does when the gaps are at most 1/r;
// when they are at least 1/r, only if its wait by the busy formula is
// positive, as then every arrival before it waited too).
//
// Panics if s is not valid or starts before the bucket's last instant.
func (b *TokenBucket) SpreadBeyondClock(s Spread) (int64, bool) {
	if !s.Valid() {
		panic(fmt.Sprintf("buckets: TokenBucket.SpreadBeyondClock(%+v): not a valid spread", s))
	}
	if s.N == 0 {
		return 0, false
	}
	t0 := s.At(0)
	if t0 < b.last {
		panic(fmt.Sprintf("buckets: TokenBucket.SpreadBeyondClock at %v after instant %v", t0, b.last))
	}
	if s.N >= 2 {
		gmin, gmax := s.gaps()
		if gmin < 0 || exact.Mul64(gmin, b.scale).Less(b.token) && b.token.Less(exact.Mul64(gmax, b.scale)) {
			return 0, false
		}
	}
	f0 := b.finish
	if x := at(t0, b.scale); f0.Less(x) {
		f0 = x
	}
	f0 = f0.Add(b.token)
	// i* = ceil((Forever·Scale + B - F_0) / T), at least 0
	num := exact.Mul64(int64(engine.Forever), b.scale).Big()
	num.Add(num, b.burst.Big())
	num.Sub(num, f0.Big())
	i := new(big.Int)
	if num.Sign() > 0 {
		tok := b.token.Big()
		i.Add(num, tok)
		i.Sub(i, big.NewInt(1))
		i.Quo(i, tok)
	}
	if !i.IsInt64() || i.Int64() >= s.N {
		return 0, false
	}
	e := f0.Big()
	e.Sub(e, b.burst.Big())
	e.Sub(e, new(big.Int).Mul(big.NewInt(int64(s.Start)), big.NewInt(b.scale)))
	w := newSpreadWaits(s, b.scale, e, b.token.Big())
	if w.Wait(i.Int64()).Sign() <= 0 {
		return 0, false
	}
	return i.Int64(), true
}
