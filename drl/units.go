package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// units are the exact units of a run: every instant and span is an integer
// number of units of 1/scale ns, as in package buckets, so that every
// decision is the one exact arithmetic makes.
type units struct {
	scale int64        // units per nanosecond
	tau   exact.Int128 // one token's time of the promise (R, B), 1/R, units
	beta  exact.Int128 // the burst's time B/R, units; the same for every sub-bucket (R/N, B/N)
}

// newUnits returns the units of the promise p. A sub-bucket (R/N, B/N)
// has token time N·tau and the same burst time beta, so one scale serves
// every split of p.
func newUnits(p buckets.Params) (units, error) {
	s, err := buckets.CommonScale(p)
	if err != nil {
		return units{}, err
	}
	ns := exact.Int(1e9 * 1)
	tauNs, err := ns.Quo(p.Rate)
	if err != nil {
		return units{}, fmt.Errorf("drl: one token's time at rate %v: %w", p.Rate, err)
	}
	tauU, err := tauNs.Mul(exact.Int(s))
	if err != nil || !tauU.IsInt() {
		return units{}, fmt.Errorf("drl: one token's time at rate %v does not fit the exact model: %w", p.Rate, buckets.ErrParam)
	}
	betaU, err := tauU.Mul(p.Burst)
	if err != nil || !betaU.IsInt() {
		return units{}, fmt.Errorf("drl: the burst's time of %v does not fit the exact model: %w", p, buckets.ErrParam)
	}
	return units{scale: s, tau: tauU.Num(), beta: betaU.Num()}, nil
}

// at returns instant t in units.
func (u units) at(t engine.Time) exact.Int128 { return exact.Mul64(int64(t), u.scale) }

// token returns the token time of a sub-bucket with 1/n of the rate, n·tau.
func (u units) token(n int) exact.Int128 {
	v, ok := u.tau.Mul64OK(int64(n))
	if !ok {
		panic("drl: token time overflows 127 bits")
	}
	return v
}

// bucketState is one token bucket's exact state: the instant F, in units,
// at which its equivalent G/D/1 queue empties (U(t) = max(0, F - t)); see
// [buckets.TokenBucket]. A bucket created full at instant t has F = t.
type bucketState struct {
	f  exact.Int128
	at engine.Time // sync: the instant of the owner's state this copy was last set from (or of its creation)
}

// decide offers a job arriving at t (units) to the bucket with token time
// tau and burst time beta (units) and returns its exact wait in units,
// the note's eq. (1) as buckets.Step takes it, and whether it is
// admitted: always when shaping; only when the wait is 0 when policing, a
// rejected job leaving the state unchanged.
func (b *bucketState) decide(t, tau, beta exact.Int128, police bool) (wait exact.Int128, ok bool) {
	next, w := buckets.Step(b.f, t, tau, beta)
	if police && w.Sign() > 0 {
		return w, false
	}
	b.f = next
	return w, true
}
