package clients

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
)

// RetryBucket is the retry token bucket of Marc Brooker, [Fixing retries
// with token buckets and circuit breakers] (2022): "If it succeeds, it
// drops part of a token into a limited-size token bucket. If the call
// fails, retry up to N times as long as there are (whole) tokens in the
// bucket": every successful attempt deposits Deposit tokens (0.1 in the
// post), every retry takes one whole token, and the bucket holds at most
// Size tokens. The post fixes neither the size nor the start; here the
// bucket starts full at Size (10 by default). Tokens are kept in
// thousandths, so deposits of up to three decimals are exact.
//
// At a failure rate f well above Deposit/(1 + Deposit) retries are
// limited to about Deposit per success, so the server's work stays near
// 1 + Deposit times the requests ("behaves like 0.1 retries"), where N
// plain retries multiply it by up to 1 + N.
//
// [Fixing retries with token buckets and circuit breakers]: https://brooker.co.za/blog/2022/02/28/retries.html
type RetryBucket struct {
	DepositMilli, SizeMilli int64
	milli                   int64
}

// NewRetryBucket returns a full bucket, or an error unless depositMilli
// > 0 and sizeMilli >= 1000.
func NewRetryBucket(depositMilli, sizeMilli int64) (*RetryBucket, error) {
	if depositMilli <= 0 {
		return nil, fmt.Errorf("clients: bucket deposit %g, want > 0 (at most three decimals)", float64(depositMilli)/1000)
	}
	if sizeMilli < 1000 {
		return nil, fmt.Errorf("clients: bucket size %g, want >= 1 token", float64(sizeMilli)/1000)
	}
	return &RetryBucket{DepositMilli: depositMilli, SizeMilli: sizeMilli, milli: sizeMilli}, nil
}

// Milli returns the tokens left, in thousandths.
func (b *RetryBucket) Milli() int64 { return b.milli }

// Sent does nothing.
func (b *RetryBucket) Sent(engine.Time, bool) {}

// Answered deposits after a success.
func (b *RetryBucket) Answered(_ engine.Time, ok, _ bool, _ int64) {
	if ok {
		b.milli = min(b.SizeMilli, b.milli+b.DepositMilli)
	}
}

// Retry takes a whole token if there is one.
func (b *RetryBucket) Retry(engine.Time, bool) (bool, int64) {
	if b.milli < 1000 {
		return false, 0
	}
	b.milli -= 1000
	return true, 0
}

func (b *RetryBucket) String() string {
	return fmt.Sprintf("bucket (deposit %g per success, 1 per retry, size %g)", float64(b.DepositMilli)/1000, float64(b.SizeMilli)/1000)
}

// RetryBreaker is a circuit breaker on retries only, the alternative in
// the same post of Brooker's: first attempts always go, and a failed
// attempt is retried only while the fraction of failed attempts among
// those answered in the last Window is at most Threshold (thresholds in
// thousandths, so the comparison failures·1000 <= threshold·answered is
// exact). The window is exact: every answer's instant is kept until it is
// Window old (memory O(answers per Window)).
type RetryBreaker struct {
	ThresholdMilli int64
	Window         engine.Time
	times          []engine.Time
	failed         []bool
	head           int
	failures       int64
}

// NewRetryBreaker returns a closed breaker, or an error unless 0 <=
// thresholdMilli <= 1000 and window > 0.
func NewRetryBreaker(thresholdMilli int64, window engine.Time) (*RetryBreaker, error) {
	if thresholdMilli < 0 || thresholdMilli > 1000 {
		return nil, fmt.Errorf("clients: breaker threshold %g, want in [0, 1]", float64(thresholdMilli)/1000)
	}
	if window <= 0 {
		return nil, fmt.Errorf("clients: breaker window %v s, want > 0", window)
	}
	return &RetryBreaker{ThresholdMilli: thresholdMilli, Window: window}, nil
}

func (b *RetryBreaker) expire(now engine.Time) {
	for b.head < len(b.times) && b.times[b.head] <= now-b.Window {
		if b.failed[b.head] {
			b.failures--
		}
		b.head++
	}
	if b.head > 1024 && b.head*2 > len(b.times) {
		b.times, b.failed = append(b.times[:0], b.times[b.head:]...), append(b.failed[:0], b.failed[b.head:]...)
		b.head = 0
	}
}

// Sent does nothing.
func (b *RetryBreaker) Sent(engine.Time, bool) {}

// Answered records the outcome at now.
func (b *RetryBreaker) Answered(now engine.Time, ok, _ bool, _ int64) {
	b.expire(now)
	b.times, b.failed = append(b.times, now), append(b.failed, !ok)
	if !ok {
		b.failures++
	}
}

// Retry reports whether the failure fraction of the window is at most
// the threshold.
func (b *RetryBreaker) Retry(now engine.Time, _ bool) (bool, int64) {
	b.expire(now)
	n := int64(len(b.times) - b.head)
	return b.failures*1000 <= b.ThresholdMilli*n, 0
}

func (b *RetryBreaker) String() string {
	return fmt.Sprintf("breaker (retries while failures <= %g of the answers of the last %v s)", float64(b.ThresholdMilli)/1000, b.Window)
}
