package buckets

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/compensated"
)

// unitRoundoff is u = 2^-53, the relative rounding error of one float64
// operation.
const unitRoundoff = 0x1p-53

// Violation is an event at which the check failed. Values of an exact
// model are converted to float64 (ticks for instants and delays).
type Violation struct {
	Lemma     bool        // false: Theorem 2 (S <= S^(k)) failed; true: Lemma 1 failed
	At        engine.Time // instant of the event, seconds
	S         float64     // accrued delay of the one-bucket system, seconds
	SSplit    float64     // accrued delay of the split system, seconds
	N         int         // waiting jobs in the one-bucket system
	NSplit    int         // waiting jobs in the split system, Σ N_l
	Work      float64     // r·U(t), tokens
	WorkSplit float64     // Σ r_l·U_l(t), tokens
	Tolerance float64     // the rounding bound the excess exceeded (seconds, or tokens for Lemma 1)
}

func (v Violation) String() string {
	if v.Lemma {
		return fmt.Sprintf("Lemma 1 violated at t = %.17g s: r·U = %.17g > Σ r_l·U_l = %.17g tokens (tolerance %.3g)",
			float64(v.At), v.Work, v.WorkSplit, v.Tolerance)
	}
	return fmt.Sprintf("Theorem 2 violated at t = %.17g s: S = %.17g s > S^(k) = %.17g s (tolerance %.3g s); N = %d, Σ N_l = %d",
		float64(v.At), v.S, v.SSplit, v.Tolerance, v.N, v.NSplit)
}

// Checker verifies, event by event, Theorem 2 of R. Guérin, "When Two is
// Worse Than One" (2019), S(t) <= S^(k)(t), and Lemma 1 in work units,
// r·U(t) <= Σ_l r_l·U_l(t), for a one-bucket system and a split system fed
// the same arrivals.
//
// S and S^(k) are piecewise linear, with slopes N(t) and Σ N_l(t) that change
// only at events (arrivals and token grants of either system), so checking
// at every event checks every instant.
//
// # Rounding
//
// S is integrated with compensated summation ([compensated.Sum]) as
// Σ N·(t_j - t_{j-1}). With u = 2^-53, the computed S differs from the
// exact S of the computed event instants by at most 3u·S (u·S from the
// subtractions, 2u·S from the summation). Each grant instant D is computed
// as B + (m - n - b)·(1/r) with an error of at most 4u·(D + b/r) (B is an
// exact input instant; see [TokenBucket]), and a waiting job's accrued delay
// inherits that error once. A violation of Theorem 2 is reported only when
//
//	S - S^(k) > 3u·(S + S^(k)) + Σ_grants 8u·(D + b_x/r_x)
//
// the sum running over every grant made so far in either system (the factor
// 8 doubles the bound to cover second-order terms). Lemma 1 is reported only
// when r·U - Σ r_l·U_l > 16u·(r·t + r·U + Σ r_l·U_l + 1) tokens, which
// bounds the rounding of m - (t - B)·r in each bucket. Both tolerances are
// validated against exact rational arithmetic in the tests.
//
// For an exact model (T = [Tick]) every quantity is an integer, S is exact,
// and both inequalities are checked with no tolerance.
//
// [Check] is the float64 form. The zero value is not usable; create one
// with [NewCheck] or [NewChecker].
type Checker[T Number] struct {
	s, sk     compensated.Sum[T]
	exact     bool    // T is an integer type: no tolerance
	roundoff  float64 // Σ over grants of 8u·(D + b/r), seconds
	rate      float64 // rate scale for the Lemma 1 tolerance, tokens/s
	last      T
	n, nk     int
	events    uint64
	violS     uint64
	violL     uint64
	maxExcess T
	maxAt     T
	seen      bool // an event has been observed (maxExcess is set)
	first     Violation
	failed    bool
}

// NewCheck returns a float64 check for systems whose larger total rate is
// rate tokens/s (it scales the Lemma 1 tolerance).
func NewCheck(rate float64) *Check { return NewChecker[engine.Time](rate) }

