package experiments

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
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

// SpecError is an invalid field of a spec: the file and line when it came
// from a file, and the field (a YAML key, or a sweep axis as "sweep.p").
type SpecError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *SpecError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *SpecError) Unwrap() error { return e.Err }

// ErrSpec is wrapped by every error about a spec.
var ErrSpec = errors.New("invalid experiment spec")

var yamlLine = regexp.MustCompile(`(?:yaml: )?line (\d+): `)

const SplitModel = "split"

// SpecModel returns the model a sweep spec names with its top-level key
// model: SplitModel when it has none (the default), or the name given
// (such as "drl"), so that a caller can hand the file to the package
// that reads that model. Errors: a YAML syntax error naming name and the
// line, or a model that is not a plain string.
func SpecModel(data []byte, name string) (string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return "", yamlError(name, err)
	}
	n := &root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return SplitModel, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "model" {
			v := n.Content[i+1]
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return "", &SpecError{File: name, Line: v.Line, Field: "model", Err: fmt.Errorf("want a model name, split, drl or clients (%w)", ErrSpec)}
			}
			return v.Value, nil
		}
	}
	return SplitModel, nil
}

// YAMLError rewrites the error of a YAML decoder, "yaml: line N: msg", as
// "name:N: msg", wrapping [ErrSpec].
func YAMLError(name string, err error) error { return yamlError(name, err) }

// yamlError is [YAMLError].
func yamlError(name string, err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	for i, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: unmarshal errors:\n")
		m = strings.TrimSpace(m)
		if sm := yamlLine.FindStringSubmatchIndex(m); sm != nil && sm[0] == 0 {
			m = name + ":" + m[sm[2]:sm[3]] + ": " + m[sm[1]:]
		} else {
			m = name + ": " + strings.TrimPrefix(m, "yaml: ")
		}
		m = strings.Replace(m, "not found in type splitstudy.Spec", "is not a spec field", 1)
		msgs[i] = m
	}
	return fmt.Errorf("%s (%w)", strings.Join(msgs, "; "), ErrSpec)
}

// keyLines maps the top-level keys of a YAML document to their lines.

// KeyLines maps the keys of a spec's top-level mapping (block "") or of
// its mapping under the key block to their lines, for errors that name a
// line.
func KeyLines(root *yaml.Node, block string) map[string]int {
	lines := map[string]int{}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return lines
	}
	if block != "" {
		var sub *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == block {
				sub = n.Content[i+1]
			}
		}
		if sub == nil || sub.Kind != yaml.MappingNode {
			return lines
		}
		n = sub
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		lines[n.Content[i].Value] = n.Content[i].Line
	}
	return lines
}

// YAMLField returns the field of the struct *p whose YAML key is name.
func YAMLField(p any, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag == name && tag != "-" {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// YAMLKeys lists the YAML keys of the fields of struct type t, but those
// in skip, in field order.
func YAMLKeys(t reflect.Type, skip ...string) []string {
	var out []string
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag != "" && tag != "-" && !slices.Contains(skip, tag) {
			out = append(out, tag)
		}
	}
	return out
}

// SetYAMLField sets the field of the struct *p whose YAML key is name to
// the YAML value v (a sweep's value of that parameter). Errors: an unknown
// name, or a value of the wrong type, without the decoder's line.
func SetYAMLField(p any, name string, v *yaml.Node) error {
	f, ok := YAMLField(p, name)
	if !ok {
		return fmt.Errorf("unknown parameter %q", name)
	}
	ptr := reflect.New(f.Type())
	if err := v.Decode(ptr.Interface()); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return errors.New(yamlLine.ReplaceAllString(te.Errors[0], ""))
		}
		return err
	}
	f.Set(ptr.Elem())
	return nil
}

// StudyErr is the error of a study's field (drl.sync_period,
// sweep.nodes) at line (0: found by the reader from the field), wrapping
// ErrSpec.
func StudyErr(field string, line int, format string, args ...any) *SpecError {
	return &SpecError{Field: field, Line: line, Err: fmt.Errorf(format+" (%w)", append(args, ErrSpec)...)}
}

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
