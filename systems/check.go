package systems

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Violation is where the check failed, with exact values.
type Violation struct {
	Lemma bool // false: Theorem 2 (S <= S^(k)) failed; true: Lemma 1 failed
	// At is the instant, ns since the origin. For Theorem 2 it is exact
	// when Crossing is set: the first instant after which S(t) > S^(k)(t),
	// where D = S^(k) - S, piecewise linear between events, crosses 0
	// (D(At) = 0 and D < 0 just after; see [Check]), in general between
	// two events. Otherwise (Lemma 1, or a crossing beyond a Rat's range)
	// it is Checked.
	At       exact.Rat
	Crossing bool
	// Checked is the instant the check evaluated and found the violation
	// at, ns: the values below are taken there.
	Checked exact.Rat
	// Theorem 2: the accrued delays of the one bucket and of the split
	// system at Checked, ns, and the jobs waiting in each (N and Σ N_l).
	S, SSplit exact.Rat
	N, NSplit int64
	// Lemma 1: r·U and Σ r_l·U_l, tokens.
	Work, WorkSplit exact.Rat
}

func (v Violation) String() string {
	t := v.At.QuoFloat64(1e9)
	if v.Lemma {
		return fmt.Sprintf("Lemma 1 violated at t = %.9g s: r·U = %.9g > Σ r_l·U_l = %.9g tokens",
			t, v.Work.Float64(), v.WorkSplit.Float64())
	}
	from := fmt.Sprintf("at t = %.9g s", t)
	if v.Crossing {
		from = fmt.Sprintf("from t = %.9g s on (S(t) > S^(k)(t) just after; exact)", t)
	}
	return fmt.Sprintf("Theorem 2 violated %s: at t = %.9g s S = %.9g s > S^(k) = %.9g s; N = %d, Σ N_l = %d",
		from, v.Checked.QuoFloat64(1e9), v.S.QuoFloat64(1e9), v.SSplit.QuoFloat64(1e9), v.N, v.NSplit)
}

// Check verifies, at every instant, Theorem 2 of R. Guérin, "When Two is
// Worse Than One" (2019), S(t) <= S^(k)(t), and Lemma 1 in work units,
// r·U(t) <= Σ_l r_l·U_l(t), for a one-bucket system and a split system of
// token buckets fed the same arrivals. The theorem needs Σ r_l = r and
// Σ b_l = b and any work-conserving order; the check runs whatever the
// parameters, so that a negative control (sums inflated on purpose) can
// show it failing.
//
// # Where it looks
//
// Between two arrivals nothing changes but the passing of time, and the
// G/D/1 state of each bucket gives S, N and U in closed form
// ([buckets.GD1]). D(t) = S^(k)(t) - S(t) is piecewise linear with slope
// Σ N_l(t) - N(t), which increases only when the one bucket grants a
// token: its minima over an interval between arrivals are at the one
// bucket's grants and at the interval's end, so D is evaluated there. A
// certificate skips most intervals: S^(k) never decreases and S only grows
// by the end of the interval, so S^(k)(t_0) >= S(t_1) proves
// D >= 0 on all of (t_0, t_1]. r·U - Σ r_l·U_l is piecewise linear with
// maxima at the interval's end and where a sub-bucket's queue empties;
// an arrival adds one token's work to each side, which changes nothing;
// with Σ r_l = r the difference cannot become positive again once it is
// not (see verify), so it is evaluated only where Theorem 2 is.
//
// Every value is an exact integer in the buckets' common unit (they must
// be built with one scale: see [buckets.CommonScale]); Lemma 1 compares
// U·r in integers scaled by the rates' common denominator, through
// math/big when a product would overflow 128 bits. No tolerance is
// needed.
//
// The zero value is not usable; create one with [NewCheck].
type Check struct {
	one     *buckets.TokenBucket
	subs    []*buckets.TokenBucket
	scale   int64
	wOne    exact.Int128   // r·c, c the rates' common denominator
	wSubs   []exact.Int128 // r_l·c
	den     int64          // c, the rates' common denominator
	equal   bool           // Σ r_l = r exactly: Lemma 1 is certified between evaluations (see lemma)
	lemmaOK bool           // Lemma 1 held at the last instant it was evaluated
	started bool           // the one bucket has delayed a job: S > 0 from then on

	last  exact.Int128 // every instant up to last is verified, units
	skLow exact.Int128 // S^(k) at some instant <= last: a lower bound from last on

	arrivals  int64
	evaluated uint64
	violS     uint64
	violL     uint64
	first     *Violation
	firstS    *Violation   // the first Theorem 2 violation
	slack     exact.Int128 // smallest S^(k) - S where either is positive
	slackAt   exact.Int128
	hasSlack  bool
	scratch   []buckets.GD1
	finishes  []exact.Int128
	left      []int64 // N_l(last), for lowerBound
}

