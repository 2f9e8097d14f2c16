package buckets

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// TestFourAtZero is the note's setting: four jobs at t = 0 into (r, b) =
// (1, 2). The bucket holds two tokens: jobs 0 and 1 pass, job 2 waits for
// the token due at 1 s and job 3 for the one at 2 s (eq. (1): U(0-) is 0,
// 1 and 2 s, so d = max(0, U + 1 - 2) = 0, 0, 1, 2 s... with U(0-) = 0, 1,
// 2, 3 s for jobs 0..3: d = 0, 0, 1, 2).
func TestFourAtZero(t *testing.T) {
	b := must(NewTokenBucket(params("1", "2")))
	runSteps(t, "(1, 2)", b, []step{{"0", Admit, ""}, {"0", Admit, ""}, {"0", Delay, "1"}, {"0", Delay, "2"}})
	if n := b.Waiting(0); n != 2 {
		t.Errorf("N(0) = %d, want 2", n)
	}
	if n := b.Waiting(sec("1.5")); n != 1 {
		t.Errorf("N(1.5 s) = %d, want 1 (job 2 has its token from 1 s)", n)
	}
}

// TestIssueTies are the exact-ties issue's small failing inputs, decided
// by hand:
//
//   - rate 10, burst 1, arrivals 0, 1.8, 1.9: the token taken at 0 is back
//     at 0.1 s, the one taken at 1.8 s is back at exactly 1.9 s, so every
//     job finds a token: all admitted when policing, none delayed when
//     shaping;
//   - arrivals 0, 0.1, 0.2, 0.3 at rate 10, burst 1: each token is back at
//     exactly the next arrival: none delayed;
//   - rate 2.5, burst 3, arrivals 0, 5, 5, 5: the job at 0 takes one of 3
//     tokens, by 5 s the bucket is full again (3 tokens), so the three at
//     5 s all pass.
func TestIssueTies(t *testing.T) {
	for _, c := range []struct {
		p     Params
		times []string
	}{
		{params("10", "1"), []string{"0", "1.8", "1.9"}},
		{params("10", "1"), []string{"0", "0.1", "0.2", "0.3"}},
		{params("2.5", "3"), []string{"0", "5", "5", "5"}},
	} {
		police := must(NewTokenBucket(c.p, WithPolicing()))
		shape := must(NewTokenBucket(c.p))
		gcra := must(NewGCRA(MatchGCRA(c.p)))
		for i, s := range c.times {
			now := sec(s)
			for name, l := range map[string]Limiter{"policing": police, "shaping": shape, "gcra": gcra} {
				if d := l.Offer(now, int64(i)); d.Verdict != Admit {
					t.Errorf("%v %s: job %d at %s s: %v, want admit", c.p, name, i, s, d.Verdict)
				}
			}
		}
	}
}

// TestPolicingSteps: a policing token bucket r = 2 tokens/s, b = 2, full at
// 0. Two jobs at 0 take both tokens; a third finds none and is rejected,
// told to retry at 0.5 s when one token has accrued. At 0.25 s the bucket
// holds 2·0.25 = 0.5 token: rejected (retry after 0.25 s). At 0.5 s it
// holds 1: admitted. By 2 s it has refilled to b = 2 (capped; 3 would
// have accrued): two pass, the third is rejected.
func TestPolicingSteps(t *testing.T) {
	b := must(NewTokenBucket(params("2", "2"), WithPolicing()))
	for i, c := range []struct {
		at    string
		v     Verdict
		retry string
	}{
		{"0", Admit, ""}, {"0", Admit, ""}, {"0", Reject, "0.5"},
		{"0.25", Reject, "0.25"},
		{"0.5", Admit, ""},
		{"2", Admit, ""}, {"2", Admit, ""}, {"2", Reject, "0.5"},
	} {
		d := b.Offer(sec(c.at), int64(i))
		want := engine.Time(0)
		if c.retry != "" {
			want = sec(c.retry)
		}
		if d.Verdict != c.v || d.RetryAfter != want {
			t.Errorf("step %d at %s s: %v retry %v, want %v retry %v", i, c.at, d.Verdict, d.RetryAfter, c.v, want)
		}
	}
	if adm, del, rej := b.Counts(); adm != 5 || del != 0 || rej != 3 {
		t.Errorf("Counts = %d, %d, %d; want 5, 0, 3", adm, del, rej)
	}
}

