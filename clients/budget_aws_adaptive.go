package clients

import (
	"math"

	"github.com/ratesim/ratesim/engine"
)

// AWSAdaptive is the client send-rate limiter of the AWS SDK for Go v2's
// adaptive retry mode (aws-sdk-go-v2 aws/retry/adaptive.go,
// adaptive_ratelimit.go and adaptive_token_bucket.go, 2021 to 2024): a
// token bucket every attempt takes a token from (RequestCost 1), disabled
// until the first throttle error, whose rate follows CUBIC:
//
//   - every answer (or timeout) updates the measured send rate, over
//     half-second buckets: rate = requests/(bucket − last bucket),
//     measured = 0.8·rate + 0.2·measured;
//   - a throttle error sets lastMax = min(measured, fill rate) (measured
//     alone before the bucket is enabled), W = (lastMax·(1 − 0.7)/0.4)^(1/3),
//     the last throttle to now, the rate to 0.7·lastMax, and enables the
//     bucket;
//   - any other answer sets W the same way and the rate to
//     0.4·(t − last throttle − W)³ + lastMax;
//   - the fill rate becomes max(0.5, min(rate, 2·measured)), the bucket's
//     capacity max(1, min(rate, 2·measured)).
//
// An attempt that finds no token waits (amount − tokens)/fill rate and
// asks again (GetAttemptToken). Which answers are throttle errors is the
// caller's: here a server's refusal for overload (a full queue, a
// concurrency limit), not a fault's error, a refused connection or a
// timeout. In adaptive mode the retry quota is the standard one
// ([AWSQuota]) without the +1 per successful attempt (the adaptive mode's
// attempt token is the rate limiter's: GetInitialToken is a no-op). All in
// float64 seconds, as in the source.
type AWSAdaptive struct {
	enabled                                 bool
	fillRate, calculated, measured, lastMax float64
	lastBucket, window                      float64
	requests                                int64
	lastThrottle, lastRefill                engine.Time
	refilled                                bool
	tokens, capacity                        float64
}

// NewAWSAdaptive returns a limiter, disabled, started at 0.
func NewAWSAdaptive() *AWSAdaptive { return &AWSAdaptive{capacity: 0} }

// Acquire asks for one token at now: granted, or the wait before asking
// again (rounded up to the nanosecond, at least 1 ns).
func (a *AWSAdaptive) Acquire(now engine.Time) (bool, engine.Time) {
	if !a.enabled {
		return true, 0
	}
	a.refill(now)
	if 1 > a.tokens {
		w := (1 - a.tokens) / a.fillRate
		return false, max(1, engine.Time(math.Ceil(w*1e9)))
	}
	a.tokens--
	return true, 0
}

func (a *AWSAdaptive) refill(now engine.Time) {
	if !a.refilled {
		a.refilled, a.lastRefill = true, now
		return
	}
	a.tokens = math.Min(a.tokens+(now-a.lastRefill).Seconds()*a.fillRate, a.capacity)
	a.lastRefill = now
}

// Update records an answer at now, a throttle error or not.
func (a *AWSAdaptive) Update(now engine.Time, throttled bool) {
	t := now.Seconds()
	bucket := math.Floor(t*2) / 2
	a.requests++
	if bucket > a.lastBucket {
		rate := float64(a.requests) / (bucket - a.lastBucket)
		a.measured = rate*0.8 + a.measured*0.2
		a.requests, a.lastBucket = 0, bucket
	}
	if throttled {
		use := a.measured
		if a.enabled {
			use = math.Min(a.measured, a.fillRate)
		}
		a.lastMax = use
		a.window = math.Pow(a.lastMax*(1-0.7)/0.4, 1./3.)
		a.lastThrottle = now
		a.calculated = use * 0.7
		a.enabled = true
	} else {
		a.window = math.Pow(a.lastMax*(1-0.7)/0.4, 1./3.)
		a.calculated = 0.4*math.Pow((now-a.lastThrottle).Seconds()-a.window, 3) + a.lastMax
	}
	rate := math.Min(a.calculated, 2*a.measured)
	a.refill(now)
	a.fillRate = math.Max(rate, 0.5)
	a.capacity = math.Max(rate, 1)
	a.tokens = math.Min(a.tokens, a.capacity)
}

func (a *AWSAdaptive) String() string { return "aws-adaptive (CUBIC client send rate)" }

// Enabled reports whether a throttle error has enabled the bucket.
func (a *AWSAdaptive) Enabled() bool { return a.enabled }

// FillRate returns the bucket's fill rate, tokens/s.
func (a *AWSAdaptive) FillRate() float64 { return a.fillRate }

// Measured returns the measured send rate, requests/s.
func (a *AWSAdaptive) Measured() float64 { return a.measured }
