package experiments

import "go.yaml.in/yaml/v3"

// ParamSweep is a union of grids of parameters, each a YAML value: the
// points of the first grid, then those of the second, and so on.
type ParamSweep []ParamGrid

// ParamGrid is a cartesian product of axes; points vary the last axis
// fastest.
type ParamGrid []ParamAxis

// ParamAxis is one swept parameter (a YAML key of the model's
// parameters) and its values, each a YAML value as the parameters'
// block would hold it.
type ParamAxis struct {
	Name   string
	Values []*yaml.Node
	Line   int // of the key in the spec
}

// UnmarshalYAML reads a sweep: one grid or a list of grids (see
// [ParseYAMLSweep]); the study checks the parameters' names.
func (s *ParamSweep) UnmarshalYAML(n *yaml.Node) error {
	g, err := ParseYAMLSweep(n, func(string) bool { return true }, nil, "[0, 10ms, 100ms]")
	*s = g
	return err
}

// Each calls fn with every point of s, in order: the grids one after the
// other, each point given as its grid and the index of each axis's value
// (idx[i] into g[i].Values; the last axis varies fastest). An empty sweep
// is one point of no axes (g nil). Each stops at fn's first error and
// returns it. fn must not keep idx, which Each reuses.
func (s ParamSweep) Each(fn func(g ParamGrid, idx []int) error) error {
	if len(s) == 0 {
		s = ParamSweep{nil}
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
