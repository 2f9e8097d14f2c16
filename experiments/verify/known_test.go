package verify

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ratesim/ratesim/buckets"
)

// TestKnownP99: the library's p99-fcfs files are the hand-worked instance
// of TestP99Counterexample, exactly.
func TestKnownP99(t *testing.T) {
	for _, k := range BuiltinKnown() {
		if k.Name != "p99-fcfs" {
			continue
		}
		want := p99Instance()
		if !reflect.DeepEqual(k.Instance.Times, want.Times) || !reflect.DeepEqual(k.Instance.Sub, want.Sub) ||
			k.Instance.Order != buckets.FCFS || k.AllowUnequal ||
			k.Instance.One.Rate.Cmp(want.One.Rate) != 0 || k.Instance.One.Burst.Cmp(want.One.Burst) != 0 || len(k.Instance.Subs) != 2 {
			t.Fatalf("p99-fcfs is %+v, want %+v", k, want)
		}
		return
	}
	t.Fatal("the built-in library has no p99-fcfs")
}

// TestKnownLibrary: every instance of the library satisfies the theorem's
// hypotheses and refutes at least one claim (each was kept because it
// did); a search that runs it reports every claim a known instance
// refutes failing with a known instance (the smallest) whatever the
// random instances find, the FCFS p99 claim among them; and a search
// whose library is p99-fcfs alone reports that one.
func TestKnownLibrary(t *testing.T) {
	known := BuiltinKnown()
	smallest := map[string]int{} // claim and orders: jobs of the smallest known counterexample
	for _, k := range known {
		o, err := runOutcome(k.Instance, false)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		refutes := false
		for _, c := range ClaimNames {
			f, _ := o.claimFails(c)
			refutes = refutes || f
			for _, ord := range []string{"fcfs", "any"} {
				if f && (ord == "any" || k.Instance.Order == buckets.FCFS) {
					if n, ok := smallest[c+" "+ord]; !ok || k.Instance.Jobs() < n {
						smallest[c+" "+ord] = k.Instance.Jobs()
					}
				}
			}
		}
		if !refutes {
			t.Errorf("%s refutes no claim", k.Name)
		}
	}
	if _, ok := smallest["p99 fcfs"]; !ok {
		t.Error("no known instance refutes p99 under FCFS")
	}
	res, err := Search(t.Context(), Config{Instances: 500, Seed: 1, MaxK: 8, MaxJobs: 40, Claims: ClaimNames, Known: known})
	if err != nil {
		t.Fatal(err)
	}
	if res.Known != len(known) {
		t.Errorf("ran %d known instances, want %d", res.Known, len(known))
	}
	for _, c := range res.Claims {
		n, ok := smallest[c.Claim+" "+c.Orders]
		switch {
		case !ok:
		case c.Counterexample == nil:
			t.Errorf("claim %s %s: holds, but a known instance of %d jobs refutes it", c.Claim, c.Orders, n)
		case c.Known == "" && c.Counterexample.Jobs() >= n:
			t.Errorf("claim %s %s: a random counterexample of %d jobs replaced a known one of %d", c.Claim, c.Orders, c.Counterexample.Jobs(), n)
		case c.Known != "" && c.Counterexample.Jobs() != n:
			t.Errorf("claim %s %s: known %s of %d jobs, but the smallest known has %d", c.Claim, c.Orders, c.Known, c.Counterexample.Jobs(), n)
		}
	}
	for _, k := range known {
		if k.Name != "p99-fcfs" {
			continue
		}
		res, err := Search(t.Context(), Config{Instances: 1, Seed: 1, MaxK: 8, MaxJobs: 40, Claims: []string{"p99"}, Known: []Known{k}})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Claims[0]; c.Known != "p99-fcfs" || c.Detail != "p99 delay 0 s split, 0.5 s one (201 jobs)" {
			t.Errorf("p99 fcfs with the library p99-fcfs: %+v", c)
		}
	}
}

// TestBurstTailFindsP99: without the library, the structured family (a
// burst followed by a sparse tail) finds an FCFS p99 counterexample,
// which random small instances do not (their p99 is their maximum, and
// the maximum claim holds under FCFS): 6000 FCFS instances, every eighth
// of the family. Seed 1 finds it; the test fixes the seed.
func TestBurstTailFindsP99(t *testing.T) {
	res, err := Search(t.Context(), Config{Instances: 6000, Seed: 1, MaxK: 8, MaxJobs: 40, Claims: []string{"p99"}, Orders: []buckets.Order{buckets.FCFS}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Claims[0]
	if c.Counterexample == nil || c.Counterexample.Jobs() <= 100 {
		t.Fatalf("p99 under FCFS: %+v, want a counterexample of more than 100 jobs", c)
	}
	// Independently of claimFails: sort the exact waits and compare the
	// ceil(0.99·n)-th smallest.
	o, err := runOutcome(*c.Counterexample, false)
	if err != nil {
		t.Fatal(err)
	}
	one, split := o.sorted()
	n := len(one)
	r := (99*n + 99) / 100
	if !split[r-1].Less(one[r-1]) {
		t.Errorf("the %d-th smallest of %d waits: split %v, one %v units; want split < one", r, n, split[r-1], one[r-1])
	}
}

// TestLoadKnownErrors: a bad library file is refused naming the file and
// line.
func TestLoadKnownErrors(t *testing.T) {
	good := "ratesim run --trace x.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 1 --burst 2 --sub 0.5:1,0.5:1 --order fcfs --seed 0\n"
	for _, tc := range []struct {
		cmd, csv, want string
	}{
		{"# c\nratesim sweep x\n", "arrival_s,sub_bucket\n0,0\n", "a.cmd:2"},
		{good, "t,sub\n0,0\n", "a.csv:1"},
		{good, "arrival_s,sub_bucket\n0,0\n0.0000000001,1\n", "a.csv:3"},
		{good, "arrival_s,sub_bucket\n1,0\n0.5,1\n", "a.csv:3"},
		{good, "arrival_s,sub_bucket\n0,2\n", "a.csv:2"},
		{strings.Replace(good, "--seed 0", "--jobs 3", 1), "arrival_s,sub_bucket\n0,0\n", "--jobs"},
	} {
		fsys := fstest.MapFS{"k/a.cmd": {Data: []byte(tc.cmd)}, "k/a.csv": {Data: []byte(tc.csv)}}
		_, err := LoadKnown(fsys, "k")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cmd %q csv %q: error %v, want one naming %q", tc.cmd, tc.csv, err, tc.want)
		}
	}
}
