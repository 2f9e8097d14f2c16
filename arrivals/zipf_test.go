package arrivals

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// TestZipfFrequencies compares the frequencies of draws with
// P(k) = k^-s / H(N, s), computed in the test by direct summation, with a
// chi-square test: 200,000 draws over N = 20 keys, 19 degrees of freedom,
// critical value 43.82 at level 0.001. s = 0 is uniform and s = 1 takes
// the rejection-inversion's special case ln x.
func TestZipfFrequencies(t *testing.T) {
	const draws, n = 200_000, 20
	for _, s := range []float64{0, 0.6, 1, 1.2, 2.5} {
		z, err := NewZipf(n, s, rand.NewPCG(5, uint64(s*10)))
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]float64, n+1)
		for range draws {
			k := z.Rank()
			if k < 1 || k > n {
				t.Fatalf("s = %g: rank %d out of 1..%d", s, k, n)
			}
			counts[k]++
		}
		h := 0.0
		for k := 1; k <= n; k++ {
			h += math.Pow(float64(k), -s)
		}
		chi2 := 0.0
		for k := 1; k <= n; k++ {
			e := draws * math.Pow(float64(k), -s) / h
			chi2 += (counts[k] - e) * (counts[k] - e) / e
		}
		if chi2 > 43.82 {
			t.Errorf("s = %g: chi-square %v over %d keys, want <= 43.82 (level 0.001)", s, chi2, n)
		}
	}
}

// TestZipfManyKeys checks a law over 10^9 keys, s = 1.1, without a table:
// P(1) = 1/H(N, s) with H(N, s) = ζ(s, 1) - ζ(s, N+1) from gonum's Hurwitz
// zeta. The frequency of key 1 in 10^5 draws is within 5 binomial
// standard errors.
func TestZipfManyKeys(t *testing.T) {
	const draws, n, s = 100_000, 1_000_000_000, 1.1
	z, err := NewZipf(n, s, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	p1 := 1 / (mathext.Zeta(s, 1) - mathext.Zeta(s, n+1))
	ones := 0
	for range draws {
		k := z.Rank()
		if k < 1 || k > n {
			t.Fatalf("rank %d out of range", k)
		}
		if k == 1 {
			ones++
		}
	}
	got := float64(ones) / draws
	if se := math.Sqrt(p1 * (1 - p1) / draws); math.Abs(got-p1) > 5*se {
		t.Errorf("P(key 1) = %v, want %v within 5 SE (%.3g)", got, p1, 5*se)
	}
}

func TestKeyOfRank(t *testing.T) {
	for _, k := range []uint64{1, 42, 1 << 53} {
		h := fnv.New64a()
		h.Write([]byte(strconv.FormatUint(k, 10)))
		if got := KeyOfRank(k); got != h.Sum64() {
			t.Errorf("KeyOfRank(%d) = %x, want FNV-1a of %q = %x", k, got, strconv.FormatUint(k, 10), h.Sum64())
		}
	}
}

func TestNewZipfInvalid(t *testing.T) {
	for _, tc := range []struct {
		n uint64
		s float64
	}{{0, 1}, {MaxZipfKeys + 1, 1}, {10, -1}, {10, math.NaN()}, {10, math.Inf(1)}} {
		if _, err := NewZipf(tc.n, tc.s, rand.NewPCG(1, 1)); err == nil {
			t.Errorf("NewZipf(%d, %g) error = nil", tc.n, tc.s)
		}
	}
	if _, err := NewZipf(10, 1, nil); err == nil {
		t.Error("NewZipf with a nil source: error = nil")
	}
}
