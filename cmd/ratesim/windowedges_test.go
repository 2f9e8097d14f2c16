package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestWindowEdgesFollowTraceClock runs the trace 1, 1, 60.5 s (Unix
// seconds) at one job per 60 s through the fixed window of every command
// that has one (limiters, clients with the family limiter and with drl's
// store design, drl's store). Its edges follow the trace's absolute clock, k·60 s from
// the Unix epoch: [0, 60) holds 1 and 1 (admit, reject) and [60, 120)
// holds 60.5 (admit), so 2 are admitted, A R A. Windows measured from the
// first arrival ([1, 61)) would hold all three and admit 1.
func TestWindowEdgesFollowTraceClock(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t3.csv")
	if err := os.WriteFile(trace, []byte("t\n1\n1\n60.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type counts struct{ Admitted, Rejected, GiveUps int64 }
	for _, tc := range []struct {
		args []string
		get  func(out []byte) (counts, error)
	}{
		{[]string{"limiters", "--trace", trace, "--limit", "1", "--window", "60", "--limiters", "fixed-window", "--json"},
			func(out []byte) (counts, error) {
				var v struct {
					Limiters []struct{ Admitted, Rejected int64 }
				}
				err := json.Unmarshal(out, &v)
				if err != nil || len(v.Limiters) != 1 {
					return counts{}, err
				}
				return counts{Admitted: v.Limiters[0].Admitted, Rejected: v.Limiters[0].Rejected}, nil
			}},
		{[]string{"clients", "--trace", trace, "--limiter", "fixed-window", "--limit", "1", "--window", "60", "--rate", "1/60", "--max-attempts", "1", "--json"},
			func(out []byte) (counts, error) {
				var v struct {
					Foreground struct {
						Admitted int64
						GiveUps  int64 `json:"give_ups"`
					}
				}
				err := json.Unmarshal(out, &v)
				return counts{Admitted: v.Foreground.Admitted, Rejected: v.Foreground.GiveUps}, err
			}},
		{[]string{"clients", "--trace", trace, "--design", "store", "--store-limiter", "fixed-window", "--rate", "1/60", "--limit", "1", "--police", "--max-attempts", "1", "--json"},
			func(out []byte) (counts, error) {
				var v struct {
					Foreground struct {
						Admitted int64
						GiveUps  int64 `json:"give_ups"`
					}
				}
				err := json.Unmarshal(out, &v)
				return counts{Admitted: v.Foreground.Admitted, Rejected: v.Foreground.GiveUps}, err
			}},
		{[]string{"drl", "--trace", trace, "--designs", "store", "--store-limiter", "fixed-window", "--rate", "1/60", "--burst", "1", "--police", "--json"},
			func(out []byte) (counts, error) {
				var v struct {
					Designs []struct{ Admitted, Rejected int64 }
				}
				err := json.Unmarshal(out, &v)
				if err != nil || len(v.Designs) != 1 {
					return counts{}, err
				}
				return counts{Admitted: v.Designs[0].Admitted, Rejected: v.Designs[0].Rejected}, nil
			}},
	} {
		out, stderr, code := ratesim(t, tc.args...)
		if code != 0 {
			t.Fatalf("ratesim %v: exit %d: %s", tc.args, code, stderr)
		}
		got, err := tc.get([]byte(out))
		if err != nil || got.Admitted != 2 || got.Rejected != 1 {
			t.Errorf("ratesim %v: admitted %d, refused %d (%v), want 2 and 1 (A R A)", tc.args, got.Admitted, got.Rejected, err)
		}
	}
}
