package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/profiles"
)

// profileNames lists the profiles of the registry, in its order.
func profileNames() []string {
	var ns []string
	for _, in := range profiles.Registry() {
		ns = append(ns, in.Name)
	}
	return ns
}

// profileKeys describes the keys of profile info for an error message:
// "rate (r/s or r/m, default 1r/s), burst (requests, default 0), nodelay".
func profileKeys(info profiles.Info) string {
	var ks []string
	for _, k := range info.Keys {
		switch {
		case k.Flag:
			ks = append(ks, k.Name+" (a flag)")
		case k.Default != "":
			ks = append(ks, fmt.Sprintf("%s (%s, default %s)", k.Name, k.Unit, k.Default))
		default:
			ks = append(ks, fmt.Sprintf("%s (%s)", k.Name, k.Unit))
		}
	}
	return strings.Join(ks, ", ")
}

// profileHelp is the help text of a --profile flag: every profile with its
// keys, from the registry.
func profileHelp() string {
	var b strings.Builder
	b.WriteString(`library-faithful limiter 'NAME:key=value,...' (repeatable); NAME and keys:`)
	for _, in := range profiles.Registry() {
		var ks []string
		for _, k := range in.Keys {
			ks = append(ks, k.Name)
		}
		fmt.Fprintf(&b, "\n  %s: %s", in.Name, strings.Join(ks, ", "))
	}
	return b.String()
}

