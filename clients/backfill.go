package clients

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// BackfillParams describes a backfill that paces itself to a fraction of
// the downstream's capacity and adjusts the fraction from the latency the
// live traffic sees downstream: additive increase while the live traffic's
// mean queueing delay over the last control interval is at or under
// Target, multiplicative decrease when it is over (AIMD, as TCP congestion
// avoidance; V. Jacobson, "Congestion Avoidance and Control", SIGCOMM
// 1988). With Min = Initial = Max the fraction is fixed.
type BackfillParams struct {
	// Capacity is the downstream's capacity μ in requests/s, > 0.
	Capacity exact.Rat
	// Initial, Min and Max are fractions of Capacity:
	// 0 < Min <= Initial <= Max <= 1.
	Initial, Min, Max float64
	// Increase is added to the fraction after an interval at or under
	// target, >= 0.
	Increase float64
	// Decrease multiplies the fraction after an interval over target, in
	// (0, 1].
	Decrease float64
	// Target is the live traffic's mean queueing delay downstream, ns,
	// >= 0, over which the backfill slows down.
	Target engine.Time
	// Interval is the control period, ns, > 0.
	Interval engine.Time
	// Live is the downstream class whose delay is watched (the
	// foreground's [RetryPolicy].Class); Class is the backfill's own.
	Live, Class int
	// Jitter and MaxAttempts are the pacer's (see [PaceParams]).
	Jitter      engine.Time
	MaxAttempts int
}

// Validate returns an error naming the first invalid field, or nil.
func (p BackfillParams) Validate() error {
	switch {
	case p.Capacity.Sign() <= 0:
		return fmt.Errorf("clients: backfill capacity %v requests/s <= 0", p.Capacity)
	case !(p.Min > 0 && p.Min <= p.Initial && p.Initial <= p.Max && p.Max <= 1):
		return fmt.Errorf("clients: backfill fractions min %v, initial %v, max %v, want 0 < min <= initial <= max <= 1", p.Min, p.Initial, p.Max)
	case !(p.Increase >= 0) || math.IsInf(p.Increase, 0):
		return fmt.Errorf("clients: backfill increase %v, want finite and >= 0", p.Increase)
	case !(p.Decrease > 0 && p.Decrease <= 1):
		return fmt.Errorf("clients: backfill decrease %v, want in (0, 1]", p.Decrease)
	case p.Target < 0:
		return fmt.Errorf("clients: backfill latency target %v s < 0", p.Target)
	case p.Interval <= 0:
		return fmt.Errorf("clients: backfill interval %v s <= 0", p.Interval)
	case p.Live < 0 || p.Class < 0 || p.Live == p.Class:
		return fmt.Errorf("clients: backfill classes live %d and own %d, want distinct and >= 0", p.Live, p.Class)
	case p.Jitter < 0:
		return fmt.Errorf("clients: backfill jitter %v s < 0", p.Jitter)
	case p.MaxAttempts < 0:
		return fmt.Errorf("clients: max attempts %d < 0", p.MaxAttempts)
	}
	return nil
}

// Control is one decision of a [Backfill]'s controller.
type Control struct {
	At       engine.Time // ns
	Latency  float64     // the live class's mean queueing delay over the interval, s (0 if none departed)
	Over     bool        // Latency > Target, decided exactly
	Fraction float64     // the fraction of capacity from At on
}

// Backfill is a [Paced] client whose rate follows an AIMD controller on
// the downstream latency of the live traffic (see [BackfillParams]). It
// shares the Gate, and so the limiter, with the foreground clients, and
// reads the downstream [Server] at every control interval.
//
// The controller's fraction is a float64 control signal; the spacing it
// gives, 1/(fraction·Capacity), is converted to nanoseconds once per
// decision, and from there on sends are exact. The latency comparison
// with Target is exact: the interval's summed queueing delay (a rational)
// against Target times the number of departures.
//
// The zero value is not usable; create one with [NewBackfill].
type Backfill struct {
	*Paced
	p        BackfillParams
	srv      *Server
	fraction float64
	prev     ServerStats
	controls []Control
}

// NewBackfill returns a backfill offering through g and watching srv, with
// series bins of width bin (0 for none), or an error if p is invalid.
// Jitter draws come from src.
func NewBackfill(s *engine.Sim, g *Gate, srv *Server, p BackfillParams, bin engine.Time, src rand.Source) (*Backfill, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if srv == nil {
		return nil, fmt.Errorf("clients: backfill without a downstream server")
	}
	pc, err := NewPaced(s, g, PaceParams{Rate: p.Capacity, Jitter: p.Jitter, MaxAttempts: p.MaxAttempts, Class: p.Class}, bin, src)
	if err != nil {
		return nil, err
	}
	b := &Backfill{Paced: pc, p: p, srv: srv}
	b.setFraction(p.Initial)
	return b, nil
}

// Fraction returns the fraction of capacity in force.
func (b *Backfill) Fraction() float64 { return b.fraction }

// Controls returns the controller's decisions so far.
func (b *Backfill) Controls() []Control { return slices.Clone(b.controls) }

// Start hands the backfill items requests at Now() and starts its
// controller, which stops once every request has finished.
func (b *Backfill) Start(items int64) {
	b.prev = b.srv.Stats(b.sim, b.p.Live)
	b.Backlog(items)
	b.sim.Schedule(b.sim.Now()+b.p.Interval, controlHandler{b}, 0)
}

type controlHandler struct{ b *Backfill }

func (h controlHandler) Handle(s *engine.Sim, now engine.Time, _ int) { h.b.control(now) }

// control makes one AIMD decision at now.
func (b *Backfill) control(now engine.Time) {
	st := b.srv.Stats(b.sim, b.p.Live)
	n := st.Departed - b.prev.Departed
	sum := subRat(st.QueueDelay, b.prev.QueueDelay)
	b.prev = st
	c := Control{At: now}
	if n > 0 {
		c.Latency = sum.QuoFloat64(n * 1e9)
		c.Over = sum.Cmp(exact.Frac(exact.Mul64(int64(b.p.Target), n), 1)) > 0
	}
	f := b.fraction
	if c.Over {
		f = max(b.p.Min, f*b.p.Decrease)
	} else {
		f = min(b.p.Max, f+b.p.Increase)
	}
	b.setFraction(f)
	c.Fraction = f
	b.controls = append(b.controls, c)
	if b.Waiting() > 0 || len(b.queued) > 0 {
		b.sim.Schedule(now+b.p.Interval, controlHandler{b}, 0)
	}
}

// setFraction sets the fraction and the pacer's spacing 1/(f·Capacity),
// converted to whole nanoseconds once (at least 1 ns).
func (b *Backfill) setFraction(f float64) {
	b.fraction = f
	t, ok := engine.FromSeconds(1 / (f * b.p.Capacity.Float64()))
	if !ok {
		t = engine.Forever / 2
	}
	b.SetSpacing(max(t, 1))
}
