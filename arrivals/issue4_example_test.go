package arrivals_test

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

func ExampleBuildSpec() {
	env := arrivals.SpecEnv{
		Rate:   0.9, // jobs/s, for a process whose spec leaves rate out
		Source: func(id uint64) rand.Source { return rand.NewPCG(1, id) },
	}
	g, err := arrivals.BuildSpec("cron:n=3,period=10 + periodic:rate=0.25,offset=1", env)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Spec)
	fmt.Printf("mean rate %.2f jobs/s\n", g.MeanRate)
	var ts []engine.Time
	for range 6 {
		a, _ := g.Next()
		ts = append(ts, a.T)
	}
	fmt.Println(ts) // seconds, exactly
	_, err = arrivals.BuildSpec("renewal:dist=gamma,scv=-1", env)
	fmt.Println(err)
	// Output:
	// cron:n=3,period=10,offset=0,jitter=0,dist=uniform + periodic:rate=0.25,offset=1
	// mean rate 0.55 jobs/s
	// [0 0 0 1 5 9]
	// arrivals: spec "renewal:dist=gamma,scv=-1": renewal: scv "-1" is invalid: want a finite SCV >= 0
}

// This example shows synchronized clients: with no jitter, every client
// fires at each period boundary.
func ExampleNewCron() {
	c, _ := arrivals.NewCron(arrivals.CronParams{N: 2, Period: exact.Int(60), Offset: exact.Int(30)}, nil)
	var ts []engine.Time
	for range 5 {
		a, _ := c.Next()
		ts = append(ts, a.T)
	}
	fmt.Println(ts)
	// Output:
	// [30 30 90 90 150]
}

func ExampleGapDistribution() {
	// Gamma gaps with mean 1/0.5 = 2 s and SCV 4 (shape 1/4).
	d, _ := arrivals.GapDistribution("gamma", 0.5, 4, rand.NewPCG(1, 1))
	g := d.(interface {
		Mean() float64
		Variance() float64
	})
	fmt.Printf("%T: mean %g s, SCV %g\n", d, g.Mean(), g.Variance()/(g.Mean()*g.Mean()))
	// Output:
	// distuv.Gamma: mean 2 s, SCV 4
}

func ExampleNewMMPP() {
	// Two states: 4 jobs/s for 10 s on average, then 0.2 jobs/s for 40 s.
	q := [][]float64{{0, 1.0 / 10}, {1.0 / 40, 0}}
	m, _ := arrivals.NewMMPP([]float64{4, 0.2}, q, rand.NewPCG(1, 1))
	pi := m.Stationary()
	fmt.Printf("π = (%.2f, %.2f), mean rate %.2f jobs/s\n", pi[0], pi[1], m.MeanRate())
	// Output:
	// π = (0.20, 0.80), mean rate 0.96 jobs/s
}

func ExampleSuperpose() {
	a, _ := arrivals.NewPeriodic(exact.Int(1), exact.Rat{})            // 0, 1, 2, ... s
	b, _ := arrivals.NewPeriodic(exact.MustParse("1.5"), exact.Int(1)) // 1, 2.5, 4, ... s
	p := arrivals.Superpose(a, b)
	var ts []engine.Time
	for range 6 {
		x, _ := p.Next()
		ts = append(ts, x.T)
	}
	fmt.Println(ts)
	// Output:
	// [0 1 1 2 2.5 3]
}

// This example computes the burstiness curve of four jobs: three at 1 s
// need a bucket of 3 tokens at any rate, and a rate of 0.5 tokens/s needs 4.
func ExampleNewBurstCurve() {
	c, _ := arrivals.NewBurstCurve([]exact.Rat{exact.MustParse("0.5"), exact.Int(2)}, 2)
	for _, t := range []engine.Time{0, engine.Second, engine.Second, engine.Second} {
		c.Add(t)
	}
	fmt.Println("no job waits:", c.Burst())
	b, _ := c.BurstAllowing(1)
	fmt.Println("at most 1 waits:", b)
	// Output:
	// no job waits: [3.5 3]
	// at most 1 waits: [2.5 2]
}

func ExampleNewStats() {
	s, _ := arrivals.NewStats(arrivals.StatsOptions{Keyed: true})
	const ms = engine.Millisecond
	for i, t := range []engine.Time{0, 0, 500 * ms, 2000 * ms, 2250 * ms} {
		s.Add(t, uint64(i%2))
	}
	sum := s.Summary()
	fmt.Printf("%d jobs over %v s, %g jobs/s; peak %d jobs in 1 s; %d ties; %d keys\n",
		sum.Jobs, sum.Duration, sum.MeanRate, sum.Peaks[0].Jobs, sum.Ties, sum.Keys.Distinct)
	// Output:
	// 5 jobs over 2.25 s, 2.2222222222222223 jobs/s; peak 3 jobs in 1 s; 1 ties; 2 keys
}

// This example reads a Combined Log Format access log; the third line's
// request is malformed but its timestamp is valid, so it counts.
func ExampleNewTrace_clf() {
	const log = `199.72.81.55 - - [01/Jul/1995:00:00:01 -0400] "GET /history/apollo/ HTTP/1.0" 200 6245
unicomp6.unicomp.net - - [01/Jul/1995:00:00:06 -0400] "GET /shuttle/countdown/ HTTP/1.0" 200 3985 "-" "Mozilla/4.0"
burger.letters.com - - [01/Jul/1995:04:00:12 +0000] "GET /shuttle/countdown/video/livevideo.gif HTTP/1.0 200 0
`
	tr, _ := arrivals.NewTrace(strings.NewReader(log), "access.log", arrivals.TraceOptions{KeyCol: "host"})
	for {
		a, err := tr.Next()
		if err == io.EOF {
			break
		}
		fmt.Printf("line %d: %v s\n", a.Line, a.T)
	}
	ns, _ := tr.Origin()
	fmt.Println("origin:", time.Unix(0, ns).UTC())
	// Output:
	// line 1: 0 s
	// line 2: 5 s
	// line 3: 11 s
	// origin: 1995-07-01 04:00:01 +0000 UTC
}

// This example expands per-minute counts: 3 jobs in the first minute and
// 2 in the third, evenly spaced in their minute.
func ExampleNewTrace_counts() {
	tr, _ := arrivals.NewTrace(strings.NewReader("3\n0\n2\n"), "counts.csv", arrivals.TraceOptions{Format: arrivals.FormatCounts})
	var ts []engine.Time
	for {
		a, err := tr.Next()
		if err == io.EOF {
			break
		}
		ts = append(ts, a.T)
	}
	fmt.Println(ts, "s, intervals of", tr.Interval(), "s")
	// Output:
	// [0 20 40 120 150] s, intervals of 60 s
}

func ExampleWithZipfKeys() {
	p, _ := arrivals.NewPeriodic(exact.Int(1), exact.Rat{})
	z, _ := arrivals.NewZipf(1000, 1.2, rand.NewPCG(1, 1))
	keyed := arrivals.WithZipfKeys(p, z)
	hot := 0
	for range 10_000 {
		a, _ := keyed.Next()
		if a.Key == 1 && a.Hash == arrivals.KeyOfRank(1) {
			hot++
		}
	}
	// P(key 1) = 1/H(1000, 1.2) ≈ 1/4.33 ≈ 0.23
	fmt.Printf("key 1 carries %.0f%% of jobs\n", math.Round(float64(hot)/100))
	// Output:
	// key 1 carries 23% of jobs
}
