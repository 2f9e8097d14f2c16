package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
)

// designDemand is a demand-aware design (demand.go): every
// Spec.Demand.EstimateInterval the nodes measure their demand for a key and
// exchange it (Spec.Demand.Exchange); global random drop (grd, Raghavan et al.,
// SIGCOMM 2007) drops each job with probability 1 - R/D for the global
// demand D, and flow proportional share (fps) gives node l the share
// e_l/D of (R, B).
type designDemand struct {
	defaults
	fps bool
}

func (d designDemand) Name() string {
	if d.fps {
		return "fps"
	}
	return "grd"
}

// Params declares the parameters designDemand is the first design of the
// registry to read (see Design.Params).
func (designDemand) Params() []param.Param {
	return []param.Param{
		{Key: "estimate_interval", Kind: param.Duration, Unit: "s", Default: "100ms", Sweep: true, Usage: "grd, fps: demand is measured and exchanged every this long (> 0)"},
		{Key: "smoothing", Kind: param.Float, Default: "0.5", Sweep: true, Usage: "grd, fps: weight of the newest measurement in the demand estimate, in (0, 1] (1: no smoothing)"},
		{Key: "exchange", Kind: param.Text, Default: "coordinator", Sweep: true, Usage: "grd, fps: estimates go through a coordinator, all-to-all among the nodes that saw the key (all), or by gossip to --fanout random peers (gossip)"},
		{Key: "fanout", Kind: param.Int, Unit: "peers", Default: "2", Sweep: true, Usage: "grd, fps with --exchange gossip: peers each node sends to per estimate interval (>= 1)"},
	}
}

func (designDemand) Flags() []string {
	return []string{"estimate-interval", "smoothing", "exchange", "fanout", "sync-delay", "loss"}
}

func (designDemand) Check(s Spec) error {
	if err := refuseNodeLimiter(s); err != nil {
		return err
	}
	if err := s.Sync.check(); err != nil {
		return err
	}
	if s.Demand.EstimateInterval <= 0 || s.Demand.EstimateInterval == engine.Forever {
		return fmt.Errorf("drl: estimate interval %v ns: want > 0 and finite: %w", int64(s.Demand.EstimateInterval), ErrSpec)
	}
	if !(s.Demand.Smoothing > 0 && s.Demand.Smoothing <= 1) {
		return fmt.Errorf("drl: smoothing %v: want a weight in (0, 1]: %w", s.Demand.Smoothing, ErrSpec)
	}
	if s.Demand.Exchange == ExchangeGossip && s.Demand.Fanout < 1 {
		return fmt.Errorf("drl: gossip fan-out %d: want >= 1 peer: %w", s.Demand.Fanout, ErrSpec)
	}
	return nil
}

func (d designDemand) Theorem2NA(s Spec) string {
	switch {
	case s.Police || !d.fps:
		return policingNA
	}
	return "not a static split: the shares change at each estimate"
}

func (designDemand) Caption(s Spec) []CaptionParam {
	var c captionList
	c.add("estimate-interval", "estimate interval %s", capDur(s.Demand.EstimateInterval))
	c.add("smoothing", "smoothing %g", s.Demand.Smoothing)
	c.add("exchange", "exchange %s", s.Demand.Exchange)
	c.add("sync-delay", "message delay %s", s.Sync.Delay)
	c.add("loss", "loss %g", s.Sync.Loss)
	if s.Demand.Exchange == ExchangeGossip {
		c.add("fanout", "fanout %d", s.Demand.Fanout)
	}
	return c
}

// mode is how the design treats a job without a token: grd drops it,
// with or without Police (a drop is the design).
func (d designDemand) mode(s Spec) string {
	if !d.fps {
		return ", policing (drops)"
	}
	return modeText(s)
}

func (d designDemand) Describe(s Spec) string {
	return nodesText(s) + fmt.Sprintf(", estimate interval %s, message delay %v", span(s.Demand.EstimateInterval), s.Sync.Delay) + d.mode(s)
}

func (d designDemand) Header(s Spec) string {
	via := "through a coordinator"
	switch s.Demand.Exchange {
	case ExchangeAll:
		via = "all-to-all"
	case ExchangeGossip:
		via = fmt.Sprintf("by gossip to %d peers", s.Demand.Fanout)
	}
	return fmt.Sprintf("demand estimated every %v s (smoothing %v), exchanged %s (message delay %v, loss %v); %s", s.Demand.EstimateInterval.Seconds(), s.Demand.Smoothing, via, s.Sync.Delay, s.Sync.Loss, d.mode(s)[2:])
}

func (d designDemand) New(s Spec, r *Recorder) (Model, error) { return newDemand(s, r.u, r.res, d.fps) }

// DemandParams are the demand-aware designs' parameters (Spec.Demand);
// they read Spec.Sync's delay and loss too.
type DemandParams struct {
	EstimateInterval engine.Time // E: demand is measured and exchanged every E ns, > 0
	Smoothing        float64     // α: weight of the newest measurement in the estimate, in (0, 1]
	Exchange         Exchange    // how estimates are exchanged
	Fanout           int         // gossip: peers each node sends to per interval, >= 1
}

// Parse reads estimate_interval, smoothing, exchange and fanout (see
// Design.Parse).
func (designDemand) Parse(s *Spec, v Values) error {
	var p DemandParams
	var err error
	if p.EstimateInterval, err = ParseDuration(v.text("estimate_interval")); err != nil || p.EstimateInterval == 0 || p.EstimateInterval == engine.Forever {
		return bad("estimate_interval", v.text("estimate_interval"), WantDuration(err, "a duration > 0 (100ms, 1s)"))
	}
	if p.Smoothing, _ = v("smoothing").(float64); !(p.Smoothing > 0 && p.Smoothing <= 1) {
		return bad("smoothing", p.Smoothing, "a weight in (0, 1]")
	}
	if p.Exchange, err = ParseExchange(v.text("exchange")); err != nil {
		return bad("exchange", v.text("exchange"), "coordinator, all or gossip")
	}
	if p.Fanout, _ = v("fanout").(int); p.Fanout < 1 {
		return bad("fanout", p.Fanout, "a number of peers >= 1")
	}
	s.Demand = p
	return nil
}
