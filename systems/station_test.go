package systems

import (
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// retryOnce is a closed-loop client: it sends one request at its start
// and, if rejected, retries once after a fixed delay.
type retryOnce struct {
	st      *Station
	delay   engine.Time
	retries int
	passed  int
	failed  int
}

const (
	first = iota
	retry
)

func (c *retryOnce) Handle(s *engine.Sim, now engine.Time, arg int) {
	_, d, err := c.st.Offer(Job{})
	if err != nil {
		panic(err)
	}
	switch {
	case d.Admitted():
		c.passed++
	case arg == first:
		c.retries++
		s.SchedulePriority(now+c.delay, PriorityArrival, c, retry)
	default:
		c.failed++
	}
}

// TestRetryOnce: four clients send a request at 0 to a policing bucket
// (1, 2) and retry once after 1 s. At 0 two pass (two tokens) and two are
// rejected; at 1 s one token has accrued: one retry passes, the other is
// rejected and gives up. Retries: 2; passed: 3; given up: 1.
func TestRetryOnce(t *testing.T) {
	sim := engine.NewSim()
	b := must(buckets.NewTokenBucket(params("1", "2"), buckets.WithPolicing()))
	st := NewStation(sim, must(New([]buckets.Limiter{b}, must(NewDispatcher("rr", nil, nil)))), nil)
	c := &retryOnce{st: st, delay: engine.Second}
	for range 4 {
		sim.SchedulePriority(0, PriorityArrival, c, first)
	}
	sim.Run()
	if c.retries != 2 || c.passed != 3 || c.failed != 1 {
		t.Errorf("retries %d, passed %d, gave up %d; want 2, 3, 1", c.retries, c.passed, c.failed)
	}
}

// TestStationReleases: a LIFO shaping bucket (1, 1) on a station: three
// jobs offered at 0; job 0 passes, jobs 1 and 2 are queued; the station
// releases job 2 at 1 s and job 1 at 2 s, as events.
func TestStationReleases(t *testing.T) {
	sim := engine.NewSim()
	b := must(buckets.NewTokenBucket(params("1", "1"), buckets.WithOrder(buckets.LIFO, nil)))
	type rel struct {
		at engine.Time
		id int64
	}
	var got []rel
	var st *Station
	st = NewStation(sim, must(New([]buckets.Limiter{b}, must(NewDispatcher("rr", nil, nil)))), func(_ int, r buckets.Released) {
		got = append(got, rel{sim.Now(), r.ID})
	})
	for range 3 {
		st.Offer(Job{})
	}
	sim.Run()
	if len(got) != 2 || got[0] != (rel{engine.Second, 2}) || got[1] != (rel{2 * engine.Second, 1}) {
		t.Errorf("released %v, want job 2 at 1 s and job 1 at 2 s", got)
	}
}
