package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// promiseCheck decides exactly whether a key's admitted stream keeps the
// promise α(d) <= B + R·d at every interval length d, not only at the
// lengths the overshoot samples: it feeds the stream's instants, in
// order, to a shaping bucket (R, B), full at the start, and counts the
// jobs it would delay and their longest delay (the note's eq. (1) by the
// Lindley recursion, exact). A stream conforms to the arrival curve
// γ(R, B) exactly when that bucket delays none of it (J.-Y. Le Boudec and
// P. Thiran, Network Calculus, 2001, section 1.5: a greedy shaper's output
// is its input when the input is γ-smooth); its first
// delayed job ends the first interval [s, t] holding more than
// B + R·(t - s) jobs. It also measures the stream's exact overshoot
// against γ(R, B) (netcalc.OvershootMeter): the supremum over every
// length d of α*(d) − (B + R·d) and of α*(d)/(B + R·d), so that the
// bucket delays a job exactly when the excess is above 0 and the ratio
// above 1. Memory: one bucket and the meter's hull per key.
type promiseCheck struct {
	b     *buckets.TokenBucket
	jobs  int64        // jobs the bucket delays
	max   exact.Int128 // their longest delay, in units of 1/Scale() ns
	err   error
	first engine.Time // the instant of the first delayed job
	meter *netcalc.OvershootMeter
}

func newPromiseCheck(p buckets.Params) *promiseCheck {
	b, err := buckets.NewTokenBucket(p)
	c := &promiseCheck{b: b, err: err}
	if err == nil {
		c.meter, c.err = netcalc.NewOvershootMeter(netcalc.TokenBucket{Rate: p.Rate, Burst: p.Burst})
	}
	return c
}

// add feeds the instant x, at or after every earlier one.
func (c *promiseCheck) add(x engine.Time) {
	if c.err != nil {
		return
	}
	if err := c.meter.Add(x); err != nil {
		c.err = fmt.Errorf("drl: the overshoot of a key's admitted stream: %w", err)
		return
	}
	w, ok := c.b.AdmitFCFS(x, exact.Mul64(int64(x), c.b.Scale()))
	if !ok {
		c.err = fmt.Errorf("drl: the promise check of an admitted job at %d ns needs a token beyond the clock's range: %w", x, ErrSpec)
		return
	}
	if w.Sign() > 0 {
		if c.jobs == 0 {
			c.first = x
		}
		c.jobs++
		if c.max.Less(w) {
			c.max = w
		}
	}
}

// maxDelay returns the longest delay, seconds.
func (c *promiseCheck) maxDelay() float64 {
	return exact.Frac(c.max, c.b.Scale()).Float64() / 1e9
}
