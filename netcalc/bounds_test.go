package netcalc_test

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/netcalc"
)

// TestTokenBucketClosedForms checks h = T + b/R, v = b + r·T and
// α ⊘ β = γ_{r, b + r·T} (Le Boudec and Thiran §1.4.1) on hand-computed
// cases.
func TestTokenBucketClosedForms(t *testing.T) {
	tests := []struct {
		a       netcalc.TokenBucket
		s       netcalc.RateLatency
		h, v    string // seconds, jobs
		outBurs string // jobs
	}{
		// docs/commands.md's example: 3 + 4/3 = 13/3; 4 + 1·3 = 7.
		{tb("1", "4"), rl("3", "3"), "13/3", "7", "7"},
		// r = R is bounded: 0.5 + 2/2 = 1.5; 2 + 2·0.5 = 3.
		{tb("2", "2"), rl("2", "0.5"), "1.5", "3", "3"},
		// No latency: h = b/R = 5/10; v = b.
		{tb("7", "5"), rl("10", "0"), "0.5", "5", "5"},
		// No burst: h = T; v = r·T = 1/3·6 = 2.
		{tb("1/3", "0"), rl("1", "6"), "6", "2", "2"},
		// Fractions: 1/7 + (5/2)/(3/4) = 1/7 + 10/3 = 73/21; 5/2 + (1/2)(1/7) = 18/7.
		{tb("1/2", "5/2"), rl("3/4", "1/7"), "73/21", "18/7", "18/7"},
		// A rate of 0: h = T + b/R = 1 + 3; v = b = 3.
		{tb("0", "3"), rl("1", "1"), "4", "3", "3"},
		// Nanosecond latencies stay exact: 1e-9 + 1/1e9.
		{tb("1", "1"), rl("1000000000", "0.000000001"), "0.000000002", "1.000000001", "1.000000001"},
	}
	for _, tt := range tests {
		h, err := netcalc.Delay(tt.a, tt.s)
		if err != nil || h.Cmp(q(tt.h)) != 0 {
			t.Errorf("Delay(%v, %v) = %v, %v; want %s", tt.a, tt.s, h, err, tt.h)
		}
		v, err := netcalc.Backlog(tt.a, tt.s)
		if err != nil || v.Cmp(q(tt.v)) != 0 {
			t.Errorf("Backlog(%v, %v) = %v, %v; want %s", tt.a, tt.s, v, err, tt.v)
		}
		out, err := netcalc.Output(tt.a, tt.s)
		if err != nil || len(out) != 1 || out[0].Rate.Cmp(tt.a.Rate) != 0 || out[0].Burst.Cmp(q(tt.outBurs)) != 0 {
			t.Errorf("Output(%v, %v) = %v, %v; want γ(r=%v, b=%s)", tt.a, tt.s, out, err, tt.a.Rate, tt.outBurs)
		}
	}
}

