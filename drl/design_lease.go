package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// designLease is token leasing (lease.go): a node admits with tokens it
// holds and asks a central bucket (R, B) for Spec.LeaseSize more, a round
// trip away, when it has none; unused tokens go back Spec.LeaseTTL after
// the latest grant.
type designLease struct{ defaults }

func (designLease) Name() string { return "lease" }

// Params declares the parameters designLease is the first design of the
// registry to read (see Design.Params).
func (designLease) Params() []param.Param {
	return []param.Param{
		{Key: "lease_size", Kind: param.Text, Unit: "tokens", Sweep: true, Usage: "lease: tokens a node asks for at a time (>= 1; default B/N rounded down)"},
		{Key: "lease_ttl", Kind: param.Duration, Inf: true, Unit: "s", Default: "1s", Sweep: true, Usage: "lease: unused tokens go back this long after the latest grant (inf: never)"},
	}
}

func (designLease) Flags() []string    { return []string{"rtt", "lease-size", "lease-ttl"} }
func (designLease) Check(s Spec) error { return refuseNodeLimiter(s) }

func (designLease) Theorem2NA(s Spec) string {
	if s.Police {
		return policingNA
	}
	return "not a split: nodes lease tokens of one shared bucket"
}

// leaseSize is the lease size of s: Spec.LeaseSize, or B/N rounded down
// (at least 1) for 0.
func leaseSize(s Spec) int64 {
	if s.LeaseSize != 0 {
		return s.LeaseSize
	}
	b, _ := s.Bucket.Burst.Quo(exact.Int(int64(s.Nodes)))
	return max(1, b.Floor().Int64())
}

func (designLease) Caption(s Spec) []CaptionParam {
	var c captionList
	size := fmt.Sprint(s.LeaseSize)
	if s.LeaseSize == 0 {
		size = "B/N"
	}
	c.add("rtt", "round trip %s", s.RTT)
	c.add("lease-size", "lease %s tokens", size)
	c.add("lease-ttl", "lease TTL %s", capDur(s.LeaseTTL))
	return c
}

func (designLease) Describe(s Spec) string {
	return nodesText(s) + fmt.Sprintf(", round trip %v, lease TTL %s", s.RTT, span(s.LeaseTTL)) + modeText(s)
}

func (designLease) Header(s Spec) string {
	size := fmt.Sprintf("%d tokens", s.LeaseSize)
	if s.LeaseSize == 0 {
		size = "B/N tokens"
	}
	ttl := "never returned"
	if s.LeaseTTL != engine.Forever {
		ttl = fmt.Sprintf("returned %v s after the latest grant", s.LeaseTTL.Seconds())
	}
	return fmt.Sprintf("%s per request (round trip %v), %s; %s", size, s.RTT, ttl, modeText(s)[2:])
}

func (designLease) New(s Spec, r *Recorder) (Model, error) {
	s.LeaseSize = leaseSize(s)
	return newLease(s, r.u, r.res)
}