// parseProfiles parses the values of --profile. A profile may be given
// more than once with other keys (nginx with and without nodelay); its
// rows share the name and differ in their params. An error names the flag
// and the spec, says what is wrong, and lists what fits: the profiles for
// an unknown name, the keys of the profile (with units and defaults)
// otherwise.
func parseProfiles(specs []string) ([]profiles.Profile, error) {
	var ps []profiles.Profile
	for _, spec := range specs {
		p, err := profiles.Parse(spec)
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "profiles: ")
			name := strings.TrimSpace(strings.SplitN(spec, ":", 2)[0])
			if errors.Is(err, profiles.ErrUnknownProfile) {
				return nil, fmt.Errorf("--profile %q: unknown profile %q; want one of %s", spec, name, strings.Join(profileNames(), ", "))
			}
			info, _ := profiles.Lookup(name)
			msg = strings.TrimPrefix(msg, name+": ")
			if i := strings.Index(msg, "; keys: "); i >= 0 {
				msg = msg[:i] // listed below, with units and defaults
			}
			return nil, fmt.Errorf("--profile %q: %s; %s keys: %s", spec, msg, name, profileKeys(info))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// scaleCurve returns n·α: the most n replicas, each keeping α, let pass in
// any window together (an adversarial dispatch gives each replica its
// worst case at once); false when it overflows.
func scaleCurve(a netcalc.Arrival, n int) (netcalc.Arrival, bool) {
	k := exact.Int(int64(n))
	scale := func(tb netcalc.TokenBucket) (netcalc.TokenBucket, bool) {
		r, err1 := tb.Rate.Mul(k)
		b, err2 := tb.Burst.Mul(k)
		return netcalc.TokenBucket{Rate: r.Reduce(), Burst: b.Reduce()}, err1 == nil && err2 == nil
	}
	switch a := a.(type) {
	case netcalc.TokenBucket:
		return scale(a)
	case netcalc.Concave:
		c := make(netcalc.Concave, len(a))
		for i, tb := range a {
			var ok bool
			if c[i], ok = scale(tb); !ok {
				return nil, false
			}
		}
		return c, true
	}
	return nil, false
}

// profilesPeriod returns the measurement period of a run of profiles
// alone: the longest time any of them takes to earn its burst back, b/r of
// its arrival curve, or 1 s when none has a curve with a rate.
func profilesPeriod(ps []profiles.Profile) exact.Rat {
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

// profileCurve is one profile's exact arrival curve in the --json output.
type profileCurve struct {
	Name       string  `json:"limiter"`
	Params     string  `json:"params"`
	Curve      string  `json:"arrival_curve"` // "γ(r=10, b=6.01)", or "min(...)"
	CurveDNC   string  `json:"arrival_curve_dnc,omitempty"`
	Rate       float64 `json:"rate_jobs_per_s"` // long-term rate
	RateExact  string  `json:"rate_jobs_per_s_exact"`
	Burst      float64 `json:"burst_jobs"` // α(0+): the most at one instant, clock rounding included
	BurstExact string  `json:"burst_jobs_exact"`
}

// profileCurves returns the arrival curve of every profile of s that has
// one.
func profileCurves(s limiterstudy.LimitersSpec) []profileCurve {
	var out []profileCurve
	for _, p := range s.Profiles {
		a, ok := profiles.ArrivalCurve(p)
		if !ok {
			continue
		}
		r, b := netcalc.LongTermRate(a), netcalc.InitialBurst(a)
		c := profileCurve{Name: p.Name, Params: p.String(), Curve: a.String(), Rate: r.Float64(), RateExact: r.String(), Burst: b.Float64(), BurstExact: b.String()}
		if dnc, err := netcalc.FormatDNCArrival(a); err == nil {
			c.CurveDNC = dnc
		}
		out = append(out, c)
	}
	return out
}

// writeCurves lists the profiles' arrival curves.
func writeCurves(w io.Writer, curves []profileCurve) {
	if len(curves) == 0 {
		return
	}
	fmt.Fprintf(w, "\narrival curves: the most each profile lets pass in any window of d s is at most b + r·d (exact; b includes\n")
	fmt.Fprintf(w, "its clock's rounding); the downstream bounds use these curves\n")
	fmt.Fprintf(w, "%-16s %-40s %12s %12s\n", "profile", "α", "r (jobs/s)", "b (jobs)")
	for _, c := range curves {
		fmt.Fprintf(w, "%-16s %-40s %12.6g %12.6g\n", c.Name, c.Curve, c.Rate, c.Burst)
	}
}

// writeColours lists the colours the three-colour markers gave.
func writeColours(w io.Writer, res *limiterstudy.LimitersResult) {
	first := true
	for _, l := range res.Limiters {
		if l.Colours == nil {
			continue
		}
		head := "colours   "
		if !first {
			head = "          "
		}
		first = false
		fmt.Fprintf(w, "%s %s: %d green, %d yellow, %d red (%s)\n", head, l.Name, l.Colours.Green, l.Colours.Yellow, l.Colours.Red, l.Params)
	}
}

// burstSizing is the result of --size-burst.
type burstSizing struct {
	Fraction float64         `json:"target_fraction"` // --size-burst
	Allowed  int64           `json:"allowed_jobs"`    // floor(fraction · jobs)
	Jobs     int64           `json:"jobs"`
	Profiles []profileSizing `json:"profiles"`
}

// profileSizing is one profile's burst sizing.
type profileSizing struct {
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

// sizeBursts reads the arrivals again and sizes each profile's burst.
func (f *limitersFlags) sizeBursts(cmd *cobra.Command, s limiterstudy.LimitersSpec) (*burstSizing, error) {
	proc, closeProc, _, _, err := f.arrivalProcess(cmd, s)
	if err != nil {
		return nil, err
	}
	if closeProc != nil {
		defer closeProc()
	}
	var ts []engine.Time
	for s.MaxJobs == 0 || int64(len(ts)) < s.MaxJobs {
		a, err := proc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		ts = append(ts, a.T)
	}
	out := &burstSizing{Fraction: f.sizeBurst, Jobs: int64(len(ts))}
	out.Allowed = int64(math.Floor(f.sizeBurst * float64(len(ts))))
	if out.Allowed+1 > 1<<26 {
		return nil, flagError("size-burst", f.sizeBurst, fmt.Sprintf("a fraction allowing at most %d refused jobs", 1<<26))
	}
	limit := max(2*int64(len(ts))+2, 16) // more than twice the jobs: a full bucket of that size refuses none
	for _, p := range s.Profiles {
		ps := profileSizing{Name: p.Name, Params: p.String()}
		if key, ok := profiles.BurstKey(p.Name); ok {
			r, err := profiles.SizeBurst(p, ts, out.Allowed, limit)
			if err != nil {
				return nil, err
			}
			ps.Key, ps.Found, ps.Refused, ps.TriedUpTo = key, r.Found, r.Refused, r.Tried
			ps.Configured, _ = p.Value(key)
			if r.Found {
				ps.Burst = r.Burst
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
					ps.IdealRate, ps.IdealBurst = netcalc.LongTermRate(a).Float64(), b[0]
				}
			}
		}
		out.Profiles = append(out.Profiles, ps)
	}
	return out, nil
}

// writeSizing prints the burst sizing of --size-burst.
func writeSizing(w io.Writer, s *burstSizing) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\nburst sizing: the smallest burst for which at most %s of the %d jobs (%d) are rejected or delayed,\n", pct(s.Fraction), s.Jobs, s.Allowed)
	fmt.Fprintf(w, "beside b(r), the ideal token bucket's at the profile's rate r (full at the start; at most that many wait)\n")
	fmt.Fprintf(w, "%-16s %-11s %10s %10s %9s %12s %12s\n", "profile", "key", "configured", "sized", "refused", "b(r)", "r (jobs/s)")
	for _, p := range s.Profiles {
		sized := "-"
		switch {
		case p.Key == "":
			sized = "no key"
		case p.Found:
			sized = strconv.FormatInt(p.Burst, 10)
		default:
			sized = fmt.Sprintf("> %d", p.TriedUpTo)
		}
		ideal, rate := "-", "-"
		if p.IdealRate > 0 {
			ideal, rate = fmt.Sprintf("%.6g", p.IdealBurst), fmt.Sprintf("%.6g", p.IdealRate)
		}
		key, conf := p.Key, p.Configured
		if key == "" {
			key, conf = "-", "-"
		}
		refused := strconv.FormatInt(p.Refused, 10)
		if p.Key == "" {
			refused = "-"
		}
		fmt.Fprintf(w, "%-16s %-11s %10s %10s %9s %12s %12s\n", p.Name, key, conf, sized, refused, ideal, rate)
	}
}
