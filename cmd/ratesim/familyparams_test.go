package main

import (
	"encoding/json"
	"testing"
)

// TestFamilyParamsAgree gives ratesim limiters and ratesim clients the same
// family limiter with the same throttle deficits and window offset, and
// requires the same limiter (its parameters as each command describes
// them) and the same refusals: both read them through
// clientstudy.ClientsParams.FamilyLimits and build the limiter through
// limiterstudy.NewLimiter.
func TestFamilyParamsAgree(t *testing.T) {
	for _, tc := range []struct {
		limiter string
		flags   []string
		want    string // by hand: soft 2, hard 5 given; offset 1/4 of W = 1
	}{
		{"throttle", []string{"--soft", "2", "--hard", "5"}, "r = 10 tokens/s, b = 10 tokens, admission 1 up to deficit 2, 0 from 5 tokens"},
		{"throttle", []string{"--soft", "2"}, "r = 10 tokens/s, b = 10 tokens, admission 1 up to deficit 2, 0 from 9 tokens"},
		{"fixed-window", []string{"--window", "1", "--offset", "250ms"}, "L = 10 per W = 1 s, edges at 0.25 + k·W s from the start"},
	} {
		var lim struct {
			Limiters []struct{ Params string }
		}
		var cl struct {
			LimiterParams string `json:"limiter_params"`
		}
		args := append([]string{"limiters", "--limiters", tc.limiter, "--rate", "10", "--limit", "10", "--arrivals", "periodic", "--jobs", "50", "--json"}, tc.flags...)
		out, stderr, code := ratesim(t, args...)
		if code != 0 || json.Unmarshal([]byte(out), &lim) != nil || len(lim.Limiters) != 1 {
			t.Fatalf("ratesim %v: exit %d: %s", args, code, stderr)
		}
		args = append([]string{"clients", "--limiter", tc.limiter, "--rate", "10", "--limit", "10", "--arrivals", "periodic", "--jobs", "50", "--json"}, tc.flags...)
		out, stderr, code = ratesim(t, args...)
		if code != 0 || json.Unmarshal([]byte(out), &cl) != nil {
			t.Fatalf("ratesim %v: exit %d: %s", args, code, stderr)
		}
		if lim.Limiters[0].Params != tc.want || cl.LimiterParams != tc.want {
			t.Errorf("%s %v: limiters %q, clients %q, want %q", tc.limiter, tc.flags, lim.Limiters[0].Params, cl.LimiterParams, tc.want)
		}
	}
	for _, bad := range [][]string{{"--soft", "6", "--hard", "5"}, {"--hard", "10"}, {"--offset", "1"}, {"--soft", "x"}} {
		_, e1, c1 := ratesim(t, append([]string{"limiters", "--limiters", "throttle", "--rate", "10", "--limit", "10", "--window", "1"}, bad...)...)
		_, e2, c2 := ratesim(t, append([]string{"clients", "--limiter", "throttle", "--rate", "10", "--limit", "10", "--window", "1"}, bad...)...)
		if c1 != 2 || c2 != 2 || e1 != e2 {
			t.Errorf("%v: limiters exit %d %q, clients exit %d %q: want the same refusal, exit 2", bad, c1, e1, c2, e2)
		}
	}
}
