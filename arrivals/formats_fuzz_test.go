package arrivals

import (
	"errors"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ratesim/ratesim/engine"
)

// fuzzRead reads at most 10000 arrivals of a trace in a fuzz target and
// checks the rules of every format: NewTrace and Next do not panic; every
// error is a *TraceError naming the file and a line >= 1; an error ends
// the stream and repeats; the arrivals start at 0 and never go back; an
// arrival's line is >= 1 (or 0 when lineZeroOK, for a wide trace's sum of
// rows).
func fuzzRead(t *testing.T, data, name string, opt TraceOptions, lineZeroOK bool) {
	lineErr := regexp.MustCompile(`^arrivals: ` + regexp.QuoteMeta(name) + `:[1-9][0-9]*: `)
	check := func(err error) {
		t.Helper()
		var te *TraceError
		if !errors.As(err, &te) || te.Line < 1 || !lineErr.MatchString(err.Error()) {
			t.Fatalf("error %q is not a *TraceError naming %s and a line", err, name)
		}
	}
	tr, err := NewTrace(strings.NewReader(data), name, opt)
	if err != nil {
		check(err)
		return
	}
	prev := engine.Time(0)
	for i := 0; i < 10_000; i++ {
		a, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			check(err)
			if _, err2 := tr.Next(); err2 != err {
				t.Fatalf("Next after %v = %v, want the same error", err, err2)
			}
			break
		}
		if i == 0 && a.T != 0 || a.T < prev || a.Line < 1 && !lineZeroOK {
			t.Fatalf("arrival %d = %+v after T %v: want T0 = 0, non-decreasing, Line >= 1", i, a, prev)
		}
		prev = a.T
	}
	if e := tr.FirstSkipped(); e != nil {
		check(e)
	}
}

// FuzzCLF reads arbitrary access logs.
func FuzzCLF(f *testing.F) {
	f.Add(clfSample, uint8(0), false)
	f.Add("a - - [31/Dec/1995:23:59:59 -0500] \"GET /\" 200 1\nb - - [01/Jan/1996:00:00:00 -0500] x\n", uint8(1), true)
	f.Add("[01/Aug/1995:00:00:01 -0400]\n[01/Aug/1995:00:00:00 -0400]\n", uint8(2), false)
	f.Add("no time\n\n[]\n[01/Agu/1995:00:00:01 -0400]\n", uint8(3), true)
	f.Add("h [29/Feb/1900:00:00:01 +2359] \"\n", uint8(0), false)
	f.Fuzz(func(t *testing.T, data string, key uint8, skip bool) {
		opt := TraceOptions{SkipBad: skip, Sort: key&4 != 0}
		opt.KeyCol = []string{"", "host", "ident", "user"}[key%4]
		fuzzRead(t, data, "fuzz.log", opt, false)
	})
}

// FuzzJSONL reads arbitrary JSON lines.
func FuzzJSONL(f *testing.F) {
	f.Add(jsonlSample, uint8(0), false)
	f.Add(`{"time": "2023-11-16T18:17:03.98Z", "k": "\u00e9"}`+"\n", uint8(1), true)
	f.Add(`{"time": 1e9}`+"\n"+`[1]`+"\n"+`{"time": {"a": "}"}}`+"\n"+`{"time": -5, "sub": 3}`, uint8(2), true)
	f.Add(`{"a\"b": 1, "time": 2}`+"\n"+`{"time": 1}`, uint8(3), false)
	f.Fuzz(func(t *testing.T, data string, mode uint8, skip bool) {
		opt := TraceOptions{SkipBad: skip, Sort: mode&4 != 0, KeyCol: "user"}
		switch mode % 4 {
		case 1:
			opt.TimeFormat = "rfc3339"
		case 2:
			opt.SubCol = "sub"
		case 3:
			opt.TimeFormat = "datetime"
			opt.KeyCol = ""
		}
		fuzzRead(t, data, "fuzz.jsonl", opt, false)
	})
}

// FuzzCounts reads arbitrary per-interval counts in long form (counts
// are capped so that a fuzz input cannot ask for billions of arrivals:
// reading stops after 10000).
func FuzzCounts(f *testing.F) {
	f.Add("3\n0\n2\n", uint8(0), false)
	f.Add("t,c\n0,2\n20,1\nx,1\n60,-1\n", uint8(1), true)
	f.Add("minute\tcount\n2024-12-31 23:59:00\t2\n2025-01-01 00:00:00\t1\n", uint8(2), false)
	f.Add("a,b,c\n1,2\n\"x\n", uint8(3), true)
	f.Add("0,9007199254740993\n9223372036,1\n", uint8(0), true)
	f.Fuzz(func(t *testing.T, data string, mode uint8, skip bool) {
		opt := TraceOptions{Format: FormatCounts, SkipBad: skip, Interval: engine.Time(1+mode%7) * engine.Second}
		if mode&8 != 0 {
			opt.Spread, opt.Src = "random", rand.NewPCG(1, 1)
		}
		if mode%4 == 2 {
			opt.TimeFormat = "datetime"
		}
		fuzzRead(t, data, "fuzz.csv", opt, false)
	})
}

