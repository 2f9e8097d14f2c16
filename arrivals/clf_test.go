package arrivals

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ratesim/ratesim/engine"
)

// clfSample is a hand-written access log: the Common Log Format, the
// Combined one (referer and agent), same-second requests, another time
// zone, a date in the previous day that is a later instant, a malformed
// request that still counts, and blank lines.
const clfSample = `in24.inetnebr.com - - [01/Aug/1995:00:00:01 -0400] "GET /shuttle/missions/sts-68/news/sts-68-mcc-05.txt HTTP/1.0" 200 1839
uplherc.upl.com - - [01/Aug/1995:00:00:07 -0400] "GET / HTTP/1.0" 304 0
uplherc.upl.com - frank [01/Aug/1995:00:00:07 -0400] "GET /images/ksclogo-medium.gif HTTP/1.0" 304 0

ix-esc-ca2-07.ix.netcom.com - - [01/Aug/1995:04:00:09 +0000] "GET /images/launch-logo.gif HTTP/1.0" 200 1713
slppp6.intermind.net - - [31/Jul/1995:21:00:10 -0700] "GET /history/skylab/skylab.html HTTP/1.0" 200 1687 "http://example.com/" "Mozilla/2.0 (X11)"
piweba4y.prodigy.com - - [01/aug/1995:00:00:10 -0400] "GET /images/launchmedium.gif HTTP/1.0 200 11853
`

// clfInstants are the instants of clfSample's lines, parsed by time.Parse
// as an independent oracle.
func clfInstants(t *testing.T, log string) []time.Time {
	t.Helper()
	var out []time.Time
	for _, l := range strings.Split(log, "\n") {
		i, j := strings.IndexByte(l, '['), strings.IndexByte(l, ']')
		if i < 0 || j < i {
			continue
		}
		ts := l[i+1 : j]
		ts = ts[:3] + strings.ToUpper(ts[3:4]) + ts[4:] // time.Parse wants "Aug"
		x, err := time.Parse("02/Jan/2006:15:04:05 -0700", ts)
		if err != nil {
			t.Fatalf("oracle: %v", err)
		}
		out = append(out, x)
	}
	return out
}

func TestCLF(t *testing.T) {
	tr, all, err := readTrace(t, clfSample, "access.log", TraceOptions{KeyCol: "host"})
	if err != nil {
		t.Fatal(err)
	}
	want := clfInstants(t, clfSample)
	if len(all) != len(want) {
		t.Fatalf("%d arrivals, want %d", len(all), len(want))
	}
	for i, a := range all {
		d := want[i].Sub(want[0]).Nanoseconds()
		if int64(a.T) != d {
			t.Errorf("arrival %d at %d ns, want %d ns", i, a.T, d)
		}
	}
	// 0, 6, 6, then 04:00:09 UTC = 00:00:09 -0400: 8 s; 21:00:10 -0700 on
	// 31 July = 04:00:10 UTC on 1 August: 9 s; the lowercase month: 9 s.
	if got := times(all); !slices.Equal(got, []engine.Time{0, 6 * s1, 6 * s1, 8 * s1, 9 * s1, 9 * s1}) {
		t.Errorf("times %v, want 0 6 6 8 9 9 s", got)
	}
	if got := lines(all); !slices.Equal(got, []int{1, 2, 3, 5, 6, 7}) {
		t.Errorf("lines %v, want 1 2 3 5 6 7 (line 4 is blank)", got)
	}
	if all[1].Hash != fnvKey("uplherc.upl.com") || all[1].Key != all[2].Key || all[0].Key == all[1].Key || all[0].Key != 1 || all[1].Key != 2 {
		t.Errorf("host keys %x %x %x", all[0].Key, all[1].Key, all[2].Key)
	}
	if o := origin(tr); !o.Equal(want[0]) {
		t.Errorf("origin %v, want %v", o, want[0])
	}
	tr, all, _ = readTrace(t, clfSample, "access.log", TraceOptions{KeyCol: "user"})
	if all[2].Hash != fnvKey("frank") || all[0].Hash != fnvKey("-") || tr.KeyName(all[2].Key) != "frank" || tr.KeyName(all[0].Key) != "-" {
		t.Errorf("user keys %x %x, want FNV of frank and -", all[2].Key, all[0].Key)
	}
}

