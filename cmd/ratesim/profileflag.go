package main

import (
	"errors"
	"fmt"
	"strings"

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
