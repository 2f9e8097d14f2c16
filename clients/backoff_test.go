package clients

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestDeterministicSleeps(t *testing.T) {
	const big = engine.Time(1) << 61
	tests := []struct {
		name string
		b    Backoff
		f    Failure
		want engine.Time
	}{
		{"none", NoBackoff{}, Failure{N: 7}, 0},
		{"constant", Constant{Base: ms(500)}, Failure{N: 3, Prev: ms(500)}, ms(500)},
		// Brooker's numbering: the first retry has n = 1, so 0.5 s · 2^1.
		{"exponential n=1", Exponential{Base: ms(500), Cap: ms(5000)}, Failure{N: 1}, ms(1000)},
		{"exponential n=2", Exponential{Base: ms(500), Cap: ms(5000)}, Failure{N: 2}, ms(2000)},
		{"exponential n=3", Exponential{Base: ms(500), Cap: ms(5000)}, Failure{N: 3}, ms(4000)},
		// 0.5 · 2^4 = 8 s > cap 5 s.
		{"exponential capped", Exponential{Base: ms(500), Cap: ms(5000)}, Failure{N: 4}, ms(5000)},
		// 2^100 would overflow any integer; the cap is returned.
		{"exponential n=100", Exponential{Base: ms(500), Cap: ms(5000)}, Failure{N: 100}, ms(5000)},
		// 2^61 · 2 = 2^62 = cap exactly; 2^61 · 4 > cap.
		{"exponential at the cap", Exponential{Base: big, Cap: 2 * big}, Failure{N: 1}, 2 * big},
		{"exponential past the cap", Exponential{Base: big, Cap: 2 * big}, Failure{N: 2}, 2 * big},
		{"exponential base 0", Exponential{Base: 0, Cap: ms(10)}, Failure{N: 5}, 0},
		// A Retry-After of 1 s is slept exactly; without one the fallback decides.
		{"retry-after", HonorRetryAfter{Fallback: Constant{Base: ms(500)}}, Failure{N: 1, RetryAfter: ms(1000)}, ms(1000)},
		{"retry-after fallback", HonorRetryAfter{Fallback: Constant{Base: ms(500)}}, Failure{N: 1}, ms(500)},
	}
	for _, tt := range tests {
		if got := tt.b.Sleep(tt.f, nil); got != tt.want {
			t.Errorf("%s: Sleep(%+v) = %v s, want %v s", tt.name, tt.f, got, tt.want)
		}
	}
}

// ksUniform returns the one-sample Kolmogorov-Smirnov statistic
// D = sup |F_n(x) - F(x)| of xs against the uniform distribution on
// [lo, hi], F from gonum's distuv.Uniform.
func ksUniform(xs []float64, lo, hi float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	u := distuv.Uniform{Min: lo, Max: hi}
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := u.CDF(x)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// The KS tests draw n = 20000 sleeps from rand.NewPCG(1, 1) and compare D
// with the asymptotic critical value at level α = 0.001,
// sqrt(-ln(α/2)/2)/√n = 1.9495/√20000 = 0.013785: a correct sampler
// fails it for one seed in a thousand, and this seed is fixed. The sleeps
// are whole nanoseconds; rounding moves F by at most 1 ns / 10 ms = 1e-7.
const (
	ksN    = 20000
	ksCrit = 0.013785
)

func TestFullJitterUniform(t *testing.T) {
	b := FullJitter{Base: ms(5), Cap: ms(2000)}
	r := rand.New(rand.NewPCG(1, 1))
	// Ceilings min(cap, base·2^n): 10 ms, 40 ms, 1280 ms, then the cap.
	for _, c := range []struct {
		n    int
		ceil engine.Time
	}{{1, ms(10)}, {3, ms(40)}, {8, ms(1280)}, {9, ms(2000)}, {30, ms(2000)}} {
		xs := make([]float64, ksN)
		for i := range xs {
			s := b.Sleep(Failure{N: c.n}, r)
			if s < 0 || s > c.ceil {
				t.Fatalf("n=%d: sleep %v s outside [0, %v s]", c.n, s, c.ceil)
			}
			xs[i] = s.Seconds()
		}
		d := ksUniform(xs, 0, c.ceil.Seconds())
		t.Logf("n=%d: D = %.5f", c.n, d)
		if d > ksCrit {
			t.Errorf("n=%d: KS D = %.5f against uniform [0, %v s], want <= %v", c.n, d, c.ceil, ksCrit)
		}
	}
}

func TestEqualJitterUniform(t *testing.T) {
	b := EqualJitter{Base: ms(5), Cap: ms(2000)}
	r := rand.New(rand.NewPCG(1, 1))
	// n = 3: v = 40 ms, sleeps uniform on [20 ms, 40 ms].
	xs := make([]float64, ksN)
	for i := range xs {
		s := b.Sleep(Failure{N: 3}, r)
		if s < ms(20) || s > ms(40) {
			t.Fatalf("sleep %v s outside [0.02 s, 0.04 s]", s)
		}
		xs[i] = s.Seconds()
	}
	d := ksUniform(xs, 0.020, 0.040)
	t.Logf("D = %.5f", d)
	if d > ksCrit {
		t.Errorf("KS D = %.5f against uniform [0.02, 0.04], want <= %v", d, ksCrit)
	}
}

// A sampler that ignored its upper end (always 0, say) must fail the same
// test, or the test proves nothing.
func TestKSRejectsWrongDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, ksN)
	for i := range xs {
		xs[i] = 0.010 * math.Sqrt(r.Float64()) // density rising on [0, 10 ms]
	}
	d := ksUniform(xs, 0, 0.010)
	t.Logf("D = %.5f", d)
	if d <= ksCrit {
		t.Errorf("KS D = %.5f for a non-uniform sample, want > %v", d, ksCrit)
	}
}

