package arrivals

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// testEnv is a SpecEnv with default rate 0.9 jobs/s and PCG streams of
// seed 1.
func testEnv() SpecEnv {
	return SpecEnv{Rate: 0.9, Source: func(id uint64) rand.Source { return rand.NewPCG(1, id) }}
}

func mustBuild(t *testing.T, spec string) *Generated {
	t.Helper()
	g, err := BuildSpec(spec, testEnv())
	if err != nil {
		t.Fatalf("BuildSpec(%q): %v", spec, err)
	}
	return g
}

// TestSpecHelpExamples builds every example of SpecHelp (the spec at the
// start of each indented line, and the final Example), so that the help
// cannot drift from the grammar.
func TestSpecHelpExamples(t *testing.T) {
	line := regexp.MustCompile(`^  (?:\| )?([a-z]+(?::[^ ]+)?)`)
	n := 0
	for _, l := range strings.Split(SpecHelp, "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		spec := m[1]
		if strings.HasPrefix(l, "  | ") {
			spec = "poisson | " + spec
		}
		mustBuild(t, spec)
		if strings.Contains(l, "| jitter:mean") {
			mustBuild(t, "poisson | jitter:mean=1")
		}
		n++
	}
	ex := SpecHelp[strings.Index(SpecHelp, "Example: '")+len("Example: '"):]
	mustBuild(t, ex[:strings.Index(ex, "'")])
	if n < 12 {
		t.Errorf("found %d examples in SpecHelp, want one per process and transform (12)", n)
	}
}

// TestSpecMeanRates checks the mean rate and the canonical form of each
// process, computed by hand.
func TestSpecMeanRates(t *testing.T) {
	for _, tc := range []struct {
		spec, canon string
		rate        float64
		def, keyed  bool
	}{
		{"poisson", "poisson:rate=0.9", 0.9, true, false},
		{"periodic:rate=2,offset=0.25", "periodic:rate=2,offset=0.25", 2, false, false},
		{"renewal:dist=pareto,rate=0.9,scv=4", "renewal:dist=pareto,rate=0.9,scv=4", 0.9, false, false},
		{"renewal:dist=pareto,alpha=1.5", "renewal:dist=pareto,rate=0.9,alpha=1.5", 0.9, true, false},
		{"RENEWAL : dist = Gamma , scv=2", "renewal:dist=gamma,rate=0.9,scv=2", 0.9, true, false},
		// π = (0.2, 0.8): 0.2·4 + 0.8·0.2 = 0.96.
		{"mmpp:rates=4/0.2,sojourn=10/40", "mmpp:rates=4/0.2,sojourn=10/40", 0.96, false, false},
		{"mmpp:rates=4/0.2,q=0/0.1;0.025/0", "mmpp:rates=4/0.2,q=0/0.1;0.025/0", 0.96, false, false},
		// 10 sources, duty 1/10: peak = 0.9·10/(1·10) = 0.9 per source.
		{"onoff:n=10,on=1,off=9", "onoff:n=10,on=1,off=9,rate=0.9,dist=exp,emit=poisson", 0.9, true, false},
		{"onoff:n=2,on=1,off=1,peak=3,dist=pareto", "onoff:n=2,on=1,off=1,peak=3,dist=pareto,alpha=1.5,emit=poisson", 3, false, false},
		{"batch:rate=0.9,size=geom,mean=4", "batch:rate=0.9,size=geom,mean=4", 0.9, false, false},
		{"cron:n=50,period=60,jitter=2", "cron:n=50,period=60,offset=0,jitter=2,dist=uniform", 50.0 / 60, false, false},
		{"poisson:rate=0.5 + cron:n=20,period=60", "poisson:rate=0.5 + cron:n=20,period=60,offset=0,jitter=0,dist=uniform", 0.5 + 20.0/60, false, false},
		{"poisson:rate=2e+0+periodic:rate=1E+0", "poisson:rate=2 + periodic:rate=1,offset=0", 3, false, false},
		{"poisson:rate=2 | thin:p=0.25", "poisson:rate=2 | thin:p=0.25", 0.5, false, false},
		{"mmpp:rates=4/0.2,sojourn=10/40 | scale", "mmpp:rates=4/0.2,sojourn=10/40 | scale:rate=0.9", 0.9, true, false},
		{"poisson | keys:n=100", "poisson:rate=0.9 | keys:n=100,s=1", 0.9, true, true},
		{"poisson | window:to=10 | jitter:mean=1", "poisson:rate=0.9 | window:from=0,to=10 | jitter:mean=1", 0.9, true, false},
		// Exact parameters keep their exact canonical form.
		{"periodic:rate=10/3,offset=1/3", "periodic:rate=10/3,offset=1/3", 10.0 / 3, false, false},
		{"periodic:rate=2.50", "periodic:rate=2.5,offset=0", 2.5, false, false},
		{"cron:n=3,period=1/3,offset=0.25", "cron:n=3,period=1/3,offset=0.25,jitter=0,dist=uniform", 9, false, false},
		{"poisson | window:from=1h,to=1h30m", "poisson:rate=0.9 | window:from=3600,to=5400", 0.9, true, false},
		{"poisson | window:from=0.000000001,to=inf", "poisson:rate=0.9 | window:from=0.000000001,to=inf", 0.9, true, false},
	} {
		g, err := BuildSpec(tc.spec, testEnv())
		if err != nil {
			t.Errorf("BuildSpec(%q): %v", tc.spec, err)
			continue
		}
		if g.Spec != tc.canon || math.Abs(g.MeanRate-tc.rate) > 1e-12 || g.DefaultRate != tc.def || g.Keyed != tc.keyed {
			t.Errorf("BuildSpec(%q) = %q, rate %v, default %v, keyed %v; want %q, %v, %v, %v",
				tc.spec, g.Spec, g.MeanRate, g.DefaultRate, g.Keyed, tc.canon, tc.rate, tc.def, tc.keyed)
		}
		// The canonical form builds the same process.
		g2 := mustBuild(t, g.Spec)
		a1, err1 := readAll(Limit(g, 50))
		a2, err2 := readAll(Limit(g2, 50))
		if err1 != nil || err2 != nil || len(a1) == 0 {
			t.Errorf("%q: reading: %v, %v, %d arrivals", tc.spec, err1, err2, len(a1))
		}
		if g2.Spec != g.Spec || !slices.Equal(times(a1), times(a2)) {
			t.Errorf("%q: the canonical spec %q builds another process", tc.spec, g.Spec)
		}
	}
}

