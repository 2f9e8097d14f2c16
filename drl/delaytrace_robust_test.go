package drl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29: the delay-trace reader is arrivals' table reader. Each case is
// one of the reproducers (or its neighbours), with the error it
// must give: wrapping ErrSpec and naming file:line.
func TestDelayTraceHostile(t *testing.T) {
	for _, c := range []struct {
		name, text, col, want string
	}{
		// printf 'rtt\n"0.001\n' > q.csv: encoding/csv's FieldPos panicked.
		{"quote", "rtt\n\"0.001\n", "rtt", `q.csv:2: extraneous or missing " in quoted-field`},
		{"quote-mid", "rtt\n0.1\n0\"1\n", "rtt", `q.csv:3: bare " in non-quoted-field`},
		{"dup", "t,t\n1,2\n", "t", `q.csv:1: columns 1 and 2 are both named "t": want distinct header names`},
		{"binary", "rtt\n\x00\xff\xfe\"\x01\n", "rtt", `q.csv:2: bare " in non-quoted-field`},
	} {
		p := writeFile(t, "q.csv", c.text)
		_, err := ReadDelayColumn(p, c.col)
		if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an ErrSpec naming %q", c.name, err, c.want)
		}
	}
}

// A UTF-8 byte order mark is not part of the first header name: the
// column "rtt" is found and its two delays read (1 ms and 2 ms by hand).
func TestDelayTraceBOM(t *testing.T) {
	p := writeFile(t, "b.csv", "\uFEFFrtt\n0.001\n2ms\n")
	d, err := ReadDelayColumn(p, "rtt")
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Samples(); len(s) != 2 || s[0] != 1e6 || s[1] != 2e6 {
		t.Fatalf("samples %v, want [1ms 2ms]", s)
	}
}

// A 4 MB cell (the quadratic case, 24-47 s before) is refused at
// once as a line over arrivals.MaxLineBytes, naming its line; the reader
// holds at most one line, so this is bounded in time and memory.
func TestDelayTraceLongCell(t *testing.T) {
	p := filepath.Join(t.TempDir(), "long.csv")
	text := "rtt\n\"" + strings.Repeat("1", 4<<20) + "\"\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadDelayColumn(p, "rtt")
	if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "line 2 is longer than 1048576 bytes") {
		t.Fatalf("got %v, want line 2 named as too long", err)
	}
}

// FuzzDelayColumn: any file either reads (every sample a delay >= 0) or is
// an ErrSpec naming the file; never a panic.
func FuzzDelayColumn(f *testing.F) {
	for _, s := range []string{"rtt\n0.001\n", "rtt\n\"0.001\n", "\uFEFFa\tb\n1\t2ms\n", "t,t\n1,1\n", "0.1\n0.2\n", "\"a\nb\",c\n1,2\n"} {
		f.Add([]byte(s), "rtt")
		f.Add([]byte(s), "1")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, col string) {
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadDelayColumn(p, col)
		if err != nil {
			if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v: want ErrSpec naming %s", err, p)
			}
			return
		}
		for _, v := range d.Samples() {
			if v < 0 {
				t.Fatalf("negative delay %v", v)
			}
		}
	})
}
