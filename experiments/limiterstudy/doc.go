// Package limiterstudy compares the limiter family on one arrival stream
// (ratesim limiters) and holds the one path from a limiter's name and
// parameters to a buckets.Limiter ([NewLimiter] from [Params]), which the
// clients study (package experiments/clientstudy) and drl's store build
// their limiters through.
//
// What each part owns, by file:
//
//	params.go          the matched parameters of the family and the one path from a
//	                   name to a limiter (Params, NewLimiter, LimiterError)
//	family.go          the limiter family: one registration per limiter (constructor,
//	                   description, promise, response curve, figure attributes)
//	limiters.go        the limiters comparison on one arrival stream: matched parameters,
//	                   keyed runs, empirical arrival curves α*(d) against promises
//	                   (LimitersSpec, RunLimiters)
//	result.go          what each limiter did: counts, α*(d) against its promise, exact
//	                   overshoots, per-key outcomes (LimitersResult, LimiterResult)
//	limiterfigures.go  figures of a limiters run
//	downstream.go      the network-calculus bounds of what a limiter passes to a
//	                   rate-latency server (Downstream, PromiseCurve)
//	profilecurves.go   library profiles: their exact arrival curves, the measurement
//	                   period of profiles alone, burst sizing (ProfileCurves, SizeBursts)
//	profilecolours.go  the colours a three-colour marker (srtcm, trtcm) gave the jobs
//
// Error messages keep the prefix "experiments:" of the package they came
// from, so that the outputs of ratesim stay the same.
package limiterstudy