// TestConcaveBounds checks concave curves against values worked by hand and
// confirmed by DiscoDNC 2.8.1 (RATIONAL_BIGINTEGER backend,
// CurveUtils.getMaxHorizontalDeviation, getMaxVerticalDeviation and
// MinPlus.deconvolve on the strings FormatDNCArrival and FormatDNCService
// write).
func TestConcaveBounds(t *testing.T) {
	tests := []struct {
		a    netcalc.Concave
		s    netcalc.RateLatency
		h, v string
		out  netcalc.Concave
	}{
		// min(1+3t, 4+t/3), breakpoint 9/8 (α = 35/8), into β(3, 3):
		// h = 3 + max(1/3 − 0, 35/24 − 9/8) = 3 + 1/3 = 10/3;
		// v = α(3) = 4 + 1 = 5 (the breakpoint is before T);
		// out: every slope <= 3, so min(1+3(t+3), 4+(t+3)/3) = γ(1/3, 5).
		{netcalc.Concave{tb("3", "1"), tb("1/3", "4")}, rl("3", "3"), "10/3", "5", netcalc.Concave{tb("1/3", "5")}},
		// min(1+3t, 4+t), breakpoint 3/2 (α = 11/2), into β(2, 1):
		// h = 1 + max(1/2, 11/4 − 3/2) = 9/4; v = max(α(1) = 4, 11/2 − 2·(1/2)) = 9/2;
		// out: the peak slope 3 > 2, so a line of slope 2 through
		// α(3/2) + 2·(1 − 3/2) = 9/2 at 0, then 4 + (t + 1) = 5 + t.
		// DiscoDNC's Bounds.delayFIFO says 3/2 here: it assumes a single
		// token bucket (its comment says so) and returns β⁻¹(burst).
		{netcalc.Concave{tb("3", "1"), tb("1", "4")}, rl("2", "1"), "9/4", "9/2", netcalc.Concave{tb("2", "9/2"), tb("1", "5")}},
		// The same curve with T = 0: h = max(1/2, 5/4) = 5/4; v = max(α(0+) = 1, 11/2 − 3) = 5/2;
		// out: 11/2 + 2(t − 3/2) = 5/2 + 2t, then 4 + t.
		{netcalc.Concave{tb("3", "1"), tb("1", "4")}, rl("2", "0"), "5/4", "5/2", netcalc.Concave{tb("2", "5/2"), tb("1", "4")}},
		// A redundant bucket (5 + t is never the minimum) changes nothing.
		{netcalc.Concave{tb("1", "5"), tb("3", "1"), tb("1", "4")}, rl("2", "1"), "9/4", "9/2", netcalc.Concave{tb("2", "9/2"), tb("1", "5")}},
		// Three segments: min(1+4t, 2+2t, 4+t) breaks at 1/2 (α = 3) and
		// 2 (α = 6); into β(2, 1/2): h = 1/2 + max(1/2, 3/2 − 1/2, 3 − 2) = 3/2;
		// v = max(α(1/2) = 3, 6 − 2·(3/2)) = 3; out: slope 2 <= R from 1/2:
		// line 3 + 2(t + 1/2 − 1/2) = 3 + 2t, 2 + 2(t + 1/2) = 3 + 2t, 4 + (t + 1/2).
		{netcalc.Concave{tb("4", "1"), tb("2", "2"), tb("1", "4")}, rl("2", "1/2"), "3/2", "3", netcalc.Concave{tb("2", "3"), tb("1", "9/2")}},
	}
	for _, tt := range tests {
		h, err := netcalc.Delay(tt.a, tt.s)
		if err != nil || h.Cmp(q(tt.h)) != 0 {
			t.Errorf("Delay(%v, %v) = %v, %v; want %s", tt.a, tt.s, h, err, tt.h)
		}
		v, err := netcalc.Backlog(tt.a, tt.s)
		if err != nil || v.Cmp(q(tt.v)) != 0 {
			t.Errorf("Backlog(%v, %v) = %v, %v; want %s", tt.a, tt.s, v, err, tt.v)
		}
		out, err := netcalc.Output(tt.a, tt.s)
		if err != nil || !sameCurve(out, tt.out) {
			t.Errorf("Output(%v, %v) = %v, %v; want %v", tt.a, tt.s, out, err, tt.out)
		}
	}
}

// sameCurve compares two normalized curves bucket by bucket.
func sameCurve(a, b netcalc.Concave) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Rate.Cmp(b[i].Rate) != 0 || a[i].Burst.Cmp(b[i].Burst) != 0 {
			return false
		}
	}
	return true
}

// TestStaircaseBounds: L jobs per W seconds into β(R, T) with L <= R·W.
func TestStaircaseBounds(t *testing.T) {
	tests := []struct {
		a    netcalc.Staircase
		s    netcalc.RateLatency
		h, v string
	}{
		// h = T + L/R = 1 + 2/4 = 3/2. k = floor(T/W) = 1:
		// v = max(L(k+1) = 4, L(k+2) − R((k+1)W − T) = 6 − 4·1 = 2) = 4.
		{netcalc.Staircase{Jobs: 2, Window: q("1")}, rl("4", "1"), "3/2", "4"},
		// T = 0: h = 3/3 = 1; k = 0: v = max(3, 6 − 3·2) = 3.
		{netcalc.Staircase{Jobs: 3, Window: q("2")}, rl("3", "0"), "1", "3"},
		// L = R·W (bounded): h = 0.3 + 5/5 = 1.3; k = floor(0.3/1) = 0:
		// v = max(5, 10 − 5·(1 − 0.3)) = 6.5.
		{netcalc.Staircase{Jobs: 5, Window: q("1")}, rl("5", "0.3"), "1.3", "6.5"},
	}
	for _, tt := range tests {
		h, err := netcalc.Delay(tt.a, tt.s)
		if err != nil || h.Cmp(q(tt.h)) != 0 {
			t.Errorf("Delay(%v, %v) = %v, %v; want %s", tt.a, tt.s, h, err, tt.h)
		}
		v, err := netcalc.Backlog(tt.a, tt.s)
		if err != nil || v.Cmp(q(tt.v)) != 0 {
			t.Errorf("Backlog(%v, %v) = %v, %v; want %s", tt.a, tt.s, v, err, tt.v)
		}
	}
	if _, err := netcalc.Output(netcalc.Staircase{Jobs: 1, Window: q("1")}, rl("1", "0")); err == nil {
		t.Error("Output of a staircase: no error")
	}
}

