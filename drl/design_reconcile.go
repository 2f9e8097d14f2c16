package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/internal/param"
)

// designReconcile is local buckets with periodic reconciliation, the
// idealized sync (sync.go): each node decides with the exact state of
// the key's bucket (Spec.Reconcile.Local: a copy of (R, B), or its share), sends
// its admitted hits to the key's owner, which broadcasts its state back.
type designReconcile struct{ defaults }

func (designReconcile) Name() string { return "reconcile" }

// Params declares the parameters designReconcile is the first design of the
// registry to read (see Design.Params).
func (designReconcile) Params() []param.Param {
	return []param.Param{
		{Key: "local", Kind: param.Text, Default: "copy", Sweep: true, Usage: "reconcile: what a node decides with between reconciliations: copy (of the whole bucket) or share (its sub-bucket R/N, B/N)"},
	}
}

func (designReconcile) Flags() []string {
	return []string{"sync-period", "batch-limit", "local", "sync-delay", "loss"}
}

func (designReconcile) Check(s Spec) error {
	if err := refuseNodeLimiter(s); err != nil {
		return err
	}
	return s.Sync.check()
}

func (designReconcile) LocalBuckets(s Spec) bool { return s.Reconcile.Local == LocalShare }

func (designReconcile) Theorem2NA(s Spec) string {
	switch {
	case s.Police:
		return policingNA
	case s.Reconcile.Local == LocalCopy:
		return "shares do not sum to R: each node decides with a copy of (R, B)"
	}
	return "the owner's broadcasts overwrite the sub-buckets' state"
}

func (designReconcile) Caption(s Spec) []CaptionParam {
	var c captionList
	c.add("sync-period", "sync period T = %s", capDur(s.Sync.Period))
	if s.Sync.BatchLimit > 0 {
		c.add("batch-limit", "batch limit %d keys", s.Sync.BatchLimit)
	}
	c.add("sync-delay", "message delay %s", s.Sync.Delay)
	c.add("loss", "loss %g", s.Sync.Loss)
	c.add("local", "local %s", s.Reconcile.Local)
	return c
}

func (designReconcile) Describe(s Spec) string {
	return nodesText(s) + fmt.Sprintf(", sync period %s, message delay %v, local %v", span(s.Sync.Period), s.Sync.Delay, s.Reconcile.Local) + modeText(s)
}

func (designReconcile) Header(s Spec) string {
	return fmt.Sprintf("period %s, batch limit %d keys, message delay %v, loss %v, local %s", span(s.Sync.Period), s.Sync.BatchLimit, s.Sync.Delay, s.Sync.Loss, s.Reconcile.Local)
}

func (designReconcile) New(s Spec, r *Recorder) (Model, error) { return newSync(s, r.u, r.res) }

// ReconcileParams are the reconcile design's own parameters
// (Spec.Reconcile); it reads Spec.Sync's period, batch limit, delay and
// loss.
type ReconcileParams struct {
	Local Local // what a node decides with between reconciliations
}

// Parse reads local (see Design.Parse).
func (designReconcile) Parse(s *Spec, v Values) error {
	l, err := ParseLocal(v.text("local"))
	if err != nil {
		return bad("local", v.text("local"), "copy or share")
	}
	s.Reconcile = ReconcileParams{Local: l}
	return nil
}
