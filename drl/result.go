package drl

import (
	"math/bits"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/tailsketch"
	"github.com/ratesim/ratesim/systems"
)

// Result is what one design did with a run's jobs.
type Result struct {
	Design   string
	Jobs     int64 // jobs offered
	Admitted int64 // jobs admitted, at once or after a delay
	Rejected int64
	// Fallback counts the jobs a node decided without the store (sent
	// during an outage); Messages the messages sent (store requests,
	// batches of hits, broadcasts, each copy counted); Lost those lost.
	Fallback, Messages, Lost int64
	// Delays are the admitted jobs' delays (network time plus bucket wait)
	// that are not 0, seconds, in order of decision, and ZeroDelays the
	// number of those that are; TotalDelay is their exact sum in units of
	// 1/Scale ns. Without Spec.KeepDepartures, Delays holds at most
	// tailsketch.ExactValues (2^20) delays: beyond, they move into a
	// DDSketch (see Summary.P99Method) and Delays is nil, so that memory
	// does not grow with the jobs.
	Delays     []float64
	delaySk    *tailsketch.Sketch // the delays, once sketched
	ZeroDelays int64
	TotalDelay exact.Int128
	Scale      int64
	// Departures are, per key, the instants (ns, rounded up) at which its
	// admitted jobs pass, in order of decision (not sorted), kept only
	// with Spec.KeepDepartures: 8 bytes per admitted job. Without them
	// the arrival curve and the time over R are measured as the run goes,
	// in memory proportional to the active keys (see Summarize).
	Departures map[uint64][]engine.Time
	// PerNode and PerKey count each node's and each key's decisions.
	PerNode []Count
	PerKey  map[uint64]*Count
	// Admits has bit i set when job i (in arrival order) was admitted: an
	// eighth of a byte per job, to compare designs job by job.
	Admits []uint64
	// First and Last are the first and last arrival instants, ns.
	First, Last engine.Time
	// Staleness (reconcile) is the sum, over the decisions, of the age of the
	// owner's state each was made with, seconds; Stale the decisions.
	Staleness float64
	Stale     int64
	// Theorem2 is the outcome of the check of Theorem 2 (see Theorem2NA).
	Theorem2 Theorem2

	streams   *streams // the arrival curves measured as the run goes
	streamErr error
	online    *Online // told every decision, when driven online
}

func (r *Result) mark(id int64) {
	for int64(len(r.Admits))*64 <= id {
		r.Admits = append(r.Admits, 0)
	}
	r.Admits[id/64] |= 1 << (id % 64)
}

// AdmittedJob reports whether job id (in arrival order) was admitted.
func (r *Result) AdmittedJob(id int64) bool {
	return id/64 < int64(len(r.Admits)) && r.Admits[id/64]&(1<<(id%64)) != 0
}

// Compare counts the jobs r admitted that ref rejected (over) and those r
// rejected that ref admitted (under), job by job; both must have run the
// same jobs.
func Compare(r, ref *Result) (over, under int64) {
	n := max(len(r.Admits), len(ref.Admits))
	for i := range n {
		var a, b uint64
		if i < len(r.Admits) {
			a = r.Admits[i]
		}
		if i < len(ref.Admits) {
			b = ref.Admits[i]
		}
		over += int64(bits.OnesCount64(a &^ b))
		under += int64(bits.OnesCount64(b &^ a))
	}
	return over, under
}

func (r *Result) stale(age engine.Time) {
	r.Staleness += age.Seconds()
	r.Stale++
}

// Rate returns the admitted jobs per second in consecutive bins of bin ns
// from First, by departure instant (a job passing in [First + i·bin,
// First + (i+1)·bin) counts in bin i; those passing after Last count in
// the last bin), and the start of each bin in seconds. Floats, for
// figures. It needs the departures (Spec.KeepDepartures): without them
// every bin is 0.
func (r *Result) Rate(bin engine.Time) (x, y []float64) {
	if bin <= 0 || r.Jobs == 0 {
		return nil, nil
	}
	n := int((r.Last-r.First)/bin) + 1
	counts := make([]int64, n)
	for _, ds := range r.Departures {
		for _, d := range ds {
			i := int(max(0, min(int64(n-1), int64((d-r.First)/bin))))
			counts[i]++
		}
	}
	x, y = make([]float64, n), make([]float64, n)
	for i, c := range counts {
		x[i] = (r.First + engine.Time(i)*bin).Seconds()
		y[i] = float64(c) / bin.Seconds()
	}
	return x, y
}

