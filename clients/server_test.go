package clients

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// burstThenSteady is the traffic of the downstream-buffer test: 10
// requests at 0, then one every 0.1 s from 0.1 s to 1 s (20 in all).
func burstThenSteady() []engine.Time {
	ts := make([]engine.Time, 10, 20)
	for k := int64(1); k <= 10; k++ {
		ts = append(ts, ms(100*k))
	}
	return ts
}

// conforms reports whether every window [t_i, t_j] of the sorted instants
// ts holds at most b + r·(t_j - t_i) of them (r per second), checked on
// all pairs in exact integer arithmetic: (j-i+1)·1e9 <= b·1e9 + r·(t_j - t_i).
func conforms(ts []engine.Time, b, r int64) bool {
	for i := range ts {
		for j := i; j < len(ts); j++ {
			if int64(j-i+1)*1e9 > b*1e9+r*int64(ts[j]-ts[i]) {
				return false
			}
		}
	}
	return true
}

// The article's point ("Pacing and smoothing": "a burst that is inside
// your rate limit can still overflow a downstream buffer that was sized
// for the average"), with exact counts.
//
// A policing token bucket promises R = 10 jobs/s with burst B = 10: any
// window of d seconds passes at most B + R·d jobs. The traffic, 10 jobs at
// 0 and one every 0.1 s from 0.1 s to 1 s, keeps that promise (checked
// below, pair by pair), so the bucket admits all 20. Downstream is one
// server at μ = 12 jobs/s (service 1/12 s) with a buffer of one waiting
// job, sized for the average: at R = 10/s each job is served in 1/12 s
// before the next arrives 1/10 s later, so R·(service time) = 10/12 < 1
// job ever waits.
//
// Unpaced, the 10 jobs at 0 meet the buffer together: one is served
// [0, 1/12], one waits, and 8 overflow. The waiting one is served
// [1/12, 2/12]. Then each arrival at k/10 s waits for the previous
// departure (all in seconds):
//
//	arrival 0.1: starts 2/12, waits 2/12 - 1/10 = 1/15, departs 3/12
//	arrival 0.2: starts 3/12, waits 1/20,               departs 4/12
//	arrival 0.3: starts 4/12, waits 1/30,               departs 5/12
//	arrival 0.4: starts 5/12, waits 1/60,               departs 6/12 = 0.5
//	arrival 0.5: the departure at 0.5 comes first (an exact tie): no wait
//
// and after that each job is done before the next arrives. Queueing
// delay: 1/12 + 1/15 + 1/20 + 1/30 + 1/60 = (5+4+3+2+1)/60 = 1/4 s in all,
// the largest 1/12 s; 12 jobs served.
//
// Paced at R = 10/s in front of the limiter, the same 20 requests are sent
// at 0, 0.1, ..., 1.9 s: the bucket admits each (one token per 0.1 s),
// and each is served in 1/12 s before the next arrives: no overflow, no
// queueing.
func TestDownstreamBufferOverflowAndPacing(t *testing.T) {
	ts := burstThenSteady()
	if !conforms(ts, 10, 10) {
		t.Fatalf("test traffic breaks the bucket's promise B + R·d")
	}
	srvParams := ServerParams{Rate: exact.Int(12), Buffer: 1}
	tenth := 100 * engine.Millisecond

	// Unpaced: each request offered at its arrival, never retried.
	s := engine.NewSim()
	g := NewGate(s, newPolicer(tenth, 10))
	srv, err := NewServer(srvParams)
	if err != nil {
		t.Fatal(err)
	}
	g.Connect(srv)
	c, err := NewRetrying(s, g, RetryPolicy{Backoff: NoBackoff{}, MaxAttempts: 1}, 0, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	c.OpenLoop(times(ts...))
	s.Run()
	srv.Flush()
	if st := c.Stats(); st.Successes != 20 {
		t.Fatalf("unpaced: %d of 20 admitted by the bucket, want all", st.Successes)
	}
	want := ServerStats{
		Arrived: 20, Overflows: 8, Departed: 12,
		QueueDelay:    exact.NewRat(250000000, 1),            // 1/4 s
		MaxQueueDelay: must(exact.ParseRat("1000000000/12")), // 1/12 s
	}
	checkServer(t, "unpaced", srv.Final(0), want)

	// Paced at 10/s, no jitter.
	s = engine.NewSim()
	g = NewGate(s, newPolicer(tenth, 10))
	srv, _ = NewServer(srvParams)
	g.Connect(srv)
	p, err := NewPaced(s, g, PaceParams{Rate: exact.Int(10)}, 0, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	p.RecordSends()
	p.OpenLoop(times(ts...))
	s.Run()
	srv.Flush()
	var wantSends []engine.Time
	for k := range int64(20) {
		wantSends = append(wantSends, engine.Time(k)*tenth)
	}
	if diff := cmp.Diff(wantSends, p.Sends()); diff != "" {
		t.Errorf("paced sends (-want +got):\n%s", diff)
	}
	if st := p.Stats(); st.Successes != 20 || st.Attempts != 20 {
		t.Errorf("paced: %d successes in %d attempts, want 20 in 20", st.Successes, st.Attempts)
	}
	checkServer(t, "paced", srv.Final(0), ServerStats{Arrived: 20, Departed: 20})
}

func checkServer(t *testing.T, name string, got, want ServerStats) {
	t.Helper()
	if got.Arrived != want.Arrived || got.Overflows != want.Overflows || got.Departed != want.Departed ||
		got.QueueDelay.Cmp(want.QueueDelay) != 0 || got.MaxQueueDelay.Cmp(want.MaxQueueDelay) != 0 {
		t.Errorf("%s: server %v/%v arrived/overflows, %v departed, queue delay sum %v ns max %v ns; want %v/%v, %v, %v ns, %v ns",
			name, got.Arrived, got.Overflows, got.Departed, got.QueueDelay, got.MaxQueueDelay,
			want.Arrived, want.Overflows, want.Departed, want.QueueDelay, want.MaxQueueDelay)
	}
}

// A server at exactly the arrival rate with no buffer loses nothing: each
// departure is at the instant of the next arrival and comes first. At 10
// jobs/s the instants are k/10 s; at 3 jobs/s, released by a limiter at
// exact instants k/3 s between two nanoseconds, the same. A server a
// little slower (9.99 jobs/s, or 2.99) finds every other arrival busy.
func TestServerExactTies(t *testing.T) {
	third := must(exact.Int(1e9).Quo(exact.Int(3)))
	tests := []struct {
		name      string
		lim       buckets.Limiter
		mu        string
		overflows int64
	}{
		{"10/s into 10/s", admitAll{}, "10", 0},
		{"10/s into 9.99/s", admitAll{}, "9.99", 4}, // arrivals 1, 3, 5, 7 find the server busy
		{"3/s released into 3/s", &spacer{T: third}, "3", 0},
		{"3/s delayed into 3/s", &shaper{T: third}, "3", 0},
		{"3/s released into 2.99/s", &spacer{T: third}, "2.99", 4},
	}
	for _, tt := range tests {
		s := engine.NewSim()
		g := NewGate(s, tt.lim)
		srv, err := NewServer(ServerParams{Rate: must(exact.ParseRat(tt.mu)), Buffer: 0})
		if err != nil {
			t.Fatal(err)
		}
		g.Connect(srv)
		c, _ := NewRetrying(s, g, RetryPolicy{Backoff: NoBackoff{}}, 0, rand.NewPCG(1, 1))
		var ts []engine.Time
		for k := range int64(9) {
			if _, ok := tt.lim.(admitAll); ok {
				ts = append(ts, engine.Time(k)*ms(100))
			} else {
				ts = append(ts, 0) // the limiter spaces them k/3 s apart
			}
		}
		c.OpenLoop(times(ts...))
		s.Run()
		srv.Flush()
		if got := srv.Final(0); got.Arrived != 9 || got.Overflows != tt.overflows {
			t.Errorf("%s: %d arrived, %d overflows; want 9, %d", tt.name, got.Arrived, got.Overflows, tt.overflows)
		}
	}
}

// Stats at an instant counts departures up to it, never later ones.
func TestServerStatsAsOfNow(t *testing.T) {
	s := engine.NewSim()
	srv, _ := NewServer(ServerParams{Rate: exact.Int(10), Buffer: 5})
	probe := func(at engine.Time, want int64) {
		s.Schedule(at, handlerFunc(func(now engine.Time) {
			if got := srv.Stats(s, 0).Departed; got != want {
				t.Errorf("at %v s: %d departed, want %d", now, got, want)
			}
		}), 0)
	}
	// Three jobs at 0: departures at 0.1, 0.2, 0.3 s.
	s.Schedule(0, handlerFunc(func(engine.Time) {
		for range 3 {
			srv.Arrive(s, exact.Int(0), 0)
		}
	}), 0)
	probe(ms(100)-1, 0)
	probe(ms(100), 1)
	probe(ms(250), 2)
	probe(ms(300), 3)
	s.Run()
}

type handlerFunc func(now engine.Time)

func (f handlerFunc) Handle(_ *engine.Sim, now engine.Time, _ int) { f(now) }

func TestServerLateArrivalPanics(t *testing.T) {
	s := engine.NewSim()
	srv, _ := NewServer(ServerParams{Rate: exact.Int(10)})
	s.Schedule(ms(1), handlerFunc(func(now engine.Time) {
		defer func() {
			if recover() == nil {
				t.Errorf("arrival 1 ns in the past: no panic")
			}
		}()
		srv.Arrive(s, exact.Int(int64(now)-1), 0)
	}), 0)
	s.Run()
}

func TestServerParamsValidate(t *testing.T) {
	for _, p := range []ServerParams{
		{},
		{Rate: exact.Int(-1)},
		{Rate: exact.Int(2e9)}, // service time under a nanosecond
		{Rate: exact.Int(1), Buffer: -1},
	} {
		if _, err := NewServer(p); err == nil {
			t.Errorf("%+v: nil error", p)
		}
	}
}

// With a downstream server, success is service there: a job the limiter
// lets pass but the server's full buffer loses is a failure the client
// retries, as a 503 from downstream. Three requests at 0 through a limiter
// that admits everything into a server of 1 job/s with room for 1,
// constant backoff 0.5 s, by hand: A is served from 0 to 1 s; B waits and
// is served from 1 to 2 s; C finds A in service and B waiting and is lost
// at 0; it retries at 0.5 s, still two in the system: lost; at 1 s A
// leaves as C arrives (the departure first), so C waits until B leaves at
// 2 s and is served until 3 s. Successes at the departures 1, 2 and 3 s:
// latencies 1, 2, 3 s; 5 attempts, 2 of them lost; queueing delays 0, 1
// and 1 s. With at most 2 attempts C gives up at 0.5 s.
func TestServedIsSuccess(t *testing.T) {
	run := func(maxAttempts int) Result {
		res, err := Run(Scenario{
			Arrivals: times(0, 0, 0),
			Retry:    RetryPolicy{Backoff: Constant{Base: ms(500)}, MaxAttempts: maxAttempts},
			Server:   &ServerParams{Rate: exact.Int(1), Buffer: 1},
		}, admitAll{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(0)
	want := Summary{
		Requests: 3, Attempts: 5, Successes: 3,
		Amplification: 5.0 / 3, AttemptsPerSuccess: 5.0 / 3,
		Goodput:     1, // 3 served over [0, 3 s]
		Drain:       3,
		MeanLatency: 2, P50Latency: 2, P99Latency: 3, MaxLatency: 3,
	}
	if diff := cmp.Diff(want, res.Foreground); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if got := res.ForegroundLatencies; !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("latencies %v s, want 1, 2, 3", got)
	}
	// The run ends at the last departure, 3 s, not at the last attempt.
	if res.End != 3*engine.Second {
		t.Errorf("end %v, want 3 s (the last departure)", res.End)
	}
	st := res.Server[0]
	if st.Arrived != 5 || st.Overflows != 2 || st.Departed != 3 || st.QueueDelay.Cmp(exact.Int(2e9)) != 0 || st.MaxQueueDelay.Cmp(exact.Int(1e9)) != 0 {
		t.Errorf("server %+v, want 5 arrived, 2 lost, 3 served, queueing 2 s in all, at most 1 s", st)
	}
	res = run(2)
	if f := res.Foreground; f.Attempts != 4 || f.Successes != 2 || f.GiveUps != 1 || f.MaxLatency != 2 {
		t.Errorf("at most 2 attempts: %+v, want 4 attempts, 2 served, 1 give-up", f)
	}
}

// serverSeries returns the (max jobs, overflows) of each bin of bins.
func serverSeries(t *testing.T, bins []Bin) [][2]int64 {
	t.Helper()
	var out [][2]int64
	for _, b := range bins {
		if b.Server == nil {
			t.Fatalf("bin at %v s without the server's series", b.Start)
		}
		out = append(out, [2]int64{int64(b.Server.MaxJobs), b.Server.Overflows})
	}
	return out
}

// The server's series by hand. A server of 1 job/s (service 1 s) with
// room for 1, fed everything (a limiter that admits all), no retries
// (max attempts 1), bins of 0.5 s; requests at 0, 0, 0, 0.6 and 1.5 s:
//
//	A at 0:   served [0, 1]
//	B at 0:   waits, served [1, 2]
//	C at 0:   A in service, B waiting: lost
//	D at 0.6: the same: lost
//	E at 1.5: A left at 1, B in service: waits, served [2, 3]
//
// Jobs at the server: 2 on [0, 1), 1 on [1, 1.5), 2 on [1.5, 2), 1 on
// [2, 3), 0 from 3 (the departure at a bin's start is not counted in it).
// Per bin of 0.5 s, (max jobs, overflows): [0, 0.5) (2, 1), [0.5, 1)
// (2, 1), [1, 1.5) (1, 0), [1.5, 2) (2, 0), [2, 2.5) (1, 0), [2.5, 3)
// (1, 0), [3, 3.5) (0, 0): the series ends with the bin of the last
// departure.
//
// With constant backoff 0.5 s and no bound on attempts instead (requests
// A, B, C at 0, as in TestServedIsSuccess), C is lost at 0 and 0.5 s and
// arrives at 1 s as A leaves (the departure first): 2 jobs on [0, 2), 1
// on [2, 3): bins (2, 1), (2, 1), (2, 0), (2, 0), (1, 0), (1, 0), (0, 0).
// With bins of 1 s: (2, 2), (2, 0), (1, 0), (0, 0).
func TestServerSeriesByHand(t *testing.T) {
	run := func(arr []engine.Time, retry RetryPolicy, bin engine.Time) Result {
		t.Helper()
		res, err := Run(Scenario{
			Arrivals: times(arr...),
			Retry:    retry,
			Server:   &ServerParams{Rate: exact.Int(1), Buffer: 1},
			Bin:      bin,
		}, admitAll{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	once := RetryPolicy{Backoff: NoBackoff{}, MaxAttempts: 1}
	res := run([]engine.Time{0, 0, 0, ms(600), ms(1500)}, once, ms(500))
	want := [][2]int64{{2, 1}, {2, 1}, {1, 0}, {2, 0}, {1, 0}, {1, 0}, {0, 0}}
	if diff := cmp.Diff(want, serverSeries(t, res.ForegroundSeries)); diff != "" {
		t.Errorf("no retries, bins of 0.5 s: (max jobs, overflows) (-want +got):\n%s", diff)
	}
	if got := res.Server[0].Overflows; got != 2 {
		t.Errorf("no retries: %d overflows, want 2", got)
	}

	retry := RetryPolicy{Backoff: Constant{Base: ms(500)}}
	res = run([]engine.Time{0, 0, 0}, retry, ms(500))
	want = [][2]int64{{2, 1}, {2, 1}, {2, 0}, {2, 0}, {1, 0}, {1, 0}, {0, 0}}
	if diff := cmp.Diff(want, serverSeries(t, res.ForegroundSeries)); diff != "" {
		t.Errorf("retries, bins of 0.5 s: (max jobs, overflows) (-want +got):\n%s", diff)
	}
	res = run([]engine.Time{0, 0, 0}, retry, engine.Second)
	want = [][2]int64{{2, 2}, {2, 0}, {1, 0}, {0, 0}}
	if diff := cmp.Diff(want, serverSeries(t, res.ForegroundSeries)); diff != "" {
		t.Errorf("retries, bins of 1 s: (max jobs, overflows) (-want +got):\n%s", diff)
	}

	// Three requests at 0 into a server of 1 job/s, room for 1, bins of
	// 1 s: [0, 1) holds A in service and B waiting, C lost; [1, 2) holds B
	// (A left at 1); B leaves at 2.
	res = run([]engine.Time{0, 0, 0}, once, engine.Second)
	want = [][2]int64{{2, 1}, {1, 0}, {0, 0}}
	if diff := cmp.Diff(want, serverSeries(t, res.ForegroundSeries)); diff != "" {
		t.Errorf("3 at 0, bins of 1 s: (max jobs, overflows) (-want +got):\n%s", diff)
	}
}

// The server's series against an independent count: 300 random
// arrivals (a few at the same instant, some at bin starts) into a server
// of 4 jobs/s (service 250 ms) with room for 2, bins of 100 ms. The D/1/K
// queue is rebuilt by hand in integer nanoseconds (departures at or
// before an arrival first); the occupancy at an instant u is the number
// of accepted jobs with arrival <= u < departure, counted job by job at
// each bin's start and at every arrival and departure in it: the largest
// count of each bin must be its max jobs (never above buffer + 1), and
// the lost arrivals of each bin its overflows.
func TestServerSeriesInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	var ts []engine.Time
	at := engine.Time(0)
	for range 300 {
		switch r.IntN(4) {
		case 0: // the same instant
		case 1:
			at = (at/ms(100) + 1) * ms(100) // the next bin's start
		default:
			at += engine.Time(r.Int64N(int64(300 * engine.Millisecond)))
		}
		ts = append(ts, at)
	}
	const buffer = 2
	bin, service := ms(100), ms(250)

	s := engine.NewSim()
	srv, err := NewServer(ServerParams{Rate: exact.Int(4), Buffer: buffer})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetBin(bin)
	for _, a := range ts {
		s.Schedule(a, handlerFunc(func(now engine.Time) { srv.Arrive(s, exact.Int(int64(now)), 0) }), 0)
	}
	s.Run()
	srv.Flush()
	got := srv.Series(0)

	// By hand.
	type job struct{ arrive, depart engine.Time }
	var served []job
	lost := map[int64]int64{}
	var last engine.Time
	for _, a := range ts {
		n := 0
		for _, j := range served {
			if j.depart > a {
				n++
			}
		}
		if n > buffer {
			lost[int64(a/bin)]++
			continue
		}
		start := a
		if n > 0 {
			start = max(a, last)
		}
		last = start + service
		served = append(served, job{a, last})
	}
	occ := func(u engine.Time) int {
		n := 0
		for _, j := range served {
			if j.arrive <= u && u < j.depart {
				n++
			}
		}
		return n
	}
	end := served[len(served)-1].depart
	if len(got) != int(end/bin)+1 {
		t.Fatalf("%d bins, want %d (to the last departure at %v s)", len(got), end/bin+1, end)
	}
	var overflows int64
	for k, b := range got {
		lo, hi := engine.Time(k)*bin, engine.Time(k+1)*bin
		want := occ(lo)
		for _, j := range served {
			for _, u := range []engine.Time{j.arrive, j.depart} {
				if lo <= u && u < hi {
					want = max(want, occ(u))
				}
			}
		}
		if b.MaxJobs != want || b.Overflows != lost[int64(k)] {
			t.Errorf("bin [%v, %v) s: max %d jobs, %d overflows; want %d, %d", lo, hi, b.MaxJobs, b.Overflows, want, lost[int64(k)])
		}
		if b.MaxJobs > buffer+1 {
			t.Errorf("bin [%v, %v) s: %d jobs > buffer + 1", lo, hi, b.MaxJobs)
		}
		overflows += b.Overflows
	}
	if st := srv.Final(0); overflows != st.Overflows || overflows == 0 {
		t.Errorf("overflows in the bins add up to %d, the server counted %d (want equal, > 0)", overflows, st.Overflows)
	}
}

// Stats at an instant must not take a job out of the server before an
// arrival that is still to be decided and comes before its departure. A
// server of 10 jobs/s (service 0.1 s) with no waiting room: A arrives at
// 0 and departs at 0.1 s; B passes at 0.1 s - 0.5 ns, sent at the
// nanosecond before, and is decided once the clock is past it. Stats at
// 0.1 s counts A as departed, yet B arrived while A was in service: B is
// lost.
func TestServerStatsKeepsJobsForLaterArrivals(t *testing.T) {
	s := engine.NewSim()
	srv, _ := NewServer(ServerParams{Rate: exact.Int(10), Buffer: 0})
	s.Schedule(0, handlerFunc(func(engine.Time) { srv.Arrive(s, exact.Int(0), 0) }), 0)
	s.Schedule(ms(100)-1, handlerFunc(func(engine.Time) {
		srv.Arrive(s, exact.NewRat(2*int64(ms(100))-1, 2), 0)
	}), 0)
	s.Schedule(ms(100), handlerFunc(func(engine.Time) {
		if got := srv.Stats(s, 0).Departed; got != 1 {
			t.Errorf("at 0.1 s: %d departed, want 1", got)
		}
	}), 0)
	s.Run()
	srv.Flush()
	if st := srv.Final(0); st.Arrived != 2 || st.Overflows != 1 || st.Departed != 1 {
		t.Errorf("%+v: want 2 arrived, 1 lost, 1 departed", st)
	}
}
