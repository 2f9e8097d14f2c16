package drlstudy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/param"
	"github.com/ratesim/ratesim/internal/specfile"
)

// ModelName is the model key of a sweep spec that is a [Study].
const ModelName = "drl"

// Study is a sweep of the designs over a grid of their parameters, read
// from a sweep spec with model: drl ([ParseStudy]) or built from ratesim
// drl's flags ([NewStudy]):
//
//	name: drl-sync-period
//	model: drl
//	drl:                  # Params, as ratesim drl's flags in snake case
//	  designs: one,static,reconcile
//	  police: true
//	  sync_delay: 5ms
//	replications: 3
//	seed: 1
//	sweep:                # a grid, or a list of grids as in a split spec
//	  nodes: [2, 4, 8]
//	  sync_period: [0, 10ms, 100ms, 1s]
//
// Every point runs every design on the same arrivals; replication r of
// point p runs with root seed experiments.ReplicationSeed(seed, p, r). A
// Study is an experiments.Model: its rows are one per point and design.
type Study struct {
	Name         string         `yaml:"name"`
	Model        string         `yaml:"model"`
	DRL          Params         `yaml:"drl"`
	Replications int            `yaml:"replications"` // >= 1
	Seed         uint64         `yaml:"seed"`
	Sweep        specfile.Sweep `yaml:"sweep"` // over the keys of Params but designs and trace
	// FixedSeed runs every point and replication with DRL.Seed (or the
	// seed axis) as it is, as ratesim drl --sweep does, instead of
	// independent replication seeds.
	FixedSeed bool `yaml:"-"`

	points   []point
	axes     []string // the axis names of every grid, in order of first appearance
	axisCols []string // their columns, with units (see axisColumn)
	axisVals [][]any  // the value of each axis column at each point
}

// point is one point of the grid: the parameters and the axis values.
type point struct {
	params Params
	values map[string]*yaml.Node
}

// notSwept are the parameters a sweep cannot vary: the designs are the
// rows of every point, and the trace is a block.
var notSwept = []string{"designs", "trace"}

func sweepable(name string) bool {
	if slices.Contains(notSwept, name) {
		return false
	}
	_, ok := specfile.YAMLField(&Params{}, name)
	return ok
}

// SweepableParams lists the parameters a sweep can vary: the keys of
// Params but designs and trace.
func SweepableParams() []string {
	return specfile.YAMLKeys(reflect.TypeOf(Params{}), notSwept...)
}

// StudyError is an invalid field of a study: the file and line when it
// came from a file, and the field (drl.sync_period, sweep.nodes).
type StudyError = specfile.Error

// ParseStudy reads a study from YAML; name (a file name) prefixes the
// errors, which give the line: a syntax error, an unknown field, a value
// of the wrong type, or an invalid value (at the sweep point that has it).
// Errors wrap specfile.ErrSpec.
func ParseStudy(r io.Reader, name string) (*Study, error) {
	data, err := specfile.Read(r, name)
	if err != nil {
		return nil, err
	}
	s := &Study{DRL: DefaultParams(), Replications: 1, Seed: 1}
	f := studyYAML{Replications: 1, Seed: 1}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if err == io.EOF {
			return nil, &StudyError{File: name, Err: fmt.Errorf("empty spec (%w)", specfile.ErrSpec)}
		}
		return nil, studyYAMLError(name, err)
	}
	s.Name, s.Model, s.Replications, s.Seed, s.Sweep = f.Name, f.Model, f.Replications, f.Seed, f.Sweep
	if err := decodeDRL(name, &f.DRL, &s.DRL); err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, studyYAMLError(name, err)
	}
	lines := specfile.KeyLines(&root, "")
	for k, l := range specfile.KeyLines(&root, "drl") {
		lines["drl."+k] = l
	}
	if _, ok := lines["drl.jobs"]; !ok && s.DRL.Trace != nil {
		s.DRL.Jobs = 0 // a trace is read whole unless jobs says otherwise, as ratesim drl --trace does
	}
	if err := s.validate(); err != nil {
		var se *StudyError
		if errors.As(err, &se) {
			se.File = name
			if se.Line == 0 {
				se.Line = lines[se.Field]
			}
			if se.Line == 0 {
				se.Line = lines[strings.SplitN(se.Field, ".", 2)[0]]
			}
			return nil, se
		}
		return nil, &StudyError{File: name, Err: err}
	}
	return s, nil
}

// studyYAML is a study as its file gives it: the drl block is read by
// decodeDRL, through the parameters' table.
type studyYAML struct {
	Name         string         `yaml:"name"`
	Model        string         `yaml:"model"`
	DRL          yaml.Node      `yaml:"drl"`
	Replications int            `yaml:"replications"`
	Seed         uint64         `yaml:"seed"`
	Sweep        specfile.Sweep `yaml:"sweep"`
}