// TestQueueCapacitySteps: a shaping token bucket r = 1 token/s, b = 1,
// whose queue holds at most 1 job. At 0 the first job takes the token, the
// second waits for the token at 1 s (wait 1), the third finds the queue
// full and is rejected, and so is one at 0.5 s. At 1 s the waiting job
// gets its token (grants come before arrivals), so the queue is empty and
// the job waits for the token at 2 s (wait 1); one at 1.5 s is rejected.
// At 3 s the bucket holds a token again: no wait.
func TestQueueCapacitySteps(t *testing.T) {
	b := must(NewTokenBucket(params("1", "1"), WithQueueCapacity(1)))
	runSteps(t, "queue 1", b, []step{
		{"0", Admit, ""}, {"0", Delay, "1"}, {"0", Reject, ""},
		{"0.5", Reject, ""},
		{"1", Delay, "1"},
		{"1.5", Reject, ""},
		{"3", Admit, ""},
	})
}

// TestOddRate: a rate of 10/13 tokens/s puts tokens 1.3 s apart and a
// rate of 3 puts them 1/3 s apart, between two nanoseconds. With burst 1:
// two jobs at 0 (the second waits 1.3 s, resp. 1/3 s exactly), then a job
// exactly at that instant (when it is a whole nanosecond) or at the next
// nanosecond finds the next token 1.3 s (1/3 s) after the grant.
func TestOddRate(t *testing.T) {
	b := must(NewTokenBucket(params("10/13", "1")))
	runSteps(t, "10/13", b, []step{{"0", Admit, ""}, {"0", Delay, "1.3"}, {"1.3", Delay, "1.3"}, {"3.9", Admit, ""}})
	c := must(NewTokenBucket(params("3", "1")))
	// The second job waits 1/3 s; a job at 333333334 ns (the first
	// nanosecond after 1/3 s) waits for the token at 2/3 s: 2/3 s - 333333334 ns.
	runSteps(t, "3", c, []step{{"0", Admit, ""}, {"0", Delay, "1/3"}, {"0.333333334", Delay, "2/3 - 0.333333334"}})
}

func init() {
	// "2/3 - 0.333333334" in TestOddRate is not a number ParseRat reads:
	// register it through waitSecs' table of computed values.
	computed["2/3 - 0.333333334"] = func() exact.Rat {
		x, _ := rat("2/3").Sub(rat("0.333333334"))
		return x
	}()
}

// TestTinyAndHugeRates: a rate of 1e-10 tokens/s makes the second job at
// 0 wait 1e10 s exactly, and 1e-12 one 1e12 s (beyond the clock's 292
// years: the wait is still exact; a system that must schedule the release
// reports the overflow).
func TestTinyAndHugeRates(t *testing.T) {
	b := must(NewTokenBucket(params("1e-10", "1")))
	runSteps(t, "1e-10", b, []step{{"0", Admit, ""}, {"0", Delay, "10000000000"}})
	c := must(NewTokenBucket(params("1e-12", "1")))
	runSteps(t, "1e-12", c, []step{{"0", Admit, ""}, {"0", Delay, "1000000000000"}})
	big := must(NewTokenBucket(params("1e12", "1")))
	// 1e12 tokens/s is a token every 1/1000 ns.
	runSteps(t, "1e12", big, []step{{"0", Admit, ""}, {"0", Delay, "1e-12"}})
}

