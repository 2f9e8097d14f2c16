package netcalc_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// TestFormatDNC: the strings DiscoDNC's toString prints for the same
// curves (checked by parsing each with DiscoDNC 2.8.1 and printing it back).
func TestFormatDNC(t *testing.T) {
	arrivals := []struct {
		a    netcalc.Arrival
		want string
	}{
		{tb("1", "4"), "AC{(0,0),0;!(0,4),1}"},
		{tb("2", "0"), "AC{(0,0),2}"},
		{tb("0", "0"), "AC{(0,0),0}"},
		{tb("0", "3"), "AC{(0,0),0;!(0,3),0}"},
		{tb("1/3", "5/2"), "AC{(0,0),0;!(0,5 / 2),1 / 3}"},
		// min(5t, 2 + t) breaks at 1/2 (5/2).
		{netcalc.Concave{tb("1", "2"), tb("5", "0")}, "AC{(0,0),5;(1 / 2,5 / 2),1}"},
		// The redundant 3 + 3t is dropped; 1 + 3t meets 4 + t/3 at 9/8.
		{netcalc.Concave{tb("1/3", "4"), tb("3", "3"), tb("3", "1")}, "AC{(0,0),0;!(0,1),3;(9 / 8,35 / 8),1 / 3}"},
		// 32 bits hold 2147483647.
		{tb("2147483647", "1/2147483647"), "AC{(0,0),0;!(0,1 / 2147483647),2147483647}"},
	}
	for _, tt := range arrivals {
		if got, err := netcalc.FormatDNCArrival(tt.a); err != nil || got != tt.want {
			t.Errorf("FormatDNCArrival(%v) = %q, %v; want %q", tt.a, got, err, tt.want)
		}
	}
	services := []struct {
		s    netcalc.RateLatency
		want string
	}{
		{rl("3", "3"), "SC{(0,0),0;!(3,0),3}"},
		{rl("3", "0"), "SC{(0,0),3}"},
		{rl("5/2", "1/2"), "SC{(0,0),0;!(1 / 2,0),5 / 2}"},
		{rl("1000", "0.000001"), "SC{(0,0),0;!(1 / 1000000,0),1000}"},
	}
	for _, tt := range services {
		if got, err := netcalc.FormatDNCService(tt.s); err != nil || got != tt.want {
			t.Errorf("FormatDNCService(%v) = %q, %v; want %q", tt.s, got, err, tt.want)
		}
	}
}

// TestFormatDNCErrors: what DiscoDNC cannot read is an error.
func TestFormatDNCErrors(t *testing.T) {
	for _, a := range []netcalc.Arrival{
		tb("2147483648", "1"), // 2^31 > Integer.MAX_VALUE
		tb("1", "1/3000000000"),
		netcalc.Concave{tb("1", "4"), tb("3", "1/2147483647")}, // a breakpoint beyond 32 bits
	} {
		if _, err := netcalc.FormatDNCArrival(a); !errors.Is(err, exact.ErrRange) {
			t.Errorf("FormatDNCArrival(%v) error %v, want exact.ErrRange", a, err)
		}
	}
	// A latency of 1 ns fits (1 / 1000000000), a third of it does not.
	if _, err := netcalc.FormatDNCService(rl("1", "1/3000000000")); !errors.Is(err, exact.ErrRange) {
		t.Errorf("latency 1/3000000000: error %v, want exact.ErrRange", err)
	}
	if s, err := netcalc.FormatDNCService(rl("1", "0.000000001")); err != nil || s != "SC{(0,0),0;!(1 / 1000000000,0),1}" {
		t.Errorf("latency 1 ns: %q, %v", s, err)
	}
	if _, err := netcalc.FormatDNCArrival(netcalc.Staircase{Jobs: 1, Window: q("1")}); err == nil || !strings.Contains(err.Error(), "staircase") {
		t.Errorf("staircase: error %v", err)
	}
	if _, err := netcalc.FormatDNCService(rl("0", "1")); err == nil {
		t.Error("rate 0: no error")
	}
}

