package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// MaxCronClients bounds CronParams.N.
const MaxCronClients = 1 << 40

// MaxCronOpen bounds the boundaries a [Cron] keeps firing at once, about
// Jitter/Period for uniform jitter and Jitter·(1 + ln N)/Period for
// exponential jitter: each is a cursor in memory. [NewCron] refuses
// parameters whose estimate exceeds it, and Next returns an error if a run
// ever holds 4·MaxCronOpen.
const MaxCronOpen = 1 << 20

// CronParams describes synchronized clients: N clients that each fire once
// at every period boundary Offset + k·Period (k = 0, 1, 2, ...), each
// delayed by its own jitter.
type CronParams struct {
	N      int64     // clients, 1 to MaxCronClients
	Period exact.Rat // seconds between boundaries, > 0
	Offset exact.Rat // the first boundary, seconds, >= 0
	// Jitter is J in seconds, finite and >= 0: each firing is delayed by
	// an independent draw, uniform on [0, J] (JitterDist "uniform", the
	// default) or exponential with mean J ("exp"). J = 0 fires all N
	// clients at the same instant. Jitter·(1 + ln N)/Period must be at
	// most MaxCronOpen (the boundaries firing at once).
	Jitter     float64
	JitterDist string
}

// MeanRate returns N/Period jobs/s.
func (p CronParams) MeanRate() float64 { return float64(p.N) / p.Period.Float64() }

// Cron is the process of [CronParams]: synchronized ("cron") bursts. Its
// mean rate is N/Period jobs/s. With Jitter 0 it yields exactly N
// arrivals at each boundary, all at the same instant.
//
// Boundary k is at ceil(Offset + k·Period) nanoseconds, computed exactly
// from k as [Periodic] computes its arrivals (a timer fires at or after
// its deadline; decimal periods are exact). A firing is its boundary plus
// its jitter rounded to the nearest nanosecond once.
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
	g     grid // the boundaries
	exp   bool
	rng   *rand.Rand
	k     int64     // next boundary to open
	cur   []cursor  // open boundaries, a min-heap on (t, k)
	spare [1]cursor // storage for the common case of one open boundary
	err   error     // sticky: a firing beyond the range of engine.Time
}

// cursor is a boundary still firing.
type cursor struct {
	t    engine.Time // next firing
	base engine.Time // the boundary
	x    float64     // jitter of the last firing, seconds
	left int64       // firings still to come, including the one at t
	k    int64       // boundary index
}

// NewCron returns the process of p, drawing jitter from src (which may be
// nil when p.Jitter is 0). Invalid parameters give an error naming the
// parameter.
func NewCron(p CronParams, src rand.Source) (*Cron, error) {
	if p.N < 1 || p.N > MaxCronClients {
		return nil, fmt.Errorf("arrivals: cron n %d is invalid: want 1 to %d clients", p.N, int64(MaxCronClients))
	}
	if p.Period.Sign() <= 0 {
		return nil, fmt.Errorf("arrivals: cron period %s is invalid: want > 0", ratSeconds(p.Period))
	}
	if err := checkNonNegative("cron offset", p.Offset); err != nil {
		return nil, fmt.Errorf("arrivals: %w", err)
	}
	g, err := newGrid(p.Offset, p.Period)
	if err != nil {
		return nil, fmt.Errorf("arrivals: cron period %s with offset %s %w", ratSeconds(p.Period), ratSeconds(p.Offset), err)
	}
	if !(p.Jitter >= 0) || math.IsInf(p.Jitter, 1) {
		return nil, fmt.Errorf("arrivals: cron jitter %g s is invalid: want finite and >= 0", p.Jitter)
	}
	// Boundaries open at once: about J/P for uniform jitter, and for
	// exponential jitter J·H_N/P <= J(1 + ln N)/P, the mean of the largest
	// of N exponentials of mean J over P.
	open := p.Jitter / p.Period.Float64()
	if p.JitterDist == "exp" {
		open *= 1 + math.Log(float64(p.N))
	}
	if !(open <= MaxCronOpen) {
		return nil, fmt.Errorf("arrivals: cron jitter %g s over period %s keeps about %.3g boundaries firing at once, each in memory: want jitter·(1 + ln n)/period <= %d for exp, jitter/period <= %d for uniform",
			p.Jitter, ratSeconds(p.Period), open, MaxCronOpen, MaxCronOpen)
	}
	c := &Cron{p: p, g: g}
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

// advance draws the next firing of cur, the earliest of the cur.left
// firings still to come. It returns false if the firing is beyond the
// range of engine.Time.
func (c *Cron) advance(cur *cursor) bool {
	if c.rng == nil {
		cur.t = cur.base
		return true
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
	t, ok := afterSeconds(cur.base, cur.x)
	cur.t = t
	return ok
}

// Next returns the next arrival. It allocates only when more boundaries
// are firing at once than ever before (never with Jitter < Period and
// uniform jitter, after the first).
//
// Special cases: once a boundary or a firing is beyond the range of
// [engine.Time] (about 292 years), Next returns an error, and so does
// every later call. More than 4·[MaxCronOpen] boundaries firing at once
// is an error too.
func (c *Cron) Next() (Arrival, error) {
	if c.err != nil {
		return Arrival{}, c.err
	}
	// Open every boundary that may fire before the earliest open one.
	for {
		base, ok := c.g.at(c.k)
		if !ok || c.k == math.MaxInt64 {
			if len(c.cur) > 0 {
				break // boundary k is later than every open firing
			}
			c.err = fmt.Errorf("arrivals: cron boundary %d at %s + %d·%s is beyond the range of engine.Time (about 292 years)",
				c.k, ratSeconds(c.p.Offset), c.k, ratSeconds(c.p.Period))
			return Arrival{}, c.err
		}
		if len(c.cur) > 0 && base > c.cur[0].t {
			break
		}
		if len(c.cur) >= 4*MaxCronOpen {
			return Arrival{}, fmt.Errorf("arrivals: cron has %d boundaries firing at once (jitter %g s, period %s): more than 4·%d",
				len(c.cur), c.p.Jitter, ratSeconds(c.p.Period), MaxCronOpen)
		}
		cur := cursor{base: base, left: c.p.N, k: c.k}
		if !c.advance(&cur) {
			c.err = c.rangeError(cur)
			return Arrival{}, c.err
		}
		c.cur = append(c.cur, cur)
		c.up(len(c.cur) - 1)
		c.k++
	}
	top := &c.cur[0]
	t := top.t
	if top.left == 1 {
		last := len(c.cur) - 1
		c.cur[0] = c.cur[last]
		c.cur = c.cur[:last]
	} else {
		top.left--
		if !c.advance(top) {
			c.err = c.rangeError(*top) // after this arrival
		}
	}
	c.down(0)
	return Arrival{T: t, Sub: -1}, nil
}

// rangeError is the error of a firing beyond the range of engine.Time.
func (c *Cron) rangeError(cur cursor) error {
	return fmt.Errorf("arrivals: cron firing at boundary %v s + jitter %g s is beyond the range of engine.Time (about 292 years)", cur.base, cur.x)
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
