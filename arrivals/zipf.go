package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// MaxZipfKeys bounds the number of keys of a [Zipf] law (2^53, so that
// every rank is an exact float64).
const MaxZipfKeys = 1 << 53

// Zipf draws ranks 1..N from the Zipf law with exponent s >= 0,
//
//	P(K = k) = k^(-s) / H(N, s),   H(N, s) = Σ_{j=1..N} j^(-s),
//
// so key 1 is the most popular ("hot") key; s = 0 is uniform, and web and
// cache workloads have s near 0.6 to 1.2. Draws use the rejection-inversion
// method of W. Hörmann and G. Derflinger, [Rejection-inversion to generate
// variates from monotone discrete distributions] (1996), as in Apache
// Commons RNG: O(1) expected time per draw and no table, for any N.
//
// [Rejection-inversion to generate variates from monotone discrete distributions]: https://doi.org/10.1145/235025.235029
type Zipf struct {
	n        float64
	s        float64
	rng      *rand.Rand
	hX1      float64 // H(1.5) - 1
	hN       float64 // H(N + 0.5)
	sDiv     float64 // the squeeze of the acceptance test
	uniform  bool
	nIntKeys uint64
}

// NewZipf returns a Zipf law over n keys (1 <= n <= MaxZipfKeys) with
// exponent s (finite, >= 0), drawing from src (not nil).
func NewZipf(n uint64, s float64, src rand.Source) (*Zipf, error) {
	if n < 1 || n > MaxZipfKeys {
		return nil, fmt.Errorf("arrivals: zipf n %d is invalid: want 1 to 2^53 keys", n)
	}
	if !(s >= 0) || math.IsInf(s, 1) {
		return nil, fmt.Errorf("arrivals: zipf exponent s %g is invalid: want finite and >= 0", s)
	}
	if src == nil {
		return nil, fmt.Errorf("arrivals: zipf random source is nil")
	}
	z := &Zipf{n: float64(n), s: s, rng: rand.New(src), uniform: s == 0, nIntKeys: n}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(z.n + 0.5)
	z.sDiv = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z, nil
}

// Rank returns a draw of K in 1..N. It does not allocate.
func (z *Zipf) Rank() uint64 {
	if z.uniform {
		return 1 + z.rng.Uint64N(z.nIntKeys)
	}
	for {
		// u is uniform on (hX1, hN]; x = H⁻¹(u) is the continuous
		// candidate, rounded to the nearest rank k.
		u := z.hN + z.rng.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		k = min(max(k, 1), z.n)
		if k-x <= z.sDiv || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}

// h is the density x^(-s).
func (z *Zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral is H(x) = ∫_1^x t^(-s) dt = (x^(1-s) - 1)/(1 - s), or ln x for
// s = 1, computed without cancellation near s = 1.
func (z *Zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helperExpm1((1-z.s)*lx) * lx
}

// hIntegralInverse is the inverse of hIntegral.
func (z *Zipf) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.s)
	if t < -1 {
		t = -1 // rounding may push t below the domain of log1p
	}
	return math.Exp(helperLog1p(t) * x)
}

// helperLog1p is log1p(x)/x, and 1 at x = 0.
func helperLog1p(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// helperExpm1 is expm1(x)/x, and 1 at x = 0.
func helperExpm1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x/3*(1+0.25*x))
}

// KeyOfRank returns the Arrival.Hash that [WithZipfKeys] gives to rank k:
// the 64-bit FNV-1a hash of k in decimal, the hash a trace column holding
// k would give. Its Arrival.Key is k itself.
func KeyOfRank(k uint64) uint64 {
	var buf [20]byte
	return hashKey(strconv.AppendUint(buf[:0], k, 10))
}

// WithZipfKeys returns p with each arrival's key an independent draw from
// z (hot keys for hash dispatch): Key is the rank k and Hash is
// [KeyOfRank](k). Times and the other fields are unchanged. It does not
// allocate per arrival. The process is a [KeyNamer]: key k is named by
// its decimal rank.
func WithZipfKeys(p Process, z *Zipf) Process { return &zipfKeys{p: p, z: z} }

type zipfKeys struct {
	p Process
	z *Zipf
}

func (k *zipfKeys) Next() (Arrival, error) {
	a, err := k.p.Next()
	if err != nil {
		return a, err
	}
	k64 := k.z.Rank()
	a.Key, a.Hash = k64, KeyOfRank(k64)
	return a, nil
}

// KeyName returns the decimal rank of key id.
func (k *zipfKeys) KeyName(id uint64) string { return strconv.FormatUint(id, 10) }
