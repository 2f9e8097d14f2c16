package clients

import (
	"fmt"
	"math"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Stats are what a client population measured: its requests, their
// attempts (the first one and every retry), successes and give-ups, the
// latency each successful request's user saw (from the request's arrival
// to the instant its last attempt passed the limiter), and the same counts
// in bins of time. With a downstream server a success is a request served
// there, and its latency ends at its departure (see [Gate.Serve]).
//
// Latencies are kept, one float64 of seconds per success (rounded once
// from the exact value), so that quantiles are exact, up to
// tailsketch.ExactValues (2^20) successes; beyond, the zero latencies are
// counted and the others kept in a DDSketch (quantiles within 1%), so
// that memory does not grow with the number of successes.
type Stats struct {
	// Bin is the width of the time series bins in nanoseconds; 0 keeps
	// no series.
	Bin engine.Time

	Requests  int64 // original requests (each counted once, at its arrival)
	Attempts  int64 // offers to the limiter, first attempts and retries
	Successes int64 // requests that passed the limiter (with a server: served there)
	// GiveUps counts requests abandoned: MaxAttempts counts those that
	// used all their attempts, Deadline those whose next retry would have
	// come after their deadline, NoRetry those a client honouring
	// Retry-After dropped because the limiter said no retry would ever
	// pass (buckets.NoRetry). None of them has a latency.
	GiveUps, GiveUpsAttempts, GiveUpsDeadline, GiveUpsNoRetry int64

	// AttemptsPerSuccess[k] is the number of successful requests that
	// took k attempts (index 0 unused).
	AttemptsPerSuccess []int64

	// First is the arrival of the first request; Last the latest instant
	// a request finished (succeeded, rounded up to the
	// nanosecond, or gave up). Both are 0 before any.
	First, Last engine.Time

	latencies latencies // seconds, in order of success
	bins      []Bin
	// overBins is the first instant whose bin would have been past
	// MaxBins (then no more bins are kept), 0 if none.
	overBins engine.Time
}

// MaxBins is the most series bins one population keeps (a bound on the
// series' memory, 56 bytes a bin and 16 more with a server). A run whose span needs more bins of
// its width fails with an [*ErrTooManyBins].
const MaxBins = 1_000_000

// ErrTooManyBins is the error of a run whose series would need more than
// [MaxBins] bins of width Bin: an instant At (ns) fell past the last bin.
type ErrTooManyBins struct {
	Bin, At engine.Time
}

func (e *ErrTooManyBins) Error() string {
	return fmt.Sprintf("clients: series bin %v s: an event at %v s needs more than %d bins (a bin of at least %v s fits)", e.Bin, e.At, MaxBins, e.Fits())
}

// Fits returns the smallest bin width of the form 1, 2 or 5 times a power
// of ten nanoseconds that holds [0, At] in MaxBins bins.
func (e *ErrTooManyBins) Fits() engine.Time {
	need := e.At/MaxBins + 1 // floor(At/w) < MaxBins
	for p := engine.Time(1); ; p *= 10 {
		for _, m := range []engine.Time{1, 2, 5} {
			if w := m * p; w >= need {
				return w
			}
		}
		if p > math.MaxInt64/100 {
			return need
		}
	}
}

// Bin holds the counts of one bin of time [Start, Start + width).
// Requests and Attempts are counted at the instant they are made,
// Successes at the exact instant the request passed, GiveUps at the
// instant the client gave up.
//
// With a downstream server (a [Scenario] with a Server and a series),
// Server holds the server's series in the bin: the overflows of the
// population's own jobs and the largest number of jobs (all classes) at
// the server; nil otherwise.
type Bin struct {
	Start                                  engine.Time
	Requests, Attempts, Successes, GiveUps int64
	Server                                 *ServerBin
}

// Amplification returns the bin's retry amplification, attempts per
// original request made in the bin (NaN for a bin without requests).
func (b Bin) Amplification() float64 { return float64(b.Attempts) / float64(b.Requests) }

// Goodput returns the bin's successes per second for a bin of the given
// width.
func (b Bin) Goodput(width engine.Time) float64 { return float64(b.Successes) / width.Seconds() }

// Err returns an [*ErrTooManyBins] if an event fell past the last of
// MaxBins bins (the series then stops there), or nil.
func (st *Stats) Err() error {
	if st.overBins == 0 {
		return nil
	}
	return &ErrTooManyBins{Bin: st.Bin, At: st.overBins}
}

// Series returns the bins from the first to the last one with a count in
// it, empty bins included.
func (st *Stats) Series() []Bin {
	out := slices.Clone(st.bins)
	for i := range out {
		out[i].Start = engine.Time(i) * st.Bin
	}
	return out
}

// Latencies returns the latency of every success in seconds, in the order
// the requests succeeded (a copy); beyond 2^20 successes, 2^16 latencies
// standing for them with equal weights, sorted (see Stats).
func (st *Stats) Latencies() []float64 { return st.latencies.values() }

// Summary is [Stats] reduced to the figures a comparison reports. Times
// are in seconds.
type Summary struct {
	Requests, Attempts, Successes, GiveUps int64
	// NoRetry is the give-ups told that no retry would pass
	// (Stats.GiveUpsNoRetry), among GiveUps.
	NoRetry int64
	// Amplification is Attempts/Requests, the retry amplification.
	Amplification float64
	// AttemptsPerSuccess is Attempts/Successes: the work the limiter saw
	// for each request that got through (give-ups' attempts included).
	AttemptsPerSuccess float64
	// Goodput is Successes per second over [First, Last].
	Goodput float64
	// Drain is Last - First, s: how long the population took to finish.
	Drain float64
	// Latency: mean, median, 99th percentile and maximum, s, of the
	// successes (the p-quantile is the ceil(p·n)-th smallest); 0 when none.
	MeanLatency, P50Latency, P99Latency, MaxLatency float64
}

// Summary returns the summary of st.
func (st *Stats) Summary() Summary {
	sm := Summary{
		Requests: st.Requests, Attempts: st.Attempts, Successes: st.Successes, GiveUps: st.GiveUps, NoRetry: st.GiveUpsNoRetry,
		Amplification:      ratio(st.Attempts, st.Requests),
		AttemptsPerSuccess: ratio(st.Attempts, st.Successes),
		Drain:              (st.Last - st.First).Seconds(),
	}
	if span := st.Last - st.First; span > 0 {
		sm.Goodput = float64(st.Successes) / span.Seconds()
	}
	sm.MeanLatency, sm.P50Latency, sm.P99Latency, sm.MaxLatency = st.latencies.summary()
	return sm
}

// quantile returns the ceil(p·n)-th smallest of sorted (n >= 1).
func quantile(sorted []float64, p float64) float64 {
	k := int(math.Ceil(p * float64(len(sorted))))
	return sorted[max(k, 1)-1]
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// request records a new request arriving at t.
func (st *Stats) request(t engine.Time) { st.requests(t, 1) }

// requests records n new requests arriving at t.
func (st *Stats) requests(t engine.Time, n int64) {
	if st.Requests == 0 {
		st.First = t
	}
	st.Requests += n
	if b := st.bin(t); b != nil {
		b.Requests += n
	}
}

// attempt records an offer at t.
func (st *Stats) attempt(t engine.Time) {
	st.Attempts++
	if b := st.bin(t); b != nil {
		b.Attempts++
	}
}

// success records a request that arrived at arrived, took attempts
// attempts and passed at the exact instant at (ns).
func (st *Stats) success(arrived engine.Time, attempts int, at exact.Rat) {
	st.Successes++
	for len(st.AttemptsPerSuccess) <= attempts {
		st.AttemptsPerSuccess = append(st.AttemptsPerSuccess, 0)
	}
	st.AttemptsPerSuccess[attempts]++
	lat := subRat(at, exact.Int(int64(arrived)))
	st.latencies.add(lat.QuoFloat64(1e9))
	end := engine.Time(at.Ceil().Int64())
	st.Last = max(st.Last, end)
	if st.Bin > 0 {
		if b := st.bin(engine.Time(at.Floor().Int64())); b != nil {
			b.Successes++
		}
	}
}

// giveUpNoRetry records a request abandoned at t because the limiter said
// no retry would pass.
func (st *Stats) giveUpNoRetry(t engine.Time) {
	st.GiveUps++
	st.GiveUpsNoRetry++
	st.Last = max(st.Last, t)
	if b := st.bin(t); b != nil {
		b.GiveUps++
	}
}

// giveUp records a request abandoned at t; deadline tells why.
func (st *Stats) giveUp(t engine.Time, deadline bool) {
	st.GiveUps++
	if deadline {
		st.GiveUpsDeadline++
	} else {
		st.GiveUpsAttempts++
	}
	st.Last = max(st.Last, t)
	if b := st.bin(t); b != nil {
		b.GiveUps++
	}
}

// bin returns the bin holding instant t (>= 0), or nil when no series is
// kept. A bin's floor is exact: floor(t/Bin) of integers.
func (st *Stats) bin(t engine.Time) *Bin {
	if st.Bin <= 0 || t < 0 {
		return nil
	}
	if t/st.Bin >= MaxBins {
		if st.overBins == 0 {
			st.overBins = max(t, 1)
		}
		return nil
	}
	i := int(t / st.Bin)
	for len(st.bins) <= i {
		st.bins = append(st.bins, Bin{})
	}
	return &st.bins[i]
}