// TestUnbounded: a long-term rate above R is an error wrapping
// ErrUnbounded that names both rates; equal rates are bounded (above).
func TestUnbounded(t *testing.T) {
	s := rl("2", "1")
	for _, a := range []netcalc.Arrival{
		tb("3", "1"),
		netcalc.Concave{tb("5", "1"), tb("3", "2")},
		netcalc.Staircase{Jobs: 3, Window: q("1")},
	} {
		for name, f := range map[string]func() error{
			"Delay":   func() error { _, err := netcalc.Delay(a, s); return err },
			"Backlog": func() error { _, err := netcalc.Backlog(a, s); return err },
			"Output":  func() error { _, err := netcalc.Output(a, s); return err },
		} {
			err := f()
			if _, stair := a.(netcalc.Staircase); stair && name == "Output" {
				continue
			}
			if !errors.Is(err, netcalc.ErrUnbounded) || !strings.Contains(err.Error(), "exceeds service rate 2") {
				t.Errorf("%s(%v, %v) error %v, want ErrUnbounded naming the rates", name, a, s, err)
			}
		}
	}
}

// TestZeroCurve: no jobs, no delay and no backlog, whatever the latency.
func TestZeroCurve(t *testing.T) {
	a := tb("0", "0")
	s := rl("1", "5")
	if h, err := netcalc.Delay(a, s); err != nil || h.Sign() != 0 {
		t.Errorf("Delay(0) = %v, %v; want 0", h, err)
	}
	if v, err := netcalc.Backlog(a, s); err != nil || v.Sign() != 0 {
		t.Errorf("Backlog(0) = %v, %v; want 0", v, err)
	}
	// γ_{r,0} with r > 0 has h = T (the limit t → 0+), not 0.
	if h, err := netcalc.Delay(tb("1/2", "0"), s); err != nil || h.Cmp(q("5")) != 0 {
		t.Errorf("Delay(γ(1/2, 0)) = %v, %v; want 5", h, err)
	}
}

// TestInvalidParameters: each bad parameter is an error naming it.
func TestInvalidParameters(t *testing.T) {
	good := rl("1", "1")
	cases := []struct {
		a    netcalc.Arrival
		s    netcalc.RateLatency
		want string
	}{
		{tb("-1", "1"), good, "rate -1"},
		{tb("1", "-1/2"), good, "burst -0.5"},
		{netcalc.Concave{}, good, "no token bucket"},
		{netcalc.Concave{tb("1", "1"), tb("-2", "1")}, good, "rate -2"},
		{netcalc.Staircase{Jobs: 0, Window: q("1")}, good, "0 jobs"},
		{netcalc.Staircase{Jobs: 1, Window: q("0")}, good, "window 0"},
		{nil, good, "nil"},
		{tb("1", "1"), rl("0", "1"), "service rate 0"},
		{tb("1", "1"), rl("1", "-1"), "latency -1"},
	}
	for _, c := range cases {
		if _, err := netcalc.Delay(c.a, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Delay(%v, %v) error %v, want one containing %q", c.a, c.s, err, c.want)
		}
		if _, err := netcalc.Backlog(c.a, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Backlog(%v, %v) error %v, want one containing %q", c.a, c.s, err, c.want)
		}
	}
}