// TestInitialTokens: a bucket (1, 2) that starts with 0.5 token: the first
// job at 0 waits 0.5 s; a bucket starting empty makes it wait 1 s.
func TestInitialTokens(t *testing.T) {
	b := must(NewTokenBucket(params("1", "2"), WithInitialTokens(rat("0.5"))))
	runSteps(t, "x = 0.5", b, []step{{"0", Delay, "0.5"}})
	e := must(NewTokenBucket(params("1", "2"), WithInitialTokens(exact.Int(0))))
	runSteps(t, "x = 0", e, []step{{"0", Delay, "1"}, {"3", Admit, ""}})
	if _, err := NewTokenBucket(params("1", "2"), WithInitialTokens(rat("2.5"))); !errors.Is(err, ErrParam) {
		t.Errorf("2.5 initial tokens in a bucket of 2: %v, want ErrParam", err)
	}
}

func TestParamErrors(t *testing.T) {
	for _, p := range []Params{params("0", "1"), params("-1", "1"), params("1", "0.5"), {}} {
		if _, err := NewTokenBucket(p); !errors.Is(err, ErrParam) {
			t.Errorf("NewTokenBucket(%v): err = %v, want ErrParam", p, err)
		}
	}
	var pe *ParamError
	if _, err := NewTokenBucket(params("1", "2"), WithQueueCapacity(-1)); !errors.As(err, &pe) || pe.Name != "queue capacity" {
		t.Errorf("queue capacity -1: %v", err)
	}
	if _, err := NewTokenBucket(params("1", "2"), WithOrder(Random, nil)); !errors.Is(err, ErrParam) {
		t.Errorf("random order without a source: %v", err)
	}
	if _, err := ParseParams("0.7", "abc"); !errors.Is(err, ErrParam) {
		t.Errorf("ParseParams burst abc: %v", err)
	}
	if p, err := ParseParams("0.7", "10"); err != nil || p.Rate.Cmp(exact.NewRat(7, 10)) != 0 {
		t.Errorf("ParseParams(0.7, 10) = %v, %v", p, err)
	}
}

func TestSplits(t *testing.T) {
	one := params("0.7", "10")
	subs := must(EqualSplit(one, 2))
	if subs[0].Rate.Cmp(rat("0.35")) != 0 || subs[1].Burst.Cmp(rat("5")) != 0 {
		t.Errorf("EqualSplit(%v, 2) = %v", one, subs)
	}
	if err := ValidateSplit(one, subs, false); err != nil {
		t.Errorf("equal split invalid: %v", err)
	}
	// 0.1 + 0.2 = 0.3 exactly: a float64 sum would need a tolerance.
	if err := ValidateSplit(params("0.3", "2"), []Params{params("0.1", "1"), params("0.2", "1")}, false); err != nil {
		t.Errorf("0.1 + 0.2 = 0.3: %v", err)
	}
	if err := ValidateSplit(params("1", "2"), []Params{params("1.000000001", "2")}, false); !errors.Is(err, ErrParam) {
		t.Errorf("rates 1.000000001 vs 1: %v, want ErrParam", err)
	}
	if err := ValidateSplit(params("1", "2"), []Params{params("1.000000001", "2")}, true); err != nil {
		t.Errorf("allowUnequal: %v", err)
	}
	if _, err := EqualSplit(params("1", "3"), 4); !errors.Is(err, ErrParam) {
		t.Errorf("b/k = 0.75: %v", err)
	}
}

