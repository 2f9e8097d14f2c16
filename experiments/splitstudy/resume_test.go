package splitstudy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
)

// interrupted runs spec with the points of done already finished and
// cancels it after n replications, as Ctrl-C would; it returns the
// results read back from their JSON, as ratesim sweep --resume reads them.
func interrupted(t *testing.T, spec *Spec, shard experiments.Shard, done []PointResult, n int) *Results {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := RunSweep(ctx, spec, experiments.SweepOptions{Workers: 2, Shard: shard, Progress: func(p experiments.SweepProgress) {
		if p.Replications == n {
			cancel()
		}
	}}, &Results{Points: done})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	_, j := encode(t, res)
	var back Results
	if err := decodeResults(j, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestSweepResume: a sweep interrupted after a random number of
// replications, then resumed (once or twice interrupted again) from the
// points it wrote, gives byte for byte the CSV and JSON of one
// uninterrupted run; on a shard too. Any subset of finished points
// resumes the same way.
func TestSweepResume(t *testing.T) {
	s := smallSpec(t) // 18 points × 3 replications
	for _, shard := range []experiments.Shard{{}, {Index: 2, Count: 3}} {
		whole, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2, Shard: shard}, nil)
		if err != nil {
			t.Fatal(err)
		}
		wc, wj := encode(t, whole)
		total := len(whole.Points) * s.Replications
		rng := rand.New(rand.NewPCG(16, 1))
		for trial := range 6 {
			var done []PointResult
			stops := 1 + trial%2
			if trial >= 4 {
				// Any subset of finished points, not only those a run in
				// point order leaves.
				stops = 0
				for _, p := range whole.Points {
					if rng.IntN(2) == 0 {
						done = append(done, p)
					}
				}
			}
			for range stops {
				// Interrupt this run after 1 to all of its replications.
				left := total - len(done)*s.Replications
				if left == 0 {
					break
				}
				prev := interrupted(t, s, shard, done, 1+rng.IntN(left))
				if err := prev.CheckResume(s, shard, prev.Version, prev.GoVersion, prev.Commit); err != nil {
					t.Fatal(err)
				}
				done = prev.Points
			}
			var calls []experiments.SweepProgress
			res, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2, Shard: shard, Progress: func(p experiments.SweepProgress) {
				calls = append(calls, p)
			}}, &Results{Points: done})
			if err != nil || res.Interrupted {
				t.Fatalf("shard %q trial %d: resume: %v (interrupted %v)", shard, trial, err, res.Interrupted)
			}
			// Only the missing points ran.
			if want := (len(whole.Points) - len(done)) * s.Replications; len(calls) != want {
				t.Errorf("shard %q trial %d: %d replications ran, want the %d of the missing points", shard, trial, len(calls), want)
			}
			if n := len(calls); n > 0 && (calls[n-1].Points != len(whole.Points) || calls[n-1].PointsTotal != len(whole.Points)) {
				t.Errorf("shard %q trial %d: last progress %+v, want all %d points", shard, trial, calls[n-1], len(whole.Points))
			}
			rc, rj := encode(t, res)
			if !bytes.Equal(rc, wc) || !bytes.Equal(rj, wj) {
				t.Errorf("shard %q trial %d (%d of %d points finished before): resumed results differ from one run", shard, trial, len(done), len(whole.Points))
			}
		}
	}
}

// TestCheckResume: results of another spec, seed, shard or build are
// refused with what differs; finished points outside the shard too.
func TestCheckResume(t *testing.T) {
	s := smallSpec(t)
	prev := interrupted(t, s, experiments.Shard{}, nil, 20)
	prev.Version, prev.GoVersion, prev.Commit = "v1", "go1", "abc"
	other := *s
	other.Seed++
	for _, tc := range []struct {
		spec  *Spec
		shard experiments.Shard
		ver   string
		want  string
	}{
		{s, experiments.Shard{}, "v1", ""},
		{&other, experiments.Shard{}, "v1", fmt.Sprintf("spec differs from this one: seed %d in the results, %d in this run)", s.Seed, other.Seed)},
		{s, experiments.Shard{Index: 1, Count: 2}, "v1", `the results are of shard "", this run of "1/2"`},
		{s, experiments.Shard{}, "v2", "written by ratesim v1 abc (go1), this is v2 abc (go1)"},
	} {
		err := prev.CheckResume(tc.spec, tc.shard, tc.ver, "go1", "abc")
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.shard, err, tc.want)
		}
	}
	if _, err := RunSweep(context.Background(), s, experiments.SweepOptions{Shard: experiments.Shard{Index: 1, Count: 2}}, &Results{Points: []PointResult{{Point: Point{Index: 1}}}}); err == nil {
		t.Error("a finished point outside the shard was accepted")
	}
}