// decodeDRL reads the drl block node of file into p: every parameter
// through [Table] (the parser and check of its flag), the trace block
// with its own keys. An unknown key is named with the keys that fit.
func decodeDRL(file string, node *yaml.Node, p *Params) error {
	if node.Kind == 0 {
		return nil // no drl block
	}
	params := *node
	if node.Kind == yaml.MappingNode {
		params.Content = nil
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			switch {
			case k.Value == "trace":
				if err := decodeTrace(file, v, p); err != nil {
					return err
				}
				continue
			case Table.Lookup(k.Value) == nil || Table.Lookup(k.Value).Key != k.Value:
				return fmt.Errorf("%s:%d: field %s is not a drl parameter (want one of %s, trace) (%w)", file, k.Line, k.Value, strings.Join(tableKeys(), ", "), specfile.ErrSpec)
			}
			params.Content = append(params.Content, k, v)
		}
	}
	if err := Table.Decode(file, &params, p); err != nil {
		return fmt.Errorf("%w (%w)", err, specfile.ErrSpec)
	}
	return nil
}

// tableKeys are the keys of the parameters of [Table], in order.
func tableKeys() []string {
	var ks []string
	for _, q := range Table.Params() {
		ks = append(ks, q.Key)
	}
	return ks
}

// decodeTrace reads the trace block v into p.Trace, refusing a key that
// is not a field of [Trace].
func decodeTrace(file string, v *yaml.Node, p *Params) error {
	keys := specfile.YAMLKeys(reflect.TypeOf(Trace{}))
	if v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			if k := v.Content[i]; !slices.Contains(keys, k.Value) {
				return fmt.Errorf("%s:%d: field %s is not a trace field (%s) (%w)", file, k.Line, k.Value, strings.Join(keys, ", "), specfile.ErrSpec)
			}
		}
	}
	var t Trace
	if err := v.Decode(&t); err != nil {
		return studyYAMLError(file, err)
	}
	p.Trace = &t
	return nil
}

// ReadStudy reads the study file at path (see [ParseStudy]).
func ReadStudy(path string) (*Study, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("drl: %w", err)
	}
	defer f.Close()
	return ParseStudy(f, path)
}

// studyYAMLError rewrites "yaml: line N: msg" as "name:N: msg".
func studyYAMLError(name string, err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	re := regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	for i, m := range msgs {
		m = strings.TrimSpace(strings.TrimPrefix(m, "yaml: unmarshal errors:\n"))
		if sm := re.FindStringSubmatchIndex(m); sm != nil {
			m = name + ":" + m[sm[2]:sm[3]] + ": " + m[sm[1]:]
		} else {
			m = name + ": " + strings.TrimPrefix(m, "yaml: ")
		}
		m = strings.Replace(m, "not found in type drlstudy.studyYAML", "is not a field of a drl spec (name, model, drl, replications, seed, sweep)", 1)
		m = strings.Replace(m, "not found in type drlstudy.Params", "is not a drl parameter (want one of "+strings.Join(append([]string{"designs"}, SweepableParams()...), ", ")+", trace)", 1)
		m = strings.Replace(m, "not found in type drlstudy.Trace", "is not a trace field (path, format, time_col, time_format, key_col, sort, skip_bad)", 1)
		msgs[i] = m
	}
	return fmt.Errorf("%s (%w)", strings.Join(msgs, "; "), specfile.ErrSpec)
}

