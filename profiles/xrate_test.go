package profiles

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// TestXRateTakeTwo is the worked example of the profile's brief, derived
// by hand from rate.go (v0.16.0) with limit 10/s and burst 3.
func TestXRateTakeTwo(t *testing.T) {
	x, err := NewXRate(XRateConfig{Limit: 10, Burst: 3, Call: XRateAllow, Minor: 16})
	if err != nil {
		t.Fatal(err)
	}
	const t0 = engine.Time(0)
	// Starts full: 3 tokens. Take 2: 3 - 2 = 1 >= 0, admitted.
	if d := x.OfferN(t0, 0, 2); d.Verdict != buckets.Admit {
		t.Fatalf("take 2 at t0 = %v, want admit", d.Verdict)
	}
	// Take 2 more: 1 - 2 = -1 tokens, a wait of (1/10)·1e9 = 1e8 ns > 0,
	// refused; the state is unchanged (1 token). The hint is the
	// reservation's delay, 100 ms, although a retry passes 1 ns before:
	// at 99999999 ns, Seconds() = 0.099999999, times 10 is
	// 0.99999999000000006 in float64, 1 + that - 2 = -9.99999993922529e-9
	// tokens, and (9.99999993922529e-9 / 10)·1e9 = 0.99999999392 ns
	// truncates to a wait of 0.
	d := x.OfferN(t0, 1, 2)
	if d.Verdict != buckets.Reject || d.RetryAfter != 100*ms {
		t.Fatalf("second take 2 = %v, RetryAfter %v s; want reject, 0.1 s", d.Verdict, d.RetryAfter)
	}
	if d := x.OfferN(t0+100*ms-1, 2, 2); d.Verdict != buckets.Admit {
		t.Fatalf("take 2 at 99999999 ns = %v, want admit", d.Verdict)
	}
	x, _ = NewXRate(XRateConfig{Limit: 10, Burst: 3, Minor: 16})
	x.OfferN(t0, 0, 2)
	// Take 1: 1 - 1 = 0, admitted.
	if d := x.OfferN(t0, 2, 1); d.Verdict != buckets.Admit {
		t.Fatalf("take 1 = %v, want admit", d.Verdict)
	}
	// At t0 + 200 ms: 0 + 0.2·10 = 2 tokens (0.2·10 rounds to exactly 2).
	if got := x.Tokens(t0 + 200*ms); got != 2 {
		t.Fatalf("tokens at +200ms = %v, want 2", got)
	}
	run(t, x, []step{
		{t: t0 + 200*ms, verdict: buckets.Admit},
		{t: t0 + 200*ms, verdict: buckets.Admit},
		// 0 tokens: 0 - 1 = -1, the reservation's delay 100 ms.
		{t: t0 + 200*ms, verdict: buckets.Reject, retry: 100 * ms},
	}, true)
}

// TestXRateReserveWaits checks Reserve's waits by hand: limit 3/s, burst 1.
func TestXRateReserveWaits(t *testing.T) {
	x, _ := NewXRate(XRateConfig{Limit: 3, Burst: 1, Call: XRateReserve, Minor: 16})
	run(t, x, []step{
		{t: 0, verdict: buckets.Admit}, // full: 1 - 1 = 0
		// 0 - 1 = -1: wait int64((1/3)·1e9) = int64(333333333.33333331) = 333333333 ns.
		{t: 0, verdict: buckets.Delay, wait: 333333333},
		// tokens = -1 - 1 = -2: wait int64((2/3)·1e9) = 666666666 ns (truncated).
		{t: 0, verdict: buckets.Delay, wait: 666666666},
	}, false)
}

// TestXRateZeroLimit checks the zero limit before and after v0.7.0.
func TestXRateZeroLimit(t *testing.T) {
	// Current: the bucket holds its 2 initial tokens and never refills;
	// Allow admits two and rejects forever after: the reservation a caller
	// makes to learn when to retry has delay InfDuration, so no retry.
	x, _ := NewXRate(XRateConfig{Limit: 0, Burst: 2, Minor: 16})
	run(t, x, []step{{t: 0, verdict: buckets.Admit}, {t: s1, verdict: buckets.Admit}, {t: 1000 * s1, verdict: buckets.Reject, retry: buckets.NoRetry}}, true)
	// Reserve: beyond the burst, durationFromTokens returns InfDuration,
	// which is <= the InfDuration limit: OK with a delay of 2^63-1 ns,
	// which rate.go documents as "cannot grant": refused, no retry, and
	// every later job likewise (the case: 1 admitted of 3 at 0).
	x, _ = NewXRate(XRateConfig{Limit: 0, Burst: 1, Call: XRateReserve, Minor: 16})
	run(t, x, []step{{t: 0, verdict: buckets.Admit}, {t: 0, verdict: buckets.Reject, retry: buckets.NoRetry},
		{t: 0, verdict: buckets.Reject, retry: buckets.NoRetry}}, true)
	// v0.6.0: burst is decremented per grant, and the third is refused
	// even by Reserve.
	x, _ = NewXRate(XRateConfig{Limit: 0, Burst: 2, Call: XRateReserve, Minor: 6})
	run(t, x, []step{{t: 0, verdict: buckets.Admit}, {t: 0, verdict: buckets.Admit}, {t: 0, verdict: buckets.Reject}}, false)
}

