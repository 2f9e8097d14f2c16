// Package oracle holds slow reference models for tests: each is written
// the way the model is described in words, one event at a time, in
// math/big rationals of seconds, independently of the exact integer
// models it checks (it keeps an explicit token count where they keep the
// unfinished work of a G/D/1 queue). Nothing but tests and package report
// (ratesim paper, which compares eq. (1) with it in the open) imports it.
package oracle

import "math/big"

// Bucket is a token bucket (r, b) with an explicit token count and an
// explicit queue (FCFS or LIFO). Limit < 0 is an unbounded queue, 0
// polices, q > 0 bounds the queue at q waiting jobs.
type Bucket struct {
	r, b   *big.Rat
	tokens *big.Rat // at tlast
	tlast  *big.Rat
	limit  int
	lifo   bool
	queue  []job
	// Waits maps a job id to its wait in seconds, once known (at once
	// for a job that passes at once, at its grant otherwise).
	Waits map[int64]*big.Rat
	// Grants lists the grant instants, seconds, in time order.
	Grants []*big.Rat
}

type job struct {
	id int64
	at *big.Rat
}

var one = big.NewRat(1, 1)

// NewBucket returns a full bucket of rate r tokens/s and burst b tokens.
func NewBucket(r, b *big.Rat, limit int, lifo bool) *Bucket {
	return &Bucket{r: r, b: b, tokens: new(big.Rat).Set(b), tlast: new(big.Rat), limit: limit, lifo: lifo, Waits: map[int64]*big.Rat{}}
}

// Advance makes every grant due at or before t and refills up to t.
func (o *Bucket) Advance(t *big.Rat) {
	for len(o.queue) > 0 {
		// Tokens are below 1 while a job waits: the next whole token is
		// due (1 - tokens)/r after tlast.
		g := new(big.Rat).Sub(one, o.tokens)
		g.Quo(g, o.r).Add(g, o.tlast)
		if g.Cmp(t) > 0 {
			break
		}
		var j job
		if o.lifo {
			j, o.queue = o.queue[len(o.queue)-1], o.queue[:len(o.queue)-1]
		} else {
			j, o.queue = o.queue[0], o.queue[1:]
		}
		o.Waits[j.id] = new(big.Rat).Sub(g, j.at)
		o.Grants = append(o.Grants, g)
		o.tokens, o.tlast = new(big.Rat), g
	}
	acc := new(big.Rat).Sub(t, o.tlast)
	acc.Mul(acc, o.r).Add(acc, o.tokens)
	if len(o.queue) == 0 && acc.Cmp(o.b) > 0 {
		acc.Set(o.b)
	}
	o.tokens, o.tlast = acc, new(big.Rat).Set(t)
}

// Offer advances to t and returns whether job id at t is admitted.
func (o *Bucket) Offer(t *big.Rat, id int64) bool {
	o.Advance(t)
	if len(o.queue) == 0 && o.tokens.Cmp(one) >= 0 {
		o.tokens = new(big.Rat).Sub(o.tokens, one)
		o.Waits[id] = new(big.Rat)
		return true
	}
	if o.limit == 0 || o.limit > 0 && len(o.queue) >= o.limit {
		return false
	}
	o.queue = append(o.queue, job{id: id, at: new(big.Rat).Set(t)})
	return true
}

// Waiting returns the jobs waiting after the last Advance.
func (o *Bucket) Waiting() int { return len(o.queue) }

// Drain makes every remaining grant.
func (o *Bucket) Drain() { o.Advance(big.NewRat(1<<62, 1)) }

// Accrued returns S(t) = Σ_i min(max(0, t - a_i), d_i) over the jobs with
// known waits and arrivals a_i, the delay accrued by t: the definition,
// summed job by job.
func Accrued(t *big.Rat, arrivals map[int64]*big.Rat, waits map[int64]*big.Rat) *big.Rat {
	s := new(big.Rat)
	for id, a := range arrivals {
		el := new(big.Rat).Sub(t, a)
		if el.Sign() <= 0 {
			continue
		}
		if w := waits[id]; w.Cmp(el) < 0 {
			el = w
		}
		s.Add(s, el)
	}
	return s
}