// mustRead returns the first n arrivals of p.
func mustRead(t *testing.T, p Process, n int) []Arrival {
	t.Helper()
	all, err := readAll(Limit(p, n))
	if err != nil || len(all) != n {
		t.Fatalf("read %d of %d arrivals: %v", len(all), n, err)
	}
	return all
}

// TestSpecPoissonStream: a lone poisson spec is exactly NewPoisson on
// stream 0, the stream ratesim run has always used.
func TestSpecPoissonStream(t *testing.T) {
	p, _ := NewPoisson(0.9, rand.NewPCG(1, 0))
	want := drawTimes(t, p, 100)
	got := drawTimes(t, mustBuild(t, "poisson"), 100)
	if !slices.Equal(got, want) {
		t.Errorf("spec poisson differs from NewPoisson(0.9, PCG(1, 0))")
	}
}

// TestSpecStreamsIndependent: appending a process or a transform does not
// change the draws of the others. The periodic component's times
// 0.5 + 10k s are filtered out by their line (0 for generated arrivals,
// so by value: a gamma renewal hits such a nanosecond with probability
// about 10^-9 per arrival).
func TestSpecStreamsIndependent(t *testing.T) {
	alone := times(mustRead(t, mustBuild(t, "renewal:dist=gamma,rate=1,scv=2"), 2000))
	both := times(mustRead(t, mustBuild(t, "renewal:dist=gamma,rate=1,scv=2 + periodic:rate=0.1,offset=0.5"), 2200))
	var filtered []engine.Time
	for _, x := range both {
		if (x-500*engine.Millisecond)%(10*engine.Second) != 0 {
			filtered = append(filtered, x)
		}
	}
	if !slices.Equal(filtered[:1900], alone[:1900]) {
		t.Error("adding a periodic process changed the renewal process's arrivals")
	}
	thin := drawTimes(t, mustBuild(t, "poisson | thin:p=0.5"), 1000)
	thinKeys := drawTimes(t, mustBuild(t, "poisson | thin:p=0.5 | keys:n=10"), 1000)
	if !slices.Equal(thin, thinKeys) {
		t.Error("appending a keys transform changed the thinned times")
	}
	// Two identical processes draw from different streams.
	two := drawTimes(t, mustBuild(t, "poisson:rate=1 + poisson:rate=1"), 1000)
	for i := 1; i < len(two); i++ {
		if two[i] == two[i-1] {
			t.Fatalf("two Poisson components gave the same time %v: they share a stream", two[i])
		}
	}
}

