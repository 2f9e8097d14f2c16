package main

import (
	"os"
	"strings"
	"testing"
)

// TestDRLGubernatorCase runs issue 24's case: ../shared's grouped bursts
// (454 jobs) on 2 daemons, Limit 10 per 10 s, GlobalSyncWait 1 s, both
// owners (the peers' order decides which node owns ratesim_0). The
// figures were printed by the real Gubernator v2.13.0 driven with the
// same jobs (interop/gubernator, TestLeakyBucket and TestTokenBucket,
// scenarios gubernator-groups-3s/n=2/owner=0|1/wait=1s): leaky bucket 201
// and 201, token bucket 210 and 174; the one bucket admits 157.
func TestDRLGubernatorCase(t *testing.T) {
	csv := "../../../shared/cases/gubernator-groups-3s.csv"
	if _, err := os.Stat(csv); err != nil {
		t.Skipf("skipping: %s not found (../shared is beside the repository, not in it): %v", csv, err)
	}
	for _, c := range []struct {
		alg   string
		peers string
		want  int64
	}{
		{"leaky-bucket", "127.0.0.1:1112,127.0.0.1:1114", 201}, // node 0 owns ratesim_0
		{"leaky-bucket", "127.0.0.1:1114,127.0.0.1:1112", 201}, // node 1 owns it
		{"token-bucket", "127.0.0.1:1112,127.0.0.1:1114", 210},
		{"token-bucket", "127.0.0.1:1114,127.0.0.1:1112", 174},
	} {
		res := drlJSONRun(t, "--trace", csv, "--time-col", "t", "--rate", "1", "--burst", "10", "--nodes", "2", "--police",
			"--designs", "one,sync", "--algorithm", c.alg, "--sync-period", "1s", "--peers", c.peers)
		if len(res.Designs) != 2 || res.Designs[0].Admitted != 157 || res.Designs[1].Admitted != c.want || res.Designs[1].Jobs != 454 {
			t.Errorf("%s, peers %s: designs %+v, want one 157 and sync %d of 454", c.alg, c.peers, res.Designs, c.want)
		}
	}
}

// TestDRLGubernatorFlags: a Gubernator algorithm refuses shaping and the
// ideal design's share mode, naming the flag; --peers wants one address
// per node.
func TestDRLGubernatorFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--algorithm", "leaky"}, "--algorithm"},
		{[]string{"--algorithm", "leaky-bucket", "--police", "--peers", "127.0.0.1:1"}, "--peers"},
		{[]string{"--algorithm", "token-bucket", "--burst", "2.5", "--police"}, "whole number"},
		{[]string{"--algorithm", "token-bucket"}, "--police"},
		{[]string{"--algorithm", "token-bucket", "--police", "--local", "share"}, "--local"},
	} {
		_, errOut, code := ratesim(t, append([]string{"drl", "--designs", "sync", "--jobs", "10", "--nodes", "2", "--rate", "1", "--burst", "2"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", c.args, code, errOut, c.want)
		}
	}
}
