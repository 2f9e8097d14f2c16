package profiles

import (
	"testing"

	"github.com/ratesim/ratesim/buckets"
)

// TestEnvoyLegacyStaircase checks the timer bucket: max_tokens 2, one
// token every 100 ms, full at start, fills at 100, 200, ... ms.
func TestEnvoyLegacyStaircase(t *testing.T) {
	run(t, MustParse("envoy-legacy:max_tokens=2,tokens_per_fill=1,fill_interval=100ms").New(), []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
		{t: 100*ms - 1, verdict: buckets.Reject, retry: 1},
		{t: 100 * ms, verdict: buckets.Admit}, // the fill due at 100 ms comes first
		{t: 250 * ms, verdict: buckets.Admit}, // the 200 ms fill
		{t: 250 * ms, verdict: buckets.Reject, retry: 50 * ms},
		// 1 s: fills at 300..1000 ms, eight of them, capped at 2.
		{t: s1, verdict: buckets.Admit},
		{t: s1, verdict: buckets.Admit},
		{t: s1, verdict: buckets.Reject, retry: 100 * ms},
	}, false)
}

// TestEnvoyLegacyReset checks the refusals' hints: none by default (a 429
// with no x-ratelimit headers), and with headers x-ratelimit-reset as
// TimerTokenBucket::remainingFillInterval computes it, ToInt64Seconds(
// fill_interval - Seconds(floor(e ms / 1000))), e the time since the last
// fill. fill_interval 2500 ms, max_tokens 1, fills at 2.5, 5, ... s:
//
//	t = 0      e = 0:      2500 - 0    = 2500 ms: 2 s
//	t = 1.2 s  e = 1200:   2500 - 1000 = 1500 ms: 1 s
//	t = 2.4 s  e = 2400:   2500 - 2000 = 500 ms:  0 s (retry now)
//	t = 2.5 s  the fill: admitted
//	t = 4.9 s  e = 2400 since 2.5 s: 0 s
func TestEnvoyLegacyReset(t *testing.T) {
	steps := []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Reject, retry: 2 * s1},
		{t: 1200 * ms, verdict: buckets.Reject, retry: s1},
		{t: 2400 * ms, verdict: buckets.Reject, retry: buckets.RetryNow},
		{t: 2500 * ms, verdict: buckets.Admit},
		{t: 4900 * ms, verdict: buckets.Reject, retry: buckets.RetryNow},
	}
	run(t, MustParse("envoy-legacy:max_tokens=1,fill_interval=2500ms,headers").New(), steps, true)
	for i := range steps {
		if steps[i].verdict == buckets.Reject {
			steps[i].retry = 0
		}
	}
	run(t, MustParse("envoy-legacy:max_tokens=1,fill_interval=2500ms").New(), steps, true)
}

// TestEnvoyAtomic checks the atomic bucket by hand: max_tokens 2, one token
// per 100 ms, so fill_rate = 1 / 0.1 = 10 (exact in float64), monotonic
// origin 0. At creation time_in_seconds = 0 - 2/10 = -0.2.
func TestEnvoyAtomic(t *testing.T) {
	run(t, MustParse("envoy:max_tokens=2,tokens_per_fill=1,fill_interval=100ms").New(), []step{
		// min(2, (0 + 0.2)·10) = 2: admitted, time_in = 0 - 1/10 = -0.1.
		{t: 0, verdict: buckets.Admit},
		// (0 + 0.1)·10 = 1: admitted, time_in = 0 - 0/10 = 0.
		{t: 0, verdict: buckets.Admit},
		// 0 tokens. At 99999999 ns, 0.099999999·10 < 1; at 100 ms, 0.1·10
		// rounds to exactly 1: RetryAfter 100 ms.
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
		{t: 100 * ms, verdict: buckets.Admit},
		// Continuous refill: 50 ms later, half a token: refused.
		{t: 150 * ms, verdict: buckets.Reject, retry: 50 * ms},
	}, true)
}

// TestSrTCM checks RFC 2697 by hand: CIR 10 bytes/s (one byte every 100
// ms), CBS 2, EBS 3, 1-byte jobs, default colours (red rejected).
func TestSrTCM(t *testing.T) {
	m := MustParse("srtcm:cir=10,cbs=2,ebs=3").New().(*SrTCM)
	run(t, m, []step{
		{t: 0, verdict: buckets.Admit}, // green, Tc 1
		{t: 0, verdict: buckets.Admit}, // green, Tc 0
		{t: 0, verdict: buckets.Admit}, // yellow, Te 2
		{t: 0, verdict: buckets.Admit}, // yellow, Te 1
		{t: 0, verdict: buckets.Admit}, // yellow, Te 0
		// Red: increments go to C first; one at 100 ms makes it green.
		{t: 0, verdict: buckets.Reject, retry: 100 * ms},
		{t: 100 * ms, verdict: buckets.Admit}, // green
		{t: 150 * ms, verdict: buckets.Reject, retry: 50 * ms},
	}, true)
	if got, want := m.Counts(), (ColourCounts{Green: 3, Yellow: 3, Red: 2}); got != want {
		t.Fatalf("Counts() = %+v, want %+v", got, want)
	}
	if m.Last() != Red {
		t.Fatalf("Last() = %v, want red", m.Last())
	}
}

// TestSrTCMYellowRejected shows the one refusal that changes state: with
// yellow mapped to Reject, a yellow job still spends Te (the meter marks
// before anything is dropped), so the next one is red.
func TestSrTCMYellowRejected(t *testing.T) {
	m := MustParse("srtcm:cir=10,cbs=1,ebs=1,yellow=reject").New().(*SrTCM)
	run(t, m, []step{
		{t: 0, verdict: buckets.Admit},                   // green
		{t: 0, verdict: buckets.Reject, retry: 100 * ms}, // yellow, Te 1 -> 0
		{t: 0, verdict: buckets.Reject, retry: 100 * ms}, // red
	}, true)
	if got, want := m.Counts(), (ColourCounts{Green: 1, Yellow: 1, Red: 1}); got != want {
		t.Fatalf("Counts() = %+v, want %+v", got, want)
	}
}

// TestTrTCM checks RFC 2698 by hand: PIR 20 bytes/s (a byte every 50 ms),
// PBS 3, CIR 10 bytes/s (every 100 ms), CBS 1.
func TestTrTCM(t *testing.T) {
	m := MustParse("trtcm:pir=20,pbs=3,cir=10,cbs=1").New().(*TrTCM)
	run(t, m, []step{
		{t: 0, verdict: buckets.Admit}, // green: Tp 2, Tc 0
		{t: 0, verdict: buckets.Admit}, // yellow: Tp 1
		{t: 0, verdict: buckets.Admit}, // yellow: Tp 0
		{t: 0, verdict: buckets.Reject, retry: 50 * ms},
		{t: 50 * ms, verdict: buckets.Admit},  // P tick at 50 ms; C empty: yellow
		{t: 100 * ms, verdict: buckets.Admit}, // P and C tick at 100 ms: green
	}, true)
	if got, want := m.Counts(), (ColourCounts{Green: 2, Yellow: 3, Red: 1}); got != want {
		t.Fatalf("Counts() = %+v, want %+v", got, want)
	}
}
