// Package layers holds the test that the import arrows of ratesim run
// downward only (shared/design.md):
//
//	cmd/ratesim
//	  -> report                            (the note's reproduction)
//	  -> experiments/drlstudy              (the drl study)
//	  -> drl, experiments/clientstudy      (distributed designs; reacting clients, the backoff
//	                                        and overload studies)
//	  -> experiments/verify,               (the counterexample search;
//	     experiments/limiterstudy,          the limiters, one path from a name to a limiter;
//	     experiments/splitstudy             the split study: runs, sweeps, results, figures)
//	  -> experiments                       (runs from specs, statistics, results)
//	  -> systems, arrivals, plots, profiles, clients
//	  -> buckets, netcalc                  (the limiters; arrival and service curves)
//	  -> engine, exact, internal/...       (clock and events, exact numbers, utilities)
//
// A package imports only packages of lower layers (tests may import
// anything), the packages of one layer do not import one another, and
// engine imports nothing of ours. A new package gets its layer in the
// table of layers_test.go.
package layers
