package clients

import (
	"iter"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// poisson returns the instants of a Poisson process of rate lambda
// requests/s on [0, until), from its own stream of seed.
func poisson(lambda float64, until engine.Time, seed, rep uint64) iter.Seq[engine.Time] {
	return func(yield func(engine.Time) bool) {
		r := rand.New(Stream(seed, 0, rep, StreamArrivals))
		var t engine.Time
		for {
			g, _ := engine.FromSeconds(r.ExpFloat64() / lambda)
			t += g
			if t >= until || !yield(t) {
				return
			}
		}
	}
}

// metastable returns the metastable-retry scenario for
// replication rep: Poisson 70 requests/s, 2 servers round robin, each of
// concurrency 5 and exponential service of mean 0.1 s (100 jobs/s in
// all, 70% utilised), an unbounded FIFO queue, a 1 s timeout, 3 retries
// (4 attempts) with exponential backoff and full jitter (base 100 ms, cap
// 10 s), server 1 crashing at 5 s and back at 15 s, 60 s of requests.
func metastable(rep uint64) Overload {
	return Overload{
		Arrivals: poisson(70, 60e9, 1, rep), Servers: 2,
		Backend: BackendParams{Concurrency: 5, Queue: -1, Service: ExpService{Mean: 100e6}},
		Faults:  []Fault{{Kind: FaultCrash, From: 5e9, To: 15e9}},
		Timeout: 1e9, Retry: RetryPolicy{Backoff: FullJitter{Base: 100e6, Cap: 10e9}, MaxAttempts: 4},
		Bin: 1e9, Until: 60e9, Seed: 1, Replication: rep,
	}
}

func TestMetastablePrint(t *testing.T) {
	for _, name := range []string{"none", "aws", "grpc", "sre"} {
		for rep := uint64(0); rep < 3; rep++ {
			sc := metastable(rep)
			switch name {
			case "aws":
				sc.Budget = NewAWSQuota()
			case "grpc":
				sc.Budget, _ = NewGRPCThrottle(10000, 100)
			case "sre":
				sc.Throttle, _ = NewSREThrottle(2000, 120e9)
			}
			res, err := RunOverload(sc)
			if err != nil {
				t.Fatal(err)
			}
			var succ []int64
			line := ""
			for _, b := range res.Series {
				succ = append(succ, b.Successes)
				line += " " + itoa(b.Successes)
			}
			at, ok := Recovery{Bin: 1e9, TriggerFrom: 5e9, TriggerTo: 15e9, Hold: 10e9, ToleranceNum: 1, ToleranceDen: 20}.RecoveredAt(succ)
			t.Logf("%s rep %d: req %d succ %d backend %d retries %d denied %d timeouts %d wasted %d rec %v %v\n%s", name, rep, res.Summary.Requests, res.Summary.Successes, res.Backend, res.Retries, res.RetriesDenied, res.Timeouts, res.Wasted, at, ok, line)
		}
	}
}

func itoa(n int64) string {
	s := ""
	if n == 0 {
		return "0"
	}
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
