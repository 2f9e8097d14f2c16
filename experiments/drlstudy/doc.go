// Package drlstudy is the study of the distributed rate-limiting designs
// of package drl: the parameters as a user writes them, comparisons of
// the designs on the same arrivals, sweeps over their parameters, and the
// figures of both.
//
// # Parameters, comparisons and sweeps
//
// Params holds the parameters as a user writes them (ratesim drl's flags,
// the drl block of a sweep spec) and Params.Spec is their one parser;
// Params.Run runs the chosen designs on the same arrivals (built by
// experiments.BuildArrivals) and summarises each, and Figures draws them.
// A Study (ParseStudy, NewStudy) is a grid of Params over any parameter;
// it is an experiments.Model, so experiments.RunModel runs it with
// independent replications, workers and shards, and SweepFigures draws the
// overshoot and mean delay of each design against the first numeric axis
// from its results table.
package drlstudy