// lowerBound returns a lower bound of D = S^(k) - S over (x0, x1], from
// S^(k)(x0) = sk0, S(x0) = s0, N(x0) = nOne and N_l(x0) = left[l], with
// n arrivals in [x0, x1] (admitted: the buckets' states are read at x1),
// all exact in units, and Σ r_l = r (x0 is "last" below):
//
//   - D has slope Σ N_l - N, where N <= N(last) + n (an arrival adds one
//     waiting job at most) and N_l >= N_l(last) - (floor(L·r_l) + 1) over
//     an interval of length L (sub-bucket l grants at most that many
//     tokens in L), so D >= D(last) + L·min(0, Σ_l max(0, N_l(last) -
//     floor(L·r_l) - 1) - N(last) - n);
//   - when every bucket has more jobs waiting at last than it can grant in
//     L (N(last) >= floor(L·r) + 2, N_l(last) >= floor(L·r_l) + 2), every
//     bucket stays busy: an arrival adds one waiting job to each side, the
//     one bucket grants at least floor(L'·r) tokens in any L' <= L and the
//     split at most Σ_l (floor(L'·r_l) + 1) <= floor(L'·r) + k + 1, so
//     the slope is at least Σ N_l(last) - N(last) - k - 1 (with no
//     arrival the sub-buckets need not stay busy);
//   - S and S^(k) never decrease: D >= S^(k)(last) - S(x1).
//
// It returns the largest of the three.
func (c *Check) lowerBound(x0, x1, sk0, s0 exact.Int128, nOne int64, left []int64, n int64) exact.Int128 {
	bound := c.slopeBound(x0, x1, sk0, s0, nOne, left, n)
	if b2 := sk0.Sub(c.one.State().Accrued(x1)); bound.Less(b2) {
		bound = b2
	}
	return bound
}

// slopeBound is lowerBound's bound from the slope of D (the first two).
func (c *Check) slopeBound(x0, x1, sk0, s0 exact.Int128, nOne int64, left []int64, n int64) exact.Int128 {
	l := x1.Sub(x0)
	low, sum := int64(0), int64(0)
	busy := true // every bucket keeps a job waiting all through
	for i, b := range c.subs {
		g, _ := l.DivMod(b.State().Token)
		rest := left[i] - g.Int64() - 1
		if !g.IsInt64() {
			rest = 0
		}
		low += max(rest, 0)
		sum += left[i]
		busy = busy && (n == 0 || rest >= 1)
	}
	g, _ := l.DivMod(c.one.State().Token)
	busy = busy && g.IsInt64() && nOne-g.Int64()-1 >= 1
	slope := low - nOne - n
	if busy {
		slope = max(slope, sum-nOne-int64(len(c.subs))-1)
	}
	bound := sk0.Sub(s0)
	if slope < 0 {
		drop, ok := l.Mul64OK(-slope)
		if !ok {
			return exact.I128(-1)
		}
		bound = bound.Sub(drop)
	}
	return bound
}

