package splitstudy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// Spec is an experiment: a token bucket (r, b) and its split into k
// sub-buckets, the traffic fed to both, the length and number of
// replications, and a sweep grid over any of these parameters. It is read
// from YAML ([ParseSpec]) or built from command-line flags; every field has
// a default ([DefaultSpec]). Rates are in tokens/s, bursts in tokens,
// arrival rates in jobs/s.
//
// Sub-bucket l gets rate q_l·r and burst q^b_l·b, where q = RateShares and
// q^b = BurstShares (both default to 1/k each and must add up to 1). With
// dispatch "weighted" a job goes to sub-bucket l with probability p_l =
// TrafficShares[l] (default: the rate shares), independently of the others.
//
// A sweep axis overrides the field of the same name at each point. Besides
// the scalar fields (arrivals, load, rate, burst, k, dispatch, order, jobs,
// warmup) four shorthands set the shares of sub-bucket 1 (index 0) and give
// the other k - 1 sub-buckets equal parts of the rest:
//
//	p        traffic share p_1 (needs dispatch weighted)
//	q        rate share and burst share q_1
//	q_rate   rate share q_1 only
//	q_burst  burst share q^b_1 only
type Spec struct {
	Name          string    `yaml:"name" json:"name"`                                              // a label for captions and summaries
	Model         string    `yaml:"model,omitempty" json:"-"`                                      // "" or "split"; other models have their own spec (see [SpecModel])
	Arrivals      string    `yaml:"arrivals" json:"arrivals"`                                      // an arrival spec (arrivals.SpecHelp), such as poisson or periodic
	Load          float64   `yaml:"load" json:"load"`                                              // offered load ρ = λ/r, > 0
	Rate          float64   `yaml:"rate" json:"rate"`                                              // r, tokens/s, > 0
	Burst         float64   `yaml:"burst" json:"burst"`                                            // b, tokens, >= 1
	K             int       `yaml:"k" json:"k"`                                                    // number of sub-buckets, >= 1
	RateShares    []float64 `yaml:"rate_shares,flow,omitempty" json:"rate_shares,omitempty"`       // q_l, summing to 1 (default 1/k each)
	BurstShares   []float64 `yaml:"burst_shares,flow,omitempty" json:"burst_shares,omitempty"`     // q^b_l, summing to 1 (default 1/k each)
	Dispatch      string    `yaml:"dispatch" json:"dispatch"`                                      // rr, random, least-loaded or weighted
	TrafficShares []float64 `yaml:"traffic_shares,flow,omitempty" json:"traffic_shares,omitempty"` // p_l for dispatch weighted, summing to 1
	Order         string    `yaml:"order" json:"order"`                                            // fcfs, lifo or random
	Jobs          int64     `yaml:"jobs" json:"jobs"`                                              // measured jobs per replication, >= 1
	Warmup        int64     `yaml:"warmup" json:"warmup"`                                          // jobs before them, excluded from the statistics, >= 0
	Replications  int       `yaml:"replications" json:"replications"`                              // independent replications per point, >= 1
	Seed          uint64    `yaml:"seed" json:"seed"`                                              // root seed (see [CommonSeed])
	Sweep         Sweep     `yaml:"sweep" json:"sweep"`                                            // the grid; empty: one point
	// RateExact and BurstExact are r and b exactly when the spec gives a
	// fraction p/q (rate: 10/13), which Rate and Burst, float64, only
	// approximate; "" when the shortest decimals of Rate and Burst are
	// exact. ParseSpec sets them from the keys rate and burst; the YAML
	// echo writes them beside the float64 values.
	RateExact  string `yaml:"rate_exact,omitempty" json:"rate_exact,omitempty"`
	BurstExact string `yaml:"burst_exact,omitempty" json:"burst_exact,omitempty"`
	// Trace, when set, is a trace file that every replication reads
	// instead of generated arrivals (Arrivals and Load then do not apply):
	// its first Warmup + Jobs arrivals, or all of them when it has fewer.
	Trace *TraceInput `yaml:"trace,omitempty" json:"trace,omitempty"`

	given       map[string]bool // top-level keys the spec file set (ParseSpec)
	traceJobs   int64           // the trace's jobs (FitTrace); 0 before
	traceLambda float64         // the trace's mean rate, jobs/s (FitTrace); 0 before
}

