package arrivals

import (
	"bytes"
	"strings"
	"testing"
)

// benchSpecs are the generators and transforms measured by
// BenchmarkGenerators and checked by TestGeneratorsNoAlloc.
var benchSpecs = []string{
	"poisson",
	"periodic",
	"renewal:dist=gamma,scv=4",
	"renewal:dist=weibull,scv=0.5",
	"renewal:dist=lognormal,scv=2",
	"renewal:dist=pareto,scv=4",
	"renewal:dist=uniform",
	"renewal:dist=det",
	"mmpp:rates=4/0.2,sojourn=10/40",
	"mmpp:rates=5/1/0,q=0/0.5/0.25;1/0/1;0.1/0.4/0",
	"onoff:n=100,on=1,off=9",
	"onoff:n=100,on=1,off=9,dist=pareto,emit=periodic",
	"batch:size=geom,mean=4",
	"batch:size=poisson,mean=40",
	"cron:n=1000,period=60",
	"cron:n=1000,period=60,jitter=30",
	"cron:n=1000,period=60,jitter=100,dist=exp",
	"poisson:rate=0.5 + renewal:dist=gamma,rate=0.4,scv=2 + cron:n=10,period=60",
	"poisson | thin:p=0.5",
	"poisson | jitter:max=10",
	"poisson | scale:rate=2 | window:from=10",
	"poisson | keys:n=1000000,s=1.1",
}

// TestGeneratorsNoAlloc checks that, after a warm-up that lets Jitter's
// and Cron's buffers reach their working size, Next allocates nothing.
func TestGeneratorsNoAlloc(t *testing.T) {
	for _, spec := range benchSpecs {
		g := mustBuild(t, spec)
		for range 20_000 {
			if _, err := g.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if got := testing.AllocsPerRun(2000, func() { g.Next() }); got != 0 {
			t.Errorf("%s: %v allocations per Next, want 0", spec, got)
		}
	}
}

// BenchmarkGenerators measures one arrival of each generator.
func BenchmarkGenerators(b *testing.B) {
	for _, spec := range benchSpecs {
		b.Run(spec, func(b *testing.B) {
			g, err := BuildSpec(spec, testEnv())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Next(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/arrival")
		})
	}
}

// BenchmarkParsers measures one arrival read from each trace format.
func BenchmarkParsers(b *testing.B) {
	clf := []byte(strings.Repeat(`in24.inetnebr.com - - [01/Aug/1995:00:00:01 -0400] "GET /shuttle/missions/sts-68/news/sts-68-mcc-05.txt HTTP/1.0" 200 1839`+"\n", 10_000))
	jsonl := []byte(strings.Repeat(`{"time": 1700000000.25, "user": "alice", "path": "/a/b", "status": 200}`+"\n", 10_000))
	counts := []byte("t,c\n0,10000\n")
	for _, tc := range []struct {
		name string
		data []byte
		opt  TraceOptions
	}{
		{"clf", clf, TraceOptions{Format: FormatCLF, KeyCol: "host"}},
		{"jsonl", jsonl, TraceOptions{Format: FormatJSONL, KeyCol: "user"}},
		{"counts", counts, TraceOptions{Format: FormatCounts}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			// One arrival per iteration; the trace is reopened at its end.
			tr, err := NewTrace(bytes.NewReader(tc.data), "bench", tc.opt)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tr.Next(); err != nil {
					if tr, err = NewTrace(bytes.NewReader(tc.data), "bench", tc.opt); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