// NewCheck returns a check of one against subs. Every bucket must use one
// scale ([buckets.WithScale]); it returns an error wrapping
// buckets.ErrParam otherwise, or when there is no sub-bucket.
func NewCheck(one *buckets.TokenBucket, subs []*buckets.TokenBucket) (*Check, error) {
	if len(subs) == 0 {
		return nil, &buckets.ParamError{Name: "number of sub-buckets k", Value: 0, Want: ">= 1"}
	}
	s := one.State().Scale
	rates := []exact.Rat{one.Params().Rate}
	for l, b := range subs {
		if b.State().Scale != s {
			return nil, fmt.Errorf("systems: sub-bucket %d uses %d units per ns and the one bucket %d: build them with buckets.WithScale(buckets.CommonScale(...)): %w",
				l, b.State().Scale, s, buckets.ErrParam)
		}
		rates = append(rates, b.Params().Rate)
	}
	// c = lcm of the rates' (reduced) denominators; w = r·c.
	c := int64(1)
	for i, r := range rates {
		rates[i] = r.Reduce()
		d := rates[i].Den()
		hi, lo := bits.Mul64(uint64(c), uint64(d/exact.GCD(c, d)))
		if hi != 0 || lo > math.MaxInt64 {
			return nil, fmt.Errorf("systems: the rates' common denominator lcm(%d, %d) is beyond 63 bits: %w", c, d, buckets.ErrParam)
		}
		c = int64(lo)
	}
	ws := make([]exact.Int128, len(rates))
	for i, r := range rates {
		v, ok := r.Num().Mul64OK(c / r.Den())
		if !ok {
			return nil, fmt.Errorf("systems: the rates' common denominator %d makes a Lemma 1 weight beyond 127 bits: %w", c, buckets.ErrParam)
		}
		ws[i] = v
	}
	sum := exact.Int128{}
	for _, w := range ws[1:] {
		sum = sum.Add(w)
	}
	return &Check{one: one, subs: subs, scale: s, wOne: ws[0], wSubs: ws[1:], den: c, equal: sum == ws[0],
		scratch: make([]buckets.GD1, len(subs))}, nil
}

// Add appends the sub-bucket b to the split system mid-run, for a caller
// that builds a split's sub-buckets as jobs first reach them (the drl
// package: a key's sub-bucket at a node exists once the node has seen the
// key). b must use the check's scale, have had no job, and be full at the
// instant last advanced to, so that it adds nothing to S^(k) or to
// Σ r_l·U_l and the check goes on as if b had been there from the start;
// Errors wrap buckets.ErrParam (also when the rates' common denominator
// outgrows 63 bits, as in NewCheck).
func (c *Check) Add(b *buckets.TokenBucket) error {
	g := b.State()
	if g.Scale != c.scale {
		return fmt.Errorf("systems: an added sub-bucket uses %d units per ns and the check %d: %w", g.Scale, c.scale, buckets.ErrParam)
	}
	if a, d, r := b.Counts(); a+d+r > 0 || c.last.Less(g.Finish) {
		return fmt.Errorf("systems: an added sub-bucket must be idle: %w", buckets.ErrParam)
	}
	r := b.Params().Rate.Reduce()
	// A new denominator scales every weight by lcm(c, d)/c.
	f := r.Den() / exact.GCD(c.den, r.Den())
	d128 := exact.Mul64(c.den, f)
	den, ok := d128.Int64(), d128.IsInt64()
	bad := func() error {
		return fmt.Errorf("systems: the rates' common denominator with an added rate %v is beyond 63 bits or a Lemma 1 weight beyond 127: %w", r, buckets.ErrParam)
	}
	if !ok {
		return bad()
	}
	w, ok := r.Num().Mul64OK(den / r.Den())
	wOne, ok1 := c.wOne.Mul64OK(f)
	wSubs := make([]exact.Int128, len(c.wSubs), len(c.wSubs)+1)
	for l, x := range c.wSubs {
		var okl bool
		wSubs[l], okl = x.Mul64OK(f)
		ok1 = ok1 && okl
	}
	if !ok || !ok1 {
		return bad()
	}
	c.den, c.wOne, c.wSubs = den, wOne, wSubs
	c.subs = append(c.subs, b)
	c.wSubs = append(c.wSubs, w)
	c.scratch = append(c.scratch, buckets.GD1{})
	sum := exact.Int128{}
	for _, w := range c.wSubs {
		sum = sum.Add(w)
	}
	c.equal = sum == c.wOne
	return nil
}