// TraceInput is a trace file read by a sweep (see arrivals.TraceOptions
// for the fields). It must be a regular file: each replication reads it
// again.
type TraceInput struct {
	Path       string `yaml:"path" json:"path"`
	Format     string `yaml:"format,omitempty" json:"format,omitempty"`           // csv, clf, jsonl, counts, wide; "" by the extension
	TimeCol    string `yaml:"time_col,omitempty" json:"time_col,omitempty"`       // "" means the first column
	TimeFormat string `yaml:"time_format,omitempty" json:"time_format,omitempty"` // "" means Unix seconds
	Sort       bool   `yaml:"sort,omitempty" json:"sort,omitempty"`               // sort out-of-order lines
}

// Options returns the trace options of t.
func (t *TraceInput) Options() arrivals.TraceOptions {
	return arrivals.TraceOptions{Format: t.Format, TimeCol: t.TimeCol, TimeFormat: t.TimeFormat, Sort: t.Sort}
}

// traceLabel is the arrivals column of a point that reads trace path.
func traceLabel(path string) string { return "trace " + path }

// DefaultSpec returns the defaults of every field: Poisson arrivals at load
// 0.9, r = 1 token/s, b = 10 tokens, k = 2 equal sub-buckets, round-robin
// dispatch, FCFS, 100000 measured jobs after 10000 warm-up jobs, 10
// replications, seed 1, no sweep.
func DefaultSpec() Spec {
	return Spec{Arrivals: "poisson", Load: 0.9, Rate: 1, Burst: 10, K: 2, Dispatch: "rr", Order: "fcfs",
		Jobs: 100_000, Warmup: 10_000, Replications: 10, Seed: 1}
}

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

// ParseSpec reads a spec from YAML, starting from [DefaultSpec]. name (a
// file name) prefixes the errors, which give the line: a syntax error, an
// unknown field, a value of the wrong type, or an invalid value.
func ParseSpec(r io.Reader, name string) (*Spec, error) {
	data, err := experiments.ReadSpecData(r, name)
	if err != nil {
		return nil, err
	}
	spec := DefaultSpec()
	data, fractions := exactFractions(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		if err == io.EOF {
			return nil, &experiments.SpecError{File: name, Err: fmt.Errorf("empty spec (%w)", experiments.ErrSpec)}
		}
		return nil, experiments.YAMLError(name, err)
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); err != io.EOF {
		return nil, &experiments.SpecError{File: name, Err: fmt.Errorf("more than one YAML document (%w)", experiments.ErrSpec)}
	}
	if r, ok := fractions["rate"]; ok {
		spec.RateExact = r
	}
	if b, ok := fractions["burst"]; ok {
		spec.BurstExact = b
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, experiments.YAMLError(name, err)
	}
	lines := experiments.KeyLines(&root, "")
	spec.given = map[string]bool{}
	for k := range lines {
		spec.given[k] = true
	}
	if _, ok := lines["k"]; !ok {
		// k defaults to the length of the share lists.
		for _, s := range [][]float64{spec.RateShares, spec.BurstShares, spec.TrafficShares} {
			if len(s) > 0 {
				spec.K = len(s)
				break
			}
		}
	}
	if err := spec.Validate(); err != nil {
		var se *experiments.SpecError
		if errors.As(err, &se) {
			se.File = name
			if se.Line == 0 {
				se.Line = lines[strings.SplitN(se.Field, ".", 2)[0]]
			}
			return nil, se
		}
		return nil, &experiments.SpecError{File: name, Err: err}
	}
	return &spec, nil
}

// exactKeys are the top-level keys of a split spec that take an exact
// number: a decimal, or a fraction p/q that a float64 cannot hold.
var exactKeys = []string{"rate", "burst"}

// exactFractions returns data with each fraction p/q given to a key of
// exactKeys replaced, on its own line, by its nearest float64 (so that the
// decoder fills the float64 field and keeps every line number), and the
// fractions exactly, by key, reduced ("10/13"). Anything else is left to
// the decoder, which refuses what is not a number.
func exactFractions(data []byte) ([]byte, map[string]string) {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return data, nil
	}
	n := &root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return data, nil
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(exactKeys, k.Value) || v.Kind != yaml.ScalarNode || !strings.Contains(v.Value, "/") || v.Line < 1 || v.Line > len(lines) {
			continue
		}
		r, err := exact.ParseRat(v.Value)
		if err != nil || r.Sign() <= 0 {
			continue
		}
		ln, col := lines[v.Line-1], v.Column-1
		if col < 0 || col >= len(ln) {
			continue
		}
		raw := v.Value
		if q := ln[col]; q == '"' || q == '\'' {
			raw = string(q) + v.Value + string(q)
		}
		if !bytes.HasPrefix(ln[col:], []byte(raw)) {
			continue
		}
		f := strconv.FormatFloat(r.Float64(), 'g', -1, 64)
		lines[v.Line-1] = slices.Concat(ln[:col], []byte(f), ln[col+len(raw):])
		out[k.Value] = r.String()
	}
	return bytes.Join(lines, nil), out
}

