package clients

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// AWSQuota is the retry quota of the AWS SDK for Go v2's standard retryer
// (aws-sdk-go-v2, aws/retry/standard.go, aws/retry/middleware.go and
// aws/ratelimit/token_bucket.go, token_rate_limit.go, as of 2024): one
// token bucket shared by every request of a client,
//
//   - starting full at Capacity tokens (DefaultRetryRateTokens 500);
//   - a retry takes RetryCost tokens (DefaultRetryCost 5), or TimeoutCost
//     (DefaultRetryTimeoutCost 10) when the failure was a timeout, and is
//     refused when fewer are left (TokenBucket.Retrieve: the quota would
//     go negative), which fails the request ("retry quota exceeded");
//   - every successful attempt adds NoRetryIncrement (1) back (the attempt
//     token released without error, middleware.go handleAttempt), and a
//     successful retry also refunds the cost it took (the retry token
//     released without error); the quota never exceeds Capacity
//     (TokenBucket.Refund).
//
// The SDK's retry is asked for after its max-attempts check (3 attempts,
// DefaultMaxAttempts), so a request's last failure takes nothing. With
// every attempt failing, a full quota grants exactly Capacity/RetryCost
// retries (500/5 = 100) and nothing refills it.
//
// The zero value is not usable; create one with [NewAWSQuota].
type AWSQuota struct {
	Capacity, RetryCost, TimeoutCost, NoRetryIncrement int64
	tokens                                             int64
}

// NewAWSQuota returns a full quota with the SDK's defaults: capacity 500,
// retry cost 5, timeout cost 10, increment 1.
func NewAWSQuota() *AWSQuota {
	return &AWSQuota{Capacity: 500, RetryCost: 5, TimeoutCost: 10, NoRetryIncrement: 1, tokens: 500}
}

// Tokens returns the tokens left.
func (q *AWSQuota) Tokens() int64 { return q.tokens }

// Sent does nothing: the quota counts outcomes.
func (q *AWSQuota) Sent(engine.Time, bool) {}

// Answered adds the increment and refunds held after a success.
func (q *AWSQuota) Answered(_ engine.Time, ok, _ bool, held int64) {
	if ok {
		q.tokens = min(q.Capacity, q.tokens+held+q.NoRetryIncrement)
	}
}

// Retry takes the retry's cost if the quota holds it.
func (q *AWSQuota) Retry(_ engine.Time, timeout bool) (bool, int64) {
	cost := q.RetryCost
	if timeout {
		cost = q.TimeoutCost
	}
	if q.tokens < cost {
		return false, 0
	}
	q.tokens -= cost
	return true, cost
}

func (q *AWSQuota) String() string {
	return fmt.Sprintf("aws (quota %d, retry cost %d, timeout cost %d, +%d per success)", q.Capacity, q.RetryCost, q.TimeoutCost, q.NoRetryIncrement)
}

// AWSBackoff is the AWS SDK for Go v2's default backoff
// (ExponentialJitterBackoff, aws/retry/jitter_backoff.go): after the n-th
// failed attempt it sleeps
//
//	Cap                          if n > floor(log2(Cap / 1 s))
//	uniform on [0, 2^n s)        otherwise
//
// with Cap DefaultMaxBackoff = 20 s; a base of one second, full jitter.
type AWSBackoff struct {
	Cap engine.Time // ns, >= 1 s
}

// Sleep draws the SDK's sleep after f.N failed attempts.
func (b AWSBackoff) Sleep(f Failure, r *rand.Rand) engine.Time {
	// floor(log2(Cap/1 s)) by integer doubling: the largest k with 2^k s <= Cap.
	k := 0
	for p := engine.Time(2e9); p <= b.Cap; p *= 2 {
		k++
	}
	if f.N > k {
		return b.Cap
	}
	return uniform(r, 0, engine.Time(1e9)<<f.N)
}

// Validate returns an error unless Cap >= 1 s.
func (b AWSBackoff) Validate() error {
	if b.Cap < 1e9 {
		return fmt.Errorf("clients: AWS backoff cap %v s < 1 s", b.Cap)
	}
	return nil
}