// FuzzWide reads arbitrary wide count traces.
func FuzzWide(f *testing.F) {
	f.Add(wideSample, "function=func-01", false)
	f.Add(wideSample, "all", true)
	f.Add("a,1,2\nx,9007199254740992,1\ny,1,1\n", "a=y", false)
	f.Add("1\n5\n", "", true)
	f.Fuzz(func(t *testing.T, data, series string, skip bool) {
		if strings.ContainsAny(series, "\n\r") {
			return
		}
		opt := TraceOptions{Format: FormatWide, SkipBad: skip, Series: series}
		if _, err := NewTrace(strings.NewReader(data), "fuzz.csv", opt); errors.Is(err, ErrOptions) {
			return // a malformed series names no line
		}
		fuzzRead(t, data, "fuzz.csv", opt, true)
	})
}

// FuzzSpec builds arbitrary arrival specs: BuildSpec does not panic, its
// errors start with "arrivals: spec", and a process it builds yields
// ordered, finite arrivals (read for the processes whose Next is bounded
// whatever the parameters: not thin, window, mmpp or onoff, whose Next
// may loop very long for extreme parameters).
func FuzzSpec(f *testing.F) {
	for _, s := range []string{
		"poisson", "periodic:rate=2,offset=0.25", "renewal:dist=pareto,rate=0.9,scv=4",
		"renewal:dist=weibull,scv=1e6", "mmpp:rates=4/0.2,sojourn=10/40", "mmpp:rates=1/2,q=0/1;1/0",
		"onoff:n=10,on=1,off=9,rate=0.9", "batch:rate=0.9,size=poisson,mean=3", "cron:n=50,period=60,jitter=2,dist=exp",
		"poisson:rate=0.5 + cron:n=20,period=60 | keys:n=100,s=1", "poisson | scale:rate=2 | jitter:mean=1 | window:from=1,to=inf",
		"poisson:rate=2e+0+periodic", "renewal:dist=gamma,scv=1e-300", "poisson:rate=1e-310", ":", "+|", "a:b=c,d",
		"periodic:rate=10/3,offset=1/3", "cron:n=3,period=1/3,offset=0.25", "poisson | window:from=1h,to=1h30m",
		"periodic:rate=1e30", "periodic:rate=1/9223372036854775807", "poisson | jitter:max=1e300",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		g, err := BuildSpec(spec, testEnv())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "arrivals: spec ") {
				t.Fatalf("error %q does not start with arrivals: spec", err)
			}
			return
		}
		if !(g.MeanRate > 0) {
			t.Fatalf("%q: mean rate %v", spec, g.MeanRate)
		}
		for _, slow := range []string{"thin", "window", "mmpp", "onoff"} {
			if strings.Contains(g.Spec, slow) {
				return
			}
		}
		prev := engine.Time(0)
		for i := range 50 {
			a, err := g.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "arrivals: ") {
					t.Fatalf("%q: Next error %q", spec, err)
				}
				return
			}
			if a.T < prev {
				t.Fatalf("%q: arrival %d at %v s after %v s", spec, i, a.T, prev)
			}
			prev = a.T
		}
	})
}

// FuzzParseCLFTime compares parseCLFTime with time.Parse: whatever
// parseCLFTime accepts, time.Parse accepts too, as the same instant.
func FuzzParseCLFTime(f *testing.F) {
	for _, s := range []string{"01/Jul/1995:00:00:01 -0400", "31/Dec/1995:23:59:59 +0000", "29/Feb/2000:12:00:00 +0530", "29/Feb/1900:00:00:00 -0000", "01/jan/2262:00:00:00 +2359"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseCLFTime([]byte(s))
		if err != nil {
			return
		}
		norm := s[:3] + strings.ToUpper(s[3:4]) + strings.ToLower(s[4:6]) + s[6:]
		want, werr := time.Parse("02/Jan/2006:15:04:05 -0700", norm)
		if werr != nil || want.UnixNano() != got {
			t.Fatalf("parseCLFTime(%q) = %d; time.Parse: %v, %v", s, got, want.UnixNano(), werr)
		}
	})
}
