package limiterstudy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
)

// TestRegisterLimiter: a new limiter is one limiterDef and one entry of
// limiterFamily; RunLimiters then validates, builds, describes and reports
// it with no other change. The new limiter polices with a token bucket
// (R, L/2): on the hand example (R = 100/60 tokens/s, L = 100; 100 jobs at
// 59 s and 100 at 61 s) it admits the 50 of its burst at 59 s and the
// floor(2·100/60) = 3 tokens earned by 61 s, 53 in all.
func TestRegisterLimiter(t *testing.T) {
	half := limiterDef{
		name: "half-police",
		build: func(s Params, _ buckets.WindowParams, _ rand.Source) (buckets.Limiter, error) {
			return buckets.NewTokenBucket(buckets.Params{Rate: s.Rate, Burst: exact.Int(s.Limit / 2)}, buckets.WithPolicing())
		},
		describe: func(s Params) string { return fmt.Sprintf("r = %v tokens/s, b = %d tokens", s.Rate, s.Limit/2) },
		kind:     limiterKind{color: 7, promise: "b/2 + r·d", promiseColor: -1},
	}
	saved := limiterFamily
	limiterFamily = append(slices.Clip(limiterFamily), &half)
	defer func() { limiterFamily = saved }()

	spec := issueSpec()
	spec.Names = []string{"token-police", "half-police"}
	times := append(slices.Repeat([]float64{59}, 100), slices.Repeat([]float64{61}, 100)...)
	res, err := RunLimiters(context.Background(), spec, &limProc{times: times})
	if err != nil {
		t.Fatal(err)
	}
	if l := byName(t, res, "token-police"); l.Admitted != 103 {
		t.Errorf("token-police admits %d, want 103", l.Admitted)
	}
	l := byName(t, res, "half-police")
	if l.Admitted != 53 || l.Rejected != 147 || l.Params != "r = 5/3 tokens/s, b = 50 tokens" || l.PromiseName != "b/2 + r·d" {
		t.Errorf("half-police: admitted %d, rejected %d, params %q, promise %q; want 53, 147, b = 50, b/2 + r·d", l.Admitted, l.Rejected, l.Params, l.PromiseName)
	}
	spec.Names = []string{"no-such-limiter"}
	if _, err := RunLimiters(context.Background(), spec, &limProc{times: times}); err == nil {
		t.Error("an unregistered limiter ran")
	}
}
