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
