// Package buckets owns the limiters and the systems compared by ratesim: the
// token bucket in shaping mode, the split system of k sub-buckets with its
// dispatch policies, and the event-by-event check of Theorem 2 and Lemma 1
// of R. Guérin, "When Two is Worse Than One" (2019).
//
// A limiter is state plus a rule: time is passed in as an argument, never
// read from a clock.
package buckets
