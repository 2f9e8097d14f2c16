package drl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// ErrSpec is wrapped by every error about an invalid specification.
var ErrSpec = errors.New("invalid drl specification")

// Random streams of a run, each a PCG stream (seed, stream): dispatch uses
// systems.StreamDispatch as ratesim run does; the others are drl's own, so
// that adding a random delay to one component changes no other draw.
const (
	StreamStoreRTT  = 1000 // central store: round-trip times
	StreamSyncDelay = 1001 // reconciliation: message delays
	StreamSyncLoss  = 1002 // reconciliation: message losses
	StreamOutage    = 1004 // central store: the on/off outage process
)

// Fail is what a node does with a job when the central store is down.
type Fail int

const (
	FailOpen   Fail = iota // admit the job at once (the limiter disappears)
	FailClosed             // reject the job (the store is a single point of failure)
	FailLocal              // decide with the node's local sub-bucket (R/N, B/N) of the key
)

// ParseFail returns the Fail named s: "open", "closed" or "local".
func ParseFail(s string) (Fail, error) {
	switch s {
	case "open":
		return FailOpen, nil
	case "closed":
		return FailClosed, nil
	case "local":
		return FailLocal, nil
	}
	return 0, fmt.Errorf("drl: fail mode %q: want open, closed or local: %w", s, ErrSpec)
}

func (f Fail) String() string { return [...]string{"open", "closed", "local"}[f] }

// StoreLimiter is the limiter the central store keeps per key.
type StoreLimiter int

const (
	// StoreToken: a token bucket (R, B), shaping or policing as
	// Spec.Police says.
	StoreToken StoreLimiter = iota
	// StoreGCRA: GCRA(1/R, (B - 1)/R), as redis-cell's CL.THROTTLE keeps it
	// (brandur/redis-cell src/cell/mod.rs: a limited request leaves the
	// theoretical arrival time unchanged, so a refused hit costs nothing),
	// through buckets.GCRA; it decides as the policing token bucket (R, B)
	// does. Polices.
	StoreGCRA
	// StoreFixedWindow: at most L = B jobs per fixed window of W = B/R
	// seconds (the same long-term rate R), edges at multiples of W from
	// the origin, through buckets.FixedWindow: the Redis pattern of INCR
	// on a key per window then compare with L. INCR counts every hit,
	// refused ones included; within a window the count is then already
	// over L and the window's end resets it, so counting refused hits
	// changes no decision, and buckets.FixedWindow (which counts the
	// admitted) decides the same. B must be a whole number. Polices.
	StoreFixedWindow
	// StoreLibrary: a library profile (package profiles) per key, built by
	// Spec.Store.Profile, deciding as its library does at the store's
	// instant (redis-rate: go-redis/redis_rate's Lua script; redis-cell:
	// CL.THROTTLE). The profile decides by itself (Police is not
	// consulted); a Delay verdict's wait is added to the round trip.
	StoreLibrary
)

// ParseStoreLimiter returns the StoreLimiter named s: "token", "gcra" or
// "fixed-window".
func ParseStoreLimiter(s string) (StoreLimiter, error) {
	switch s {
	case "token":
		return StoreToken, nil
	case "gcra":
		return StoreGCRA, nil
	case "fixed-window":
		return StoreFixedWindow, nil
	}
	return 0, fmt.Errorf("drl: store limiter %q: want token, gcra or fixed-window: %w", s, ErrSpec)
}

func (l StoreLimiter) String() string {
	return [...]string{"token", "gcra", "fixed-window", "profile"}[l]
}

// Local is what a node of the reconcile design decides with between two
// reconciliations.
type Local int

