// Package clientstudy runs reacting clients (retries, backoff, budgets,
// deadlines) against one limiter (ratesim clients), as one run or as a
// sweep over their parameters (a [ClientsStudy], an experiments.Model),
// and the studies built on them: Marc Brooker's backoff study
// ([RunBackoffStudy]) and servers that can collapse under overload.
// Limiters are built by package experiments/limiterstudy; distributed
// designs by the [ClientsDesigns] the caller passes (package drl's).
//
// What each part owns, by file:
//
//	clientparams.go        the parameters of a run, as flags and YAML keys (ClientsParams)
//	clients.go             one run of clients against a limiter (ClientsSpec, RunClients)
//	clientstudy.go         the sweep of the parameters (ClientsStudy, ParseClientsStudy)
//	clientfigures.go       figures of a run; clientstudyfigures.go, of a sweep
//	backoff.go             the backoff study (RunBackoffStudy)
//	overload*.go           servers that collapse: parameters, metrics, figures
//	builtin.go             the built-in metastability study (BuiltinSpec, BuiltinNames)
//
// Error messages keep the prefix "experiments:" of the package they came
// from, so that the outputs of ratesim stay the same.
package clientstudy
