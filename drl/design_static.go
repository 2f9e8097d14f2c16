package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
)

// designStatic is the static split: N nodes, each a sub-bucket (R/N, B/N)
// per key (or a library profile, Spec.NodeLimiter) behind the dispatch,
// re-split at the scale events (Spec.Scale). Without scale events, when
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

func (designStatic) LocalBuckets(s Spec) bool { return s.NodeLimiter == nil }

func (designStatic) Theorem2NA(s Spec) string {
	switch {
	case s.NodeLimiter != nil:
		return "the nodes run " + s.NodeLimiterName + ", not sub-buckets (R/N, B/N)"
	case s.Police:
		return policingNA
	case len(s.Scale) > 0:
		return "scale events change the shares"
	}
	return ""
}

func (designStatic) Caption(s Spec) []CaptionParam {
	var c captionList
	if len(s.Scale) > 0 {
		c.add("scale", "scale events %s", scaleText(s.Scale, capDur))
	}
	return c
}

func (designStatic) Describe(s Spec) string { return nodesText(s) + modeText(s) }

func (designStatic) Header(s Spec) string {
	if len(s.Scale) == 0 {
		return ""
	}
	return "re-split: " + scaleText(s.Scale, func(t engine.Time) string { return fmt.Sprintf("%v s", t.Seconds()) })
}

func (designStatic) Marks(s Spec) []Mark {
	at := func(i int) (engine.Time, engine.Time) { return s.Scale[i].At, s.Scale[i].At }
	return marksOf(len(s.Scale), at, "static re-split (scale event)")
}

func (designStatic) New(s Spec, r *Recorder) (Model, error) { return newStatic(s, r.u, r.res) }
