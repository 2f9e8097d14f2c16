package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// MaxCronClients bounds CronParams.N.
const MaxCronClients = 1 << 40

// CronParams describes synchronized clients: N clients that each fire once
// at every period boundary Offset + k·Period (k = 0, 1, 2, ...), each
// delayed by its own jitter.
type CronParams struct {
	N      int64   // clients, 1 to MaxCronClients
	Period float64 // seconds between boundaries, finite and > 0
	Offset float64 // the first boundary, seconds, finite and >= 0
	// Jitter is J in seconds, finite and >= 0: each firing is delayed by
	// an independent draw, uniform on [0, J] (JitterDist "uniform", the
	// default) or exponential with mean J ("exp"). J = 0 fires all N
	// clients at the same instant.
	Jitter     float64
	JitterDist string
}

// MeanRate returns N/Period jobs/s.
func (p CronParams) MeanRate() float64 { return float64(p.N) / p.Period }

// Cron is the process of [CronParams]: synchronized ("cron") bursts. Its
// mean rate is N/Period jobs/s. With Jitter 0 it yields exactly N
// arrivals at each boundary, all at the same instant.
//
// The N firings of a boundary are produced in time order without storing
// them, as order statistics drawn one after another: for uniform jitter,
// the next of m remaining points on [x, J] is x + (J - x)(1 - V^(1/m));
// for exponential jitter, the spacings of the order statistics are
// independent exponentials of mean J/m (A. Rényi, "On the theory of order
// statistics", 1953; L. Devroye, [Non-Uniform Random Variate Generation],
// 1986, V.3). Boundaries whose firings overlap (J near or above Period)
// are merged by a small heap, so memory grows only with the number of
// boundaries still firing. Arrivals have Key 0, Sub -1 and Line 0. The
// process is infinite.
//
// [Non-Uniform Random Variate Generation]: https://luc.devroye.org/rnbookindex.html
type Cron struct {
	p     CronParams
	exp   bool
	rng   *rand.Rand
	k     int64     // next boundary to open
	cur   []cursor  // open boundaries, a min-heap on (t, k)
	spare [1]cursor // storage for the common case of one open boundary
}

// cursor is a boundary still firing.
type cursor struct {
	t    float64 // next firing, seconds
	base float64 // the boundary, seconds
	x    float64 // jitter of the last firing, seconds
	left int64   // firings still to come, including the one at t
	k    int64   // boundary index
}

// NewCron returns the process of p, drawing jitter from src (which may be
// nil when p.Jitter is 0). Invalid parameters give an error naming the
// parameter.
func NewCron(p CronParams, src rand.Source) (*Cron, error) {
	if p.N < 1 || p.N > MaxCronClients {
		return nil, fmt.Errorf("arrivals: cron n %d is invalid: want 1 to %d clients", p.N, int64(MaxCronClients))
	}
	if !(p.Period > 0) || math.IsInf(p.Period, 1) {
		return nil, fmt.Errorf("arrivals: cron period %g s is invalid: want finite and > 0", p.Period)
	}
	if !(p.Offset >= 0) || math.IsInf(p.Offset, 1) {
		return nil, fmt.Errorf("arrivals: cron offset %g s is invalid: want finite and >= 0", p.Offset)
	}
	if !(p.Jitter >= 0) || math.IsInf(p.Jitter, 1) {
		return nil, fmt.Errorf("arrivals: cron jitter %g s is invalid: want finite and >= 0", p.Jitter)
	}
	c := &Cron{p: p}
	switch p.JitterDist {
	case "", "uniform":
		c.p.JitterDist = "uniform"
	case "exp":
		c.exp = true
	default:
		return nil, fmt.Errorf("arrivals: cron jitter dist %q is invalid: want uniform or exp", p.JitterDist)
	}
	if p.Jitter > 0 {
		if src == nil {
			return nil, fmt.Errorf("arrivals: cron random source is nil (needed for jitter %g s)", p.Jitter)
		}
		c.rng = rand.New(src)
	}
	c.cur = c.spare[:0]
	return c, nil
}

// Params returns the parameters, with the defaults filled in.
func (c *Cron) Params() CronParams { return c.p }

// boundary returns the instant of boundary k, with one rounding.
func (c *Cron) boundary(k int64) float64 {
	return math.FMA(float64(k), c.p.Period, c.p.Offset)
}

// advance draws the next firing of cur, the earliest of the cur.left
// firings still to come.
func (c *Cron) advance(cur *cursor) {
	if c.rng == nil {
		cur.t = cur.base
		return
	}
	m := float64(cur.left)
	if c.exp {
		cur.x += c.p.Jitter * c.rng.ExpFloat64() / m
	} else {
		// x + (J - x)(1 - V^(1/m)), with 1 - V^(1/m) = -expm1(ln V / m).
		v := 1 - c.rng.Float64() // (0, 1]
		cur.x += (c.p.Jitter - cur.x) * -math.Expm1(math.Log(v)/m)
		cur.x = min(cur.x, c.p.Jitter)
	}
	cur.t = cur.base + cur.x
}

// Next returns the next arrival. It allocates only when more boundaries
// are firing at once than ever before (never with Jitter < Period and
// uniform jitter, after the first).
//
// Special cases: once a boundary overflows to +Inf, Next returns an error.
func (c *Cron) Next() (Arrival, error) {
	// Open every boundary that may fire before the earliest open one.
	for len(c.cur) == 0 || c.boundary(c.k) <= c.cur[0].t {
		base := c.boundary(c.k)
		if math.IsInf(base, 1) {
			return Arrival{}, fmt.Errorf("arrivals: cron boundary %d overflowed: %g s + %d·%g s is +Inf", c.k, c.p.Offset, c.k, c.p.Period)
		}
		cur := cursor{base: base, left: c.p.N, k: c.k}
		c.advance(&cur)
		c.cur = append(c.cur, cur)
		c.up(len(c.cur) - 1)
		c.k++
	}
	top := &c.cur[0]
	t := top.t
	top.left--
	if top.left == 0 {
		last := len(c.cur) - 1
		c.cur[0] = c.cur[last]
		c.cur = c.cur[:last]
	} else {
		c.advance(top)
	}
	c.down(0)
	return Arrival{T: engine.Time(t), Sub: -1}, nil
}

func (c *Cron) less(i, j int) bool {
	a, b := &c.cur[i], &c.cur[j]
	return a.t < b.t || a.t == b.t && a.k < b.k
}

func (c *Cron) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.less(i, p) {
			return
		}
		c.cur[i], c.cur[p] = c.cur[p], c.cur[i]
		i = p
	}
}

func (c *Cron) down(i int) {
	n := len(c.cur)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && c.less(r, l) {
			m = r
		}
		if !c.less(m, i) {
			return
		}
		c.cur[i], c.cur[m] = c.cur[m], c.cur[i]
		i = m
	}
}
