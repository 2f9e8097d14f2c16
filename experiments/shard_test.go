package experiments

import "testing"

func TestParseShard(t *testing.T) {
	s, err := ParseShard("2/5")
	if err != nil || s != (Shard{2, 5}) || s.String() != "2/5" {
		t.Errorf("ParseShard(2/5) = %+v, %v", s, err)
	}
	for _, bad := range []string{"", "2", "0/3", "4/3", "a/b", "1/0", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	if (Shard{}).String() != "" || !(Shard{}).Has(12345) {
		t.Error("the zero Shard must select every point and print as empty")
	}
}

// TestShardPartition: the shards of n partition the points.
func TestShardPartition(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		for p := range 50 {
			owners := 0
			for i := 1; i <= n; i++ {
				if (Shard{i, n}).Has(p) {
					owners++
				}
			}
			if owners != 1 {
				t.Errorf("n = %d: point %d in %d shards", n, p, owners)
			}
		}
	}
}