// TestConcatTandem: min rate and summed latencies; Tandem adds 1/R_i for
// all servers but the last.
func TestConcatTandem(t *testing.T) {
	s1, s2, s3 := rl("3", "1"), rl("2", "1/2"), rl("5", "0")
	c, err := netcalc.Concat(s1, s2, s3)
	if err != nil || c.Rate.Cmp(q("2")) != 0 || c.Latency.Cmp(q("3/2")) != 0 {
		t.Errorf("Concat = %v, %v; want β(R=2, T=3/2)", c, err)
	}
	// 3/2 + 1/3 + 1/2 = 7/3 (not the last server's 1/5).
	tn, err := netcalc.Tandem(s1, s2, s3)
	if err != nil || tn.Rate.Cmp(q("2")) != 0 || tn.Latency.Cmp(q("7/3")) != 0 {
		t.Errorf("Tandem = %v, %v; want β(R=2, T=7/3)", tn, err)
	}
	// One server: both are the server itself.
	if c, err := netcalc.Tandem(s2); err != nil || c.Rate.Cmp(s2.Rate) != 0 || c.Latency.Cmp(s2.Latency) != 0 {
		t.Errorf("Tandem(s2) = %v, %v", c, err)
	}
	if _, err := netcalc.Concat(); err == nil {
		t.Error("Concat(): no error")
	}
	if _, err := netcalc.Concat(s1, rl("0", "1")); err == nil || !strings.Contains(err.Error(), "server 1") {
		t.Errorf("Concat with a bad server: error %v, want one naming server 1", err)
	}
}