// TestAgainstOracle compares every decision and every wait of the token
// bucket (FCFS shaping, LIFO shaping, policing, bounded queues) with the
// explicit-token oracle, exactly, on decimal-grid instances (1 ms, 0.1 s
// and 1 s grids with many ties, some at Unix-epoch instants; rates such as
// 0.7, 10/13, 1/3 and 1.000000001).
func TestAgainstOracle(t *testing.T) {
	src := rand.New(rand.NewPCG(9, 1))
	for n := range 3000 {
		in := randInstance(src, 1+src.IntN(40))
		limit := []int{-1, -1, 0, 1, 2}[src.IntN(5)]
		order := FCFS
		if src.IntN(3) == 0 {
			order = LIFO
		}
		opts := []Option{WithOrder(order, nil)}
		if limit >= 0 {
			opts = append(opts, WithQueueCapacity(limit))
		}
		b := must(NewTokenBucket(in.p, opts...))
		o := newBucketOracle(in.p, limit, order == LIFO)
		got := map[int64]*big.Rat{}
		for i, x := range in.times {
			for b.Next() <= x {
				r := b.Release()
				got[r.ID] = waitRat(r.Wait)
			}
			d := b.Offer(x, int64(i))
			ok := o.offer(nsRat(x), int64(i))
			if d.Admitted() != ok {
				t.Fatalf("instance %d (%v, limit %d, %v) job %d at %v s: %v, oracle admits %v", n, in.p, limit, order, i, x, d.Verdict, ok)
			}
			switch d.Verdict {
			case Admit:
				got[int64(i)] = new(big.Rat)
			case Delay:
				got[int64(i)] = waitRat(d.Wait)
			}
			if w := b.Waiting(x); w != int64(o.waiting()) {
				t.Fatalf("instance %d job %d: N(%v s) = %d, oracle %d", n, i, x, w, o.waiting())
			}
		}
		for b.Next() < engine.Forever {
			r := b.Release()
			got[r.ID] = waitRat(r.Wait)
		}
		o.advance(big.NewRat(1<<62, 1))
		if len(got) != len(o.Waits) {
			t.Fatalf("instance %d: %d jobs served, oracle %d", n, len(got), len(o.Waits))
		}
		for id, w := range o.Waits {
			if got[id] == nil || got[id].Cmp(w) != 0 {
				t.Fatalf("instance %d (%v, %v): job %d waits %v s, oracle %v s", n, in.p, order, id, got[id], w)
			}
		}
	}
}

// TestRetryAfter: a job rejected at t and offered again RetryAfter later
// passes, and one nanosecond earlier it would not have (policing and
// bounded queues, decimal-grid instances).
func TestRetryAfter(t *testing.T) {
	src := rand.New(rand.NewPCG(9, 2))
	for range 2000 {
		in := randInstance(src, 1+src.IntN(20))
		limit := src.IntN(3)
		var b *TokenBucket
		for i, x := range in.times {
			b = must(NewTokenBucket(in.p, WithQueueCapacity(limit)))
			for _, y := range in.times[:i] {
				b.Offer(y, 0)
			}
			d := b.Offer(x, int64(i))
			if d.Verdict != Reject {
				continue
			}
			if d.RetryAfter <= 0 {
				t.Fatalf("%v limit %d: rejected at %v s with RetryAfter %v", in.p, limit, x, d.RetryAfter)
			}
			early := *b
			if v := early.Offer(x+d.RetryAfter-1, 0).Verdict; v != Reject {
				t.Fatalf("%v limit %d: rejected at %v s, retry after %v s, but 1 ns earlier gives %v", in.p, limit, x, d.RetryAfter, v)
			}
			if v := b.Offer(x+d.RetryAfter, 0).Verdict; v == Reject {
				t.Fatalf("%v limit %d: rejected at %v s, retry after %v s is rejected again", in.p, limit, x, d.RetryAfter)
			}
		}
	}
}