// TestXRateOverflowBeforeV010 checks the pre-v0.10.0 overflow: limit
// 1e-10/s, burst 1, Allow. The second request needs 1 token at 1e-10/s, a
// wait of 1e19 ns > 2^63; v0.16.0 returns InfDuration and refuses, v0.9.0
// converted out of range to -2^63 on amd64 and admitted.
func TestXRateOverflowBeforeV010(t *testing.T) {
	for _, c := range []struct {
		minor int
		want  buckets.Verdict
	}{{16, buckets.Reject}, {9, buckets.Admit}} {
		x, _ := NewXRate(XRateConfig{Limit: 1e-10, Burst: 1, Minor: c.minor})
		x.Offer(0, 0)
		if got := x.Offer(0, 1).Verdict; got != c.want {
			t.Errorf("v0.%d.0: second Allow = %v, want %v", c.minor, got, c.want)
		}
	}
}

// TestXRateInf checks that rate.Inf admits everything, even with burst 0.
func TestXRateInf(t *testing.T) {
	x := MustParse("xrate:limit=inf,burst=0").New()
	for i := range 5 {
		if d := x.Offer(0, int64(i)); d.Verdict != buckets.Admit {
			t.Fatalf("Offer %d = %v, want admit", i, d.Verdict)
		}
	}
}

// TestXRateWaitDeadline checks Wait with a deadline by hand: limit 10/s,
// burst 1, max_wait 150 ms.
func TestXRateWaitDeadline(t *testing.T) {
	x := MustParse("xrate:limit=10,burst=1,call=wait,max_wait=150ms").New()
	run(t, x, []step{
		{t: 0, verdict: buckets.Admit},
		{t: 0, verdict: buckets.Delay, wait: 100 * ms}, // -1 tokens: 100 ms <= 150 ms
		// -2 tokens: 200 ms > 150 ms, refused with no hint (WaitN's
		// error carries no delay); the state keeps -1 token, so a retry
		// at +50 ms waits exactly 150 ms and passes.
		{t: 0, verdict: buckets.Reject, retry: 0},
		{t: 50 * ms, verdict: buckets.Delay, wait: 150 * ms},
	}, true)
}

// xrateLib is the real golang.org/x/time/rate v0.16.0 Limiter driven with
// instants built from a fixed base, so that its clock is the profile's.
type xrateLib struct {
	lim  *rate.Limiter
	call XRateCall
}

var xrateBase = time.Unix(1700000000, 123456789)

func (l xrateLib) offer(t engine.Time) (buckets.Verdict, int64) {
	tm := xrateBase.Add(time.Duration(t))
	switch l.call {
	case XRateAllow:
		if l.lim.AllowN(tm, 1) {
			return buckets.Admit, 0
		}
		return buckets.Reject, 0
	default:
		r := l.lim.ReserveN(tm, 1)
		if !r.OK() {
			return buckets.Reject, 0
		}
		if r.DelayFrom(tm) == rate.InfDuration {
			// "Cannot grant" (rate.go): the caller cancels, refused.
			r.CancelAt(tm)
			return buckets.Reject, 0
		}
		if w := r.DelayFrom(tm); w > 0 {
			return buckets.Delay, int64(w)
		}
		return buckets.Admit, 0
	}
}

// xrateConfigs are the configurations the differential test covers:
// integer and fractional rates, rates whose float64 is inexact (0.1, 1/3,
// 1234.5678), tiny and huge rates, zero and infinite limits, bursts 0 to 20.
func xrateConfigs(src *rand.Rand) []XRateConfig {
	limits := []float64{10, 3, 0.1, 1.0 / 3, 1234.5678, 0.7, 1e-3, 5e5, 1e9, 0, XRateInf}
	var out []XRateConfig
	for _, lim := range limits {
		for _, call := range []XRateCall{XRateAllow, XRateReserve} {
			out = append(out, XRateConfig{Limit: lim, Burst: src.IntN(21), Call: call, Minor: 16})
		}
	}
	out = append(out, XRateConfig{Limit: 50, Burst: 0, Call: XRateAllow, Minor: 16})
	return out
}

