package clientstudy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/param"
)

// ClientsModel is the model key of a sweep spec that is a [ClientsStudy].
const ClientsModel = "clients"

// ClientsStudy is a sweep of reacting clients (ratesim clients) over a
// grid of their parameters, read from a sweep spec with model: clients
// ([ParseClientsStudy]):
//
//	name: clients-backoff
//	model: clients
//	clients:              # ClientsParams, as ratesim clients' flags in snake case
//	  arrivals: cron:n=100,period=10
//	  jobs: 1000
//	replications: 3
//	seed: 1
//	sweep:                # a grid, or a list of grids as in a split spec
//	  backoff: [none, exponential, full]
//	  limit: [5, 10, 20]
//
// Replication r of point p runs with root seed ReplicationSeed(seed, p,
// r). A ClientsStudy is a [Model]: its rows are one per point, the swept
// values then the mean over the replications of each of
// [ClientsMetrics] (with a 95% confidence half-width in METRIC_ci95 when
// there are two or more). A distributed design (ratesim clients
// --design) is built by the [ClientsDesigns] the study is read with
// (package drl's; experiments does not import drl): the block's design key
// and the design's parameters, keys of the block beside the clients' own.
type ClientsStudy struct {
	Name         string                 `yaml:"name"`
	Model        string                 `yaml:"model"`
	Clients      ClientsParams          `yaml:"clients"`
	Replications int                    `yaml:"replications"` // >= 1
	Seed         uint64                 `yaml:"seed"`
	Sweep        experiments.ParamSweep `yaml:"sweep"`

	designs  ClientsDesigns
	given    map[string]bool // the keys of the clients block
	points   []clientsPoint
	axes     []string // the axis names of every grid, in order of first appearance
	axisCols []string // their columns, with units
	axisVals [][]any  // the value of each axis column at each point
}

// SweepableClientsParams lists the parameters a clients sweep can vary:
// the keys of ClientsParams but the trace block.
func SweepableClientsParams() []string { return ClientsTable.Sweepable() }

// ClientsDesigns builds the distributed designs of a clients study, for a
// package experiments does not import (drl).
type ClientsDesigns interface {
	// Params lists the YAML keys of the designs' parameters.
	Params() []string
	// Remote validates the parameters of design (keys of Params, each a
	// YAML value) for the run of p (its Rate and Limit are the design's
	// limit R, B; its Seed the run's) and returns the builder of a fresh
	// design per run (given the run's origin, as ClientsSpec.Remote) and
	// a description of its parameters. Errors are *ParamError naming the
	// key.
	Remote(design string, params map[string]*yaml.Node, p *ClientsParams) (func(origin int64) (clients.Remote, error), string, error)
}

// clientsPoint is one point of the grid: the parameters and the axis
// values.
type clientsPoint struct {
	params ClientsParams
	values map[string]*yaml.Node
	design map[string]*yaml.Node // the design's parameters, as YAML values
}

// ParseClientsStudy reads a clients study from YAML; name (a file name)
// prefixes the errors, which give the line: a syntax error, an unknown
// field, a value of the wrong type, or an invalid value (at the sweep
// point that has it). designs builds the distributed designs; nil
// refuses the design key. Errors wrap ErrSpec.
func ParseClientsStudy(r io.Reader, name string, designs ClientsDesigns) (*ClientsStudy, error) {
	data, err := experiments.ReadSpecData(r, name)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, clientsYAMLError(name, err)
	}
	lines := experiments.KeyLines(&root, "")
	block := experiments.KeyLines(&root, "clients")
	for _, k := range []struct{ key, why string }{
		{"seed", "the seed is the study's top-level seed: replication r of point p runs with its own seed"},
		{"bin", "a sweep keeps no series: leave bin out"},
	} {
		if l, ok := block[k.key]; ok {
			return nil, &experiments.SpecError{File: name, Line: l, Field: "clients." + k.key, Err: fmt.Errorf("%s (%w)", k.why, experiments.ErrSpec)}
		}
	}
	s := &ClientsStudy{Clients: DefaultClientsParams(), Replications: 1, Seed: 1, designs: designs}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		if err == io.EOF {
			return nil, &experiments.SpecError{File: name, Err: fmt.Errorf("empty spec (%w)", experiments.ErrSpec)}
		}
		if pe := (*param.Error)(nil); errors.As(err, &pe) {
			pe.File = name // a value of the clients block, read by ClientsTable
			return nil, fmt.Errorf("%w (%w)", pe, experiments.ErrSpec)
		}
		return nil, clientsYAMLError(name, err)
	}
	s.given = map[string]bool{}
	for k := range block {
		s.given[k] = true
	}
	for k := range s.Clients.DesignParams {
		if !slices.Contains(s.designParams(), k) {
			return nil, &experiments.SpecError{File: name, Line: block[k], Field: "clients", Err: fmt.Errorf("field %s is not a clients parameter (want one of %s, trace) (%w)",
				k, strings.Join(s.sweepable(), ", "), experiments.ErrSpec)}
		}
	}
	if err := s.validate(); err != nil {
		var se *experiments.SpecError
		if errors.As(err, &se) {
			se.File = name
			if se.Line == 0 {
				if k, ok := strings.CutPrefix(se.Field, "clients."); ok {
					se.Line = block[k]
				}
			}
			if se.Line == 0 {
				se.Line = lines[strings.SplitN(se.Field, ".", 2)[0]]
			}
			return nil, se
		}
		return nil, &experiments.SpecError{File: name, Err: err}
	}
	return s, nil
}

