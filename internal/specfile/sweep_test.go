package specfile

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func sweepAxis(name string, values ...string) Axis {
	a := Axis{Name: name}
	for _, v := range values {
		a.Values = append(a.Values, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
	}
	return a
}

// TestSweepEach walks a union of two grids: by hand, the first
// grid's 2 × 3 points with its last axis fastest, then the second's 2.
func TestSweepEach(t *testing.T) {
	s := Sweep{{sweepAxis("a", "1", "2"), sweepAxis("b", "x", "y", "z")}, {sweepAxis("c", "p", "q")}}
	var got []string
	err := s.Each(func(g Grid, idx []int) error {
		var pt []string
		for i, a := range g {
			pt = append(pt, a.Name+"="+a.Values[idx[i]].Value)
		}
		got = append(got, strings.Join(pt, " "))
		return nil
	})
	want := []string{"a=1 b=x", "a=1 b=y", "a=1 b=z", "a=2 b=x", "a=2 b=y", "a=2 b=z", "c=p", "c=q"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("points %q, %v; want %q", got, err, want)
	}
	n := 0
	if err := (Sweep{}).Each(func(g Grid, idx []int) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("an empty sweep: %d points, %v; want 1 point of no axes", n, err)
	}
	stop := errors.New("stop")
	n = 0
	err = s.Each(func(Grid, []int) error {
		if n++; n == 4 {
			return stop
		}
		return nil
	})
	if err != stop || n != 4 {
		t.Errorf("stopping at the 4th point: %d calls, %v; want 4, stop", n, err)
	}
}

// TestValuesKey: by hand, the keys sorted (a before load) with each
// value's YAML, so that the same values in another order give the same
// key and another value another key.
func TestValuesKey(t *testing.T) {
	sc := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }
	k := ValuesKey(map[string]*yaml.Node{"load": sc("0.5"), "a": sc("x")})
	if want := "a=x;load=0.5;"; k != want {
		t.Errorf("ValuesKey = %q, want %q", k, want)
	}
	if k2 := ValuesKey(map[string]*yaml.Node{"load": sc("0.9"), "a": sc("x")}); k2 == k {
		t.Errorf("ValuesKey gives %q for load 0.5 and 0.9", k)
	}
	if k := ValuesKey(nil); k != "" {
		t.Errorf("ValuesKey(nil) = %q, want \"\"", k)
	}
}
