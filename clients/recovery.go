package clients

import (
	"math/big"

	"github.com/ratesim/ratesim/engine"
)

// Recovery is the rule that says when goodput has recovered from a
// trigger (a fault, a spike): the pre-trigger level is the goodput over
// the whole bins before the trigger starts, [0, k0·Bin) with k0 =
// floor(TriggerFrom/Bin); the run has recovered at t, the first bin start
// at or after TriggerTo, when the goodput averaged over [t, t + Hold) is
// within Tolerance (a fraction: 5% is 1/20) of that level:
//
//	|G(t, t+Hold)/Hold − G(0, k0·Bin)/(k0·Bin)| <= Tolerance · G(0, k0·Bin)/(k0·Bin)
//
// where G counts the successes in an interval of whole bins. Hold is a
// whole number of bins, at least one. The comparison is made in exact
// integers (ToleranceNum/ToleranceDen), so it is decided as exact
// arithmetic decides it. Averaging over the hold rather than asking every
// bin to be within the tolerance keeps Poisson noise from hiding a
// recovery (a 1 s bin of 70 successes/s has a standard deviation of 12%).
type Recovery struct {
	Bin, TriggerFrom, TriggerTo, Hold engine.Time // ns
	ToleranceNum, ToleranceDen        int64       // Tolerance = Num/Den, >= 0
}

// RecoveredAt returns the instant of recovery by the rule and true, or
// false when the run did not recover by its last bin (or there is no
// whole bin before the trigger, or no success in it: no level to return
// to). successes[k] is the successes of bin k.
func (rc Recovery) RecoveredAt(successes []int64) (engine.Time, bool) {
	if rc.Bin <= 0 || rc.Hold < rc.Bin || rc.ToleranceDen <= 0 {
		return 0, false
	}
	k0 := int(rc.TriggerFrom / rc.Bin)
	h := int(rc.Hold / rc.Bin)
	if k0 < 1 || k0 > len(successes) {
		return 0, false
	}
	var pre int64
	for _, s := range successes[:k0] {
		pre += s
	}
	if pre == 0 {
		return 0, false
	}
	first := int((rc.TriggerTo + rc.Bin - 1) / rc.Bin) // first bin start >= TriggerTo
	// |w/h − pre/k0| <= tol·pre/k0  ⟺  |w·k0 − pre·h|·Den <= Num·pre·h.
	lhs, rhs := new(big.Int), new(big.Int)
	bound := new(big.Int).Mul(big.NewInt(rc.ToleranceNum), new(big.Int).Mul(big.NewInt(pre), big.NewInt(int64(h))))
	var w int64
	for k := first; k+h <= len(successes); k++ {
		if k == first {
			w = 0
			for _, s := range successes[k : k+h] {
				w += s
			}
		} else {
			w += successes[k+h-1] - successes[k-1]
		}
		lhs.Sub(new(big.Int).Mul(big.NewInt(w), big.NewInt(int64(k0))), rhs.Mul(big.NewInt(pre), big.NewInt(int64(h))))
		lhs.Abs(lhs).Mul(lhs, big.NewInt(rc.ToleranceDen))
		if lhs.Cmp(bound) <= 0 {
			return engine.Time(k) * rc.Bin, true
		}
	}
	return 0, false
}
