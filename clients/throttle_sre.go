package clients

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// SREThrottle is client-side adaptive throttling as Google's SRE book
// describes it (Beyer et al., Site Reliability Engineering, O'Reilly 2016,
// chapter 21 "Handling Overload", section "Client-side throttling"): each
// client keeps, over the last Window (two minutes in the book), the
// number of requests its application attempted (requests, those the
// throttle itself rejects included) and the number the backend accepted
// (accepts), and rejects a new request locally with probability
//
//	p = max(0, (requests − K·accepts) / (requests + 1))
//
// K = 2 by default. Under sustained overload of a backend that accepts a
// rate A, the requests that reach the backend tend to K·A. Here "accepted"
// is an attempt answered successfully within the client's timeout; errors
// and timeouts are not accepts.
//
// A request is counted when its outcome is known, as grpc-go's
// implementation of this throttle counts it (balancer/rls/internal/adaptive,
// adaptive.go, 2020 to 2024: requests = accepts + throttles, a throttle
// registered when the throttler rejects locally or the backend's answer
// comes back throttled): at once when the throttle rejects it, at its
// answer or timeout otherwise. Counting requests still in flight would
// make a client that has just started reject most of its first requests
// (with a handful in flight and no accept yet, p is near 1) and forget
// that only over the whole window. The comparison u < p of a uniform draw
// u is made in float64; the counts are exact. The window is exact: each
// instant is kept until it is Window old (memory O(requests per Window)).
type SREThrottle struct {
	KMilli int64       // K in thousandths, >= 1000 (K >= 1)
	Window engine.Time // ns, > 0
	req    window
	acc    window
}

// NewSREThrottle returns a throttle with K = kMilli/1000 and the given
// window, or an error unless kMilli >= 1000 and window > 0.
func NewSREThrottle(kMilli int64, w engine.Time) (*SREThrottle, error) {
	if kMilli < 1000 {
		return nil, fmt.Errorf("clients: sre k %g, want >= 1", float64(kMilli)/1000)
	}
	if w <= 0 {
		return nil, fmt.Errorf("clients: sre window %v s, want > 0", w)
	}
	return &SREThrottle{KMilli: kMilli, Window: w}, nil
}

// RejectProbability returns p at now, before the request being decided
// is counted.
func (s *SREThrottle) RejectProbability(now engine.Time) float64 {
	r, a := s.req.count(now, s.Window), s.acc.count(now, s.Window)
	num := r*1000 - s.KMilli*a // 1000·(requests − K·accepts)
	if num <= 0 {
		return 0
	}
	return float64(num) / float64((r+1)*1000)
}

// Admit reports whether a request may go to the backend at now, drawing
// from rng; a request it rejects locally is counted at once.
func (s *SREThrottle) Admit(now engine.Time, rng *rand.Rand) bool {
	p := s.RejectProbability(now)
	if p <= 0 || rng.Float64() >= p {
		return true
	}
	s.req.add(now)
	return false
}

// Answered counts a request Admit let go, at its answer (or timeout) at
// now: accepted or not.
func (s *SREThrottle) Answered(now engine.Time, accepted bool) {
	s.req.add(now)
	if accepted {
		s.acc.add(now)
	}
}

func (s *SREThrottle) String() string {
	return fmt.Sprintf("sre (k %g, window %v s)", float64(s.KMilli)/1000, s.Window)
}

// window is the instants of the last Window, oldest first.
type window struct {
	times []engine.Time
	head  int
}

func (w *window) add(t engine.Time) { w.times = append(w.times, t) }

// count returns the instants in (now − width, now].
func (w *window) count(now, width engine.Time) int64 {
	for w.head < len(w.times) && w.times[w.head] <= now-width {
		w.head++
	}
	if w.head > 1024 && w.head*2 > len(w.times) {
		w.times = append(w.times[:0], w.times[w.head:]...)
		w.head = 0
	}
	return int64(len(w.times) - w.head)
}