func TestDecorrelatedBounds(t *testing.T) {
	b := DecorrelatedJitter{Base: ms(5), Cap: ms(2000)}
	r := rand.New(rand.NewPCG(1, 1))
	for chain := range 1000 {
		prev := engine.Time(0)
		for n := 1; n <= 40; n++ {
			s := b.Sleep(Failure{N: n, Prev: prev}, r)
			// uniform(base, 3·prev), prev = base before the first retry, then capped.
			hi := 3 * b.Base
			if prev > 0 {
				hi = 3 * prev
			}
			if s < b.Base || s > min(b.Cap, hi) {
				t.Fatalf("chain %d, n=%d: sleep %v s outside [%v s, min(cap, 3·%v s)]", chain, n, s, b.Base, prev)
			}
			prev = s
		}
	}
	// From prev = 1.5 s the draw is uniform on [0.005 s, 4.5 s] and is
	// capped at 2 s with probability (4.5 - 2)/(4.5 - 0.005) = 0.5562. In
	// 1000 draws the count is Binomial(1000, 0.5562): mean 556.2, sd 15.7;
	// [450, 650] is beyond six sd on either side.
	capped := 0
	for range 1000 {
		s := b.Sleep(Failure{N: 5, Prev: ms(1500)}, r)
		if s < b.Base || s > b.Cap {
			t.Fatalf("sleep %v s outside [base, cap]", s)
		}
		if s == b.Cap {
			capped++
		}
	}
	if capped < 450 || capped > 650 {
		t.Errorf("%d of 1000 sleeps capped, want about 556", capped)
	}
}

func TestHonorRetryAfterSpread(t *testing.T) {
	b := HonorRetryAfter{Fallback: NoBackoff{}, Spread: ms(100)}
	r := rand.New(rand.NewPCG(1, 1))
	for range 1000 {
		s := b.Sleep(Failure{N: 1, RetryAfter: ms(1000)}, r)
		if s < ms(1000) || s > ms(1100) {
			t.Fatalf("sleep %v s outside [1 s, 1.1 s]", s)
		}
	}
}

func TestNewBackoff(t *testing.T) {
	for _, name := range BackoffNames() {
		if _, err := NewBackoff(name, ms(5), ms(2000)); err != nil {
			t.Errorf("NewBackoff(%q): %v", name, err)
		}
	}
	bad := []struct {
		name      string
		base, cap engine.Time
	}{
		{"linear", ms(5), ms(10)},
		{"exponential", ms(5), ms(1)}, // cap < base
		{"full", -1, ms(1)},           // base < 0
		{"decorrelated", 0, ms(1)},    // base 0 would sleep 0 forever
		{"constant", -ms(1), ms(1)},   // base < 0
		{"equal", ms(10), ms(10) - 1}, // cap < base by 1 ns
	}
	for _, tt := range bad {
		if _, err := NewBackoff(tt.name, tt.base, tt.cap); err == nil {
			t.Errorf("NewBackoff(%q, %v, %v) = nil error", tt.name, tt.base, tt.cap)
		}
	}
	if err := (HonorRetryAfter{}).Validate(); err == nil {
		t.Errorf("HonorRetryAfter without fallback: nil error")
	}
}

// HonorRetryAfter sleeps the hint exactly, 0 for a hint of zero
// (buckets.RetryNow), the fallback's sleep without a hint, and refuses to
// sleep on buckets.NoRetry (the client gives up first).
func TestHonorRetryAfterHints(t *testing.T) {
	h := HonorRetryAfter{Fallback: Constant{Base: 5}}
	for _, c := range []struct{ hint, want engine.Time }{{0, 5}, {buckets.RetryNow, 0}, {7, 7}} {
		if got := h.Sleep(Failure{N: 1, RetryAfter: c.hint}, nil); got != c.want {
			t.Errorf("hint %v: sleep %v, want %v", c.hint, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Sleep on buckets.NoRetry did not panic")
		}
	}()
	h.Sleep(Failure{N: 1, RetryAfter: buckets.NoRetry}, nil)
}
