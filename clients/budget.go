package clients

import "github.com/ratesim/ratesim/engine"

// A RetryBudget decides, across all the requests of a client population,
// whether a failed attempt may be retried: the client-side mechanisms
// that stop retries from amplifying an overload (AWS SDK retry quota,
// gRPC retry throttling, Finagle retry budgets, Brooker's retry token
// bucket, a circuit breaker on retries).
//
// The client calls, at the instants they happen: Sent for every attempt
// it sends (retry false for a request's first attempt); Answered for
// every attempt's outcome (ok, or a failure, timeout telling whether it
// was the client's timeout), with held the amount the request holds from
// its last granted retry (0 after a first attempt); and Retry when a
// failed request still has attempts left, which reports whether the retry
// may go and what the request then holds (refunded by Answered on a
// success where the source does so). A refused retry fails the request.
// Implementations keep state in integers (tokens scaled as their source
// scales them) so that every decision is exact.
type RetryBudget interface {
	Sent(now engine.Time, retry bool)
	Answered(now engine.Time, ok, timeout bool, held int64)
	Retry(now engine.Time, timeout bool) (ok bool, held int64)
	String() string
}
