// Package systems owns systems of limiters and their comparison: a
// [System] is k limiters of any kind (package buckets) behind a
// [Dispatcher]; a [Pair] offers the same jobs to two systems and compares
// them; and when both are token-bucket systems (one bucket against a split
// of it), a [Check] verifies Theorem 2 and Lemma 1 of R. Guérin, "When Two
// is Worse Than One" (2019) at every instant, exactly.
//
// # Two drivers, one model
//
// A system is driven in one of two ways, by the same code: [Run] pulls
// jobs from a source in a plain loop and makes the releases of queued jobs
// in time order between arrivals (the fast path: with first-come
// first-served token buckets nothing is ever queued, and a job's delay is
// known at its arrival); [Drive] puts the same systems on an engine.Sim,
// where arrivals and releases are events, next to other timed components
// (retrying clients, reconciliation timers). Neither holds model code of
// its own: both call [Pair.Offer] and [System.Release].
//
// # The check
//
// S(t) and S^(k)(t) are piecewise linear in t and each token bucket keeps
// its equivalent G/D/1 queue in closed form (buckets.GD1), so the check
// evaluates S^(k) - S only where it can reach a minimum (at the one
// bucket's grants and at arrivals) and r·U - Σ r_l·U_l only where it can
// reach a maximum (at arrivals and where a sub-bucket's queue empties), in
// exact integer units; between arrivals a certificate, S^(k)(t_0) >= S(t_1),
// proves most intervals without visiting them. Every instant is covered;
// no tolerance is needed.
package systems