// TestParseDNC reads strings DiscoDNC 2.8.1 printed (its double and
// RATIONAL_BIGINTEGER backends) for the cases of TestConcaveBounds and the
// docs/commands.md's example.
func TestParseDNC(t *testing.T) {
	arrivals := []struct {
		in   string
		want netcalc.Concave
	}{
		// MinPlus.deconvolve of min(1+3t, 4+t) by β(2, 1): zero-length
		// segments at 0, then left-open segments.
		{"AC{(0,0),0;!(0,4),0;!(0,9 / 2),2;!(1 / 2,11 / 2),1}", netcalc.Concave{tb("2", "9/2"), tb("1", "5")}},
		{"AC{(0.0,0.0),0.0;!(0.0,4.0),1.0}", netcalc.Concave{tb("1", "4")}},
		{"AC{(0,0),0;!(0,5),1 / 3}", netcalc.Concave{tb("1/3", "5")}},
		{"{(0,0),5;(1 / 2,5 / 2),1}", netcalc.Concave{tb("5", "0"), tb("1", "2")}},
		// DiscoDNC's makeHorizontal, forced through the origin.
		{"{(0,3),0}", netcalc.Concave{tb("0", "3")}},
		{"AC{(0,0),0}", netcalc.Concave{tb("0", "0")}},
	}
	for _, tt := range arrivals {
		if got, err := netcalc.ParseDNCArrival(tt.in); err != nil || !sameCurve(got, tt.want) {
			t.Errorf("ParseDNCArrival(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	services := []struct {
		in   string
		want netcalc.RateLatency
	}{
		{"SC{(0.0,0.0),0.0;!(3.0,0.0),3.0}", rl("3", "3")},
		{"SC{(0,0),0;(3,0),3}", rl("3", "3")},
		{"SC{(0,0),5 / 2}", rl("5/2", "0")},
		{"{(0,0),0;!(1 / 1000000,0),1000}", rl("1000", "0.000001")},
	}
	for _, tt := range services {
		if got, err := netcalc.ParseDNCService(tt.in); err != nil || got.Rate.Cmp(tt.want.Rate) != 0 || got.Latency.Cmp(tt.want.Latency) != 0 {
			t.Errorf("ParseDNCService(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDNCErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"AC",
		"AC{}",
		"AC(0,0),1",
		"SC{(0,0),0;!(0,4),1}",           // a service curve where an arrival curve is wanted
		"AC{(0,0),0;!(0,1),1;(1,5),1}",   // jumps at 1
		"AC{(0,0),1;(1,1),2}",            // convex
		"AC{(0,0),0;!(0,1),-1}",          // decreasing
		"AC{(0,0),0;!(0,Infinity),0}",    // infinite burst
		"AC{(0,0),0;!(0,1 /2),1}",        // DiscoDNC wants " / "
		"AC{!(0,0),1}",                   // open at 0
		"AC{(1,0),1}",                    // starts after 0
		"AC{(0,0),2;(2,4),1;(1,3),1}",    // out of order
		"AC{(0,0),0;!(0,-1),1}",          // negative burst
		"AC{(0,0),0;!(0,1),1;(1,2),1;x}", // junk segment
	} {
		if c, err := netcalc.ParseDNCArrival(in); err == nil {
			t.Errorf("ParseDNCArrival(%q) = %v, no error", in, c)
		}
	}
	for _, in := range []string{
		"SC{(0,0),0}",           // rate 0
		"SC{(0,0),0;(1,1),2}",   // not at 0 after the latency
		"SC{(0,0),1;(1,1),2}",   // two slopes
		"AC{(0,0),0;!(3,0),3}",  // an arrival curve
		"MSC{(0,0),0;!(3,0),3}", // a maximum service curve
		"SC{(0,0),0;(1,0),2;(2,2),3}",
	} {
		if s, err := netcalc.ParseDNCService(in); err == nil {
			t.Errorf("ParseDNCService(%q) = %v, no error", in, s)
		}
	}
}

// TestDNCRoundTrip: ParseDNCArrival(FormatDNCArrival(c)) is c normalized,
// for random concave curves.
func TestDNCRoundTrip(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 9))
	for range 2000 {
		c := make(netcalc.Concave, 1+src.IntN(4))
		for i := range c {
			c[i] = netcalc.TokenBucket{Rate: randRat(src, 0, 50, 9), Burst: randRat(src, 0, 50, 9)}
		}
		s, err := netcalc.FormatDNCArrival(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := netcalc.ParseDNCArrival(s)
		want, _ := c.Normalize()
		if err != nil || !sameCurve(back, want) {
			t.Fatalf("%v -> %q -> %v, %v; want %v", c, s, back, err, want)
		}
		srv := netcalc.RateLatency{Rate: randRat(src, 1, 50, 9), Latency: randRat(src, 0, 5, 9)}
		ss, err := netcalc.FormatDNCService(srv)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := netcalc.ParseDNCService(ss); err != nil || got.Rate.Cmp(srv.Rate) != 0 || got.Latency.Cmp(srv.Latency) != 0 {
			t.Fatalf("%v -> %q -> %v, %v", srv, ss, got, err)
		}
	}
}

// TestDiscoDNCCrossCheck compares Delay, Backlog and Output with what
// DiscoDNC 2.8.1 computed for 60 random pairs of curves (written by
// testdata/DiscoDNCCheck.java into testdata/discodnc.tsv): its horizontal
// and vertical deviations and its deconvolution, all exact. It also checks
// that DiscoDNC printed our strings back unchanged.
func TestDiscoDNCCrossCheck(t *testing.T) {
	data, err := os.ReadFile("testdata/discodnc.tsv")
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) exact.Rat { return exact.MustParse(strings.ReplaceAll(s, " / ", "/")) }
	cases := 0
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("line %d: %d fields", i+1, len(f))
		}
		a, err := netcalc.ParseDNCArrival(f[0])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		s, err := netcalc.ParseDNCService(f[1])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if ac, _ := netcalc.FormatDNCArrival(a); ac != f[0] {
			t.Errorf("line %d: FormatDNCArrival = %q, DiscoDNC printed %q", i+1, ac, f[0])
		}
		if sc, _ := netcalc.FormatDNCService(s); sc != f[1] {
			t.Errorf("line %d: FormatDNCService = %q, DiscoDNC printed %q", i+1, sc, f[1])
		}
		if h, err := netcalc.Delay(a, s); err != nil || h.Cmp(num(f[2])) != 0 {
			t.Errorf("line %d: Delay(%v, %v) = %v, %v; DiscoDNC %s", i+1, a, s, h, err, f[2])
		}
		if v, err := netcalc.Backlog(a, s); err != nil || v.Cmp(num(f[3])) != 0 {
			t.Errorf("line %d: Backlog(%v, %v) = %v, %v; DiscoDNC %s", i+1, a, s, v, err, f[3])
		}
		want, err := netcalc.ParseDNCArrival(f[4])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if out, err := netcalc.Output(a, s); err != nil || !sameCurve(out, want) {
			t.Errorf("line %d: Output(%v, %v) = %v, %v; DiscoDNC %s", i+1, a, s, out, err, f[4])
		}
		cases++
	}
	if cases != 60 {
		t.Errorf("%d cases, want 60", cases)
	}
}

