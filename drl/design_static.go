package drl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
)

// designStatic is the static split: N nodes, each a sub-bucket (R/N, B/N)
// per key (or a library profile, Spec.Static.NodeLimiter) behind the dispatch,
// re-split at the scale events (Spec.Static.Scale). Without scale events, when
// shaping with sub-buckets, it is the split of Theorem 2, checked job by
// job.
type designStatic struct{ defaults }

// Split is the name of the static split, the other side of Theorem 2
// from the one bucket ([Reference]).
const Split = "static"

func (designStatic) Name() string { return Split }

// Params declares the parameters designStatic is the first design of the
// registry to read (see Design.Params).
func (designStatic) Params() []param.Param {
	return []param.Param{
		{Key: "node_limiter", Kind: param.Text, Usage: "static, store with --fail local: the limiter each node keeps per key, a library profile 'NAME:key=value,...' as in ratesim limiters --profile, configured per node (default the sub-bucket R/N, B/N); the table gives the fleet-wide limit N·α beside"},
		{Key: "scale", Kind: param.List, Usage: "static: at instant AT the fleet becomes N nodes, AT:N (e.g. 30s:8); repeatable, in time order"},
	}
}

func (designStatic) Flags() []string { return []string{"scale", "node-limiter"} }

func (designStatic) LocalBuckets(s Spec) bool { return s.Static.NodeLimiter == nil }

func (designStatic) Theorem2NA(s Spec) string {
	switch {
	case s.Static.NodeLimiter != nil:
		return "the nodes run " + s.Static.NodeLimiterName + ", not sub-buckets (R/N, B/N)"
	case s.Police:
		return policingNA
	case len(s.Static.Scale) > 0:
		return "scale events change the shares"
	}
	return ""
}

func (designStatic) Caption(s Spec) []CaptionParam {
	var c captionList
	if len(s.Static.Scale) > 0 {
		c.add("scale", "scale events %s", scaleText(s.Static.Scale, capDur))
	}
	return c
}

func (designStatic) Describe(s Spec) string { return nodesText(s) + modeText(s) }

func (designStatic) Header(s Spec) string {
	if len(s.Static.Scale) == 0 {
		return ""
	}
	return "re-split: " + scaleText(s.Static.Scale, func(t engine.Time) string { return fmt.Sprintf("%v s", t.Seconds()) })
}

func (designStatic) Marks(s Spec) []Mark {
	at := func(i int) (engine.Time, engine.Time) { return s.Static.Scale[i].At, s.Static.Scale[i].At }
	return marksOf(len(s.Static.Scale), at, "static re-split (scale event)")
}

func (designStatic) New(s Spec, r *Recorder) (Model, error) { return newStatic(s, r.u, r.res) }

// StaticParams are the static design's parameters (Spec.Static); the
// store's local fallback reads NodeLimiter too.
type StaticParams struct {
	// Scale re-splits the fleet at given instants (non-decreasing).
	Scale []ScaleEvent
	// NodeLimiter, when not nil, builds the limiter a node keeps per key
	// in place of its sub-bucket (R/N, B/N): a library profile (package
	// profiles) configured per node, as a user configures each gateway,
	// so that the fleet admits up to N times the limiter's arrival curve.
	// The static design (at a scale event a surviving node keeps its
	// limiters, a new one starts with fresh ones, a removed one's are
	// dropped) and the store's local fallback (Store.Fail = FailLocal)
	// read it; sync, reconcile, lease, grd and fps refuse it, as they
	// keep no per-node limiter a library could stand in for. The limiter
	// decides by itself (Police is not consulted) and must never answer
	// Queue (no profile does). NodeLimiterName is its spec, for reports.
	NodeLimiter     func() buckets.Limiter
	NodeLimiterName string
}

// Parse reads scale and node_limiter (see Design.Parse).
func (designStatic) Parse(s *Spec, v Values) error {
	var evs []ScaleEvent
	for _, e := range v.list("scale") {
		a, n, ok := strings.Cut(e, ":")
		t, err := ParseDuration(a)
		k, err2 := strconv.Atoi(n)
		if !ok || err != nil || err2 != nil || k < 1 || t == engine.Forever {
			return bad("scale", e, WantDuration(err, "AT:N, an instant since the first arrival and a number of nodes >= 1, e.g. 30s:8"))
		}
		if len(evs) > 0 && t < evs[len(evs)-1].At {
			return bad("scale", e, "scale events in time order")
		}
		evs = append(evs, ScaleEvent{At: t, Nodes: k})
	}
	s.Static = StaticParams{Scale: evs}
	if nl := v.text("node_limiter"); nl != "" {
		prof, err := profileParam("node_limiter", nl, "a library profile")
		if err != nil {
			return err
		}
		s.Static.NodeLimiter, s.Static.NodeLimiterName = prof.New, prof.String()
	}
	return nil
}