// TestXRateAgainstLibrary offers random streams (exponential gaps, ties,
// ms and µs grids, bursts with idle periods) to the profile and to the real
// library and requires the same verdict and the same wait to the
// nanosecond for every arrival. Wait calls are not covered: WaitN reads
// time.Now and cannot be driven by a fake clock.
func TestXRateAgainstLibrary(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 1))
	n := 2000
	if testing.Short() {
		n = 300
	}
	total := 0
	for ci, c := range xrateConfigs(src) {
		for _, sk := range streams {
			mean := engine.Time(float64(s1) / max(min(c.Limit, 1e6), 1e-2) * (0.5 + src.Float64()))
			ts := sk.gen(src, n, mean)
			total += len(ts)
			compareXRate(t, fmt.Sprintf("config %d %+v stream %s", ci, c, sk.name), c, ts)
		}
	}
	t.Logf("%d arrivals compared", total)
}

// TestXRateAgainstLibraryTraces does the same on the real traces.
func TestXRateAgainstLibraryTraces(t *testing.T) {
	total := 0
	for _, tr := range loadTraces(t) {
		for _, c := range []XRateConfig{
			{Limit: 0.5, Burst: 5, Call: XRateAllow, Minor: 16},
			{Limit: 1.0 / 3, Burst: 2, Call: XRateReserve, Minor: 16},
			{Limit: 2.5, Burst: 10, Call: XRateAllow, Minor: 16},
		} {
			total += len(tr.ts)
			compareXRate(t, fmt.Sprintf("trace %s %+v", tr.name, c), c, tr.ts)
		}
	}
	t.Logf("%d arrivals compared", total)
}

func compareXRate(t *testing.T, what string, c XRateConfig, ts []engine.Time) {
	t.Helper()
	x, err := NewXRate(c)
	if err != nil {
		t.Fatal(err)
	}
	lib := xrateLib{rate.NewLimiter(rate.Limit(c.Limit), c.Burst), c.Call}
	for i, at := range ts {
		d := x.Offer(at, int64(i))
		v, w := lib.offer(at)
		gw := int64(0)
		if d.Verdict == buckets.Delay {
			gw = d.Wait.Num().Int64()
		}
		if d.Verdict != v || gw != w {
			t.Fatalf("%s: arrival %d at %v: profile %v wait %d ns, library %v wait %d ns", what, i, at, d.Verdict, gw, v, w)
		}
	}
}

// TestXRateRetryAfterAgainstLibrary checks that a refused Allow's
// RetryAfter is the hint the real library gives a caller who asks: the
// delay of ReserveN(t, 1) made at the refusal, DelayFrom(t), to the
// nanosecond. Each probe runs on a fresh library limiter fed the same
// history (the probe's reservation would change the state it is asked
// about), and the profile must admit a retry at that instant exactly when
// the library does.
func TestXRateRetryAfterAgainstLibrary(t *testing.T) {
	src := rand.New(rand.NewPCG(2, 1))
	checked := 0
	for _, lim := range []float64{10, 1.0 / 3, 0.1, 1234.5678, 7} {
		x, _ := NewXRate(XRateConfig{Limit: lim, Burst: 3, Minor: 16})
		var t0 engine.Time
		var hist []time.Time
		for i := range 300 {
			t0 += engine.Time(src.ExpFloat64() * float64(s1) / lim / 4)
			tm := xrateBase.Add(time.Duration(t0))
			d := x.Offer(t0, int64(i))
			if d.Verdict == buckets.Reject {
				lib := rate.NewLimiter(rate.Limit(lim), 3)
				for _, h := range hist {
					lib.AllowN(h, 1)
				}
				want := lib.ReserveN(tm, 1).DelayFrom(tm)
				if time.Duration(d.RetryAfter) != want {
					t.Fatalf("limit %g at %v: RetryAfter %v, library's reservation delay %v", lim, t0, time.Duration(d.RetryAfter), want)
				}
				checked++
			}
			hist = append(hist, tm)
		}
	}
	if checked == 0 {
		t.Fatal("no refusal was checked")
	}
	t.Logf("%d RetryAfter values checked", checked)
}