// ReadClientsStudy reads the study file at path (see [ParseClientsStudy]).
func ReadClientsStudy(path string, designs ClientsDesigns) (*ClientsStudy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	return ParseClientsStudy(f, path, designs)
}

// clientsYAMLError rewrites "yaml: line N: msg" as "name:N: msg", and the
// decoder's words for an unknown key as the spec's.
func clientsYAMLError(name string, err error) error {
	msg := strings.TrimSuffix(experiments.YAMLError(name, err).Error(), " ("+experiments.ErrSpec.Error()+")")
	msg = strings.Replace(msg, "not found in type clientstudy.ClientsStudy", "is not a field of a clients spec (name, model, clients, replications, seed, sweep)", 1)
	msg = strings.Replace(msg, "not found in type clientstudy.ClientsParams", "is not a clients parameter (want one of "+strings.Join(SweepableClientsParams(), ", ")+", trace)", 1)
	msg = strings.Replace(msg, "not found in type clientstudy.ClientsTrace", "is not a trace field (path, format, time_col, time_format, sort, skip_bad)", 1)
	return fmt.Errorf("%s (%w)", msg, experiments.ErrSpec)
}

// validate enumerates and checks every point.
func (s *ClientsStudy) validate() error {
	if s.Model != ClientsModel {
		return experiments.StudyErr("model", 0, "%q, want %s", s.Model, ClientsModel)
	}
	if s.Replications < 1 || s.Replications > experiments.MaxReplications {
		return experiments.StudyErr("replications", 0, "%d, want between 1 and %d", s.Replications, experiments.MaxReplications)
	}
	if t := s.Clients.Trace; t != nil {
		if t.Path == "" {
			return experiments.StudyErr("clients.trace", 0, "the trace block has no path")
		}
		// Every replication reads the trace again.
		if err := arrivals.CheckRereadable(t.Path); err != nil {
			return experiments.StudyErr("clients.trace", 0, "%v", err)
		}
	}
	if err := s.checkAxes(); err != nil {
		return err
	}
	s.points = nil
	err := s.Sweep.Each(func(g experiments.ParamGrid, idx []int) error {
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

// checkAxes checks the swept parameters' names and the number of points,
// and lists the axes in s.axes.
func (s *ClientsStudy) checkAxes() error {
	sweepable := s.sweepable()
	s.axes = nil
	for _, g := range s.Sweep {
		m := 1
		for _, a := range g {
			if !slices.Contains(sweepable, a.Name) {
				why := "unknown parameter %q, want one of " + strings.Join(sweepable, ", ")
				switch a.Name {
				case "seed":
					why = "%q: the seed is the study's top-level seed: replication r of point p runs with its own seed"
				case "design":
					why = "%q: a distributed design is not a parameter of this clients sweep (sweep the designs with model: drl)"
				}
				return experiments.StudyErr("sweep", a.Line, why, a.Name)
			}
			m *= len(a.Values)
			if m > experiments.MaxPoints {
				return experiments.StudyErr("sweep", a.Line, "more than %d points", experiments.MaxPoints)
			}
			if !slices.Contains(s.axes, a.Name) {
				s.axes = append(s.axes, a.Name)
			}
		}
	}
	return nil
}

// point returns the point of grid g whose axes take the values of index
// idx, checked as a run's spec.
func (s *ClientsStudy) point(g experiments.ParamGrid, idx []int) (clientsPoint, error) {
	p := clientsPoint{params: s.Clients, values: map[string]*yaml.Node{}}
	p.params.DesignParams = maps.Clone(s.Clients.DesignParams)
	p.design = map[string]*yaml.Node{}
	for k, v := range s.Clients.DesignParams {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return p, experiments.StudyErr("clients."+k, 0, "%v", err)
		}
		p.design[k] = &n
	}
	var label []string
	for i, a := range g {
		v := a.Values[idx[i]]
		p.values[a.Name] = v
		label = append(label, a.Name+"="+v.Value)
		if slices.Contains(s.designParams(), a.Name) {
			if p.params.DesignParams == nil {
				p.params.DesignParams = map[string]any{}
			}
			p.params.DesignParams[a.Name] = v.Value
			p.design[a.Name] = v
		} else if err := setAxis(&p.params, a.Name, v); err != nil {
			return p, err
		}
	}
	values := p.values
	p.params.Given = func(param string) bool { return s.given[param] || values[param] != nil }
	p.params.Bin = "0"
	spec, err := s.spec(&p.params, p.design)
	if err == nil && spec.MaxJobs > 0 && p.params.Trace == nil {
		_, err = p.params.generated(&spec) // an invalid arrival spec or load, before the run
	}
	if err != nil {
		field, line := "clients", 0
		var pe *ParamError
		if errors.As(err, &pe) {
			field = "clients." + pe.Param
			if v, ok := p.values[pe.Param]; ok {
				field, line = "sweep."+pe.Param, v.Line
			}
		}
		if len(label) > 0 {
			err = fmt.Errorf("at sweep point %d (%s): %w", len(s.points), strings.Join(label, " "), err)
		}
		return p, &experiments.SpecError{Field: field, Line: line, Err: err}
	}
	return p, nil
}

// setAxis sets parameter name of p to a sweep axis's value: a scalar
// through ClientsTable.Set (the flag's parser), a list (of faults) as YAML
// decodes it.
func setAxis(p *ClientsParams, name string, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		if err := ClientsTable.Set(p, name, v.Value); err != nil {
			return experiments.StudyErr("sweep."+name, v.Line, "%v", err)
		}
		return nil
	}
	if err := experiments.SetYAMLField(p, name, v); err != nil {
		return experiments.StudyErr("sweep."+name, v.Line, "%s: %v", v.Value, err)
	}
	return nil
}

// designParams returns the keys of the designs' parameters, none
// without designs.
func (s *ClientsStudy) designParams() []string {
	if s.designs == nil {
		return nil
	}
	return s.designs.Params()
}

// sweepable returns the parameters a sweep can vary: the clients' but
// the trace, and with designs the designs'; design only with designs.
func (s *ClientsStudy) sweepable() []string {
	out := SweepableClientsParams()
	if s.designs == nil {
		return slices.DeleteFunc(out, func(k string) bool { return k == "design" })
	}
	return append(out, s.designParams()...)
}

// spec returns the specification of a run of p: ClientsParams.Spec, and
// the design built by the study's designs.
func (s *ClientsStudy) spec(p *ClientsParams, design map[string]*yaml.Node) (ClientsSpec, error) {
	spec, err := p.Spec()
	if err != nil {
		return spec, err
	}
	if p.Design == "" {
		for k := range p.DesignParams {
			return spec, &ParamError{Param: k, text: fmt.Sprintf("%s applies with design only", k)}
		}
		return spec, nil
	}
	if s.designs == nil {
		return spec, &ParamError{Param: "design", text: "a distributed design is not a parameter of this clients sweep"}
	}
	remote, desc, err := s.designs.Remote(p.Design, design, p)
	if err != nil {
		return spec, err
	}
	spec.Remote, spec.RemoteName, spec.RemoteParams = remote, "drl "+p.Design, desc
	return spec, nil
}

// clientsColumns are the columns of the numeric parameters, with their
// units; time parameters are in seconds (name_s), the others as
// written.
var (
	clientsTimeParams = []string{"window", "think", "horizon", "base", "cap", "deadline", "retry_after_jitter", "pace_jitter", "backfill_target", "backfill_interval"}
	clientsRatColumns = map[string]string{"rate": "rate_tokens_per_s", "pace": "pace_requests_per_s", "server_rate": "server_rate_jobs_per_s"}
	clientsNumColumns = map[string]string{"limit": "limit", "queue": "queue_jobs", "load": "load", "jobs": "jobs", "users": "users",
		"max_attempts": "max_attempts", "buffer": "buffer_jobs", "backfill": "backfill_requests", "backfill_fraction": "backfill_fraction",
		"backfill_min": "backfill_min", "backfill_max": "backfill_max", "backfill_increase": "backfill_increase", "backfill_decrease": "backfill_decrease"}
)

// axisColumn returns the column of axis name, with its unit, and the
// value of the column at each point (NaN where the point's grid does not
// vary it): seconds for times, numbers for the numeric parameters, the
// text as written otherwise.
func (s *ClientsStudy) axisColumn(name string) (string, []any) {
	vals := make([]any, len(s.points))
	var col string
	var parse func(string) (float64, bool)
	switch {
	case slices.Contains(clientsTimeParams, name):
		col, parse = name+"_s", func(t string) (float64, bool) {
			r, ok := ParseSeconds(t)
			return r.Float64(), ok
		}
	case clientsRatColumns[name] != "":
		col, parse = clientsRatColumns[name], func(t string) (float64, bool) {
			r, err := exact.ParseRat(t)
			return r.Float64(), err == nil
		}
	case clientsNumColumns[name] != "":
		col, parse = clientsNumColumns[name], number
	case slices.Contains(s.designParams(), name):
		// A design's parameter: a number, or a time in seconds (inf for
		// never), or text.
		col, parse = name, number
		for _, p := range s.points {
			if v, in := p.values[name]; in {
				if _, ok := number(v.Value); !ok {
					col, parse = name+"_s", func(t string) (float64, bool) {
						if x, ok := number(t); ok && math.IsInf(x, 1) {
							return x, true
						}
						r, ok := ParseSeconds(t)
						return r.Float64(), ok
					}
					break
				}
			}
		}
	}
	if parse != nil {
		ok := true
		for i, p := range s.points {
			v, in := p.values[name]
			if !in {
				vals[i] = math.NaN()
				continue
			}
			x, good := parse(v.Value)
			ok = ok && good
			vals[i] = x
		}
		if ok {
			return col, vals
		}
	}
	for i, p := range s.points {
		vals[i] = ""
		if v, in := p.values[name]; in {
			vals[i] = v.Value
		}
	}
	return name, vals
}

// number parses a plain number.
func number(t string) (float64, bool) {
	x, err := strconv.ParseFloat(t, 64)
	return x, err == nil
}

// ClientsMetrics are the columns a clients study reports of each point,
// per replication: the original requests, the attempts per request (the
// retry amplification), the goodput (successes per second: served
// downstream with a server, else admitted), the give-ups, the mean and
// p99 latency users see (first attempt to success, successes only) and
// the downstream overflows (of every class).
var ClientsMetrics = []string{"requests", "attempts_per_request", "goodput_per_s", "give_ups", "mean_latency_s", "p99_latency_s", "overflows"}

func clientsMetrics(r *ClientsResult) []float64 {
	fg := r.Foreground
	goodput := fg.Goodput
	if fg.ServedRate != nil {
		goodput = *fg.ServedRate
	}
	var over int64
	for _, c := range r.Downstream {
		over += c.Overflows
	}
	return []float64{float64(fg.Requests), float64(fg.Amplification), goodput, float64(fg.GiveUps), fg.MeanLatency, fg.P99Latency, float64(over)}
}

// Axes returns the names of the swept parameters, in order of first
// appearance.
func (s *ClientsStudy) Axes() []string { return slices.Clone(s.axes) }

// Point returns the parameters of point i (Seed as the study gives it).
func (s *ClientsStudy) Point(i int) ClientsParams { return s.points[i].params }

// NumPoints returns the number of points (Model).
func (s *ClientsStudy) NumPoints() int { return len(s.points) }

// NumReplications returns the replications per point (Model).
func (s *ClientsStudy) NumReplications() int { return s.Replications }

// RootSeed returns the root seed (Model).
func (s *ClientsStudy) RootSeed() uint64 { return s.Seed }

// Columns returns the columns of the rows (Model): the axes (with units:
// base_s), then each of [ClientsMetrics], followed by its METRIC_ci95
// with two replications or more.
func (s *ClientsStudy) Columns() []string {
	cols := slices.Clone(s.axisCols)
	for _, m := range s.metrics() {
		cols = append(cols, m)
		if s.Replications > 1 {
			cols = append(cols, m+"_ci95")
		}
	}
	return cols
}

// Replicate runs point with root seed seed (Model) and returns its
// metrics.
func (s *ClientsStudy) Replicate(ctx context.Context, point, rep int, seed uint64) (any, error) {
	p := s.points[point].params
	p.Seed = seed
	spec, err := s.spec(&p, s.points[point].design)
	if err != nil {
		return nil, err
	}
	a, err := p.OpenArrivals(ctx, &spec)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	res, err := RunClients(ctx, spec, a.Process)
	if err != nil {
		return nil, err
	}
	if s.overloadStudy() {
		return append(clientsMetrics(res), overloadMetrics(res)...), nil
	}
	return clientsMetrics(res), nil
}

// Rows returns the row of point (Model).
func (s *ClientsStudy) Rows(point int, reps []any) ([][]any, error) {
	var row []any
	for _, vals := range s.axisVals {
		row = append(row, vals[point])
	}
	for m := range s.metrics() {
		xs := make([]float64, len(reps))
		for r, x := range reps {
			xs[r] = x.([]float64)[m]
		}
		mean, half := experiments.MeanCI(xs, experiments.ConfidenceLevel)
		row = append(row, mean)
		if s.Replications > 1 {
			row = append(row, half)
		}
	}
	return [][]any{row}, nil
}