func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"", "empty spec"},
		{"  ", "empty spec"},
		{"gamma", `unknown process "gamma"`},
		{"poisson + ", "empty process"},
		{"poisson | ", "empty transform"},
		{"poisson | poisson", `unknown transform "poisson"`},
		{"poisson:lambda=2", `poisson: unknown parameter "lambda": want one of rate`},
		{"poisson:rate", `poisson: parameter "rate": want key=value`},
		{"poisson:rate=2,rate=3", "rate given twice"},
		{"poisson:rate=-1", `poisson: rate "-1" is invalid`},
		{"poisson:rate=abc", `poisson: rate "abc" is invalid`},
		{"renewal:dist=gamma,alpha=2", "alpha applies to dist=pareto only"},
		{"renewal:dist=pareto,alpha=2,scv=1", "scv or alpha, not both"},
		{"renewal:dist=exp,scv=2", "scv = 1"},
		{"mmpp:sojourn=1/2", "parameter rates is required"},
		{"mmpp:rates=1/2", "give sojourn"},
		{"mmpp:rates=1/2,sojourn=1", "sojourn has 1 entries for 2 states"},
		{"mmpp:rates=1/2,q=0/1", "q has 1 rows"},
		{"mmpp:rates=1/2,q=0/1;1", "q row 1 has 1 entries"},
		{"mmpp:rates=1/x,sojourn=1/1", `entry "x" is invalid`},
		{"mmpp:rates=1/2,sojourn=1/1,q=0/1;1/0", "sojourn or q, not both"},
		{"onoff:n=2,on=1", "parameter off is required"},
		{"onoff:n=2.5,on=1,off=1", `n "2.5" is invalid`},
		{"onoff:on=1,off=1,peak=1,rate=1", "peak (per source while ON) or rate (total mean), not both"},
		{"onoff:on=1,off=1,alpha=2", "parameter alpha does not apply"},
		{"batch:size=zipf", `size "zipf" is invalid`},
		{"cron:n=10", "parameter period is required"},
		{"cron:n=0,period=1", `n "0" is invalid`},
		{"cron:n=1,period=1,dist=normal", `dist "normal" is invalid`},
		{"poisson | thin:p=0", `p "0" is invalid`},
		{"poisson | jitter", "parameter max is required"},
		{"poisson | jitter:max=1,mean=1", "max (uniform) or mean (exponential), not both"},
		{"poisson | window", "give from and/or to"},
		{"poisson | window:from=5,to=5", `to "5" is invalid`},
		{"poisson | keys:s=1", "parameter n is required"},
		{"poisson | scale:rate=0", `rate "0" is invalid`},
		{strings.Repeat("poisson+", 1000) + "poisson", "1001 processes: want at most 1000"},
		{"poisson" + strings.Repeat("|thin:p=1", 1001), "1001 transforms: want at most 1000"},
		{"mmpp:rates=" + strings.Repeat("1/", 256) + "1,sojourn=1/1", "rates has 257 entries: want at most 256"},
		{"periodic:rate=0", `periodic: rate "0" is invalid: want a rate > 0 jobs/s, a decimal or a fraction p/q`},
		{"periodic:rate=1e999999999", "its exponent is beyond ±1000"},
		{"periodic:rate=1,offset=-1/3", `offset "-1/3" is invalid`},
		{"cron:n=1,period=0", `period "0" is invalid`},
		{"poisson | window:from=0.0000000001", `from "0.0000000001" is invalid: want a start >= 0, a whole number of nanoseconds`},
		{"poisson | window:from=1h,to=30m", `to "30m" is invalid: want an end > from = 3600 s`},
		// Jitter bounds: max=1e300 would hold about 1e300 arrivals.
		{"poisson | jitter:max=1e300", "max 1e+300 s is invalid: want at most 1e+08 s"},
		{"poisson:rate=1000 | jitter:max=1e4", "max 10000 s at mean rate 1000 jobs/s would hold about 1e+07 delayed arrivals in memory (rate·jitter): want max <= 2097.15 s"},
	} {
		_, err := BuildSpec(tc.spec, testEnv())
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: spec ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("BuildSpec(%q) error = %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
	if _, err := BuildSpec("poisson", SpecEnv{Source: testEnv().Source}); err == nil || !strings.Contains(err.Error(), "rate= is required") {
		t.Errorf("no default rate: error = %v", err)
	}
	if _, err := BuildSpec("poisson:rate=1", SpecEnv{}); err == nil || !strings.Contains(err.Error(), "no random source") {
		t.Errorf("no source: error = %v", err)
	}
	if _, err := BuildSpec("periodic:rate=1", SpecEnv{}); err != nil {
		t.Errorf("periodic needs no source: %v", err)
	}
}
