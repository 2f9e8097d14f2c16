// Package exact owns the exact arithmetic every decision of ratesim is made
// in: rationals for parameters (rates, bursts, windows given as decimals or
// as p/q) and for the instants limiters compute between two nanoseconds,
// and 128-bit integers for the products of an instant in nanoseconds with a
// limiter's scale.
//
// # Why exact
//
// A token that is due exactly when a job arrives, or a job exactly on a
// window edge, is a tie that real traces are full of (whole seconds,
// millisecond grids, periodic clients). In float64 such a tie is decided by
// the last bit of a rounding: 0.1 + 0.2 > 0.3. ratesim's clock is integer
// nanoseconds ([engine.Time]) and every comparison a model makes is between
// integers or rationals computed without rounding, so every decision equals
// the decision of exact arithmetic. Floating point appears only in what is
// reported (a delay in seconds, rounded once from its exact value) and in
// random draws.
//
// Nothing here reads a clock or allocates on the paths limiters use per job
// ([Int128] arithmetic, [Frac]); parsing and [Rat.Add] and its siblings use
// [math/big] and are meant for parameters.
package exact
