// Package specfile holds what every study's YAML spec file shares: reading
// it within bounds ([Read]), errors that name the file, line and field
// ([Error], wrapping [ErrSpec]), the model a spec names ([Model]), and
// struct fields by YAML key ([YAMLField], [SetYAMLField]) for studies that
// read their parameters by key, and the sweep block ([ParseSweep], a
// [Sweep] of grids of axes).
package specfile

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is an invalid field of a spec: the file and line when it came
// from a file, and the field (a YAML key, or a sweep axis as "sweep.p").
type Error struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *Error) Error() string {
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

func (e *Error) Unwrap() error { return e.Err }

// ErrSpec is wrapped by every error about a spec.
var ErrSpec = errors.New("invalid experiment spec")

var yamlLine = regexp.MustCompile(`(?:yaml: )?line (\d+): `)

// SplitModel is the model of a spec that names none: the split of a
// token bucket (package experiments/splitstudy).
const SplitModel = "split"

// Model returns the model a sweep spec names with its top-level key
// model: SplitModel when it has none (the default), or the name given
// (such as "drl"), so that a caller can hand the file to the package
// that reads that model. Errors: a YAML syntax error naming name and the
// line, or a model that is not a plain string.
func Model(data []byte, name string) (string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return "", YAMLError(name, err)
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
				return "", &Error{File: name, Line: v.Line, Field: "model", Err: fmt.Errorf("want a model name, split, drl or clients (%w)", ErrSpec)}
			}
			return v.Value, nil
		}
	}
	return SplitModel, nil
}

// YAMLError rewrites the error of a YAML decoder, "yaml: line N: msg", as
// "name:N: msg", wrapping [ErrSpec].
func YAMLError(name string, err error) error {
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
func StudyErr(field string, line int, format string, args ...any) *Error {
	return &Error{Field: field, Line: line, Err: fmt.Errorf(format+" (%w)", append(args, ErrSpec)...)}
}

// Limits of a YAML spec (issue 28): a spec is a few lines of parameters,
// so anything larger is a mistake or an attack, refused before it is
// parsed or expanded.
const (
	maxSpecBytes  = 1 << 20 // a spec file, bytes: 1 MiB
	maxSpecString = 4 << 10 // a scalar value in it, bytes: 4 KiB
)

// yamlTags are the tags a spec may carry, written or implied: YAML 1.2's
// core schema. Any other (!!python/object, !custom) is refused rather than
// ignored.
var yamlTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true, "!!map": true, "!!seq": true, "!!merge": true, "": true}

// Read reads a YAML spec from r (name, a file name, prefixes the
// errors): at most maxSpecBytes, then checked by checkSpecYAML. Errors are
// *Error wrapping ErrSpec, with the line where one applies.
func Read(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxSpecBytes {
		return nil, &Error{File: name, Err: fmt.Errorf("larger than %d bytes (1 MiB): want a spec of parameters, with long lists given as ranges (%w)", maxSpecBytes, ErrSpec)}
	}
	return data, checkSpecYAML(data, name)
}

// checkSpecYAML refuses, naming the line, a YAML document with a tag
// outside the core schema or a scalar longer than maxSpecString bytes.
// Syntax errors are left to the decoder that follows.
func checkSpecYAML(data []byte, name string) error {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return nil
	}
	var bad *Error
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if bad != nil || n == nil {
			return
		}
		if !yamlTags[n.Tag] {
			bad = &Error{File: name, Line: n.Line, Err: fmt.Errorf("tag %s: want plain values (tags other than YAML's core schema are refused, not ignored) (%w)", n.Tag, ErrSpec)}
			return
		}
		if n.Kind == yaml.ScalarNode && len(n.Value) > maxSpecString {
			bad = &Error{File: name, Line: n.Line, Err: fmt.Errorf("a value of %d bytes: want at most %d (4 KiB) (%w)", len(n.Value), maxSpecString, ErrSpec)}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	if bad != nil {
		return bad
	}
	return nil
}
