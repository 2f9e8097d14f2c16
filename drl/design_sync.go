package drl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/param"
)

// designSync is Gubernator v2.13.0's GLOBAL behaviour, decision for
// decision (gubernator.go): every daemon answers from its own item of the
// whole limit and queues the hits for the key's owner, which applies them
// and broadcasts its state back. Gubernator polices.
type designSync struct{ defaults }

func (designSync) Name() string { return "sync" }

// Params declares the parameters designSync is the first design of the
// registry to read (see Design.Params).
func (designSync) Params() []param.Param {
	return []param.Param{
		{Key: "sync_period", Kind: param.Duration, Inf: true, Unit: "s", Default: "100ms", Sweep: true, Usage: "sync: GlobalSyncWait, a daemon sends its queued hits every T; reconcile: T, a node sends its hits T after the first one (0: at once; inf: never)"},
		{Key: "batch_limit", Kind: param.Int, Unit: "keys", Default: "1000", Sweep: true, Usage: "sync, reconcile: a node also sends when its batch holds this many keys (0: no limit; Gubernator's default 1000)"},
		{Key: "sync_delay", Kind: param.Text, Unit: "s", Default: "0", Sweep: true, Usage: "sync, reconcile, grd, fps: one-way delay of each message, a delay as --rtt"},
		{Key: "loss", Kind: param.Float, Sweep: true, Usage: "sync, reconcile, grd, fps: probability that a message is lost, in [0, 1)"},
		{Key: "algorithm", Kind: param.Text, Default: "token-bucket", Usage: "sync: Gubernator v2.13.0's algorithm, token-bucket (its default) or leaky-bucket (Limit = Burst = B per B/R ms, --sync-period its GlobalSyncWait, policing)"},
		{Key: "peers", Kind: param.Text, Usage: "sync: the Gubernator daemons' gRPC addresses, one per node, comma-separated; the hash ring picks each key's owner from them (default: cluster.Start's, 127.0.0.1:1112,127.0.0.1:1114,...)"},
	}
}

func (designSync) Flags() []string {
	return []string{"sync-period", "batch-limit", "algorithm", "peers", "sync-delay", "loss"}
}

func (designSync) LocalBuckets(Spec) bool { return false }

func (designSync) Check(s Spec) error {
	if err := refuseNodeLimiter(s); err != nil {
		return err
	}
	if err := s.Sync.check(); err != nil {
		return err
	}
	if !s.Police {
		return fmt.Errorf("drl: sync is Gubernator's GLOBAL behaviour (%v), which answers UNDER_LIMIT or OVER_LIMIT and never delays a job: want Police (the design reconcile shapes): %w", s.Sync.Algorithm, ErrSpec)
	}
	// Spec.Reconcile.Local is the design reconcile's: every Gubernator daemon keeps
	// its own item of the whole limit, whatever Local says.
	if len(s.Static.Scale) > 0 {
		return fmt.Errorf("drl: sync with Gubernator's %v: scale events are the static design's: %w", s.Sync.Algorithm, ErrSpec)
	}
	if len(s.Sync.Peers) != 0 && len(s.Sync.Peers) != s.Nodes {
		return fmt.Errorf("drl: %d Gubernator peers for %d nodes: want one address per node: %w", len(s.Sync.Peers), s.Nodes, ErrSpec)
	}
	_, _, _, err := GubernatorLimits(s.Bucket.Rate, s.Bucket.Burst)
	return err
}

func (designSync) CheckParams(s Spec, raw Values) error {
	if !s.Police {
		return bad("police", raw("police"), "true with the design sync: Gubernator answers UNDER_LIMIT or OVER_LIMIT, it never delays a job (the design reconcile shapes)")
	}
	if _, _, _, err := GubernatorLimits(s.Bucket.Rate, s.Bucket.Burst); err != nil {
		if !s.Bucket.Burst.IsInt() {
			return bad("burst", raw("burst"), "a whole number of tokens with the design sync (Gubernator's Limit and Burst are integers)")
		}
		return bad("rate", raw("rate"), fmt.Sprintf("a rate making burst/rate = %v/rate s a whole number of milliseconds with the design sync (Gubernator's Duration is integer ms)", s.Bucket.Burst))
	}
	return nil
}

func (designSync) Theorem2NA(s Spec) string {
	if s.Police {
		return policingNA
	}
	return "shares do not sum to R: each Gubernator daemon decides with its own item of the whole limit"
}

// LeftOut: Gubernator polices (shaping leaves it out) and takes an
// integer Limit per a whole number of ms (a burst or rate it cannot
// express leaves it out).
func (designSync) LeftOut(s Spec) string {
	if !s.Police {
		return "sync (Gubernator) only polices: add --police to run it"
	}
	if _, _, _, err := GubernatorLimits(s.Bucket.Rate, s.Bucket.Burst); err != nil {
		return "sync (Gubernator) cannot express this limit: " + strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+ErrSpec.Error())
	}
	return ""
}