// states loads the G/D/1 state of every sub-bucket into scratch.
func (c *Check) states() []buckets.GD1 {
	for l, b := range c.subs {
		c.scratch[l] = b.State()
	}
	return c.scratch
}

// Advance verifies every instant in (last, t], before the arrivals at t
// are offered. t must not be earlier than the last instant advanced to.
func (c *Check) Advance(t engine.Time) {
	x1 := exact.Mul64(int64(t), c.scale)
	if !c.last.Less(x1) {
		return
	}
	c.verify(x1)
}

// Arrived records that a job arrived (it was offered to both systems at
// the instant last advanced to). When it is the first job to wait in the
// one bucket, S starts to grow from this instant: the slack is evaluated
// here, where the region S > 0 begins.
func (c *Check) Arrived() {
	c.arrivals++
	if !c.started {
		if _, delayed, _ := c.one.Counts(); delayed > 0 {
			c.started = true
			c.evalTheorem(c.one.State(), c.states(), c.last)
		}
	}
}

// Finish verifies every instant after the last arrival, until every
// bucket has made its last grant (S and S^(k) are constant from then on).
func (c *Check) Finish() {
	end := c.one.State().Finish
	for _, b := range c.subs {
		if f := b.State().Finish; end.Less(f) {
			end = f
		}
	}
	if c.last.Less(end) {
		c.verify(end)
	}
}

// verify checks (last, x1] and moves last to x1.
func (c *Check) verify(x1 exact.Int128) {
	// Before the one bucket delays a job, S = 0: Theorem 2 cannot bind,
	// and Lemma 1 is certified as below.
	if !c.started && c.equal && c.lemmaOK {
		c.last = x1
		return
	}
	// The cheapest certificate first: S(x1) is at most the total wait of
	// the jobs arrived so far, which needs no division.
	if c.equal && c.lemmaOK && c.certified(c.one.TotalWait()) {
		c.last = x1
		return
	}
	one := c.one.State()
	walked := c.theorem(one, x1)
	var subs []buckets.GD1
	if walked || !c.equal || !c.lemmaOK {
		subs = c.states()
	}
	// Lemma 1 certificate: with Σ r_l = r, r·U - Σ r_l·U_l cannot grow
	// while the one bucket is busy (its slope is -r + Σ over the busy
	// sub-buckets of r_l <= 0), is -Σ r_l·U_l <= 0 while it is idle, and
	// an arrival adds one token's work to both sides. So once it is <= 0
	// it stays so: the interval needs evaluating only when the rates
	// differ, when it last failed, or, as a spot check, when Theorem 2's
	// interval was walked.
	if !c.equal || !c.lemmaOK || walked {
		c.lemma(one, subs, x1)
	}
	c.last = x1
}

// splitAccrued returns S^(k)(x) and Σ N_l(x).
func splitAccrued(subs []buckets.GD1, x exact.Int128) (exact.Int128, int64) {
	var s exact.Int128
	var n int64
	for _, g := range subs {
		s = s.Add(g.Accrued(x))
		n += g.Waiting(x)
	}
	return s, n
}

// certified reports whether S^(k) >= skLow and S <= s0 on an interval
// prove that it holds no violation and no smaller slack than the one
// already found (until a slack is found, every interval is visited).
func (c *Check) certified(s0 exact.Int128) bool {
	d := c.skLow.Sub(s0)
	return c.hasSlack && d.Sign() >= 0 && !d.Less(c.slack)
}

