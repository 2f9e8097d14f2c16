package splitstudy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/specfile"
	"go.yaml.in/yaml/v3"
)

// Sweep is a union of grids; its points are those of the first grid, then
// those of the second, and so on.
type Sweep []Grid

// Grid is a cartesian product of axes. Points vary the last axis fastest.
type Grid []Axis

// Axis is one swept parameter and its values, float64 for numeric
// parameters and string for arrivals, dispatch and order.
type Axis struct {
	Name   string
	Values []any
	line   int // line of the axis in the spec file, 0 when unknown
}

// axisKind is the type of each sweepable parameter.
var axisKind = map[string]byte{
	"load": 'f', "rate": 'x', "burst": 'x', "p": 'f', "q": 'f', "q_rate": 'f', "q_burst": 'f',
	"k": 'i', "jobs": 'i', "warmup": 'i',
	"arrivals": 's', "dispatch": 's', "order": 's',
}

// AxisNames lists the parameters a sweep can vary.
var AxisNames = []string{"load", "rate", "burst", "k", "p", "q", "q_rate", "q_burst", "dispatch", "order", "arrivals", "jobs", "warmup"}

// UnmarshalYAML reads a sweep: one grid (a mapping from parameter names to
// lists of values) or a list of grids.
func (s *Sweep) UnmarshalYAML(n *yaml.Node) error {
	known := func(name string) bool { _, ok := axisKind[name]; return ok }
	gs, err := specfile.ParseSweep(n, known, AxisNames, "[0.5, 0.9]")
	if err != nil {
		return err
	}
	*s = nil
	for _, yg := range gs {
		var g Grid
		for _, ya := range yg {
			a := Axis{Name: ya.Name, line: ya.Line}
			for _, c := range ya.Values {
				x, err := parseAxisValue(axisKind[ya.Name], c.Value, c.Kind == yaml.ScalarNode)
				if err != nil {
					return fmt.Errorf("line %d: sweep.%s: %v", c.Line, ya.Name, err)
				}
				a.Values = append(a.Values, x)
			}
			g = append(g, a)
		}
		*s = append(*s, g)
	}
	return nil
}

func parseAxisValue(kind byte, s string, scalar bool) (any, error) {
	if !scalar {
		return nil, fmt.Errorf("want a single value, not a list or mapping")
	}
	switch kind {
	case 's':
		return s, nil
	case 'i':
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return float64(n), nil
	}
	if kind == 'x' && strings.Contains(s, "/") {
		r, err := exact.ParseRat(s)
		if err != nil || r.Sign() <= 0 {
			return nil, fmt.Errorf("%q is not a number > 0: want a decimal or a fraction p/q", s)
		}
		if d, err := exact.FromFloat64(r.Float64()); err == nil && d.Cmp(r) == 0 {
			return r.Float64(), nil // a decimal after all (7/2 is 3.5)
		}
		return Fraction{Exact: r.String(), Float: r.Float64()}, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	return x, nil
}

// ParseAxis parses "name=v1,v2,..." (the --grid flag) into an axis.
func ParseAxis(s string) (Axis, error) {
	name, vals, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	kind, known := axisKind[name]
	if !ok || !known {
		return Axis{}, fmt.Errorf("%q: want name=v1,v2,... with name one of %s", s, strings.Join(AxisNames, ", "))
	}
	a := Axis{Name: name}
	for _, v := range strings.Split(vals, ",") {
		x, err := parseAxisValue(kind, strings.TrimSpace(v), true)
		if err != nil {
			return Axis{}, fmt.Errorf("%q: %v", s, err)
		}
		if slices.Contains(a.Values, x) {
			return Axis{}, fmt.Errorf("%q: value %s given twice: each value once", s, strings.TrimSpace(v))
		}
		a.Values = append(a.Values, x)
	}
	return a, nil
}

// MarshalYAML writes the sweep as a list of grids, each a mapping in axis
// order with flow-style value lists.
func (s Sweep) MarshalYAML() (any, error) {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, g := range s {
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, a := range g {
			vals := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, v := range a.Values {
				vals.Content = append(vals.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: formatAxisValue(v)})
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: a.Name}, vals)
		}
		seq.Content = append(seq.Content, m)
	}
	return seq, nil
}

// Fraction is a value of a rate or burst axis given as a fraction p/q
// that a float64 cannot hold: its exact text, reduced ("10/13"), and its
// nearest float64. Its JSON and YAML are the exact text.
type Fraction struct {
	Exact string
	Float float64
}

// MarshalJSON writes the exact text as a JSON string.
func (f Fraction) MarshalJSON() ([]byte, error) { return json.Marshal(f.Exact) }

func formatAxisValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case Fraction:
		return x.Exact
	}
	panic(fmt.Sprintf("experiments: axis value %v of type %T", v, v))
}

// MarshalJSON writes the sweep as a list of grids, each an object whose keys
// are in axis order.
func (s Sweep) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, g := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, a := range g {
			if j > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(a.Name)
			vals, err := json.Marshal(a.Values)
			if err != nil {
				return nil, err
			}
			b.Write(name)
			b.WriteByte(':')
			b.Write(vals)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes, keeping the axis order.
func (s *Sweep) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = nil
	for _, r := range raw {
		dec := json.NewDecoder(bytes.NewReader(r))
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return fmt.Errorf("experiments: sweep grid is not a JSON object")
		}
		var g Grid
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := t.(string)
			kind, ok := axisKind[name]
			if !ok {
				return fmt.Errorf("experiments: unknown sweep parameter %q", name)
			}
			a := Axis{Name: name}
			if kind == 's' {
				var vs []string
				if err := dec.Decode(&vs); err != nil {
					return err
				}
				for _, v := range vs {
					a.Values = append(a.Values, v)
				}
			} else {
				var vs []any // numbers, and fractions as strings
				if err := dec.Decode(&vs); err != nil {
					return err
				}
				for _, v := range vs {
					switch x := v.(type) {
					case float64:
						a.Values = append(a.Values, x)
					case string:
						f, err := parseAxisValue(kind, x, true)
						if _, ok := f.(Fraction); err != nil || !ok {
							return fmt.Errorf("experiments: sweep %s: %q is not a number", name, x)
						}
						a.Values = append(a.Values, f)
					default:
						return fmt.Errorf("experiments: sweep %s: %v is not a number", name, v)
					}
				}
			}
			g = append(g, a)
		}
		*s = append(*s, g)
	}
	return nil
}