// ratOf returns a rate or burst exactly: text (a fraction) when set,
// else the shortest decimal of x.
func ratOf(x float64, text string) (exact.Rat, error) {
	if text != "" {
		return exact.ParseRat(text)
	}
	return exact.FromFloat64(x)
}

// SplitModel is the model of [Spec]: a token bucket and its split.
// ReadSpec reads the spec file at path (see [ParseSpec]).
func ReadSpec(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	return ParseSpec(f, path)
}

// UnmarshalYAML reads a sweep: one grid (a mapping from parameter names to
// lists of values) or a list of grids.
func (s *Sweep) UnmarshalYAML(n *yaml.Node) error {
	known := func(name string) bool { _, ok := axisKind[name]; return ok }
	gs, err := experiments.ParseYAMLSweep(n, known, AxisNames, "[0.5, 0.9]")
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

// YAML returns the spec as a YAML document that ParseSpec reads back to
// the same spec.
func (s *Spec) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Validate checks every field and every point of the sweep, returning a
// *SpecError naming the first invalid field.
func (s *Spec) Validate() error {
	if s.Model != "" && s.Model != experiments.SplitModel {
		return specErr("model", "%q, want %s here (a spec of another model is read by that model's package; see SpecModel)", s.Model, experiments.SplitModel)
	}
	if s.Replications < 1 || s.Replications > experiments.MaxReplications {
		return specErr("replications", "%d, want between 1 and %d", s.Replications, experiments.MaxReplications)
	}
	if n := s.NumPoints(); n < 1 || n > experiments.MaxPoints {
		return specErr("sweep", "%d points, want between 1 and %d", n, experiments.MaxPoints)
	}
	for _, g := range s.Sweep {
		for _, a := range g {
			if err := s.checkAxisUse(a); err != nil {
				err.Line = a.line
				return err
			}
		}
	}
	_, err := s.Points()
	return err
}

// checkAxisUse refuses an axis that conflicts with a field given explicitly.
func (s *Spec) checkAxisUse(a Axis) *experiments.SpecError {
	conflict := func(field string, set bool) *experiments.SpecError {
		if set {
			return specErr("sweep."+a.Name, "the axis sets the shares %s gives; remove one of them", field)
		}
		return nil
	}
	switch a.Name {
	case "p":
		return conflict("traffic_shares", s.TrafficShares != nil)
	case "q":
		if err := conflict("rate_shares", s.RateShares != nil); err != nil {
			return err
		}
		return conflict("burst_shares", s.BurstShares != nil)
	case "q_rate":
		return conflict("rate_shares", s.RateShares != nil)
	case "q_burst":
		return conflict("burst_shares", s.BurstShares != nil)
	case "k":
		if s.RateShares != nil || s.BurstShares != nil || s.TrafficShares != nil {
			return specErr("sweep.k", "k varies but the share lists have a fixed length; use the p, q, q_rate, q_burst axes")
		}
	}
	return nil
}

// NumPoints returns the number of points of the sweep (1 with no sweep).
func (s *Spec) NumPoints() int {
	if len(s.Sweep) == 0 {
		return 1
	}
	total := 0
	for _, g := range s.Sweep {
		n := 1
		for _, a := range g {
			n *= len(a.Values)
			if n > experiments.MaxPoints {
				return experiments.MaxPoints + 1
			}
		}
		total += n
		if total > experiments.MaxPoints {
			return experiments.MaxPoints + 1
		}
	}
	return total
}

// Point is one point of a sweep: every parameter of its replications.
type Point struct {
	Index         int       `json:"point"`                    // 0-based, in sweep order
	Grid          int       `json:"grid"`                     // the grid of the sweep it belongs to, 0-based
	Arrivals      string    `json:"arrivals"`                 // arrival spec (arrivals.SpecHelp)
	Load          float64   `json:"load"`                     // ρ = λ/r
	Rate          float64   `json:"rate_tokens_per_s"`        // r
	Burst         float64   `json:"burst_tokens"`             // b
	K             int       `json:"k"`                        // sub-buckets
	RateShares    []float64 `json:"rate_shares"`              // q_l
	BurstShares   []float64 `json:"burst_shares"`             // q^b_l
	TrafficShares []float64 `json:"traffic_shares,omitempty"` // p_l: weighted, random (= q_l) and rr (1/k); nil for least-loaded
	Dispatch      string    `json:"dispatch"`
	Order         string    `json:"order"`
	Jobs          int64     `json:"jobs"`   // measured jobs per replication
	Warmup        int64     `json:"warmup"` // warm-up jobs per replication
	Replications  int       `json:"replications"`
	// RateExact and BurstExact are r and b exactly when given as a
	// fraction p/q (see Spec.RateExact); "" otherwise.
	RateExact  string      `json:"rate_exact,omitempty"`
	BurstExact string      `json:"burst_exact,omitempty"`
	trace      *TraceInput // the spec's trace, or nil for generated arrivals
	// traceLambda is the trace's mean rate, jobs/s, once Spec.FitTrace
	// has read it; 0 otherwise.
	traceLambda float64
}

// Lambda returns the mean arrival rate λ, jobs/s: ρ·r for an arrival spec
// whose processes take the default rate (such as "poisson"), the mean rate
// its parameters give otherwise; for a trace, its mean rate once
// [Spec.FitTrace] has read it, NaN before (and for an invalid spec).
func (p *Point) Lambda() float64 {
	if p.trace != nil && p.traceLambda > 0 {
		return p.traceLambda
	}
	r, err := ratOf(p.Rate, p.RateExact)
	if err != nil || p.trace != nil {
		return math.NaN()
	}
	return experiments.ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: r}.MeanRate()
}

