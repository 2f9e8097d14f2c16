package netcalc

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/exact"
)

// Delay returns the horizontal deviation h(α, β) in seconds: the delay
// bound of a flow with arrival curve a through a server offering s (Le
// Boudec and Thiran, Theorem 1.4.2; §3.1.11):
//
//	h(α, β) = sup_{t >= 0} inf{d >= 0 : α(t) <= β(t + d)}
//
// For a [TokenBucket] γ_{r,b} with r <= R it is T + b/R; for a [Concave]
// curve it is T + max(α(t)/R − t) over t = 0+ and the curve's breakpoints;
// for a [Staircase] of L jobs per W seconds with L <= R·W it is T + L/R.
//
// Special cases: α = 0 gives 0. A long-term arrival rate above R (the least
// rate of the buckets, or L/W) gives an error wrapping [ErrUnbounded]; a rate
// equal to R is bounded. Invalid curves and results that do not fit an
// [exact.Rat] are errors.
func Delay(a Arrival, s RateLatency) (exact.Rat, error) {
	h, err := delay(a, s)
	if err != nil {
		return exact.Rat{}, err
	}
	return ratOf(h)
}

func delay(a Arrival, s RateLatency) (*big.Rat, error) {
	if err := checkPair(a, s); err != nil {
		return nil, err
	}
	R, T := s.Rate.Big(), s.Latency.Big()
	if st, ok := a.(Staircase); ok {
		// α(t) = L on (0, W], 2L on (W, 2W], ...; the deviation
		// T + α(t)/R − t peaks just after each kW at T + L(k+1)/R − kW,
		// which does not grow with k exactly when L/R <= W.
		L := new(big.Rat).SetInt64(st.Jobs)
		h := L.Quo(L, R)
		return h.Add(h, T), nil
	}
	segs := envelope(asConcave(a))
	if zero(segs) {
		return new(big.Rat), nil
	}
	// T + α(t)/R − t is concave on t > 0 (α is concave), so its supremum is
	// at t = 0+ or at a breakpoint; the last slope r/R − 1 is <= 0 here.
	var best *big.Rat
	for _, sg := range segs {
		v := new(big.Rat).Quo(sg.y, R)
		v.Sub(v, sg.x)
		if best == nil || v.Cmp(best) > 0 {
			best = v
		}
	}
	return best.Add(best, T), nil
}

// Backlog returns the vertical deviation v(α, β) in jobs: the backlog bound
// of a flow with arrival curve a at a server offering s (Le Boudec and
// Thiran, Theorem 1.4.1; §3.1.11):
//
//	v(α, β) = sup_{t >= 0} (α(t) − β(t))
//
// For a [TokenBucket] γ_{r,b} with r <= R it is b + r·T. For a [Concave]
// curve the supremum is taken at t = T (α(0+) if T = 0) and at the
// breakpoints after T. For a [Staircase] of L jobs per W seconds it is the
// larger of L·(k+1) and L·(k+2) − R·((k+1)·W − T), k = floor(T/W).
//
// With unit jobs the backlog counted in whole jobs (the job in service
// included) is at most ceil(v); see the package documentation.
//
// Special cases and errors are those of [Delay].
func Backlog(a Arrival, s RateLatency) (exact.Rat, error) {
	v, err := backlog(a, s)
	if err != nil {
		return exact.Rat{}, err
	}
	return ratOf(v)
}

func backlog(a Arrival, s RateLatency) (*big.Rat, error) {
	if err := checkPair(a, s); err != nil {
		return nil, err
	}
	R, T := s.Rate.Big(), s.Latency.Big()
	if st, ok := a.(Staircase); ok {
		// α − β is constant-minus-increasing on each (kW, (k+1)W], so the
		// supremum is approached just after some kW: L(k+1) − R(kW − T)^+.
		// It grows with k while kW <= T and does not grow after (L <= RW).
		L, W := big.NewRat(st.Jobs, 1), st.Window.Big()
		q := new(big.Rat).Quo(T, W)
		k := new(big.Int).Quo(q.Num(), q.Denom())
		k1 := new(big.Rat).SetInt(k.Add(k, big.NewInt(1))) // k + 1
		v1 := new(big.Rat).Mul(L, k1)
		v2 := new(big.Rat).Add(v1, L)
		t2 := new(big.Rat).Mul(k1, W)
		t2.Sub(t2, T)
		v2.Sub(v2, t2.Mul(t2, R))
		if v2.Cmp(v1) > 0 {
			return v2, nil
		}
		return v1, nil
	}
	segs := envelope(asConcave(a))
	// α is nondecreasing and β = 0 on [0, T]; after T, α − β is concave.
	best := evalSegs(segs, T)
	for _, sg := range segs {
		if sg.x.Cmp(T) <= 0 {
			continue
		}
		v := new(big.Rat).Sub(sg.x, T)
		v.Mul(v, R)
		v.Sub(sg.y, v)
		if v.Cmp(best) > 0 {
			best = v
		}
	}
	return best, nil
}

