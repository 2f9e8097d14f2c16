package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestCronNoJitter: with jitter 0, exactly N arrivals at each boundary
// offset + k·period, at the same instant, for the first 1000 boundaries.
func TestCronNoJitter(t *testing.T) {
	const n, period, offset = 7, 2.5, 0.75
	c, err := NewCron(CronParams{N: n, Period: period, Offset: offset}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 1000 {
		want := math.FMA(float64(k), period, offset) // 0.75 + 2.5k, exact in binary
		for i := range n {
			a, err := c.Next()
			if err != nil {
				t.Fatal(err)
			}
			if float64(a.T) != want || a.Sub != -1 || a.Key != 0 {
				t.Fatalf("boundary %d, client %d: %+v, want T = %v exactly", k, i, a, want)
			}
		}
	}
	if got := (CronParams{N: n, Period: period}).MeanRate(); got != n/period {
		t.Errorf("MeanRate = %v, want %v", got, n/period)
	}
}

// TestCronJitter checks the jitter of N = 50 clients, period 10 s: with
// uniform jitter on [0, 2] s and with exponential jitter of mean 0.2 s
// (which exceeds the period with probability e^-50), every boundary gets
// exactly N arrivals, and the offsets from the boundary pass a KS test
// against the jitter distribution.
func TestCronJitter(t *testing.T) {
	const n, period = 50, 10.0
	for _, tc := range []struct {
		dist string
		j    float64
		q    func(float64) float64
	}{
		{"uniform", 2, distuv.Uniform{Min: 0, Max: 2}.Quantile},
		{"exp", 0.2, distuv.Exponential{Rate: 5}.Quantile},
	} {
		c, err := NewCron(CronParams{N: n, Period: period, Offset: 1, Jitter: tc.j, JitterDist: tc.dist}, rand.NewPCG(9, 9))
		if err != nil {
			t.Fatal(err)
		}
		ts := drawTimes(t, c, 400*n)
		counts := map[int]int{}
		offsets := make([]float64, len(ts))
		for i, x := range ts {
			k := int(math.Floor((x - 1) / period))
			counts[k]++
			offsets[i] = x - (1 + float64(k)*period)
		}
		for k := range 400 {
			if counts[k] != n {
				t.Errorf("%s: boundary %d has %d arrivals, want %d", tc.dist, k, counts[k], n)
			}
		}
		checkKS(t, "cron "+tc.dist+" jitter", offsets, tc.q)
	}
}

// TestCronOverlap: jitter 25 s > period 10 s merges boundaries. Every
// firing of boundary k is in [10k, 10k + 25], so the arrivals before
// t = 10K number at least N·(K - 2) (boundaries 0..K-3 have all fired)
// and at most N·K.
func TestCronOverlap(t *testing.T) {
	const n = 20
	for _, dist := range []string{"uniform", "exp"} {
		c, err := NewCron(CronParams{N: n, Period: 10, Jitter: 25, JitterDist: dist}, rand.NewPCG(2, 3))
		if err != nil {
			t.Fatal(err)
		}
		ts := drawTimes(t, c, 50_000)
		for _, K := range []int{10, 100, 1000} {
			before := 0
			for _, x := range ts {
				if x < 10*float64(K) {
					before++
				}
			}
			lo := n * (K - 2)
			if dist == "exp" {
				lo = n * (K - 20) // exponential tails: P(jitter > 175 s) = e^-7 per firing
			}
			if before < lo || before > n*K {
				t.Errorf("%s: %d arrivals before %d s, want between %d and %d", dist, before, 10*K, lo, n*K)
			}
		}
	}
}

func TestNewCronInvalid(t *testing.T) {
	for _, tc := range []struct {
		p    CronParams
		want string
	}{
		{CronParams{N: 0, Period: 1}, "n 0 "},
		{CronParams{N: 1, Period: 0}, "period 0 "},
		{CronParams{N: 1, Period: 1, Offset: -1}, "offset -1 "},
		{CronParams{N: 1, Period: 1, Jitter: math.NaN()}, "jitter NaN "},
		{CronParams{N: 1, Period: 1, JitterDist: "normal"}, "\"normal\""},
		{CronParams{N: 1, Period: 1, Jitter: 1}, "source is nil"},
	} {
		_, err := NewCron(tc.p, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: cron") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewCron(%+v) error = %v, want one containing %q", tc.p, err, tc.want)
		}
	}
}
