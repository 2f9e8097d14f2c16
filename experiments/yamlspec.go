package experiments

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxPoints bounds the number of points of a sweep, and MaxReplications
// the replications per point: ReplicationSeed packs both into 64 bits.
const (
	MaxPoints       = 1 << 24
	MaxReplications = 1 << 20
)

// ParseYAMLSweep reads the sweep block of a spec: one grid (a mapping from
// parameter names to non-empty lists of values) or a list of such grids,
// each a list of axes in the file's order with their values as YAML nodes,
// for a study to read into its own types; a null block is no grid. Every
// name must satisfy known (names lists them in the error), and appear once
// per grid; example is a list of values shown in the error for an empty
// or scalar list ("[0.5, 0.9]"). Errors start "line N: sweep".
func ParseYAMLSweep(n *yaml.Node, known func(string) bool, names []string, example string) (ParamSweep, error) {
	grid := func(n *yaml.Node) (ParamGrid, error) {
		var g ParamGrid
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !known(k.Value) {
				return nil, fmt.Errorf("line %d: sweep: unknown parameter %q, want one of %s", k.Line, k.Value, strings.Join(names, ", "))
			}
			if slices.ContainsFunc(g, func(a ParamAxis) bool { return a.Name == k.Value }) {
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
			g = append(g, ParamAxis{Name: k.Value, Line: k.Line, Values: v.Content})
		}
		return g, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		g, err := grid(n)
		if err != nil {
			return nil, err
		}
		return ParamSweep{g}, nil
	case yaml.SequenceNode:
		var gs ParamSweep
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