// slackHolds reports whether D >= bound on an interval proves that it
// holds no violation and no smaller slack than the one already found.
func (c *Check) slackHolds(bound exact.Int128) bool {
	return c.hasSlack && bound.Sign() >= 0 && !bound.Less(c.slack)
}

func (c *Check) theorem(one buckets.GD1, x1 exact.Int128) (walked bool) {
	if c.certified(one.Accrued(x1)) {
		return false
	}
	subs := c.states()
	// Before walking, bounds of D = S^(k) - S on the interval from the
	// state at last (see lowerBound): under overload both S and S^(k) grow
	// fast and the S^(k) of the last evaluation soon falls below any S.
	if c.hasSlack && c.slackHolds(c.boundFrom(one, subs, c.last, x1)) {
		return false
	}
	// Candidates: the one bucket's grants in (last, x1), then x1. With n
	// jobs waiting at last, the grants are at LastGrant - i·(1/r) for
	// i = n - 1, ..., 0. After each, the rest of the interval, or a stretch
	// of it over which the one bucket stays busy, may be certified by the
	// bounds; the walk then goes on from its end.
	n := one.Waiting(c.last)
	for i := n - 1; i >= -1; i-- {
		x := x1
		if i >= 0 {
			k, _ := one.Token.Mul64OK(i)
			if g := one.LastGrant().Sub(k); g.Less(x1) {
				x = g
			}
		}
		c.evalTheorem(one, subs, x)
		if x == x1 || c.certified(one.Accrued(x1)) {
			return true
		}
		if !c.hasSlack || i < 3 {
			continue
		}
		if c.slackHolds(c.boundFrom(one, subs, x, x1)) {
			return true
		}
		// i jobs wait after the grant at x: the one bucket stays busy
		// over (x, y] with y = x + (i - 2)/r, and the grants in it are
		// those of i - 1, ..., 2 (y the last of them).
		y, ok := one.Token.Mul64OK(i - 2)
		if y = x.Add(y); ok && y.Less(x1) && c.slackHolds(c.boundFrom(one, subs, x, y)) {
			i = 2 // the next candidate is the grant after y, i = 1
		}
	}
	return true
}

// boundFrom returns lowerBound over (x0, x1] with no arrival in it, from
// the states at x0 (one and subs, read at an instant <= x0).
func (c *Check) boundFrom(one buckets.GD1, subs []buckets.GD1, x0, x1 exact.Int128) exact.Int128 {
	sk := exact.Int128{}
	c.left = c.left[:0]
	for _, g := range subs {
		sk = sk.Add(g.Accrued(x0))
		c.left = append(c.left, g.Waiting(x0))
	}
	if c.skLow.Less(sk) {
		c.skLow = sk // S^(k)(x0), x0 >= last: a lower bound from last on
	}
	return c.lowerBound(x0, x1, sk, one.Accrued(x0), one.Waiting(x0), c.left, 0)
}

func (c *Check) evalTheorem(one buckets.GD1, subs []buckets.GD1, x exact.Int128) {
	c.evaluated++
	s0 := one.Accrued(x)
	sk, nk := splitAccrued(subs, x)
	if c.skLow.Less(sk) {
		c.skLow = sk
	}
	if s0.Sign() == 0 && one.Waiting(x) == 0 {
		return // S = 0 here: the inequality cannot bind and there is no slack to speak of
	}
	d := sk.Sub(s0)
	if !c.hasSlack || d.Less(c.slack) {
		c.slack, c.slackAt, c.hasSlack = d, x, true
	}
	if d.Sign() < 0 {
		c.violS++
		at := exact.Frac(x, c.scale)
		v := Violation{At: at, Checked: at, S: exact.Frac(s0, c.scale), SSplit: exact.Frac(sk, c.scale),
			N: one.Waiting(x), NSplit: nk}
		if c.violS == 1 { // the first, in time: instants are evaluated in order
			v.At, v.Crossing = c.crossing(one, subs, x)
			c.firstS = &v
		}
		c.record(v)
	}
}

