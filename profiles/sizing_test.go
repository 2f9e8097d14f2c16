package profiles

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestSizeBurstEightAtOnce sizes bursts for eight requests at t = 0,
// worked out from each library's burst convention:
//   - xrate passes burst (8 for none refused, 6 for at most 2);
//   - throttled passes max_burst + 1 (7), nginx nodelay burst + 1 (7);
//   - bucket4j passes its capacity (initial tokens = capacity, 8), Envoy
//     its max_tokens (8);
//   - srtcm with ebs=4 passes cbs + 4 (green and yellow): cbs 4; trtcm
//     with yellow admitted passes pbs: 8;
//   - nginx without nodelay delays all but the first whatever its burst,
//     and uber paces every request after the first: no burst meets the
//     target, 7 refused.
func TestSizeBurstEightAtOnce(t *testing.T) {
	ts := make([]engine.Time, 8)
	for _, c := range []struct {
		spec    string
		allowed int64
		key     string
		burst   int64
		found   bool
		refused int64
	}{
		{"xrate:limit=10,burst=1", 0, "burst", 8, true, 0},
		{"xrate:limit=10,burst=1", 2, "burst", 6, true, 2},
		{"throttled:max_rate=10", 0, "max_burst", 7, true, 0},
		{"nginx:rate=10r/s,nodelay", 0, "burst", 7, true, 0},
		{"nginx:rate=10r/s,nodelay", 3, "burst", 4, true, 3},
		{"bucket4j-greedy:capacity=5", 0, "capacity", 8, true, 0},
		{"envoy:max_tokens=3", 0, "max_tokens", 8, true, 0},
		{"srtcm:cir=10,cbs=3,ebs=4", 0, "cbs", 4, true, 0},
		{"trtcm:pir=20,pbs=4,cir=5,cbs=2", 0, "pbs", 8, true, 0},
		{"nginx:rate=10r/s,burst=5", 0, "burst", 0, false, 7},
		{"uber:rate=10", 0, "slack", 0, false, 7},
	} {
		got, err := SizeBurst(MustParse(c.spec), ts, c.allowed, 1000)
		if err != nil || got.Key != c.key || got.Found != c.found || got.Refused != c.refused || c.found && got.Burst != c.burst {
			t.Errorf("%s, at most %d refused: %+v, %v; want %s = %d found %v refusing %d", c.spec, c.allowed, got, err, c.key, c.burst, c.found, c.refused)
		}
	}
	if _, err := SizeBurst(MustParse("guava-bursty"), ts, 0, 10); err == nil {
		t.Error("guava-bursty: no error, want one (it has no burst parameter)")
	}
}

// TestSizeBurstLinear checks the search against a linear scan of every
// burst from the least to the answer, on random bursty streams: the
// target fails at every smaller value and holds at the answer.
func TestSizeBurstLinear(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 1))
	for _, spec := range []string{"xrate:limit=10", "throttled:max_rate=10", "nginx:rate=10r/s,nodelay", "bucket4j-greedy:capacity=1,refill_tokens=10,refill_period=1s", "envoy-legacy:max_tokens=1,tokens_per_fill=1,fill_interval=100ms", "redis-rate:rate=10,burst=1"} {
		p := MustParse(spec)
		for rep := 0; rep < 5; rep++ {
			var ts []engine.Time
			now := engine.Time(0)
			for range 400 {
				if src.IntN(4) == 0 {
					now += engine.Time(src.Int64N(int64(engine.Second)))
				}
				ts = append(ts, now)
			}
			allowed := int64(src.IntN(20))
			got, err := SizeBurst(p, ts, allowed, 1<<20)
			if err != nil || !got.Found {
				t.Fatalf("%s: %+v, %v", spec, got, err)
			}
			for b := int64(0); b <= got.Burst; b++ {
				q, err := p.With(got.Key, strconv.FormatInt(b, 10))
				if err != nil {
					continue // below the least value the library accepts
				}
				n := q.Refused(ts)
				if b < got.Burst && n <= allowed || b == got.Burst && (n > allowed || n != got.Refused) {
					t.Fatalf("%s, at most %d refused: %s = %d refuses %d; the search said %+v", spec, allowed, got.Key, b, n, got)
				}
			}
		}
	}
}
