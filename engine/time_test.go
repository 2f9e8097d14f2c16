package engine

import "testing"

// TestTimeText: String is the exact decimal of the nanoseconds, trailing
// zeros dropped, at the extremes too (compared with the digits of the
// integer split at the point by hand).
func TestTimeText(t *testing.T) {
	for _, c := range []struct {
		t    Time
		want string
	}{
		{0, "0"}, {1, "0.000000001"}, {300_000_000, "0.3"}, {-1_500_000_000, "-1.5"},
		{1_700_000_000_000_000_001, "1700000000.000000001"}, {1<<63 - 1, "9223372036.854775807"}, {-1 << 63, "-9223372036.854775808"},
		{10 * Second, "10"}, {100 * Second, "100"},
	} {
		if got := c.t.String(); got != c.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(c.t), got, c.want)
		}
	}
}