// crossing returns the exact first instant, ns, after which S > S^(k), for
// the first evaluated instant x with D(x) = S^(k)(x) - S(x) < 0, and
// whether it is exact (false, and x, only if the instant does not fit a
// Rat, or if D is negative where it should not be).
//
// Every instant up to the last one verified, and every evaluated instant
// before x, had D >= 0. So D >= 0 at lo, the latest of the last instant
// verified and the one bucket's last grant before x (the candidate
// evaluated before x). On [lo, x] no job arrives and the one bucket makes
// no grant: N is constant and Σ N_l only falls, so D's slope Σ N_l - N
// only falls: D is concave there, and {D >= 0} is an interval [lo, t*].
// Every grant is a whole unit, so D is linear between consecutive units:
// a bisection over units finds u with D(u) >= 0 > D(u+1), and
//
//	t* = u + D(u)/(D(u) - D(u+1))
//
// units, exactly (an Int128 bisection of at most 127 steps of k + 1
// closed forms, once per check).
func (c *Check) crossing(one buckets.GD1, subs []buckets.GD1, x exact.Int128) (exact.Rat, bool) {
	fallback := exact.Frac(x, c.scale)
	d := func(y exact.Int128) exact.Int128 {
		sk, _ := splitAccrued(subs, y)
		return sk.Sub(one.Accrued(y))
	}
	lo := c.last
	// The one bucket's grants before x: LastGrant - i·(1/r), i >= 0.
	g := one.LastGrant()
	if !g.Less(x) {
		// The latest before x: i = floor((LastGrant - x)·r) + 1.
		q, _ := g.Sub(x).DivMod(one.Token)
		if k, ok := one.Token.Mul(q.Add64(1)); ok {
			g = g.Sub(k)
		} else {
			g = lo
		}
	}
	if lo.Less(g) {
		lo = g
	}
	hi := x
	if !lo.Less(hi) || d(lo).Sign() < 0 {
		return fallback, false
	}
	one128 := exact.I128(1)
	for one128.Less(hi.Sub(lo)) {
		mid := lo.Add(hi.Sub(lo).FloorDiv(2))
		if d(mid).Sign() >= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	dl, dh := d(lo), d(hi)
	m := dl.Sub(dh) // > 0: the jobs more waiting in the one bucket on (lo, hi)
	// (lo·m + D(lo)) / (m·scale) ns.
	num := new(big.Int).Mul(lo.Big(), m.Big())
	num.Add(num, dl.Big())
	den := new(big.Int).Mul(m.Big(), big.NewInt(c.scale))
	r := new(big.Rat).SetFrac(num, den)
	n, ok1 := exact.FromBig(r.Num())
	dd, ok2 := exact.FromBig(r.Denom())
	if !ok1 || !ok2 {
		return fallback, false
	}
	at, err := exact.RatOf(n, dd)
	if err != nil {
		return fallback, false
	}
	return at, true
}

func (c *Check) lemma(one buckets.GD1, subs []buckets.GD1, x1 exact.Int128) {
	c.finishes = c.finishes[:0]
	for _, g := range subs {
		if c.last.Less(g.Finish) && g.Finish.Less(x1) {
			c.finishes = append(c.finishes, g.Finish)
		}
	}
	slices.SortFunc(c.finishes, exact.Int128.Cmp)
	for _, f := range c.finishes {
		c.evalLemma(one, subs, f)
	}
	c.evalLemma(one, subs, x1)
}

// evalLemma compares r·U(x)·c with Σ r_l·U_l(x)·c, in units.
func (c *Check) evalLemma(one buckets.GD1, subs []buckets.GD1, x exact.Int128) {
	c.evaluated++
	lhs, ok := one.Unfinished(x).Mul(c.wOne)
	rhs := exact.Int128{}
	for l, g := range subs {
		p, ok1 := g.Unfinished(x).Mul(c.wSubs[l])
		var ok2 bool
		rhs, ok2 = rhs.AddOK(p)
		ok = ok && ok1 && ok2
	}
	var worse bool
	if ok {
		worse = rhs.Less(lhs)
	} else {
		bl := new(big.Int).Mul(one.Unfinished(x).Big(), c.wOne.Big())
		br := new(big.Int)
		for l, g := range subs {
			br.Add(br, new(big.Int).Mul(g.Unfinished(x).Big(), c.wSubs[l].Big()))
		}
		worse = br.Cmp(bl) < 0
	}
	c.lemmaOK = !worse
	if worse {
		c.violL++
		// r·U in tokens: r tokens/s times U = u/scale ns.
		tokens := func(u exact.Int128, r exact.Rat) exact.Rat {
			w, _ := r.Mul(exact.Frac(u, c.scale))
			w, _ = w.Quo(exact.Int(1e9))
			return w
		}
		var ws exact.Rat
		for l, g := range subs {
			ws, _ = ws.Add(tokens(g.Unfinished(x), c.subs[l].Params().Rate))
		}
		c.record(Violation{Lemma: true, At: exact.Frac(x, c.scale), Checked: exact.Frac(x, c.scale),
			Work: tokens(one.Unfinished(x), c.one.Params().Rate), WorkSplit: ws})
	}
}

// record keeps the earliest violation (the two inequalities are walked
// one after the other over an interval, so a later call can be earlier).
func (c *Check) record(v Violation) {
	if c.first == nil || v.At.Cmp(c.first.At) < 0 {
		c.first = &v
	}
}

// Result is the outcome of a check.
type Result struct {
	Arrivals        int64      // arrivals offered to both systems
	Evaluated       uint64     // instants at which a side of either inequality was evaluated exactly
	Violations      uint64     // evaluated instants with S(t) > S^(k)(t)
	LemmaViolations uint64     // evaluated instants with r·U(t) > Σ r_l·U_l(t)
	First           *Violation // the earlier of the first violations of Theorem 2 and Lemma 1
	// FirstTheorem is the first Theorem 2 violation, with its exact
	// instant (see Violation.At), nil when there is none.
	FirstTheorem *Violation
	// MinSlack is the smallest slack S^(k)(t) - S(t), ns, over every t at
	// which S(t) > 0 or a job waits in the one bucket (where S is 0 the
	// inequality cannot bind), and MinSlackAt is where it is reached
	// (HasSlack is false when the one bucket never delays a job). It is
	// the exact minimum: the slack is piecewise linear with its minima at
	// the one bucket's grants and at arrivals, which are evaluated, or in
	// intervals a certificate proves hold nothing smaller. Over the
	// instants where S^(k) alone is positive the slack would approach 0
	// at the first delay of the split system, which says nothing.
	MinSlack, MinSlackAt exact.Rat
	HasSlack             bool
	// S and SSplit are S(t) and S^(k)(t) at the last instant verified,
	// ns: after Finish, the total delays of the two systems.
	S, SSplit exact.Rat
}

// Held reports whether Theorem 2 and Lemma 1 held at every instant.
func (r Result) Held() bool { return r.Violations == 0 && r.LemmaViolations == 0 }

// Result returns the outcome so far.
func (c *Check) Result() Result {
	sk, _ := splitAccrued(c.states(), c.last)
	r := Result{Arrivals: c.arrivals, Evaluated: c.evaluated, Violations: c.violS, LemmaViolations: c.violL, First: c.first, FirstTheorem: c.firstS,
		HasSlack: c.hasSlack, S: exact.Frac(c.one.State().Accrued(c.last), c.scale), SSplit: exact.Frac(sk, c.scale)}
	if c.hasSlack {
		r.MinSlack, r.MinSlackAt = exact.Frac(c.slack, c.scale), exact.Frac(c.slackAt, c.scale)
	}
	return r
}

// batchPre is what [Check.batchCertified] needs of the instant last
// verified, read before a batch of arrivals is admitted.
type batchPre struct {
	ok       bool         // the batch may be certified at all
	started  bool         // the one bucket had delayed a job
	delayed  int64        // the one bucket's delayed jobs before the batch
	d0       exact.Int128 // D(last) = S^(k)(last) - S(last), units
	sk0      exact.Int128 // S^(k)(last), units
	nOne     int64        // N(last)
	subsLeft []int64      // N_l(last)
}

// batchStart reads, before a batch of arrivals is admitted, what
// batchCertified needs; pre.subsLeft is reused between batches.
func (c *Check) batchStart(pre *batchPre) {
	pre.ok = c.equal && c.lemmaOK
	if !pre.ok {
		return
	}
	_, pre.delayed, _ = c.one.Counts()
	pre.started = c.started
	if !c.started {
		return
	}
	if !c.hasSlack {
		pre.ok = false
		return
	}
	one := c.one.State()
	pre.nOne = one.Waiting(c.last)
	pre.subsLeft = pre.subsLeft[:0]
	var sk exact.Int128
	for _, b := range c.subs {
		g := b.State()
		sk = sk.Add(g.Accrued(c.last))
		pre.subsLeft = append(pre.subsLeft, g.Waiting(c.last))
	}
	pre.sk0 = sk
	pre.d0 = sk.Sub(one.Accrued(c.last))
}

// batchCertified reports whether the verification of every instant up to
// t (ns) can be skipped for a batch of n arrivals, all at instants in
// [last, t] and already admitted to every bucket, with pre read by
// batchStart before they were; when it does, the check moves on to t as
// the per-arrival calls (Advance, Arrived) would have, without
// evaluating any instant. It holds when:
//
//   - before the one bucket has delayed any job and with no job of the
//     batch delayed by it: S = 0 over the interval, so Theorem 2 cannot
//     bind and there is no slack to record; or
//   - once it has: with the interval (last, t] of length L, D = S^(k) - S
//     has slope Σ N_l - N, where N <= N(last) + n (an arrival adds one
//     waiting job at most) and N_l >= N_l(last) - (floor(L/(1/r_l)) + 1)
//     (sub-bucket l grants at most that many tokens in L), so D >=
//     D(last) + L·min(0, Σ_l max(0, N_l(last) - floor(L·r_l) - 1) -
//     N(last) - n) on the interval; when that bound is >= 0 and not below
//     the smallest slack found, the interval holds no violation and no
//     smaller slack. S and S^(k) never decrease, so S^(k)(last) - S(t)
//     is another lower bound of D there, used when it is larger (at low
//     loads: few of the batch's jobs wait). When moreover every bucket has more jobs waiting at
//     last than it can grant in L (N(last) >= floor(L·r) + 2, N_l(last)
//     >= floor(L·r_l) + 2), every bucket stays busy: each arrival adds one
//     waiting job to each side, the one bucket grants at least floor(L'·r)
//     tokens in any L' <= L and the split at most Σ_l (floor(L'·r_l) + 1)
//     <= floor(L'·r) + k + 1 (Σ r_l = r), so the slope is at least
//     Σ N_l(last) - N(last) - k - 1, the bound used when it is larger.
//
// In both cases Lemma 1 is certified as [Check.verify] certifies it (Σ r_l
// = r and it held when last evaluated): pre.ok requires it.
func (c *Check) batchCertified(pre *batchPre, t engine.Time, n int64) bool {
	if !pre.ok {
		return false
	}
	x1 := exact.Mul64(int64(t), c.scale)
	if !pre.started {
		if _, delayed, _ := c.one.Counts(); delayed != pre.delayed {
			return false
		}
	} else if c.last.Less(x1) {
		bound := c.lowerBound(c.last, x1, pre.sk0, pre.sk0.Sub(pre.d0), pre.nOne, pre.subsLeft, n)
		if !c.slackHolds(bound) {
			return false
		}
		if c.skLow.Less(pre.sk0) {
			c.skLow = pre.sk0
		}
	}
	if c.last.Less(x1) {
		c.last = x1
	}
	c.arrivals += n
	return true
}