// TestAccruedAgainstWaits checks the closed form S(t) of GD1.Accrued
// against the definition: each job accrues min(t - a_i, d_i) once it has
// arrived, summed over jobs (waits from the oracle).
func TestAccruedAgainstWaits(t *testing.T) {
	src := rand.New(rand.NewPCG(9, 3))
	for range 1000 {
		in := randInstance(src, 1+src.IntN(30))
		b := must(NewTokenBucket(in.p))
		o := newBucketOracle(in.p, -1, false)
		for i, x := range in.times {
			b.Offer(x, int64(i))
			o.offer(nsRat(x), int64(i))
		}
		o.advance(big.NewRat(1<<62, 1))
		last := in.times[len(in.times)-1]
		for _, probe := range []engine.Time{last, last + engine.Millisecond, last + 333333333, last + 10*engine.Second, last + 1000*engine.Second} {
			ts := at(probe, b.scale)
			got := exact.Frac(b.State().Accrued(ts), b.scale)
			want := new(big.Rat)
			for i, a := range in.times {
				el := new(big.Rat).Sub(nsRat(probe), nsRat(a))
				if w := o.Waits[int64(i)]; w.Cmp(el) < 0 {
					el = w
				}
				want.Add(want, el)
			}
			if waitRat(got).Cmp(want) != 0 {
				t.Fatalf("%v: S(%v s) = %v s, want %v s", in.p, probe, waitRat(got).FloatString(12), want.FloatString(12))
			}
		}
	}
}

// TestOfferPanics: offering back in time, or with a grant due, is the
// caller's error.
func TestOfferPanics(t *testing.T) {
	b := must(NewTokenBucket(params("1", "1")))
	b.Offer(engine.Second, 0)
	expectPanic(t, "Offer back in time", func() { b.Offer(0, 1) })
	l := must(NewTokenBucket(params("1", "1"), WithOrder(LIFO, nil)))
	l.Offer(0, 0)
	l.Offer(0, 1) // queued, grant at 1 s
	expectPanic(t, "Offer with a grant due", func() { l.Offer(2*engine.Second, 2) })
	expectPanic(t, "Release with nothing queued", func() { must(NewTokenBucket(params("1", "1"))).Release() })
}

// TestLIFOOrder: (1, 1) with jobs 0, 1, 2 at t = 0: job 0 passes, jobs 1
// and 2 queue. Under LIFO the token at 1 s goes to job 2 (wait 1), the one
// at 2 s to job 1 (wait 2); under FCFS the reverse. The grants are at 1 s
// and 2 s either way.
func TestLIFOOrder(t *testing.T) {
	l := must(NewTokenBucket(params("1", "1"), WithOrder(LIFO, nil)))
	for i := range 3 {
		l.Offer(0, int64(i))
	}
	if l.Next() != engine.Second {
		t.Fatalf("Next = %v, want 1 s", l.Next())
	}
	r1 := l.Release()
	if l.Next() != 2*engine.Second {
		t.Fatalf("Next = %v, want 2 s", l.Next())
	}
	r2 := l.Release()
	if r1.ID != 2 || r1.Wait.Cmp(waitSecs("1")) != 0 || r2.ID != 1 || r2.Wait.Cmp(waitSecs("2")) != 0 {
		t.Errorf("LIFO released %+v then %+v; want job 2 after 1 s, then job 1 after 2 s", r1, r2)
	}
	if l.Next() != engine.Forever {
		t.Errorf("Next after the last release = %v", l.Next())
	}
}

// TestRandomOrder: under random order the grants are at the FCFS instants
// and every waiting job is served once; the seed decides who goes first.
func TestRandomOrder(t *testing.T) {
	b := must(NewTokenBucket(params("2", "1"), WithOrder(Random, rand.NewPCG(1, 1))))
	for i := range 5 {
		b.Offer(0, int64(i))
	}
	seen := map[int64]bool{}
	for k := 1; k <= 4; k++ {
		if want := engine.Time(k) * 500 * engine.Millisecond; b.Next() != want {
			t.Fatalf("grant %d at %v, want %v", k, b.Next(), want)
		}
		r := b.Release()
		if seen[r.ID] || r.ID == 0 {
			t.Fatalf("job %d released twice or job 0 released", r.ID)
		}
		seen[r.ID] = true
	}
}