const (
	// LocalCopy: a copy of the whole bucket (R, B) of the key, overwritten
	// by the owner's state on each broadcast; the owner decides on the
	// true state (as a Gubernator daemon does, with exact states). With no reconciliation
	// at all (T = ∞) each node is an independent bucket (R, B).
	LocalCopy Local = iota
	// LocalShare: the node's sub-bucket (R/N, B/N) of the key, set on each
	// broadcast to the owner's fill level (its unfinished work U, so the
	// node holds 1/N of the global tokens); the owner too decides with its
	// sub-bucket. With no reconciliation (T = ∞) it is the static split.
	LocalShare
)

// ParseLocal returns the Local named s: "copy" or "share".
func ParseLocal(s string) (Local, error) {
	switch s {
	case "copy":
		return LocalCopy, nil
	case "share":
		return LocalShare, nil
	}
	return 0, fmt.Errorf("drl: local mode %q: want copy or share: %w", s, ErrSpec)
}

func (l Local) String() string { return [...]string{"copy", "share"}[l] }

// Interval is the time interval [From, To), ns since the origin.
type Interval struct{ From, To engine.Time }

// Contains reports whether From <= t < To.
func (iv Interval) Contains(t engine.Time) bool { return iv.From <= t && t < iv.To }

// ScaleEvent changes the number of nodes of the static design to Nodes at
// instant At (ns): the limit is re-split into Nodes sub-buckets (R/Nodes,
// B/Nodes).
type ScaleEvent struct {
	At    engine.Time
	Nodes int
}

// ParseDuration reads a duration >= 0 in whole nanoseconds in the one
// duration grammar of [engine.ParseDuration] (plain seconds "0.1" or
// "1/8", units "100ms", "1h30m", "1d"); "inf" (or "never") is
// engine.Forever. A value finer than 1 ns is refused with the two nearest
// that fit ("1.5ns": 1ns or 2ns).
func ParseDuration(s string) (engine.Time, error) {
	d, err := engine.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative: want >= 0", s)
	}
	return d, nil
}

// ParseInterval reads "START:END" (durations as ParseDuration reads them,
// since the origin) into the interval [START, END).
func ParseInterval(s string) (Interval, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Interval{}, fmt.Errorf("drl: interval %q: want START:END, e.g. 10s:12s: %w", s, ErrSpec)
	}
	from, err := ParseDuration(a)
	if err != nil {
		return Interval{}, fmt.Errorf("drl: interval %q: %v: %w", s, err, ErrSpec)
	}
	to, err := ParseDuration(b)
	if err != nil {
		return Interval{}, fmt.Errorf("drl: interval %q: %v: %w", s, err, ErrSpec)
	}
	if to <= from {
		return Interval{}, fmt.Errorf("drl: interval %q: END must be after START: %w", s, ErrSpec)
	}
	return Interval{From: from, To: to}, nil
}

// Spec describes a run of one design.
type Spec struct {
	Design string         // the Name of a registered Design (one of Designs)
	Bucket buckets.Params // the promise (R tokens/s, B tokens) for every key
	Nodes  int            // N, >= 1; every local bucket is (R/N, B/N), so B/N >= 1 for the designs that keep one
	Police bool           // reject a job that finds no token, instead of delaying it (shaping); grd drops either way
	// Dispatch is the policy sending jobs to nodes: rr, random, hash (of
	// the job's key) or column (the node the job names), as
	// systems.NewDispatcher.
	Dispatch string
	Seed     uint64 // root seed of the random streams
	// Origin is the absolute instant of the run's t = 0, ns since the
	// Unix epoch: a trace's first arrival (Run sets it from the trace),
	// 0 for generated arrivals. The store's fixed windows have their
	// edges at k·W from the epoch on this clock, as in ratesim limiters.
	Origin int64

	// KeepDepartures keeps every admitted job's departure instant
	// (Result.Departures, 8 bytes a job), for Result.Rate and for
	// Summarize at lengths other than Durations; without it the arrival
	// curves are measured as the run goes. RateWindow is the window of
	// Summary.OverRate, ns (0: not measured), which a run without
	// departures measures as it goes.
	KeepDepartures bool
	RateWindow     engine.Time

	// The parameters of one design each, declared, parsed, checked and
	// described in that design's file (design_*.go); a design reads
	// another's group for a parameter that design declares (lease reads
	// Store.RTT, reconcile Sync, grd and fps Sync.Delay and Sync.Loss,
	// store Static.NodeLimiter).
	Static    StaticParams
	Store     StoreParams
	Sync      SyncParams
	Reconcile ReconcileParams
	Lease     LeaseParams
	Demand    DemandParams
}

