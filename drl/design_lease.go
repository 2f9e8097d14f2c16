package drl

import (
	"fmt"
	"strconv"

	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// designLease is token leasing (lease.go): a node admits with tokens it
// holds and asks a central bucket (R, B) for Spec.Lease.Size more, a round
// trip away, when it has none; unused tokens go back Spec.Lease.TTL after
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

func (designLease) Flags() []string { return []string{"rtt", "lease-size", "lease-ttl"} }
func (designLease) Check(s Spec) error {
	if s.Lease.Size < 0 {
		return fmt.Errorf("drl: lease size %d: want >= 1 token (0: B/N): %w", s.Lease.Size, ErrSpec)
	}
	return refuseNodeLimiter(s)
}

func (designLease) Theorem2NA(s Spec) string {
	if s.Police {
		return policingNA
	}
	return "not a split: nodes lease tokens of one shared bucket"
}

// leaseSize is the lease size of s: Spec.Lease.Size, or B/N rounded down
// (at least 1) for 0.
func leaseSize(s Spec) int64 {
	if s.Lease.Size != 0 {
		return s.Lease.Size
	}
	b, _ := s.Bucket.Burst.Quo(exact.Int(int64(s.Nodes)))
	return max(1, b.Floor().Int64())
}

func (designLease) Caption(s Spec) []CaptionParam {
	var c captionList
	size := fmt.Sprint(s.Lease.Size)
	if s.Lease.Size == 0 {
		size = "B/N"
	}
	c.add("rtt", "round trip %s", s.Store.RTT)
	c.add("lease-size", "lease %s tokens", size)
	c.add("lease-ttl", "lease TTL %s", capDur(s.Lease.TTL))
	return c
}

func (designLease) Describe(s Spec) string {
	return nodesText(s) + fmt.Sprintf(", round trip %v, lease TTL %s", s.Store.RTT, span(s.Lease.TTL)) + modeText(s)
}

func (designLease) Header(s Spec) string {
	size := fmt.Sprintf("%d tokens", s.Lease.Size)
	if s.Lease.Size == 0 {
		size = "B/N tokens"
	}
	ttl := "never returned"
	if s.Lease.TTL != engine.Forever {
		ttl = fmt.Sprintf("returned %v s after the latest grant", s.Lease.TTL.Seconds())
	}
	return fmt.Sprintf("%s per request (round trip %v), %s; %s", size, s.Store.RTT, ttl, modeText(s)[2:])
}

func (designLease) New(s Spec, r *Recorder) (Model, error) {
	s.Lease.Size = leaseSize(s)
	return newLease(s, r.u, r.res)
}

// LeaseParams are the lease design's parameters (Spec.Lease); it reads
// Spec.Store.RTT too.
type LeaseParams struct {
	Size int64       // tokens a node asks for at a time, >= 1 (0: B/N rounded down, at least 1)
	TTL  engine.Time // unused tokens go back this long after the latest grant, ns; engine.Forever: never
}

// Parse reads lease_size and lease_ttl (see Design.Parse).
func (designLease) Parse(s *Spec, v Values) error {
	var p LeaseParams
	if size := v.text("lease_size"); size != "" {
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil || n < 1 {
			return bad("lease_size", size, "a number of tokens >= 1")
		}
		p.Size = n
	}
	var err error
	if p.TTL, err = ParseDuration(v.text("lease_ttl")); err != nil {
		return bad("lease_ttl", v.text("lease_ttl"), WantDuration(err, "a duration >= 0 (1s, 500ms) or inf"))
	}
	s.Lease = p
	return nil
}
