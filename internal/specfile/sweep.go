package specfile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Sweep is a union of grids of parameters, each a YAML value: the
// points of the first grid, then those of the second, and so on.
type Sweep []Grid

// Grid is a cartesian product of axes; points vary the last axis
// fastest.
type Grid []Axis

// Axis is one swept parameter (a YAML key of the model's
// parameters) and its values, each a YAML value as the parameters'
// block would hold it.
type Axis struct {
	Name   string
	Values []*yaml.Node
	Line   int // of the key in the spec
}

// UnmarshalYAML reads a sweep: one grid or a list of grids (see
// [ParseSweep]); the study checks the parameters' names.
func (s *Sweep) UnmarshalYAML(n *yaml.Node) error {
	g, err := ParseSweep(n, func(string) bool { return true }, nil, "[0, 10ms, 100ms]")
	*s = g
	return err
}

// Each calls fn with every point of s, in order: the grids one after the
// other, each point given as its grid and the index of each axis's value
// (idx[i] into g[i].Values; the last axis varies fastest). An empty sweep
// is one point of no axes (g nil). Each stops at fn's first error and
// returns it. fn must not keep idx, which Each reuses.
func (s Sweep) Each(fn func(g Grid, idx []int) error) error {
	if len(s) == 0 {
		s = Sweep{nil}
	}
	for _, g := range s {
		idx := make([]int, len(g))
		for {
			if err := fn(g, idx); err != nil {
				return err
			}
			i := len(g) - 1
			for ; i >= 0; i-- {
				if idx[i]++; idx[i] < len(g[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return nil
}

// ParseSweep reads the sweep block of a spec: one grid (a mapping from
// parameter names to non-empty lists of values) or a list of such grids,
// each a list of axes in the file's order with their values as YAML nodes,
// for a study to read into its own types; a null block is no grid. Every
// name must satisfy known (names lists them in the error), and appear once
// per grid; example is a list of values shown in the error for an empty
// or scalar list ("[0.5, 0.9]"). Errors start "line N: sweep".
func ParseSweep(n *yaml.Node, known func(string) bool, names []string, example string) (Sweep, error) {
	grid := func(n *yaml.Node) (Grid, error) {
		var g Grid
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !known(k.Value) {
				return nil, fmt.Errorf("line %d: sweep: unknown parameter %q, want one of %s", k.Line, k.Value, strings.Join(names, ", "))
			}
			if slices.ContainsFunc(g, func(a Axis) bool { return a.Name == k.Value }) {
				return nil, fmt.Errorf("line %d: sweep: parameter %q given twice in one grid", k.Line, k.Value)
			}
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, fmt.Errorf("line %d: sweep.%s: want a non-empty list of values, e.g. %s", v.Line, k.Value, example)
			}
			for i, c := range v.Content {
				if c.Kind == yaml.ScalarNode && slices.ContainsFunc(v.Content[:i], func(d *yaml.Node) bool { return d.Kind == yaml.ScalarNode && d.Value == c.Value }) {
					return nil, fmt.Errorf("line %d: sweep.%s: value %s given twice: each value once (a point runs its replications already)", c.Line, k.Value, c.Value)
				}
			}
			g = append(g, Axis{Name: k.Value, Line: k.Line, Values: v.Content})
		}
		return g, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		g, err := grid(n)
		if err != nil {
			return nil, err
		}
		return Sweep{g}, nil
	case yaml.SequenceNode:
		var gs Sweep
		for _, c := range n.Content {
			if c.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("line %d: sweep: a grid is a mapping from parameter names to lists of values", c.Line)
			}
			g, err := grid(c)
			if err != nil {
				return nil, err
			}
			gs = append(gs, g)
		}
		return gs, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("line %d: sweep: want a mapping from parameter names to lists of values, or a list of such grids", n.Line)
}

// ValuesKey is the key of a model's point given by its swept values (a
// YAML value per swept key): the keys in order with each value's YAML.
// Points of one sweep share every other parameter, so equal keys are the
// same point; a point listed with different keys (a default written out
// in one grid) is not recognised, and runs again.
func ValuesKey(values map[string]*yaml.Node) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v, err := yaml.Marshal(values[k])
		if err != nil {
			v = []byte(values[k].Value)
		}
		b.WriteString(k + "=" + strings.TrimSpace(string(v)) + ";")
	}
	return b.String()
}
