package netcalc_test

import (
	"testing"

	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// TestLongTermRateInitialBurst: a peak-and-sustained curve min(1 + 10t,
// 8 + 2t) has long-term rate 2 jobs/s and α(0+) = 1 job, by hand; a token
// bucket gives its own parameters.
func TestLongTermRateInitialBurst(t *testing.T) {
	c := netcalc.Concave{{Rate: exact.Int(10), Burst: exact.Int(1)}, {Rate: exact.Int(2), Burst: exact.Int(8)}}
	if r, b := netcalc.LongTermRate(c), netcalc.InitialBurst(c); r.Cmp(exact.Int(2)) != 0 || b.Cmp(exact.Int(1)) != 0 {
		t.Errorf("concave: rate %v, burst %v; want 2, 1", r, b)
	}
	tb := netcalc.TokenBucket{Rate: exact.NewRat(1, 3), Burst: exact.Int(5)}
	if r, b := netcalc.LongTermRate(tb), netcalc.InitialBurst(tb); r.Cmp(exact.NewRat(1, 3)) != 0 || b.Cmp(exact.Int(5)) != 0 {
		t.Errorf("token bucket: rate %v, burst %v; want 1/3, 5", r, b)
	}
}