// Count is the decisions of one node or one key.
type Count struct {
	Admitted int64 `json:"admitted"`
	Rejected int64 `json:"rejected"`
}

func (r *Result) count(node int, key uint64, admitted bool) {
	for len(r.PerNode) <= node {
		r.PerNode = append(r.PerNode, Count{})
	}
	if r.PerKey == nil {
		r.PerKey = map[uint64]*Count{}
	}
	c := r.PerKey[key]
	if c == nil {
		c = &Count{}
		r.PerKey[key] = c
	}
	if admitted {
		r.PerNode[node].Admitted++
		c.Admitted++
	} else {
		r.PerNode[node].Rejected++
		c.Rejected++
	}
}

// record keeps a decision.
func (r *Result) admit(node int, j systems.Job, extra engine.Time, wait exact.Int128) {
	key, t := j.Key, j.T
	r.count(node, key, true)
	r.mark(j.ID)
	r.Admitted++
	tot := exact.Mul64(int64(extra), r.Scale).Add(wait)
	if tot.Sign() == 0 {
		r.ZeroDelays++
	} else {
		r.TotalDelay = r.TotalDelay.Add(tot)
		r.addDelay(tot.Float64() / float64(r.Scale) / 1e9)
	}
	if r.online != nil {
		r.online.admitted(j, tot)
	}
	x := t + extra + engine.Time(wait.CeilDiv(r.Scale).Int64())
	if r.streams != nil {
		if err := r.streams.add(key, x); err != nil && r.streamErr == nil {
			r.streamErr = err
		}
		return
	}
	if r.Departures == nil {
		r.Departures = map[uint64][]engine.Time{}
	}
	r.Departures[key] = append(r.Departures[key], x)
}

// addDelay keeps a delay that is not 0, seconds: exactly while there are
// at most tailsketch.ExactValues or the departures are kept (r.streams is
// nil), in the sketch beyond.
func (r *Result) addDelay(x float64) {
	if r.delaySk != nil {
		r.delaySk.Add(x)
		return
	}
	r.Delays = append(r.Delays, x)
	if r.streams != nil && len(r.Delays) >= tailsketch.ExactValues {
		r.delaySk, r.Delays = tailsketch.New(r.Delays), nil
	}
}

func (r *Result) reject(node int, j systems.Job) { r.rejectAfter(node, j, 0) }

// rejectAfter keeps a rejection that the job's node learns back ns after
// the instant of the decision (the rest of a round trip to the store).
func (r *Result) rejectAfter(node int, j systems.Job, back engine.Time) {
	r.rejectHint(node, j, back, 0)
}

// rejectHint is rejectAfter with the retry hint the deciding limiter gave
// (buckets.Decision.RetryAfter; 0 for none), passed on to an online
// client.
func (r *Result) rejectHint(node int, j systems.Job, back, hint engine.Time) {
	r.count(node, j.Key, false)
	r.Rejected++
	if r.online != nil {
		r.online.rejected(j, back, hint)
	}
}

// Jain returns Jain's fairness index of the admitted fractions
// x_i = admitted/(admitted + rejected) of the counts with a decision,
//
//	J = (Σ x_i)² / (n·Σ x_i²)
//
// 1 when every node (key) sees the same fraction admitted, 1/n when one
// alone has any admitted; 1 for no count (R. Jain, D. Chiu and W. Hawe,
// "A quantitative measure of fairness and discrimination for resource
// allocation in shared computer systems", DEC-TR-301, 1984).
func Jain(cs []Count) float64 {
	var s, s2 float64
	n := 0
	for _, c := range cs {
		if c.Admitted+c.Rejected == 0 {
			continue
		}
		x := float64(c.Admitted) / float64(c.Admitted+c.Rejected)
		s += x
		s2 += x * x
		n++
	}
	if n == 0 || s2 == 0 {
		return 1
	}
	return s * s / (float64(n) * s2)
}
