package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

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

// writeCurves lists the profiles' arrival curves.
func writeCurves(w io.Writer, curves []limiterstudy.ProfileCurve) {
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

// sizeBursts reads the arrivals again and sizes each profile's burst.
func (f *limitersFlags) sizeBursts(cmd *cobra.Command, s limiterstudy.LimitersSpec) (*limiterstudy.BurstSizing, error) {
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
	sz, err := limiterstudy.SizeBursts(s.Profiles, ts, f.p.SizeBurst)
	if le := (*limiterstudy.LimiterError)(nil); errors.As(err, &le) && le.Field == "SizeBurst" {
		return nil, flagError("size-burst", f.p.SizeBurst, le.Want)
	}
	return sz, err
}

// writeSizing prints the burst sizing of --size-burst.
func writeSizing(w io.Writer, s *limiterstudy.BurstSizing) {
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
