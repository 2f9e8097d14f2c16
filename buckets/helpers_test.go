package buckets

import (
	"math/big"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// sec returns the instant written as decimal seconds, exactly; it panics
// if s is not a whole number of nanoseconds.
func sec(s string) engine.Time {
	r := exact.MustParse(s)
	ns := new(big.Rat).Mul(r.Big(), big.NewRat(1e9, 1))
	if !ns.IsInt() || !ns.Num().IsInt64() {
		panic("sec(" + s + ") is not a whole number of nanoseconds")
	}
	return engine.Time(ns.Num().Int64())
}

// secs maps sec over its arguments.
func secs(ss ...string) []engine.Time {
	out := make([]engine.Time, len(ss))
	for i, s := range ss {
		out[i] = sec(s)
	}
	return out
}

func rat(s string) exact.Rat { return exact.MustParse(s) }

// params returns Params{rate, burst} written as decimals or fractions.
func params(rate, burst string) Params { return Params{Rate: rat(rate), Burst: rat(burst)} }

// waitSecs returns a wait in seconds written as a decimal or fraction, as
// an exact number of nanoseconds.
// computed holds waits written as expressions in step tables.
var computed = map[string]exact.Rat{}

func waitSecs(s string) exact.Rat {
	if r, ok := computed[s]; ok {
		x, _ := r.Mul(exact.Int(1e9))
		return x
	}
	r, err := rat(s).Mul(exact.Int(1e9))
	if err != nil {
		panic(err)
	}
	return r
}

// step is one offer of a step table: the instant, the verdict expected
// and, for a Delay, the wait in seconds (a decimal or p/q).
type step struct {
	at      string
	verdict Verdict
	wait    string
}

// runSteps offers each step's instant to l (releasing any due event
// first) and compares the decisions with the table.
func runSteps(t *testing.T, name string, l Limiter, steps []step) {
	t.Helper()
	for i, s := range steps {
		now := sec(s.at)
		for l.Next() <= now {
			l.Release()
		}
		d := l.Offer(now, int64(i))
		if d.Verdict != s.verdict {
			t.Errorf("%s step %d: Offer(%s s) = %v, want %v", name, i, s.at, d.Verdict, s.verdict)
			continue
		}
		want := exact.Rat{}
		if s.wait != "" {
			want = waitSecs(s.wait)
		}
		if d.Wait.Cmp(want) != 0 {
			t.Errorf("%s step %d: Offer(%s s) waits %v ns, want %v ns", name, i, s.at, d.Wait, want)
		}
	}
}

// admitted offers every instant to l, in order, and returns the instants
// of the jobs admitted.
func admitted(l Limiter, ts []engine.Time) []engine.Time {
	var out []engine.Time
	for i, x := range ts {
		for l.Next() <= x {
			l.Release()
		}
		if l.Offer(x, int64(i)).Admitted() {
			out = append(out, x)
		}
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func expectPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}