// TestCLFNewYear crosses a day, a month and a year boundary.
func TestCLFNewYear(t *testing.T) {
	log := `a - - [31/Dec/1995:23:59:59 -0500] "GET / HTTP/1.0" 200 1
b - - [01/Jan/1996:00:00:00 -0500] "GET / HTTP/1.0" 200 1
c - - [29/Feb/1996:12:00:00 +0100] "GET / HTTP/1.0" 200 1
`
	_, all, err := readTrace(t, log, "x.clf", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := clfInstants(t, log)
	for i, a := range all {
		if d := want[i].Sub(want[0]).Nanoseconds(); int64(a.T) != d {
			t.Errorf("arrival %d at %d ns, want %d ns", i, a.T, d)
		}
	}
	if all[1].T != s1 {
		t.Errorf("new year's first second at %v s, want 1 s", all[1].T)
	}
}

// TestCLFBadLines checks that lines without a valid timestamp are errors
// naming the file and line, and are skipped with SkipBad.
func TestCLFBadLines(t *testing.T) {
	good := `h - - [01/Aug/1995:00:00:01 -0400] "GET / HTTP/1.0" 200 1` + "\n"
	for _, tc := range []struct{ line, want string }{
		{"no timestamp at all", "no [timestamp]"},
		{`h - - [01/Aug/1995:00:00:01 -0400 "GET /"`, "unterminated [timestamp"},
		{`h - - [01/Aug/1995:00:00:01] "GET /"`, "not of the form"},
		{`h - - [01/Aug/1995:00:00:01 0400] "GET /"`, "not of the form"},
		{`h - - [01/Agu/1995:00:00:01 -0400] "GET /"`, `unknown month "Agu"`},
		{`h - - [31/Sep/1995:00:00:01 -0400] "GET /"`, "no such date"},
		{`h - - [01/Aug/1995:24:00:01 -0400] "GET /"`, "no such date"},
		{`h - - [01/Aug/1995:00:00:60 -0400] "GET /"`, "no such date"},
		{`h - - [01/Aug/1995:00:00:01 -0460] "GET /"`, "no such date"},
		{`h - - [01/Aug/1995:00:00:00 -0400] "GET /"`, "earlier than the previous arrival"},
	} {
		log := good + good + tc.line + "\n" + good
		_, all, err := readTrace(t, log, "access.log", TraceOptions{})
		var te *TraceError
		if !errors.As(err, &te) || te.Line != 3 || !strings.HasPrefix(err.Error(), "arrivals: access.log:3: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want access.log:3 and %q", tc.line, err, tc.want)
		}
		if len(all) != 2 {
			t.Errorf("%q: %d arrivals before the error, want 2", tc.line, len(all))
		}
		tr, all, err := readTrace(t, log, "access.log", TraceOptions{SkipBad: true})
		if err != nil || len(all) != 3 || tr.Skipped() != 1 {
			t.Errorf("%q with SkipBad: %v, %d arrivals, %d skipped; want 3 and 1", tc.line, err, len(all), tr.Skipped())
		}
	}
	if _, err := NewTrace(strings.NewReader(good), "a.log", TraceOptions{KeyCol: "status"}); !errors.Is(err, ErrColumn) {
		t.Errorf("key status: error %v, want ErrColumn", err)
	}
	for _, opt := range []TraceOptions{{TimeCol: "2"}, {SubCol: "x"}, {TimeFormat: "rfc3339"}, {Interval: engine.Second}} {
		if _, err := NewTrace(strings.NewReader(good), "a.log", opt); !errors.Is(err, ErrOptions) {
			t.Errorf("clf with %+v: error %v, want ErrOptions", opt, err)
		}
	}
	if _, _, err := readTrace(t, "\n\n", "a.log", TraceOptions{}); !errors.Is(err, ErrNoArrivals) {
		t.Errorf("empty log: error %v, want ErrNoArrivals", err)
	}
}

// TestParseCLFTimeAgainstTimeParse compares parseCLFTime with time.Parse
// on a grid of dates, times and zones.
func TestParseCLFTimeAgainstTimeParse(t *testing.T) {
	const layout = "02/Jan/2006:15:04:05 -0700"
	for _, day := range []string{"01/Jan/1970", "28/Feb/1900", "29/Feb/2000", "31/Dec/1999", "15/Jun/2262", "01/Jan/1678"} {
		for _, clock := range []string{"00:00:00", "12:34:56", "23:59:59"} {
			for _, zone := range []string{"+0000", "-0400", "+0530", "-1200", "+1400"} {
				s := day + ":" + clock + " " + zone
				want, werr := time.Parse(layout, s)
				got, gerr := parseCLFTime([]byte(s))
				if werr != nil {
					t.Fatal(werr)
				}
				if gerr != nil {
					if want.Year() > 2261 || want.Year() < 1678 { // beyond int64 ns
						continue
					}
					t.Errorf("parseCLFTime(%q): %v", s, gerr)
					continue
				}
				if got != want.UnixNano() {
					t.Errorf("parseCLFTime(%q) = %d, want %d", s, got, want.UnixNano())
				}
			}
		}
	}
}