// One returns the one bucket (r, b), exactly: RateExact and BurstExact
// where set (fractions p/q), else each float64 parameter stands for its
// shortest decimal (exact.FromFloat64).
func (p *Point) One() (buckets.Params, error) {
	r, err1 := ratOf(p.Rate, p.RateExact)
	b, err2 := ratOf(p.Burst, p.BurstExact)
	if err := errors.Join(err1, err2); err != nil {
		return buckets.Params{}, fmt.Errorf("experiments: point %d: %w (%w)", p.Index, err, buckets.ErrParam)
	}
	return buckets.Params{Rate: r, Burst: b}, nil
}

// exactShares returns the shares xs as exact rationals that add up to
// exactly 1: each share stands for its shortest decimal, divided by their
// sum, so that [1/3, 1/3, 1/3] written in float64 gives thirds and
// [0.7, 0.3] gives 7/10 and 3/10.
func exactShares(xs []float64) ([]exact.Rat, error) {
	out := make([]exact.Rat, len(xs))
	sum := exact.Rat{}
	for l, x := range xs {
		r, err := exact.FromFloat64(x)
		if err != nil {
			return nil, err
		}
		out[l] = r
		if sum, err = sum.Add(r); err != nil {
			return nil, err
		}
	}
	if sum.Sign() == 0 {
		return nil, fmt.Errorf("experiments: shares %v add up to 0: %w", xs, buckets.ErrParam)
	}
	for l := range out {
		var err error
		if out[l], err = out[l].Quo(sum); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Subs returns the sub-buckets (q_l·r, q^b_l·b), exactly, with the shares
// normalised to add up to exactly 1 (see exactShares), so that the split
// satisfies Σ r_l = r and Σ b_l = b exactly: decimal shares such as
// 1 - 0.9 (0.09999999999999998 in float64, whose shortest decimal is that
// too) of b = 10 are written by the grid as 0.1, and give 1 token.
func (p *Point) Subs() ([]buckets.Params, error) {
	one, err := p.One()
	if err != nil {
		return nil, err
	}
	rs, err1 := exactShares(p.RateShares)
	bs, err2 := exactShares(p.BurstShares)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("experiments: point %d: %w (%w)", p.Index, err, buckets.ErrParam)
	}
	subs := make([]buckets.Params, p.K)
	for l := range subs {
		r, err1 := one.Rate.Mul(rs[l])
		b, err2 := one.Burst.Mul(bs[l])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("experiments: point %d sub-bucket %d: %w (%w)", p.Index, l, err, buckets.ErrParam)
		}
		subs[l] = buckets.Params{Rate: r, Burst: b}
	}
	return subs, nil
}

// restShare returns each of the k - 1 equal shares that remain when one
// sub-bucket has share x, rounded to 15 significant digits so that decimal
// grids give decimal shares (1 - 0.9 gives 0.1, not 0.09999999999999998).
func restShare(x float64, k int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat((1-x)/float64(k-1), 'g', 15, 64), 64)
	return r
}

