package limiterstudy

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/profiles"
)

// ProfilesPeriod returns the measurement period, seconds, of a run of profiles
// alone: the longest time any of them takes to earn its burst back, b/r of
// its arrival curve, or 1 s when none has a curve with a rate.
func ProfilesPeriod(ps []profiles.Profile) exact.Rat {
	period := exact.Rat{}
	for _, p := range ps {
		a, ok := profiles.ArrivalCurve(p)
		if !ok || netcalc.LongTermRate(a).Sign() <= 0 {
			continue
		}
		if q, err := netcalc.InitialBurst(a).Quo(netcalc.LongTermRate(a)); err == nil && q.Cmp(period) > 0 && q.Float64() < 1e6 {
			period = q
		}
	}
	if period.Sign() <= 0 {
		return exact.Int(1)
	}
	return period
}

// ProfileCurve is one profile's exact arrival curve γ(r, b) (or the
// minimum of several), from profiles.ArrivalCurve.
type ProfileCurve struct {
	Name       string  `json:"limiter"`
	Params     string  `json:"params"`
	Curve      string  `json:"arrival_curve"` // "γ(r=10, b=6.01)", or "min(...)"
	CurveDNC   string  `json:"arrival_curve_dnc,omitempty"`
	Rate       float64 `json:"rate_jobs_per_s"` // long-term rate
	RateExact  string  `json:"rate_jobs_per_s_exact"`
	Burst      float64 `json:"burst_jobs"` // α(0+): the most at one instant, clock rounding included
	BurstExact string  `json:"burst_jobs_exact"`
}

// ProfileCurves returns the exact arrival curve of every profile of s that has
// one.
func ProfileCurves(s LimitersSpec) []ProfileCurve {
	var out []ProfileCurve
	for _, p := range s.Profiles {
		a, ok := profiles.ArrivalCurve(p)
		if !ok {
			continue
		}
		r, b := netcalc.LongTermRate(a), netcalc.InitialBurst(a)
		c := ProfileCurve{Name: p.Name, Params: p.String(), Curve: a.String(), Rate: r.Float64(), RateExact: r.String(), Burst: b.Float64(), BurstExact: b.String()}
		if dnc, err := netcalc.FormatDNCArrival(a); err == nil {
			c.CurveDNC = dnc
		}
		out = append(out, c)
	}
	return out
}

// BurstSizing is the result of [SizeBursts].
type BurstSizing struct {
	Fraction float64         `json:"target_fraction"` // the fraction of jobs that may be refused or delayed
	Allowed  int64           `json:"allowed_jobs"`    // floor(fraction · jobs)
	Jobs     int64           `json:"jobs"`
	Profiles []ProfileSizing `json:"profiles"`
}

// ProfileSizing is one profile's burst sizing.
type ProfileSizing struct {
	Name       string `json:"limiter"`
	Params     string `json:"params"`
	Key        string `json:"key,omitempty"`        // the burst key; "" when the profile has none
	Configured string `json:"configured,omitempty"` // its value in --profile
	Found      bool   `json:"found"`
	Burst      int64  `json:"burst,omitempty"` // the smallest value meeting the target, when found
	Refused    int64  `json:"refused_jobs"`    // rejected or delayed with Burst (or with the largest value tried)
	TriedUpTo  int64  `json:"tried_up_to"`     // the largest value tried
	// IdealRate and IdealBurst are the ideal token bucket's b(r) at the
	// profile's long-term rate: the smallest bucket, full at the start, in
	// which at most Allowed jobs wait (ratesim trace stats --fit).
	IdealRate  float64 `json:"ideal_rate_jobs_per_s,omitempty"`
	IdealBurst float64 `json:"ideal_burst_tokens,omitempty"`
}

// SizeBursts sizes the burst key of each profile of ps on the arrival
// instants ts (ns, in order): the smallest value for which at most a
// fraction of the jobs, floor(fraction·len(ts)), is rejected or delayed
// (profiles.SizeBurst), beside the ideal token bucket's b(r) at the
// profile's long-term rate (arrivals.BurstCurve, as ratesim trace stats
// --fit). Errors: a *LimiterError when that many refused jobs is over
// 2^26, and those of profiles.SizeBurst.
func SizeBursts(ps []profiles.Profile, ts []engine.Time, fraction float64) (*BurstSizing, error) {
	out := &BurstSizing{Fraction: fraction, Jobs: int64(len(ts))}
	out.Allowed = int64(math.Floor(fraction * float64(len(ts))))
	if out.Allowed+1 > 1<<26 {
		return nil, &LimiterError{"SizeBurst", fraction, fmt.Sprintf("a fraction allowing at most %d refused jobs", 1<<26)}
	}
	limit := max(2*int64(len(ts))+2, 16) // more than twice the jobs: a full bucket of that size refuses none
	for _, p := range ps {
		sz := ProfileSizing{Name: p.Name, Params: p.String()}
		if key, ok := profiles.BurstKey(p.Name); ok {
			r, err := profiles.SizeBurst(p, ts, out.Allowed, limit)
			if err != nil {
				return nil, err
			}
			sz.Key, sz.Found, sz.Refused, sz.TriedUpTo = key, r.Found, r.Refused, r.Tried
			sz.Configured, _ = p.Value(key)
			if r.Found {
				sz.Burst = r.Burst
			}
		}
		if a, ok := profiles.ArrivalCurve(p); ok && netcalc.LongTermRate(a).Sign() > 0 && len(ts) > 0 {
			bc, err := arrivals.NewBurstCurve([]exact.Rat{netcalc.LongTermRate(a)}, int(out.Allowed+1))
			if err == nil {
				for _, t := range ts {
					if err = bc.Add(t); err != nil {
						break
					}
				}
			}
			if err == nil {
				if b, err := bc.BurstAllowing(out.Allowed); err == nil {
					sz.IdealRate, sz.IdealBurst = netcalc.LongTermRate(a).Float64(), b[0]
				}
			}
		}
		out.Profiles = append(out.Profiles, sz)
	}
	return out, nil
}