// TestNormalize: order by decreasing rate, dominated and duplicate buckets
// dropped, lines through a common breakpoint resolved.
func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want netcalc.Concave
	}{
		{netcalc.Concave{tb("1", "4"), tb("3", "1")}, netcalc.Concave{tb("3", "1"), tb("1", "4")}},
		// 2 + 2t meets 1 + 3t at t = 1, before 1 + 3t meets 4 + t (1.5),
		// and meets 4 + t at t = 2: it draws the graph on [1, 2].
		{netcalc.Concave{tb("3", "1"), tb("1", "4"), tb("2", "2")}, netcalc.Concave{tb("3", "1"), tb("2", "2"), tb("1", "4")}},
		// Dominated everywhere: 3 + 3t >= 1 + 3t.
		{netcalc.Concave{tb("3", "3"), tb("3", "1")}, netcalc.Concave{tb("3", "1")}},
		// Duplicates.
		{netcalc.Concave{tb("1", "1"), tb("1", "1")}, netcalc.Concave{tb("1", "1")}},
		// Three lines through (1, 4): 1+3t, 2+2t, 3+t; the middle one
		// draws nothing.
		{netcalc.Concave{tb("2", "2"), tb("1", "3"), tb("3", "1")}, netcalc.Concave{tb("3", "1"), tb("1", "3")}},
		// Equal bursts: the smaller rate is the curve.
		{netcalc.Concave{tb("5", "2"), tb("1", "2")}, netcalc.Concave{tb("1", "2")}},
	}
	for _, tt := range tests {
		got, err := tt.in.Normalize()
		if err != nil || !sameCurve(got, tt.want) {
			t.Errorf("%v.Normalize() = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestBoundsAgainstOracle compares Delay and Backlog on random concave
// curves with an oracle that needs no envelope: h and v are suprema of
// functions that are concave on t > 0 (§3.1.11), so they are attained at
// t = 0+ or where two of the lines meet, and the oracle evaluates the
// definitions at every such point with α as the raw minimum. It also
// checks that no random instant exceeds the bounds.
func TestBoundsAgainstOracle(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		c := make(netcalc.Concave, 1+src.IntN(4))
		for i := range c {
			c[i] = netcalc.TokenBucket{Rate: randRat(src, 0, 10, 5), Burst: randRat(src, 0, 10, 5)}
		}
		s := netcalc.RateLatency{Rate: randRat(src, 1, 12, 5), Latency: randRat(src, 0, 3, 7)}
		minRate := c[0].Rate
		for _, b := range c {
			if b.Rate.Cmp(minRate) < 0 {
				minRate = b.Rate
			}
		}
		h, herr := netcalc.Delay(c, s)
		v, verr := netcalc.Backlog(c, s)
		if minRate.Cmp(s.Rate) > 0 {
			if !errors.Is(herr, netcalc.ErrUnbounded) || !errors.Is(verr, netcalc.ErrUnbounded) {
				t.Fatalf("%v into %v: errors %v, %v; want ErrUnbounded", c, s, herr, verr)
			}
			continue
		}
		if herr != nil || verr != nil {
			t.Fatalf("%v into %v: errors %v, %v", c, s, herr, verr)
		}
		R, T := s.Rate.Big(), s.Latency.Big()
		// d(t) = inf{d >= 0 : α(t) <= β(t+d)} = T + α(t)/R − t when α(t) > 0,
		// and 0 when α(t) = 0; at t = 0 the limit t → 0+, which is T + α(0+)/R
		// unless α = 0 near 0 (then α = 0 everywhere, a concave curve).
		zero := alphaRight(c, big.NewRat(1, 1)).Sign() == 0
		dev := func(t *big.Rat) *big.Rat {
			a := alphaRight(c, t)
			if zero || a.Sign() == 0 && t.Sign() > 0 {
				return new(big.Rat)
			}
			d := new(big.Rat).Quo(a, R)
			d.Add(d, T)
			return d.Sub(d, t)
		}
		vert := func(t *big.Rat) *big.Rat {
			b := new(big.Rat).Sub(t, T)
			if b.Sign() < 0 {
				b.SetInt64(0)
			}
			return b.Sub(alphaRight(c, t), b.Mul(b, R))
		}
		points := []*big.Rat{new(big.Rat), T}
		for i := range c {
			for j := range c {
				dr := new(big.Rat).Sub(c[i].Rate.Big(), c[j].Rate.Big())
				if dr.Sign() > 0 {
					x := new(big.Rat).Sub(c[j].Burst.Big(), c[i].Burst.Big())
					if x.Quo(x, dr); x.Sign() >= 0 {
						points = append(points, x)
					}
				}
			}
		}
		wantH, wantV := new(big.Rat), new(big.Rat)
		for _, p := range points {
			if d := dev(p); d.Cmp(wantH) > 0 {
				wantH = d
			}
			if p.Cmp(T) >= 0 {
				if d := vert(p); d.Cmp(wantV) > 0 {
					wantV = d
				}
			}
		}
		if h.Big().Cmp(wantH) != 0 || v.Big().Cmp(wantV) != 0 {
			t.Fatalf("%v into %v: h, v = %v, %v; oracle %v, %v", c, s, h, v, wantH.RatString(), wantV.RatString())
		}
		for range 20 {
			p := randRat(src, 0, 20, 9).Big()
			if dev(p).Cmp(wantH) > 0 || vert(p).Cmp(wantV) > 0 {
				t.Fatalf("%v into %v: deviation at t = %v exceeds h or v", c, s, p.RatString())
			}
		}
	}
}

// TestOutputAgainstOracle compares Output with (α ⊘ β)(t) = sup_u α(t+u) −
// β(u) evaluated at random t, the supremum taken over u = 0, T and every
// u where t + u is a breakpoint (α(t+u) − β(u) is concave in u for u >= T
// and nondecreasing for u <= T).
func TestOutputAgainstOracle(t *testing.T) {
	src := rand.New(rand.NewPCG(2, 1))
	for range 1000 {
		c := make(netcalc.Concave, 1+src.IntN(4))
		for i := range c {
			c[i] = netcalc.TokenBucket{Rate: randRat(src, 0, 10, 5), Burst: randRat(src, 0, 10, 5)}
		}
		s := netcalc.RateLatency{Rate: randRat(src, 10, 12, 5), Latency: randRat(src, 0, 3, 7)}
		out, err := netcalc.Output(c, s)
		if err != nil {
			t.Fatalf("Output(%v, %v): %v", c, s, err)
		}
		R, T := s.Rate.Big(), s.Latency.Big()
		for range 10 {
			tt := randRat(src, 0, 5, 9).Big()
			us := []*big.Rat{T}
			for i := range c {
				for j := range c {
					dr := new(big.Rat).Sub(c[i].Rate.Big(), c[j].Rate.Big())
					if dr.Sign() > 0 {
						x := new(big.Rat).Sub(c[j].Burst.Big(), c[i].Burst.Big())
						if x.Quo(x, dr); x.Cmp(tt) > 0 {
							us = append(us, x.Sub(x, tt))
						}
					}
				}
			}
			want := new(big.Rat)
			for _, u := range us {
				b := new(big.Rat).Sub(u, T)
				if b.Sign() < 0 {
					b.SetInt64(0)
				}
				if d := new(big.Rat).Sub(alphaRight(c, new(big.Rat).Add(tt, u)), b.Mul(b, R)); d.Cmp(want) > 0 {
					want = d
				}
			}
			if got := alphaRight(out, tt); got.Cmp(want) != 0 {
				t.Fatalf("Output(%v, %v) = %v: at t = %v it is %v, want %v", c, s, out, tt.RatString(), got.RatString(), want.RatString())
			}
		}
	}
}