// axisValue returns the point's value of the named parameter.
func (p *Point) axisValue(name string) any {
	switch name {
	case "load":
		return p.Load
	case "rate":
		return p.Rate
	case "burst":
		return p.Burst
	case "k":
		return float64(p.K)
	case "p":
		if len(p.TrafficShares) == 0 {
			return math.NaN()
		}
		return p.TrafficShares[0]
	case "q", "q_rate":
		return p.RateShares[0]
	case "q_burst":
		return p.BurstShares[0]
	case "jobs":
		return float64(p.Jobs)
	case "warmup":
		return float64(p.Warmup)
	case "arrivals":
		return p.Arrivals
	case "dispatch":
		return p.Dispatch
	case "order":
		return p.Order
	}
	panic("experiments: unknown parameter " + name)
}

// Points enumerates the points of the sweep, validating each: grid by grid,
// the last axis of a grid varying fastest.
func (s *Spec) Points() ([]Point, error) {
	if s.NumPoints() > experiments.MaxPoints {
		return nil, specErr("sweep", "more than %d points", experiments.MaxPoints)
	}
	grids := s.Sweep
	if len(grids) == 0 {
		grids = Sweep{nil}
	}
	var pts []Point
	for gi, g := range grids {
		idx := make([]int, len(g))
		for {
			vals := map[string]any{}
			for i, a := range g {
				vals[a.Name] = a.Values[idx[i]]
			}
			p, err := s.point(vals)
			if err != nil {
				if len(g) > 0 {
					var se *experiments.SpecError
					if errors.As(err, &se) {
						se.Err = fmt.Errorf("at sweep point %d (%s): %w", len(pts), pointLabel(g, idx), se.Err)
						for _, a := range g {
							if se.Field == "sweep."+a.Name {
								se.Line = a.line
							}
						}
					}
				}
				return nil, err
			}
			p.Index, p.Grid = len(pts), gi
			pts = append(pts, p)
			// Advance the odometer, last axis fastest.
			i := len(g) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(g[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return pts, nil
}

func pointLabel(g Grid, idx []int) string {
	var parts []string
	for i, a := range g {
		parts = append(parts, a.Name+"="+formatAxisValue(a.Values[idx[i]]))
	}
	return strings.Join(parts, " ")
}

// shareTolerance is the relative tolerance within which a share list
// written in float64 must add up to 1; the shares are then normalised to
// add up to exactly 1 (see exactShares).
const shareTolerance = 1e-9

// point builds and validates the point with the axis values vals over the
// spec's fields.
func (s *Spec) point(vals map[string]any) (Point, error) {
	p := Point{Arrivals: s.Arrivals, Load: s.Load, Rate: s.Rate, Burst: s.Burst, K: s.K,
		Dispatch: s.Dispatch, Order: s.Order, Jobs: s.Jobs, Warmup: s.Warmup, Replications: s.Replications, trace: s.Trace,
		RateExact: s.RateExact, BurstExact: s.BurstExact, traceLambda: s.traceLambda}
	f := func(name string, dst *float64) {
		if v, ok := vals[name]; ok {
			text := "" // a decimal axis value: a float64's shortest decimal
			if f, ok := v.(Fraction); ok {
				*dst, text = f.Float, f.Exact
			} else {
				*dst = v.(float64)
			}
			switch name {
			case "rate":
				p.RateExact = text
			case "burst":
				p.BurstExact = text
			}
		}
	}
	i := func(name string, dst *int64) {
		if v, ok := vals[name]; ok {
			*dst = int64(v.(float64))
		}
	}
	str := func(name string, dst *string) {
		if v, ok := vals[name]; ok {
			*dst = v.(string)
		}
	}
	f("load", &p.Load)
	f("rate", &p.Rate)
	f("burst", &p.Burst)
	if v, ok := vals["k"]; ok {
		p.K = int(v.(float64))
	}
	i("jobs", &p.Jobs)
	i("warmup", &p.Warmup)
	str("arrivals", &p.Arrivals)
	str("dispatch", &p.Dispatch)
	str("order", &p.Order)
	if p.trace != nil && s.traceJobs > 0 { // a jobs or warmup axis over a fitted trace
		if p.Warmup >= s.traceJobs {
			return p, specErr("sweep.warmup", "%d, want fewer than the trace's %d jobs", p.Warmup, s.traceJobs)
		}
		p.Jobs = min(p.Jobs, s.traceJobs-p.Warmup) // the jobs actually measured
	}

	field := func(name string) string {
		if _, ok := vals[name]; ok {
			return "sweep." + name
		}
		return name
	}
	if !(p.Load > 0) || math.IsInf(p.Load, 0) {
		return p, specErr(field("load"), "%v, want a finite load > 0", p.Load)
	}
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		return p, specErr(field("rate"), "%v, want a finite rate > 0 tokens/s", p.Rate)
	}
	if _, err := ratOf(p.Rate, p.RateExact); err != nil {
		return p, specErr(field("rate"), "%v: %v", p.Rate, err)
	}
	for _, x := range []struct {
		name, text string
		f          float64
	}{{"rate", p.RateExact, p.Rate}, {"burst", p.BurstExact, p.Burst}} {
		if r, err := exact.ParseRat(x.text); x.text != "" && (err != nil || r.Float64() != x.f) {
			return p, specErr(x.name+"_exact", "%q, want the exact value of %s = %v, a decimal or a fraction p/q", x.text, x.name, x.f)
		}
	}
	if s.Trace != nil {
		for _, name := range []string{"arrivals", "load"} {
			if _, ok := vals[name]; ok {
				return p, specErr("sweep."+name, "a sweep reading a trace has no generated arrivals to vary; remove the axis or the trace")
			}
		}
		if s.Trace.Path == "" {
			return p, specErr("trace.path", "empty, want the path of a trace file")
		}
		if err := arrivals.CheckRereadable(s.Trace.Path); err != nil {
			return p, specErr("trace.path", "%v", err)
		}
		if _, err := arrivals.FormatFor(s.Trace.Path, s.Trace.Format); err != nil {
			return p, specErr("trace.format", "%v", err)
		}
		p.Arrivals = traceLabel(s.Trace.Path)
	} else if err := (experiments.ArrivalsSpec{Spec: p.Arrivals, Load: 1, Rate: exact.Int(1)}).Check(); err != nil {
		// The spec's own parameters, with a default rate of 1 job/s: λ =
		// ρ·r is checked below.
		return p, specErr(field("arrivals"), "%q, want an arrival spec such as poisson, periodic or 'renewal:dist=gamma,scv=4': %v", p.Arrivals, strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", p.Arrivals)))
	}
	if !(p.Burst >= 1) || math.IsInf(p.Burst, 0) {
		return p, specErr(field("burst"), "%v, want a finite burst >= 1 token", p.Burst)
	}
	if l := p.Lambda(); s.Trace == nil && (!(l > 0) || math.IsInf(l, 0) || math.IsInf(1/l, 0)) {
		return p, specErr(field("load"), "%v gives arrival rate λ = %v jobs/s, want a finite λ > 0 with a finite mean gap", p.Load, l)
	}
	if p.K < 1 || p.K > 65536 {
		return p, specErr(field("k"), "%d, want between 1 and 65536 sub-buckets", p.K)
	}
	if p.Jobs < 1 {
		return p, specErr(field("jobs"), "%d, want >= 1 measured job per replication", p.Jobs)
	}
	if p.Warmup < 0 {
		return p, specErr(field("warmup"), "%d, want >= 0 jobs", p.Warmup)
	}
	if p.Warmup > math.MaxInt64-p.Jobs {
		return p, specErr(field("jobs"), "%d with warmup %d: jobs + warmup overflows a 64-bit count, want jobs + warmup <= %d", p.Jobs, p.Warmup, int64(math.MaxInt64))
	}
	if _, err := buckets.ParseOrder(p.Order); err != nil {
		return p, specErr(field("order"), "%q, want fcfs, lifo or random", p.Order)
	}
	switch p.Dispatch {
	case "rr", "random", "least-loaded", "weighted":
	case "hash", "column":
		return p, specErr(field("dispatch"), "%q needs a trace with keys or sub-bucket columns; a sweep generates its arrivals (use rr, random, least-loaded or weighted)", p.Dispatch)
	default:
		return p, specErr(field("dispatch"), "%q, want rr, random, least-loaded or weighted", p.Dispatch)
	}

	var err *experiments.SpecError
	shares := func(name string, given []float64, axes ...string) []float64 {
		if err != nil {
			return nil
		}
		for _, ax := range axes {
			if v, ok := vals[ax]; ok {
				x := v.(float64)
				if !(x >= 0 && x <= 1) {
					err = specErr("sweep."+ax, "%v, want a share in [0, 1]", x)
					return nil
				}
				if p.K == 1 && x != 1 {
					err = specErr("sweep."+ax, "%v, but with k = 1 the only sub-bucket has share 1", x)
					return nil
				}
				out := make([]float64, p.K)
				out[0] = x
				for l := 1; l < p.K; l++ {
					out[l] = restShare(x, p.K)
				}
				return out
			}
		}
		if given == nil {
			out := make([]float64, p.K)
			for l := range out {
				out[l] = 1 / float64(p.K)
			}
			return out
		}
		if len(given) != p.K {
			err = specErr(name, "%d shares for k = %d sub-buckets", len(given), p.K)
			return nil
		}
		sum := 0.0
		for l, x := range given {
			if !(x >= 0) || math.IsInf(x, 0) {
				err = specErr(name, "share %d is %v, want finite and >= 0", l, x)
				return nil
			}
			sum += x
		}
		if math.Abs(sum-1) > shareTolerance {
			err = specErr(name, "%v adds up to %s, want 1", given, decimalSum(given))
			return nil
		}
		return slices.Clone(given)
	}
	p.RateShares = shares("rate_shares", s.RateShares, "q_rate", "q")
	p.BurstShares = shares("burst_shares", s.BurstShares, "q_burst", "q")
	switch p.Dispatch {
	case "weighted":
		given := s.TrafficShares
		if given == nil && vals["p"] == nil {
			given = p.RateShares
		}
		p.TrafficShares = shares("traffic_shares", given, "p")
	case "random":
		p.TrafficShares = slices.Clone(p.RateShares)
	case "rr":
		p.TrafficShares = make([]float64, p.K)
		for l := range p.TrafficShares {
			p.TrafficShares[l] = 1 / float64(p.K)
		}
	}
	if err != nil {
		return p, err
	}
	if p.Dispatch != "weighted" && (s.TrafficShares != nil || vals["p"] != nil) {
		f := "traffic_shares"
		if vals["p"] != nil {
			f = "sweep.p"
		}
		return p, specErr(f, "dispatch %q ignores traffic shares: use dispatch weighted", p.Dispatch)
	}
	// source names the field that set a sub-bucket parameter: the first
	// axis present among axes, else list when given, else scalar.
	source := func(list string, given bool, scalar string, axes ...string) string {
		for _, a := range axes {
			if _, ok := vals[a]; ok {
				return "sweep." + a
			}
		}
		if given {
			return list
		}
		return field(scalar)
	}
	subs, e := p.Subs()
	if e != nil {
		return p, specErr("rate_shares", "%v", e)
	}
	one, _ := p.One()
	for l, sub := range subs {
		if sub.Rate.Sign() <= 0 {
			return p, specErr(source("rate_shares", s.RateShares != nil, "rate", "q_rate", "q"), "sub-bucket %d gets rate %v, want > 0 (every rate share must be > 0)", l+1, sub.Rate)
		}
		if sub.Burst.Cmp(exact.Int(1)) < 0 {
			return p, specErr(source("burst_shares", s.BurstShares != nil, "burst", "q_burst", "q", "burst", "k"), "sub-bucket %d gets burst %v·%v = %v tokens, want >= 1 (a job needs one whole token; shares are exact decimals, normalised to add up to 1: leave the list out for 1/k each)", l+1, p.Burst, p.BurstShares[l], sub.Burst)
		}
	}
	if e := buckets.ValidateSplit(one, subs, false); e != nil {
		return p, specErr("rate_shares", "%v", e)
	}
	return p, nil
}

// ShortReplicationJobs is the number of measured jobs per replication
// below which, or without a warm-up, [SpecWarnings] warns that confidence
// intervals may not be trusted: the replication means of short runs
// started empty are biased low and correlated with their own spread, so a
// nominal 95% interval covers less (a 200-job replication without warm-up
// covers about 81% at load 0.9).
const ShortReplicationJobs = 10000

// SpecWarnings returns what a user should know before running spec: short
// replications whose intervals may not cover their nominal level,
// replications of one trace (they read the same arrivals), and points where a sub-bucket is offered a load of 1 or more (its queue, and
// the point's delays, grow without bound with the run's length).
//
// Each warning reads the values that run, point by point: a grid's jobs or
// warmup axis (--grid jobs=200,...) is what the short-replication warning
// looks at, and it quotes the jobs and warm-up of the points it is about.
func SpecWarnings(s *Spec) []string {
	var ws []string
	pts, ptsErr := s.Points()
	if ptsErr != nil {
		pts = nil // the spec is refused elsewhere; warn from its own values
	}
	const shortWhy = "their 95%% confidence intervals may cover much less (a 200-job replication without warm-up covers about 81%%); use jobs >= %d and a warm-up of a tenth of that"
	// A trace study measures its trace, whole by default: the trace
	// warning below, not this one, is about its intervals.
	isShort := func(jobs, warmup int64) bool {
		return s.Trace == nil && (jobs < ShortReplicationJobs || warmup == 0)
	}
	var short []*Point
	for i := range pts {
		if isShort(pts[i].Jobs, pts[i].Warmup) {
			short = append(short, &pts[i])
		}
	}
	same := true // every short point runs the same jobs and warm-up
	for _, p := range short {
		same = same && p.Jobs == short[0].Jobs && p.Warmup == short[0].Warmup
	}
	switch {
	case pts == nil && isShort(s.Jobs, s.Warmup):
		ws = append(ws, fmt.Sprintf("replications of %d measured jobs after a warm-up of %d are short: "+shortWhy, s.Jobs, s.Warmup, ShortReplicationJobs))
	case len(short) > 0 && len(short) == len(pts) && same:
		ws = append(ws, fmt.Sprintf("replications of %d measured jobs after a warm-up of %d are short: "+shortWhy, short[0].Jobs, short[0].Warmup, ShortReplicationJobs))
	case len(short) > 0:
		var eg []string
		for _, p := range short[:min(3, len(short))] {
			eg = append(eg, fmt.Sprintf("point %d: %d jobs after a warm-up of %d", p.Index, p.Jobs, p.Warmup))
		}
		more := ""
		if len(short) > 3 {
			more = ", ..."
		}
		ws = append(ws, fmt.Sprintf("%d of %d points have short replications (%s%s): "+shortWhy, len(short), len(pts), strings.Join(eg, "; "), more, ShortReplicationJobs))
	}
	if s.Trace != nil && s.Replications > 1 {
		same := "they differ only in the draws of random dispatch and order"
		if s.Dispatch != "random" && s.Dispatch != "weighted" && s.Order == "fcfs" && !s.sweeps("dispatch", "order") {
			same = "with dispatch " + s.Dispatch + " and order fcfs they are identical"
		}
		ws = append(ws, fmt.Sprintf("the %d replications of each point read the same trace, so %s: their confidence intervals do not measure the traffic's variability (use replications: 1, or generated arrivals)", s.Replications, same))
	}
	unstable := 0
	first := ""
	for i := range pts {
		if l := pts[i].MaxSubLoad(); l >= 1 {
			if unstable == 0 {
				first = fmt.Sprintf("point %d (a sub-bucket at load %.3g)", pts[i].Index, l)
			}
			unstable++
		}
	}
	if unstable > 0 {
		ws = append(ws, fmt.Sprintf("%d of %d points overload a sub-bucket (load >= 1), the first %s: their delays grow with the run's length and have no steady state", unstable, len(pts), first))
	}
	return ws
}

// sweeps reports whether an axis of the sweep varies one of names.
func (s *Spec) sweeps(names ...string) bool {
	for _, g := range s.Sweep {
		for _, a := range g {
			if slices.Contains(names, a.Name) {
				return true
			}
		}
	}
	return false
}

// decimalSum returns the sum of xs written as their shortest decimals,
// exactly (0.7 + 0.2 is 0.9, not float64's 0.8999999999999999); the
// float64 sum when a share has no exact form.
func decimalSum(xs []float64) string {
	sum := exact.Rat{}
	for _, x := range xs {
		r, err := exact.FromFloat64(x)
		if err == nil {
			sum, err = sum.Add(r)
		}
		if err != nil {
			t := 0.0
			for _, x := range xs {
				t += x
			}
			return strconv.FormatFloat(t, 'g', -1, 64)
		}
	}
	return sum.String()
}

// specErr is the error of a spec's field, wrapping [experiments.ErrSpec].
func specErr(field, format string, args ...any) *experiments.SpecError {
	return experiments.StudyErr(field, 0, format, args...)
}

// Override sets the parameters of s named by keys (YAML keys: "rate",
// "k", "sweep", ...) to those of from: flags given on a command line over
// a spec file, say. "rate" and "burst" carry their exact values along.
// Panics on a key that is not a field of Spec (a programmer error).
func (s *Spec) Override(from *Spec, keys ...string) {
	for _, k := range keys {
		dst, ok1 := experiments.YAMLField(s, k)
		src, ok2 := experiments.YAMLField(from, k)
		if !ok1 || !ok2 {
			panic("splitstudy: Override: no spec key " + k)
		}
		dst.Set(src)
		switch k {
		case "rate":
			s.RateExact = from.RateExact
		case "burst":
			s.BurstExact = from.BurstExact
		}
	}
}
