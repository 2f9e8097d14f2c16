package profiles

import (
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// promiseSpecs are the configurations the arrival-curve property test
// covers, with the mean gap of the streams offered to each (about a
// third of the profile's emission interval, so that the limiter is
// overloaded and its bound is approached).
var promiseSpecs = []struct {
	spec string
	gap  engine.Time
}{
	{"xrate:limit=10,burst=3", 30 * ms},
	{"xrate:limit=0.3333333333333333,burst=2,call=reserve", s1},
	{"xrate:limit=1234.5678,burst=20,call=wait,max_wait=20ms", 250 * us},
	{"guava-bursty:permits_per_second=5", 60 * ms},
	{"guava-bursty:permits_per_second=3,call=try_acquire,timeout=500ms", 100 * ms},
	{"guava-warmup:permits_per_second=10,warmup_period=2s", 30 * ms},
	{"bucket4j-greedy:capacity=5,refill_tokens=3,refill_period=1s", 100 * ms},
	{"bucket4j-greedy:capacity=4,refill_tokens=7,refill_period=333ms,time_meter=nanos,call=block", 15 * ms},
	{"bucket4j-interval:capacity=6,refill_tokens=4,refill_period=250ms", 20 * ms},
	{"redis-rate:rate=10,burst=10", 30 * ms},
	{"redis-rate:rate=3,burst=2,period=1s,version=v9", 100 * ms},
	{"throttled:max_rate=7,max_burst=3", 50 * ms},
	{"redis-cell:max_burst=2,count=30,period=60", 600 * ms},
	{"envoy-legacy:max_tokens=5,tokens_per_fill=2,fill_interval=150ms", 20 * ms},
	{"envoy:max_tokens=4,tokens_per_fill=3,fill_interval=70ms", 8 * ms},
	{"envoy:max_tokens=4,tokens_per_fill=1,fill_interval=50ms,origin=864000.123456789", 8 * ms},
	{"nginx:rate=10r/s,burst=5", 30 * ms},
	{"nginx:rate=7r/m,burst=3,nodelay", 3 * s1},
	{"nginx:rate=20r/s,burst=8,delay=3", 15 * ms},
	{"uber:rate=10,slack=3", 30 * ms},
	{"uber:rate=3,per=1s,slack=0", 100 * ms},
	{"srtcm:cir=10,cbs=3,ebs=4", 30 * ms},
	{"srtcm:cir=7/3,cbs=2,ebs=0,size=1", 150 * ms},
	{"trtcm:pir=20,pbs=4,cir=5,cbs=2", 15 * ms},
	{"trtcm:pir=20,pbs=4,cir=5,cbs=2,yellow=reject", 15 * ms},
}

// TestPromise checks each profile's Promise(d) against the largest number
// of jobs passing in a closed window of length d, measured on random
// streams (every stream family, 3000 arrivals each) for window lengths
// from 0 to 100 emission intervals. It logs how close the measured maximum
// comes to the bound.
func TestPromise(t *testing.T) {
	src := rand.New(rand.NewPCG(5, 1))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for _, ps := range promiseSpecs {
		p := MustParse(ps.spec)
		ds := []engine.Time{0, 1, ps.gap / 3, ps.gap, 3 * ps.gap, 10 * ps.gap, 37 * ps.gap, 100 * ps.gap, 100*ps.gap + 1}
		worst := map[engine.Time]int{}
		for _, sk := range streams {
			ts := sk.gen(src, n, ps.gap)
			l := p.New()
			pass := passInstants(l, ts)
			for _, d := range ds {
				got := maxInWindow(pass, d)
				worst[d] = max(worst[d], got)
				if bound := l.(buckets.Curve).Promise(d); float64(got) > bound {
					t.Errorf("%s, stream %s: %d jobs pass in a window of %v s, Promise = %v", ps.spec, sk.name, got, d, bound)
				}
			}
		}
		l := p.New().(buckets.Curve)
		for _, d := range []engine.Time{0, 10 * ps.gap, 100 * ps.gap} {
			t.Logf("%-70s d=%-8v measured %4d  promise %v", ps.spec, d, worst[d], l.Promise(d))
		}
	}
}

// TestPromiseAttained checks that the bounds documented as attained are
// reached: one arrival at 0, an idle period (which fills buckets and lets
// pacers accumulate slack), then four arrivals every step from 1 ms
// before a whole number of seconds, so that a window can start just
// before a refill; window lengths are not multiples of the intervals.
func TestPromiseAttained(t *testing.T) {
	for _, c := range []struct {
		spec  string
		d     engine.Time
		step  engine.Time
		count int
	}{
		{"xrate:limit=10,burst=3", 450 * ms, ms, 4000},
		{"throttled:max_rate=7,max_burst=3", 450 * ms, ms, 4000},
		{"redis-cell:max_burst=2,count=30,period=60", 5 * s1, 10 * ms, 4000},
		{"uber:rate=10,slack=3", 450 * ms, ms, 4000},
		{"envoy-legacy:max_tokens=5,tokens_per_fill=2,fill_interval=150ms", 450 * ms, ms, 4000},
		{"bucket4j-greedy:capacity=100,refill_tokens=100,refill_period=1m", 60 * s1, 100 * ms, 4000},
		{"nginx:rate=10r/s,burst=5,nodelay", 450 * ms, ms, 4000},
		{"srtcm:cir=10,cbs=3,ebs=4", 450 * ms, ms, 4000},
		{"trtcm:pir=20,pbs=4,cir=5,cbs=2", 130 * ms, ms, 4000},
		{"guava-bursty:permits_per_second=5", ms, ms, 4000},
	} {
		l := MustParse(c.spec).New()
		ts := []engine.Time{0}
		for i := range c.count {
			ts = append(ts, 10*s1-ms+engine.Time(i/4)*c.step)
		}
		got := maxInWindow(passInstants(l, ts), c.d)
		if want := l.(buckets.Curve).Promise(c.d); float64(got) != want {
			t.Errorf("%s: %d pass in a window of %v s, Promise = %v", c.spec, got, c.d, want)
		}
	}
}
