package clientstudy

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestClientsBlock reads clients blocks through ClientsParams.UnmarshalYAML:
// the table's keys over the defaults, the trace block, the keys of no
// clients parameter into DesignParams, and the errors of each, written
// here from the grammar of each key (limit is a whole number; load a
// finite number; the trace block has path, format, time_col, time_format,
// sort and skip_bad).
func TestClientsBlock(t *testing.T) {
	p := DefaultClientsParams()
	src := "limit: 0x10\nload: 2.5\nretry_after: true\nfault: [crash:1s:2s, slow:1s:3s:2]\ntrace: {path: a.csv, sort: true}\nnodes: 4\n"
	if err := yaml.Unmarshal([]byte(src), &p); err != nil {
		t.Fatal(err)
	}
	// 0x10 is 16 in Go's syntax, as the flag reads it; keys not given keep
	// the defaults (rate 10, jobs 10000).
	if p.Limit != 16 || p.Load != 2.5 || !p.RetryAfter || p.Rate != "10" || p.Jobs != 10_000 {
		t.Errorf("limit %d load %v retry_after %v rate %s jobs %d, want 16 2.5 true 10 10000", p.Limit, p.Load, p.RetryAfter, p.Rate, p.Jobs)
	}
	if !slices.Equal(p.Fault, []string{"crash:1s:2s", "slow:1s:3s:2"}) {
		t.Errorf("fault %q", p.Fault)
	}
	if p.Trace == nil || *p.Trace != (ClientsTrace{Path: "a.csv", Sort: true}) {
		t.Errorf("trace %+v", p.Trace)
	}
	if p.DesignParams["nodes"] != 4 {
		t.Errorf("design params %v, want nodes: 4", p.DesignParams)
	}
	// A single fault is a list of one.
	if err := yaml.Unmarshal([]byte("fault: crash:1s:2s\n"), &p); err != nil || !slices.Equal(p.Fault, []string{"crash:1s:2s"}) {
		t.Errorf("fault %q, %v", p.Fault, err)
	}
	for _, c := range []struct{ src, want string }{
		{"jobs: 1\nlimit: 2.5\n", ":2: limit 2.5: want a whole number from -9223372036854775808 to 9223372036854775807"},
		{"load: .nan\n", ":1: load .nan: want a finite number"},
		{"retry_after: maybe\n", ":1: retry_after maybe: want true or false"},
		{"trace:\n  path: a.csv\n  bogus: 1\n", "line 3: field bogus not found in type clientstudy.ClientsTrace"},
		{"limit: 1\nlimit: 2\n", `:2: key "limit" given twice`},
	} {
		q := DefaultClientsParams()
		err := yaml.Unmarshal([]byte(c.src), &q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}
