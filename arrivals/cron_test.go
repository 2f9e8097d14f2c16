package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// TestCronNoJitter: with jitter 0, exactly N arrivals at each boundary
// offset + k·period, at the same instant, for the first 1000 boundaries:
// 0.75 + 2.5k s is 750000000 + 2500000000k ns. With a period of 1/3 s the
// boundaries are at ceil(k/3 s): 0, 333333334, 666666667, 1000000000 ns.
func TestCronNoJitter(t *testing.T) {
	const n = 7
	c, err := NewCron(CronParams{N: n, Period: exact.MustParse("2.5"), Offset: exact.MustParse("0.75")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range engine.Time(1000) {
		want := 750*engine.Millisecond + k*2500*engine.Millisecond
		for i := range n {
			a, err := c.Next()
			if err != nil {
				t.Fatal(err)
			}
			if a.T != want || a.Sub != -1 || a.Key != 0 {
				t.Fatalf("boundary %d, client %d: %+v, want T = %d ns exactly", k, i, a, want)
			}
		}
	}
	if got := (CronParams{N: n, Period: exact.MustParse("2.5")}).MeanRate(); got != 2.8 {
		t.Errorf("MeanRate = %v, want 7/2.5 = 2.8", got)
	}
	c, _ = NewCron(CronParams{N: 2, Period: exact.NewRat(1, 3)}, nil)
	for i, want := range []engine.Time{0, 0, 333_333_334, 333_333_334, 666_666_667, 666_666_667, 1_000_000_000} {
		if a, _ := c.Next(); a.T != want {
			t.Errorf("period 1/3 s: arrival %d at %d ns, want %d", i, a.T, want)
		}
	}
}

// TestCronJitter checks the jitter of N = 50 clients, period 10 s: with
// uniform jitter on [0, 2] s and with exponential jitter of mean 0.2 s
// (which exceeds the period with probability e^-50), every boundary gets
// exactly N arrivals, and the offsets from the boundary pass a KS test
// against the jitter distribution.
func TestCronJitter(t *testing.T) {
	const n, period = 50, 10
	for _, tc := range []struct {
		dist string
		j    float64
		q    func(float64) float64
	}{
		{"uniform", 2, distuv.Uniform{Min: 0, Max: 2}.Quantile},
		{"exp", 0.2, distuv.Exponential{Rate: 5}.Quantile},
	} {
		c, err := NewCron(CronParams{N: n, Period: exact.Int(period), Offset: exact.Int(1), Jitter: tc.j, JitterDist: tc.dist}, rand.NewPCG(9, 9))
		if err != nil {
			t.Fatal(err)
		}
		ts := drawTimes(t, c, 400*n)
		counts := map[int]int{}
		offsets := make([]float64, len(ts))
		for i, x := range ts {
			k := int(math.Floor((x - 1) / period)) // boundaries at 1 + 10k s
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
		c, err := NewCron(CronParams{N: n, Period: exact.Int(10), Jitter: 25, JitterDist: dist}, rand.NewPCG(2, 3))
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
	one := exact.Int(1)
	if _, err := NewCron(CronParams{N: 1000, Period: one, Jitter: 1e5, JitterDist: "exp"}, rand.NewPCG(1, 1)); err != nil {
		t.Errorf("exp jitter 1e5 s, period 1 s, n 1000: %v, want it accepted (about 7.9e5 boundaries)", err)
	}
	for _, tc := range []struct {
		p    CronParams
		want string
	}{
		{CronParams{N: 0, Period: one}, "n 0 "},
		{CronParams{N: 1}, "period 0 s "},
		{CronParams{N: 1, Period: one, Offset: exact.Int(-1)}, "offset -1 s "},
		{CronParams{N: 1, Period: one, Jitter: math.NaN()}, "jitter NaN "},
		{CronParams{N: 1, Period: one, JitterDist: "normal"}, "\"normal\""},
		{CronParams{N: 1, Period: one, Jitter: 1}, "source is nil"},
		// Jitter 1e7 s over a period of 1 s keeps about 1e7 > 2^20
		// boundaries open; exponential jitter with n = 1000 about
		// 1e5·(1 + ln 1000) = 7.9e5 < 2^20, but 1e6 s gives 7.9e6.
		{CronParams{N: 1, Period: one, Jitter: 1e7}, "keeps about 1e+07 boundaries firing at once"},
		{CronParams{N: 1000, Period: one, Jitter: 1e6, JitterDist: "exp"}, "keeps about 7.91e+06 boundaries"},
	} {
		_, err := NewCron(tc.p, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: cron") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewCron(%+v) error = %v, want one containing %q", tc.p, err, tc.want)
		}
	}
}