// Exchange is how the demand-aware designs exchange their estimates.
type Exchange int

const (
	// ExchangeCoordinator: every node reports to a coordinator, which
	// sends each node its drop probability or share (2 messages per node
	// and key per interval).
	ExchangeCoordinator Exchange = iota
	// ExchangeAll: every node sends its estimate to every other node that
	// has seen the key (n·(n - 1) messages for n such nodes), and each
	// computes its own from what it received.
	ExchangeAll
	// ExchangeGossip: every node sends what it knows (its estimate and the
	// newest it heard of the others) to Spec.Demand.Fanout others drawn at random.
	ExchangeGossip
)

// ParseExchange returns the Exchange named s: "coordinator" or "all".
func ParseExchange(s string) (Exchange, error) {
	switch s {
	case "coordinator":
		return ExchangeCoordinator, nil
	case "all":
		return ExchangeAll, nil
	case "gossip":
		return ExchangeGossip, nil
	}
	return 0, fmt.Errorf("drl: exchange %q: want coordinator, all or gossip: %w", s, ErrSpec)
}

func (x Exchange) String() string { return [...]string{"coordinator", "all", "gossip"}[x] }

// Validate returns an error wrapping ErrSpec or buckets.ErrParam naming
// the first invalid field, or nil: the design's own checks
// (Design.Check) after the nodes, then the fields every design shares.
func (s Spec) Validate() error {
	d, ok := Lookup(s.Design)
	if !ok {
		return fmt.Errorf("drl: design %q: want one of %s: %w", s.Design, strings.Join(Designs, ", "), ErrSpec)
	}
	if err := s.Bucket.Validate(); err != nil {
		return err
	}
	if s.Nodes < 1 {
		return fmt.Errorf("drl: %d nodes: want >= 1: %w", s.Nodes, ErrSpec)
	}
	ns := []int{s.Nodes}
	last := engine.Time(math.MinInt64)
	for _, e := range s.Static.Scale {
		if e.At < last {
			return fmt.Errorf("drl: scale event at %v s is before the previous one: %w", e.At.Seconds(), ErrSpec)
		}
		last = e.At
		if e.Nodes < 1 {
			return fmt.Errorf("drl: scale event to %d nodes: want >= 1: %w", e.Nodes, ErrSpec)
		}
		ns = append(ns, e.Nodes)
	}
	if err := d.Check(s); err != nil {
		return err
	}
	// A bucket with less than one token admits nothing.
	if d.LocalBuckets(s) {
		for _, n := range ns {
			b, _ := s.Bucket.Burst.Quo(exact.Int(int64(n)))
			if b.Cmp(exact.Int(1)) < 0 {
				return fmt.Errorf("drl: burst %v over %d nodes is %v tokens per node: want >= 1 (fewer nodes or a larger burst): %w", s.Bucket.Burst, n, b, ErrSpec)
			}
		}
	}
	return s.validateFields()
}

// validateFields checks the fields every design reads.
func (s Spec) validateFields() error {
	if _, err := systems.NewDispatcher(s.Dispatch, make1(s.Nodes), rand.NewPCG(0, 0)); err != nil || s.Dispatch == "least-loaded" {
		return fmt.Errorf("drl: dispatch %q: want rr, random, hash or column: %w", s.Dispatch, ErrSpec)
	}
	return nil
}

// make1 returns n weights of 1.
func make1(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
}
