package arrivals

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLineLimit: a line of exactly MaxLineBytes bytes is read; one byte
// more is an error naming its line and the limit, in every format, after
// the lines before it have been read, and gzip does not hide it.
func TestLineLimit(t *testing.T) {
	// "2\t" and a key make a line of exactly MaxLineBytes bytes.
	fits := strings.Repeat("k", MaxLineBytes-2)
	_, all, err := readTrace(t, "t\tkey\n1\ta\n2\t"+fits+"\n3\tb\n", "l.tsv", TraceOptions{KeyCol: "key"})
	if err != nil || len(all) != 3 || all[1].Hash != fnvKey(fits) {
		t.Errorf("a line of MaxLineBytes: %d arrivals, %v; want 3", len(all), err)
	}
	long := strings.Repeat("k", MaxLineBytes-1) // with "2\t" or "2,": one byte too many
	want := "line 4 is longer than 1048576 bytes (1 MiB): is this a binary file, or a file without line breaks?"
	for _, tc := range []struct {
		name, input string
		opt         TraceOptions
		before      int // arrivals read before the error
	}{
		{"l.tsv", "t\tkey\n1\ta\n\n2\t" + long + "\n3\tb\n", TraceOptions{KeyCol: "key"}, 1},
		{"l.csv", "t,key\n1,a\n\n2," + long + "\n3,b\n", TraceOptions{KeyCol: "key"}, 1},
		{"l.csv", "t,key\n1,a\n\n2," + long + "\n3,b\n", TraceOptions{KeyCol: "key", SkipBad: true}, 1},
		{"l.csv.gz", gzipped(t, "t,key\n1,a\n\n2,"+long+"\n3,b\n"), TraceOptions{KeyCol: "key"}, 1},
		{"l.jsonl", `{"time": 1}` + "\n" + `{"time": 2}` + "\n\n" + `{"time": 3, "k": "` + long + `"}` + "\n", TraceOptions{}, 2},
		{"l.log", `h - - [01/Aug/1995:00:00:01 -0400] "GET /"` + "\n\n\n" + `h - - [01/Aug/1995:00:00:02 -0400] "GET /` + long + `"` + "\n", TraceOptions{}, 1},
		{"c.csv", "1\n2\n3\n" + long + "kk\n", TraceOptions{Format: FormatCounts}, 6},
		{"w.csv", "k,1\na,1\nb,1\n" + long + ",1\n", TraceOptions{Format: FormatWide}, -1},
		{"h.csv", "t\n1\n2\n" + strings.Repeat("9", MaxLineBytes+1) + "\n", TraceOptions{}, 2},
	} {
		_, all, err := readTrace(t, tc.input, tc.name, tc.opt)
		if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), tc.name+":4: "+want) {
			t.Errorf("%s %+v: error = %.300v, want ErrLineTooLong at line 4", tc.name, tc.opt, err)
		}
		if tc.before >= 0 && len(all) != tc.before {
			t.Errorf("%s: %d arrivals before the error, want %d", tc.name, len(all), tc.before)
		}
	}
	// A header line too long.
	_, _, err = readTrace(t, long+"xx\n1\n", "h.csv", TraceOptions{})
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "h.csv:1: line 1 is longer") {
		t.Errorf("long header: error = %v, want ErrLineTooLong at line 1", err)
	}
}

// chunkReader returns its data in chunks of random sizes.
type chunkReader struct {
	data []byte
	r    *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+c.r.IntN(3*MaxLineBytes/2))], c.data)
	c.data = c.data[n:]
	return n, nil
}

// TestLineLimitChunks: whatever the sizes of the reads, lineLimit passes
// the input through whole when no line is longer than MaxLineBytes, and
// otherwise names the first such line (counted by hand) after passing
// the lines before it.
func TestLineLimitChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 40 {
		var lines []string
		for range 1 + r.IntN(5000) {
			lines = append(lines, strings.Repeat("x", r.IntN(40)))
		}
		longAt := -1
		if i%2 == 1 {
			at := r.IntN(len(lines))
			lines[at] = strings.Repeat("y", MaxLineBytes+r.IntN(2)) // may fit exactly
			if len(lines[at]) > MaxLineBytes {
				longAt = at
			}
		}
		if i%4 == 2 {
			lines[r.IntN(len(lines))] = strings.Repeat("z", MaxLineBytes) // fits exactly
		}
		input := strings.Join(lines, "\n") + "\n"
		got, err := io.ReadAll(newLineLimit(&chunkReader{data: []byte(input), r: r}))
		if longAt < 0 {
			if err != nil || string(got) != input {
				t.Fatalf("case %d: %d of %d bytes, %v; want all, no error", i, len(got), len(input), err)
			}
			continue
		}
		var long *lineTooLongError
		if !errors.As(err, &long) || long.line != longAt+1 {
			t.Fatalf("case %d: error %v, want line %d too long", i, err, longAt+1)
		}
		before := len(strings.Join(lines[:longAt], "\n")) + min(longAt, 1)
		if !strings.HasPrefix(input, string(got)) || len(got) < before || len(got) > before+MaxLineBytes {
			t.Fatalf("case %d: passed %d bytes, want the %d before the long line and at most the limit of it", i, len(got), before)
		}
	}
}
