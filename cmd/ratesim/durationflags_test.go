package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// durationFlags lists every flag of every command that takes a duration,
// with the other flags it needs to apply, a short run, and its kind:
// "clock" for a span on the nanosecond clock (finer than 1 ns refused
// with the nearest values), "exact" for a window or offset that is an
// exact rational number of seconds (1/3 s is a window of exactly 1/3 s),
// and whether infinity means something for it.
type durationFlagCase struct {
	cmd, flag string
	ctx       []string
	exact     bool // an exact rational span: 1/3 and 1.5ns fit
	inf       bool // inf means something: never
}

func durationFlagTable(dir string) []durationFlagCase {
	counts := filepath.Join(dir, "counts.txt")
	return []durationFlagCase{
		{cmd: "run", flag: "interval", ctx: []string{"--trace", counts, "--format", "counts", "--rate", "1", "--burst", "2"}},
		{cmd: "limiters", flag: "interval", ctx: []string{"--trace", counts, "--format", "counts", "--limiters", "token-police"}},
		{cmd: "clients", flag: "interval", ctx: []string{"--trace", counts, "--format", "counts"}},
		{cmd: "drl", flag: "interval", ctx: []string{"--trace", counts, "--format", "counts", "--designs", "one"}},
		{cmd: "limiters", flag: "service-latency", ctx: []string{"--jobs", "20", "--arrivals", "periodic", "--limiters", "token-police", "--service-rate", "1000"}},
		{cmd: "limiters", flag: "durations", ctx: []string{"--jobs", "20", "--arrivals", "periodic", "--limiters", "token-police"}},
		{cmd: "limiters", flag: "window", ctx: []string{"--jobs", "20", "--arrivals", "periodic", "--limiters", "token-police", "--rate", "10"}, exact: true},
		{cmd: "limiters", flag: "offset", ctx: []string{"--jobs", "20", "--arrivals", "periodic", "--limiters", "fixed-window", "--window", "2d"}, exact: true},
		{cmd: "clients", flag: "window", ctx: []string{"--jobs", "20", "--limiter", "fixed-window"}, exact: true},
		{cmd: "clients", flag: "base", ctx: []string{"--jobs", "20", "--cap", "3d"}},
		{cmd: "clients", flag: "cap", ctx: []string{"--jobs", "20", "--base", "1ns"}},
		{cmd: "clients", flag: "deadline", ctx: []string{"--jobs", "20"}},
		{cmd: "clients", flag: "bin", ctx: []string{"--jobs", "20"}},
		{cmd: "clients", flag: "think", ctx: []string{"--jobs", "0", "--users", "1", "--horizon", "1"}},
		{cmd: "clients", flag: "horizon", ctx: []string{"--jobs", "0", "--users", "1", "--think", "1h", "--bin", "0"}},
		{cmd: "clients", flag: "pace-jitter", ctx: []string{"--jobs", "20", "--pace", "5"}},
		{cmd: "clients", flag: "retry-after-jitter", ctx: []string{"--jobs", "20", "--retry-after"}},
		{cmd: "clients", flag: "backfill-interval", ctx: []string{"--jobs", "20", "--server-rate", "20", "--backfill", "5"}},
		{cmd: "clients", flag: "backfill-target", ctx: []string{"--jobs", "20", "--server-rate", "20", "--backfill", "5"}},
		{cmd: "clients", flag: "sync-period", ctx: []string{"--jobs", "20", "--design", "sync"}, inf: true},
		{cmd: "clients", flag: "lease-ttl", ctx: []string{"--jobs", "20", "--design", "lease"}, inf: true},
		{cmd: "clients", flag: "estimate-interval", ctx: []string{"--jobs", "20", "--design", "grd"}},
		{cmd: "drl", flag: "sync-period", ctx: []string{"--jobs", "20", "--designs", "sync"}, inf: true},
		{cmd: "drl", flag: "lease-ttl", ctx: []string{"--jobs", "20", "--designs", "lease"}, inf: true},
		{cmd: "drl", flag: "estimate-interval", ctx: []string{"--jobs", "20", "--designs", "grd"}},
		{cmd: "drl", flag: "rate-window", ctx: []string{"--jobs", "20", "--designs", "one"}},
	}
}

// TestDurationFlagsAgree walks every duration flag of every command with
// the same values and requires the same verdict from each: the one
// grammar (engine.ParseDuration) read by all of them. "2 s" (SI's space
// before the unit), "1h30m" and "1d" run everywhere; "1x" is refused
// everywhere with exit 2 naming the flag; "1/3" and "1.5ns" are refused by
// every flag on the nanosecond clock, naming the two nearest values that
// fit, and run as exact rationals in the window flags; "inf" runs where
// infinity means something (a sync period or a lease that never ends) and
// is refused everywhere else.
func TestDurationFlagsAgree(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "counts.txt"), []byte("1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range durationFlagTable(dir) {
		for _, tc := range []struct {
			value string
			ok    func(f durationFlagCase) bool
			msg   string // in the error, when refused
		}{
			{"2 s", func(durationFlagCase) bool { return true }, ""},
			{"1h30m", func(durationFlagCase) bool { return true }, ""},
			{"1d", func(durationFlagCase) bool { return true }, ""},
			{"1x", func(durationFlagCase) bool { return false }, ""},
			{"1/3", func(f durationFlagCase) bool { return f.exact }, "333.333333ms or 333.333334ms"},
			{"1.5ns", func(f durationFlagCase) bool { return f.exact }, "1ns or 2ns"},
			{"inf", func(f durationFlagCase) bool { return f.inf }, ""},
		} {
			args := append([]string{f.cmd}, f.ctx...)
			args = append(args, "--"+f.flag, tc.value)
			_, stderr, code := ratesim(t, args...)
			want := 2
			if tc.ok(f) {
				want = 0
			}
			if code != want {
				t.Errorf("ratesim %s --%s %q: exit %d, want %d; stderr %s", f.cmd, f.flag, tc.value, code, want, strings.TrimSpace(stderr))
				continue
			}
			if code == 2 && (!strings.Contains(stderr, "--"+f.flag) || !strings.Contains(stderr, tc.msg)) {
				t.Errorf("ratesim %s --%s %q: error %q does not name the flag and %q", f.cmd, f.flag, tc.value, strings.TrimSpace(stderr), tc.msg)
			}
		}
	}
}

// TestClientsBaseAboveDefaultCap: ratesim clients --base 1h30m runs, its
// cap (not given) rising from the default 10 s to the base, 5400 s, as
// the text and the JSON say; a cap given below the base is still refused.
func TestClientsBaseAboveDefaultCap(t *testing.T) {
	out, stderr, code := ratesim(t, "clients", "--base", "1h30m", "--jobs", "100")
	if code != 0 || !strings.Contains(out, "base 1h30m, cap 1h30m") {
		t.Errorf("clients --base 1h30m: exit %d, %s%s", code, out, stderr)
	}
	out, _, code = ratesim(t, "clients", "--base", "1h30m", "--jobs", "100", "--json")
	if code != 0 || !strings.Contains(out, `"backoff_base_s": 5400,`) || !strings.Contains(out, `"backoff_cap_s": 5400,`) {
		t.Errorf("clients --base 1h30m --json: exit %d, %s", code, out)
	}
	if _, stderr, code := ratesim(t, "clients", "--base", "1h30m", "--cap", "1h"); code != 2 || !strings.Contains(stderr, "--cap 1h: want a cap >= --base 5400 s") {
		t.Errorf("clients --base 1h30m --cap 1h: exit %d, %s", code, stderr)
	}
}
