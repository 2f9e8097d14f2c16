package clients

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
)

// FinagleBudget is Finagle's default retry budget (twitter/finagle
// finagle-core/src/main/scala/com/twitter/finagle/service/RetryBudget.scala,
// RetryBudget.apply, and the leaky TokenBucket of twitter/util util-core
// com/twitter/util/TokenBucket.scala, newLeakyBucket; 2017 to 2024):
// retries may be about Percent of the requests of the last TTL, plus a
// reserve of MinPerSecond retries per second. In the source's integers
// (ScaleFactor 1000):
//
//	deposit    = 1000                        (each request's first attempt)
//	withdrawal = floor(1000 / percent)       (each retry; percent a fraction)
//	reserve    = minRetriesPerSec · floor(ttl in s) · withdrawal
//	balance    = reserve + the sum of deposits and withdrawals of the last ttl
//
// and a retry is granted, and withdraws, when balance >= withdrawal. The
// window is util's WindowedAdder over ttl in 10 slices: a deposit counts
// while its slice is one of the 10 most recent (the current one
// included), so it expires between 0.9·ttl and ttl after it was made.
// With percent 0 there is no deposit and a retry costs 1; with both 0
// nothing is ever retried (RetryBudget.Empty).
//
// The zero value is not usable; create one with [NewFinagleBudget].
type FinagleBudget struct {
	Deposit, Withdrawal, Reserve int64
	TTL                          engine.Time // ns
	slice                        engine.Time // TTL/10, ns
	sums                         [10]int64   // by slice index mod 10
	cur                          int64       // index of the newest slice written
	empty                        bool
}

// NewFinagleBudget returns a budget of percent (a fraction in [0, 1000]
// given as per-mille: percent 20% is 200), minPerSec retries per second
// (>= 0) over ttl (1 s to 60 s, as Finagle requires), or an error.
func NewFinagleBudget(permille, minPerSec int64, ttl engine.Time) (*FinagleBudget, error) {
	if ttl < 1e9 || ttl > 60e9 {
		return nil, fmt.Errorf("clients: finagle window %v s, want 1 s to 60 s", ttl)
	}
	if permille < 0 || permille > 1_000_000 {
		return nil, fmt.Errorf("clients: finagle percent %g%%, want 0 to 100000%%", float64(permille)/10)
	}
	if minPerSec < 0 {
		return nil, fmt.Errorf("clients: finagle min_per_s %d < 0", minPerSec)
	}
	b := &FinagleBudget{TTL: ttl, slice: ttl / 10}
	if permille == 0 && minPerSec == 0 {
		b.empty = true
		return b, nil
	}
	b.Withdrawal = 1
	if permille > 0 {
		// ScaleFactor/percentCanRetry, truncated: 1000/(permille/1000).
		b.Deposit, b.Withdrawal = 1000, 1_000_000/permille
	}
	b.Reserve = minPerSec * int64(ttl/1e9) * b.Withdrawal
	return b, nil
}

// roll moves the window to the slice of now, clearing expired slices.
func (b *FinagleBudget) roll(now engine.Time) {
	k := int64(now / b.slice)
	if k-b.cur >= 10 {
		b.sums = [10]int64{}
	} else {
		for i := b.cur + 1; i <= k; i++ {
			b.sums[i%10] = 0
		}
	}
	b.cur = max(b.cur, k)
}

// Balance returns reserve plus the window's sum at now.
func (b *FinagleBudget) Balance(now engine.Time) int64 {
	b.roll(now)
	s := b.Reserve
	for _, x := range b.sums {
		s += x
	}
	return s
}

// Sent deposits for a request's first attempt.
func (b *FinagleBudget) Sent(now engine.Time, retry bool) {
	if !retry && !b.empty {
		b.roll(now)
		b.sums[b.cur%10] += b.Deposit
	}
}

// Answered does nothing: Finagle's budget counts requests, not outcomes.
func (b *FinagleBudget) Answered(engine.Time, bool, bool, int64) {}

// Retry withdraws when the balance holds a withdrawal.
func (b *FinagleBudget) Retry(now engine.Time, _ bool) (bool, int64) {
	if b.empty || b.Balance(now) < b.Withdrawal {
		return false, 0
	}
	b.sums[b.cur%10] -= b.Withdrawal
	return true, 0
}

func (b *FinagleBudget) String() string {
	return fmt.Sprintf("finagle (deposit %d, withdrawal %d, reserve %d over %v s)", b.Deposit, b.Withdrawal, b.Reserve, b.TTL)
}
