package clients

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// everyMillisecond yields n arrivals 1 ms apart.
func everyMillisecond(n int) iter.Seq[engine.Time] {
	return func(yield func(engine.Time) bool) {
		for i := range n {
			if !yield(engine.Time(i) * engine.Millisecond) {
				return
			}
		}
	}
}

// TestRunStopsWhenCancelled: a run of 10^6 open-loop requests, or of 10^5
// closed-loop users, under a context already cancelled returns
// context.Canceled (checked every 4096 events and users) instead of
// running to its end; uncancelled, the same open-loop run ends with its
// 10^6 requests, so the check is what stops it.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	open := Scenario{Arrivals: everyMillisecond(1e6), Retry: RetryPolicy{Backoff: Constant{Base: ms(500)}}}
	if _, err := RunRemoteContext(ctx, open, FromLimiter(newPolicer(engine.Millisecond, 1))); !errors.Is(err, context.Canceled) {
		t.Errorf("open loop: %v, want context.Canceled", err)
	}
	closed := Scenario{Users: 1e5, Horizon: engine.Second, Retry: RetryPolicy{Backoff: Constant{Base: ms(500)}}}
	if _, err := RunRemoteContext(ctx, closed, FromLimiter(newPolicer(engine.Millisecond, 1))); !errors.Is(err, context.Canceled) {
		t.Errorf("closed loop: %v, want context.Canceled", err)
	}
	res, err := RunRemoteContext(context.Background(), open, FromLimiter(newPolicer(engine.Millisecond, 1)))
	if err != nil || res.Foreground.Requests != 1e6 {
		t.Errorf("not cancelled: %d requests, %v; want 10^6", res.Foreground.Requests, err)
	}
}