// NewChecker returns a check in the arithmetic T. rate (tokens/s) scales the
// Lemma 1 tolerance of a float64 check and is ignored by an exact one.
func NewChecker[T Number](rate float64) *Checker[T] {
	return &Checker[T]{rate: rate, exact: !isFloat[T]()}
}

// Grant records that a token was granted at instant at by a bucket with
// b/r = burstOverRate seconds, adding that grant's rounding to the float64
// tolerance.
func (c *Checker[T]) Grant(at T, burstOverRate float64) {
	if !c.exact {
		c.roundoff += 8 * unitRoundoff * (float64(at) + burstOverRate)
	}
}

// Observe is called after every event at instant t (non-decreasing), with
// the waiting jobs n of the one-bucket system and nk = Σ N_l of the split
// system after the event, and the unfinished work of each system in tokens.
// It integrates S and S^(k) up to t and checks both inequalities.
func (c *Checker[T]) Observe(t T, n, nk int, work, workSplit T) {
	if dt := t - c.last; dt > 0 {
		c.s.Add(T(c.n) * dt)
		c.sk.Add(T(c.nk) * dt)
	}
	c.last, c.n, c.nk = t, n, nk
	c.events++

	s, sk := c.s.Value(), c.sk.Value()
	if ex := s - sk; !c.seen || ex > c.maxExcess {
		c.maxExcess, c.maxAt, c.seen = ex, t, true
	}
	if s > sk {
		tol := 0.0
		if !c.exact {
			tol = 3*unitRoundoff*float64(s+sk) + c.roundoff
		}
		if float64(s-sk) > tol {
			c.violS++
			c.record(c.violation(false, t, n, nk, work, workSplit, tol))
		}
	}
	if work > workSplit {
		tol := 0.0
		if !c.exact {
			tol = 16 * unitRoundoff * (c.rate*float64(t) + float64(work+workSplit) + 1)
		}
		if float64(work-workSplit) > tol {
			c.violL++
			c.record(c.violation(true, t, n, nk, work, workSplit, tol))
		}
	}
}

func (c *Checker[T]) violation(lemma bool, t T, n, nk int, work, workSplit T, tol float64) Violation {
	return Violation{Lemma: lemma, At: engine.Time(t), S: float64(c.s.Value()), SSplit: float64(c.sk.Value()),
		N: n, NSplit: nk, Work: float64(work), WorkSplit: float64(workSplit), Tolerance: tol}
}

// Tolerance returns the current rounding bound of Theorem 2 for a float64
// check, 3u·(S + S^(k)) + Σ_grants 8u·(D + b/r) seconds, and 0 for an exact
// one.
func (c *Checker[T]) Tolerance() float64 {
	if c.exact {
		return 0
	}
	return 3*unitRoundoff*float64(c.s.Value()+c.sk.Value()) + c.roundoff
}

func (c *Checker[T]) record(v Violation) {
	if !c.failed {
		c.first, c.failed = v, true
	}
}

// S returns the accrued delay S(t) of the one-bucket system at the last
// observed instant, seconds.
func (c *Checker[T]) S() T { return c.s.Value() }

// SSplit returns the accrued delay S^(k)(t) of the split system at the last
// observed instant, seconds.
func (c *Checker[T]) SSplit() T { return c.sk.Value() }

// Events returns the number of events checked.
func (c *Checker[T]) Events() uint64 { return c.events }

// Violations returns the number of events at which Theorem 2 failed.
func (c *Checker[T]) Violations() uint64 { return c.violS }

// LemmaViolations returns the number of events at which Lemma 1 failed.
func (c *Checker[T]) LemmaViolations() uint64 { return c.violL }

// MaxExcess returns the largest S(t) - S^(k)(t) seen at an event, in seconds,
// and the instant it was seen (0 and 0 before any event).
func (c *Checker[T]) MaxExcess() (T, T) { return c.maxExcess, c.maxAt }

// First returns the first violation and true, or false if none occurred.
func (c *Checker[T]) First() (Violation, bool) { return c.first, c.failed }