// NewStudy returns the study of base over one grid of axes, each a
// parameter name (a key of Params, or seed) and its values as written on
// the command line; every point runs once with the seed base.Seed (or the
// seed axis), as ratesim drl --sweep does. Errors name the axis and
// value, as a *StudyError with Field "sweep.NAME", or come from
// Params.Spec at the point.
func NewStudy(base Params, axes []StringAxis) (*Study, error) {
	s := &Study{Model: ModelName, DRL: base, Replications: 1, Seed: base.Seed, FixedSeed: true}
	var g specfile.Grid
	for _, a := range axes {
		ax := specfile.Axis{Name: a.Name}
		for _, v := range a.Values {
			ax.Values = append(ax.Values, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
		}
		g = append(g, ax)
	}
	s.Sweep = specfile.Sweep{g}
	return s, s.validate()
}

// StringAxis is an axis with its values as strings (the command line's).
type StringAxis struct {
	Name   string
	Values []string
}

// validate enumerates and checks every point.
func (s *Study) validate() error {
	if s.Model != ModelName {
		return specfile.StudyErr("model", 0, "%q, want %s", s.Model, ModelName)
	}
	if s.Replications < 1 || s.Replications > experiments.MaxReplications {
		return specfile.StudyErr("replications", 0, "%d, want between 1 and %d", s.Replications, experiments.MaxReplications)
	}
	if s.DRL.Trace != nil && !s.FixedSeed {
		if s.DRL.Trace.Path == "" {
			return specfile.StudyErr("drl.trace", 0, "the trace block has no path")
		}
		// Every replication of every design reads the trace again.
		if err := arrivals.CheckRereadable(s.DRL.Trace.Path); err != nil {
			return specfile.StudyErr("drl.trace", 0, "%v", err)
		}
	}
	if err := s.checkAxes(); err != nil {
		return err
	}
	s.points = nil
	err := s.Sweep.Each(func(g specfile.Grid, idx []int) error {
		p, err := s.point(g, idx)
		if err == nil {
			s.points = append(s.points, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	s.axisCols, s.axisVals = nil, nil
	for _, a := range s.axes {
		c, vals := s.axisColumn(a)
		s.axisCols, s.axisVals = append(s.axisCols, c), append(s.axisVals, vals)
	}
	return nil
}

// checkAxes checks the axes of the grids and lists them in s.axes.
func (s *Study) checkAxes() error {
	s.axes = nil
	for _, g := range s.Sweep {
		m := 1
		for _, a := range g {
			if !sweepable(a.Name) {
				return specfile.StudyErr("sweep", a.Line, "unknown parameter %q, want one of %s", a.Name, strings.Join(SweepableParams(), ", "))
			}
			if !s.FixedSeed && a.Name == "seed" {
				return specfile.StudyErr("sweep.seed", a.Line, "the seed is the study's top-level seed: replication r of point p runs with its own seed")
			}
			m *= len(a.Values)
			if m > experiments.MaxPoints {
				return specfile.StudyErr("sweep", a.Line, "more than %d points", experiments.MaxPoints)
			}
			if !slices.Contains(s.axes, a.Name) {
				s.axes = append(s.axes, a.Name)
			}
		}
	}
	return nil
}

// point returns the point of grid g at the value indexes idx, with its
// parameters checked.
func (s *Study) point(g specfile.Grid, idx []int) (point, error) {
	p := point{params: s.DRL, values: map[string]*yaml.Node{}}
	var label []string
	for i, a := range g {
		v := a.Values[idx[i]]
		p.values[a.Name] = v
		label = append(label, a.Name+"="+nodeText(v))
		var err error
		if a.Name == "seed" {
			err = v.Decode(&p.params.Seed)
		} else {
			err = setParam(&p.params, a.Name, v)
		}
		if err != nil {
			return p, specfile.StudyErr("sweep."+a.Name, v.Line, "%s: %v", nodeText(v), err)
		}
	}
	if _, _, err := p.params.Spec(); err != nil {
		field, line := "drl", 0
		var pe *drl.ParamError
		if errors.As(err, &pe) {
			field = "drl." + pe.Param
			if v, ok := p.values[pe.Param]; ok {
				field, line = "sweep."+pe.Param, v.Line
			}
		}
		err = &PointError{Point: len(s.points), Label: strings.Join(label, " "), Err: err}
		return p, &StudyError{Field: field, Line: line, Err: err}
	}
	return p, nil
}

// setParam sets parameter key of p to the value v: a scalar through
// [Table] (the parser of its flag and YAML key), a sequence (a list
// parameter's value) as YAML decodes it. The error says what would fit.
func setParam(p *Params, key string, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || Table.Lookup(key) == nil {
		return specfile.SetYAMLField(p, key, v)
	}
	err := Table.Set(p, key, v.Value)
	var pe *param.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("want %s", pe.Want)
	}
	return err
}

// PointError is an invalid parameter at a point of a sweep.
type PointError struct {
	Point int    // the point's index
	Label string // its axis values, NAME=VALUE separated by spaces; "" without a sweep
	Err   error  // a *ParamError, or an error of Spec.Validate
}

func (e *PointError) Error() string {
	msg := e.Err.Error()
	var pe *drl.ParamError
	if errors.As(e.Err, &pe) {
		msg = pe.Message()
	}
	if e.Label == "" { // a sweep of one point, or none
		return msg
	}
	return fmt.Sprintf("at sweep point %d (%s): %s", e.Point, e.Label, msg)
}

func (e *PointError) Unwrap() error { return e.Err }

// nodeText is a YAML value as written: a scalar's text, a list's
// elements joined by commas.
func nodeText(v *yaml.Node) string {
	if v.Kind == yaml.SequenceNode {
		var parts []string
		for _, c := range v.Content {
			parts = append(parts, nodeText(c))
		}
		return strings.Join(parts, ",")
	}
	return v.Value
}

// Axes returns the names of the swept parameters, in order of first
// appearance.
func (s *Study) Axes() []string { return slices.Clone(s.axes) }

// Point returns the parameters of point i (Seed as the study gives it).
func (s *Study) Point(i int) Params { return s.points[i].params }

// Value returns the text of axis name at point i ("" when the point's
// grid does not vary it).
func (s *Study) Value(i int, name string) string {
	if v, ok := s.points[i].values[name]; ok {
		return nodeText(v)
	}
	return ""
}

// NumPoints returns the number of points (experiments.Model).
func (s *Study) NumPoints() int { return len(s.points) }

// NumReplications returns the replications per point (experiments.Model).
func (s *Study) NumReplications() int { return s.Replications }

// RootSeed returns the root seed (experiments.Model).
func (s *Study) RootSeed() uint64 { return s.Seed }

// PointKey tells equal points of the sweep apart (experiments.RunModel
// runs a point listed twice once): the swept values.
func (s *Study) PointKey(point int) string { return specfile.ValuesKey(s.points[point].values) }