// Output returns the arrival curve α ⊘ β of the departures of a flow with
// concave arrival curve a ([TokenBucket] or [Concave]) from a server
// offering s (Le Boudec and Thiran, Theorem 1.4.3), normalized:
//
//	(α ⊘ β)(t) = sup_{u >= 0} (α(t + u) − β(u))
//
// For γ_{r,b} with r <= R it is γ_{r, b + r·T}. In general it is α(t + T)
// after the point t0 where α's slope falls to R or below, and a line of
// slope R before it: min(γ_{R, α(t0) + R·(T − t0)}, γ_{r_i, b_i + r_i·T} for
// the buckets with r_i <= R).
//
// The whole-job departures of [RateLatency.Serve] conform to the output
// curve for the latency T + 1/R instead of T: the server and the
// packetizer that releases a job once it is fully served offer
// (β − 1)^+ = β_{R, T+1/R} (Le Boudec and Thiran §1.7).
//
// Errors: a [Staircase] (its output curve is not concave), and those of
// [Delay].
func Output(a Arrival, s RateLatency) (Concave, error) {
	if _, ok := a.(Staircase); ok {
		return nil, errors.New("netcalc: Output needs a token bucket or a concave curve, not a staircase")
	}
	if err := checkPair(a, s); err != nil {
		return nil, err
	}
	R, T := s.Rate.Big(), s.Latency.Big()
	segs := envelope(asConcave(a))
	var lines []segment
	for i, sg := range segs {
		if sg.r.Cmp(R) > 0 {
			continue
		}
		if i > 0 {
			// α ⊘ λ_R is the line of slope R through (t0, α(t0)) before
			// t0; shifted left by T (α ⊘ δ_T(t) = α(t + T)).
			b := new(big.Rat).Sub(T, sg.x)
			b.Mul(b, R)
			b.Add(b, sg.y)
			lines = append(lines, segment{b: b, r: R})
		}
		for _, l := range segs[i:] {
			b := new(big.Rat).Mul(l.r, T)
			lines = append(lines, segment{b: b.Add(b, l.b), r: l.r})
		}
		break
	}
	c := make(Concave, len(lines))
	for i, l := range lines {
		var err error
		if c[i].Burst, err = ratOf(l.b); err != nil {
			return nil, err
		}
		if c[i].Rate, err = ratOf(l.r); err != nil {
			return nil, err
		}
	}
	return c.Normalize()
}

// Concat returns the service curve of rate-latency servers in series:
// β_{R1,T1} ⊗ β_{R2,T2} ⊗ ... = β_{min R_i, Σ T_i} (Le Boudec and Thiran,
// Theorem 1.4.6, "pay bursts only once"). It holds for fluid servers; for
// servers that pass on whole jobs, as a chain of [RateLatency.Serve] calls
// does, use [Tandem].
//
// Errors: no servers, an invalid server, or a sum that does not fit an
// [exact.Rat].
func Concat(servers ...RateLatency) (RateLatency, error) {
	return concat(servers, false)
}

// Tandem returns the service curve, for the delay of whole unit jobs, of
// rate-latency servers in series that each forward a job only once it has
// been served completely (store and forward): [Concat] of the servers with
// 1/R_i added to the latency of every server but the last. A server with
// service curve β followed by a packetizer offers (β − 1)^+ = β_{R, T+1/R}
// (Le Boudec and Thiran §1.7); the last one's packetizer does not delay a
// job's last bit. A single job through two servers of rate 1 and no
// latency takes 2 s, while Concat promises 1 s.
//
// Errors are those of [Concat].
func Tandem(servers ...RateLatency) (RateLatency, error) {
	return concat(servers, true)
}

func concat(servers []RateLatency, whole bool) (RateLatency, error) {
	if len(servers) == 0 {
		return RateLatency{}, errors.New("netcalc: no servers to concatenate")
	}
	var minR *big.Rat
	sumT := new(big.Rat)
	for i, s := range servers {
		if err := s.check(); err != nil {
			return RateLatency{}, fmt.Errorf("server %d: %w", i, err)
		}
		R := s.Rate.Big()
		if minR == nil || R.Cmp(minR) < 0 {
			minR = R
		}
		sumT.Add(sumT, s.Latency.Big())
		if whole && i < len(servers)-1 {
			sumT.Add(sumT, new(big.Rat).Inv(R))
		}
	}
	T, err := ratOf(sumT)
	if err != nil {
		return RateLatency{}, err
	}
	R, _ := ratOf(minR) // one of the rates, so it fits
	return RateLatency{Rate: R, Latency: T}, nil
}

// checkPair validates a and s and reports an unbounded pair.
func checkPair(a Arrival, s RateLatency) error {
	if a == nil {
		return errors.New("netcalc: nil arrival curve")
	}
	if err := a.check(); err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	R := s.Rate.Big()
	switch a := a.(type) {
	case Staircase:
		if big.NewRat(a.Jobs, 1).Cmp(new(big.Rat).Mul(R, a.Window.Big())) > 0 {
			return fmt.Errorf("netcalc: staircase rate %d jobs per %v s exceeds service rate %v jobs/s: %w", a.Jobs, a.Window, s.Rate, ErrUnbounded)
		}
	default:
		segs := envelope(asConcave(a))
		if r := segs[len(segs)-1].r; r.Cmp(R) > 0 {
			return fmt.Errorf("netcalc: long-term arrival rate %v jobs/s exceeds service rate %v jobs/s: %w", r.RatString(), s.Rate, ErrUnbounded)
		}
	}
	return nil
}

// asConcave returns a token bucket or concave curve as a Concave.
func asConcave(a Arrival) Concave {
	switch a := a.(type) {
	case TokenBucket:
		return Concave{a}
	case Concave:
		return a
	}
	panic(fmt.Sprintf("netcalc: %T is not concave", a))
}

// zero reports whether the envelope is the zero curve.
func zero(segs []segment) bool {
	return len(segs) == 1 && segs[0].b.Sign() == 0 && segs[0].r.Sign() == 0
}

// evalSegs returns α(t) for t > 0, and α(0+) for t = 0.
func evalSegs(segs []segment, t *big.Rat) *big.Rat {
	i := len(segs) - 1
	for segs[i].x.Cmp(t) > 0 {
		i--
	}
	v := new(big.Rat).Mul(segs[i].r, t)
	return v.Add(v, segs[i].b)
}
