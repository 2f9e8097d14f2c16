// Package experiments owns runs: it builds the one-bucket and split systems
// from a specification, drives them with an arrival process, collects the
// delay statistics (streaming DDSketch quantiles, compensated sums) and the
// result of the theorem check, and writes results whole or not at all.
package experiments
