package experiments

import (
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

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

// ReadSpecData reads a YAML spec from r (name, a file name, prefixes the
// errors): at most maxSpecBytes, then checked by checkSpecYAML. Errors are
// *SpecError wrapping ErrSpec, with the line where one applies.
func ReadSpecData(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxSpecBytes {
		return nil, &SpecError{File: name, Err: fmt.Errorf("larger than %d bytes (1 MiB): want a spec of parameters, with long lists given as ranges (%w)", maxSpecBytes, ErrSpec)}
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
	var bad *SpecError
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if bad != nil || n == nil {
			return
		}
		if !yamlTags[n.Tag] {
			bad = &SpecError{File: name, Line: n.Line, Err: fmt.Errorf("tag %s: want plain values (tags other than YAML's core schema are refused, not ignored) (%w)", n.Tag, ErrSpec)}
			return
		}
		if n.Kind == yaml.ScalarNode && len(n.Value) > maxSpecString {
			bad = &SpecError{File: name, Line: n.Line, Err: fmt.Errorf("a value of %d bytes: want at most %d (4 KiB) (%w)", len(n.Value), maxSpecString, ErrSpec)}
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