// FuzzParseDNCArrival: no panic, and a curve that parses formats (when its
// numbers fit 32 bits) to a string that parses to the same curve.
func FuzzParseDNCArrival(f *testing.F) {
	for _, s := range []string{
		"AC{(0,0),0;!(0,4),1}",
		"AC{(0,0),0;!(0,4),0;!(0,9 / 2),2;!(1 / 2,11 / 2),1}",
		"AC{(0.0,0.0),0.0;!(0.0,4.0),1.0}",
		"{(0,3),0}",
		"SC{(0,0),0;!(3,0),3}",
		"AC{(0,0),0;!(0,1 / 0),1}",
		"AC{(0,0),0;!(0,99999999999999999999999999999999999999999),1}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := netcalc.ParseDNCArrival(s)
		if err != nil {
			return
		}
		out, err := netcalc.FormatDNCArrival(c)
		if err != nil {
			return
		}
		back, err := netcalc.ParseDNCArrival(out)
		if err != nil || !sameCurve(back, c) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, c, out, back, err)
		}
	})
}

// FuzzParseDNCService: no panic, and round trips as FuzzParseDNCArrival.
func FuzzParseDNCService(f *testing.F) {
	for _, s := range []string{"SC{(0,0),0;!(3,0),3}", "SC{(0,0),5 / 2}", "SC{(0.0,0.0),0.0;!(3.0,0.0),3.0}", "{(0,0),0;(1,0),0}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		srv, err := netcalc.ParseDNCService(s)
		if err != nil {
			return
		}
		out, err := netcalc.FormatDNCService(srv)
		if err != nil {
			return
		}
		back, err := netcalc.ParseDNCService(out)
		if err != nil || back.Rate.Cmp(srv.Rate) != 0 || back.Latency.Cmp(srv.Latency) != 0 {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, srv, out, back, err)
		}
	})
}