func (designSync) Caption(s Spec) []CaptionParam {
	var c captionList
	c.add("algorithm", "Gubernator %v", s.Sync.Algorithm)
	c.add("sync-period", "GlobalSyncWait %s", capDur(s.Sync.Period))
	if s.Sync.BatchLimit > 0 {
		c.add("batch-limit", "batch limit %d keys", s.Sync.BatchLimit)
	}
	c.add("sync-delay", "message delay %s", s.Sync.Delay)
	c.add("loss", "loss %g", s.Sync.Loss)
	return c
}

func (designSync) Describe(s Spec) string {
	return nodesText(s) + fmt.Sprintf(", Gubernator %v, GlobalSyncWait %s, message delay %v", s.Sync.Algorithm, span(s.Sync.Period), s.Sync.Delay) + modeText(s)
}

func (designSync) Header(s Spec) string { return DescribeGubernator(s) }

func (designSync) New(s Spec, r *Recorder) (Model, error) { return newGubernator(s, r.u, r.res) }

// SyncParams are the parameters of the reconciliation (Spec.Sync): sync
// reads them all, reconcile Period, BatchLimit, Delay and Loss, grd and
// fps Delay and Loss.
type SyncParams struct {
	Period     engine.Time // T, ns: a node sends its hits T after the first one; engine.Forever: never
	BatchLimit int         // a node also sends when its batch holds this many keys; 0: no limit
	Delay      Delay       // one-way delay of every message
	Loss       float64     // probability that a message is lost, in [0, 1)
	// Algorithm is the algorithm sync runs Gubernator v2.13.0's GLOBAL
	// behaviour with (gubDesign): its token bucket (SyncTokenBucket, the
	// zero value, Gubernator's default) or its leaky bucket.
	Algorithm SyncAlgorithm
	// Peers are the gRPC addresses of the Gubernator daemons, node i
	// being Peers[i]; the hash ring picks each key's owner from them
	// (empty: DefaultGubernatorPeers(Nodes), cluster.Start's).
	Peers []string
	// OnStep, when not nil, is told every step of the Gubernator model in
	// order (jobs with their answers, flushes, broadcasts), for tests that
	// replay them on real daemons.
	OnStep func(SyncStep)
}

// Parse reads sync_period, batch_limit, sync_delay, loss, algorithm and
// peers (see Design.Parse); s.Nodes is set.
func (designSync) Parse(s *Spec, v Values) error {
	var p SyncParams
	var err error
	if p.Period, err = ParseDuration(v.text("sync_period")); err != nil {
		return bad("sync_period", v.text("sync_period"), WantDuration(err, "a duration >= 0 (100ms, 2s, 0.5) or inf"))
	}
	if p.BatchLimit, _ = v("batch_limit").(int); p.BatchLimit < 0 {
		return bad("batch_limit", p.BatchLimit, "a number of keys >= 1, or 0 for no limit")
	}
	if p.Delay, err = ParseDelay(v.text("sync_delay")); err != nil {
		return bad("sync_delay", v.text("sync_delay"), wantDelay(err))
	}
	if p.Loss, _ = v("loss").(float64); !(p.Loss >= 0 && p.Loss < 1) {
		return bad("loss", p.Loss, "a probability in [0, 1)")
	}
	if p.Algorithm, err = ParseSyncAlgorithm(v.text("algorithm")); err != nil {
		return bad("algorithm", v.text("algorithm"), "token-bucket or leaky-bucket (Gubernator v2.13.0's; the idealized reconciliation is the design reconcile)")
	}
	if peers := v.text("peers"); peers != "" {
		p.Peers = strings.Split(peers, ",")
		if len(p.Peers) != s.Nodes || slices.Contains(p.Peers, "") {
			return bad("peers", peers, fmt.Sprintf("%d gRPC addresses (one per node), comma-separated, e.g. %s", s.Nodes, strings.Join(DefaultGubernatorPeers(s.Nodes), ",")))
		}
	}
	p.OnStep = s.Sync.OnStep
	s.Sync = p
	return nil
}

// check returns an error wrapping ErrSpec for a field of p no design
// reading it can run with (sync, reconcile, grd and fps call it), or nil.
func (p SyncParams) check() error {
	if !(p.Loss >= 0 && p.Loss < 1) {
		return fmt.Errorf("drl: message loss %v: want a probability in [0, 1): %w", p.Loss, ErrSpec)
	}
	if p.BatchLimit < 0 {
		return fmt.Errorf("drl: batch limit %d: want >= 0 keys (0: none): %w", p.BatchLimit, ErrSpec)
	}
	if p.Algorithm < SyncTokenBucket || p.Algorithm > SyncLeakyBucket {
		return fmt.Errorf("drl: sync algorithm %d: want SyncTokenBucket or SyncLeakyBucket: %w", p.Algorithm, ErrSpec)
	}
	return nil
}
