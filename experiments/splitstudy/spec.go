package splitstudy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/specfile"
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

// ParseSpec reads a spec from YAML, starting from [DefaultSpec]. name (a
// file name) prefixes the errors, which give the line: a syntax error, an
// unknown field, a value of the wrong type, or an invalid value.
func ParseSpec(r io.Reader, name string) (*Spec, error) {
	data, err := specfile.Read(r, name)
	if err != nil {
		return nil, err
	}
	spec := DefaultSpec()
	data, fractions := exactFractions(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		if err == io.EOF {
			return nil, &specfile.Error{File: name, Err: fmt.Errorf("empty spec (%w)", specfile.ErrSpec)}
		}
		return nil, specfile.YAMLError(name, err)
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); err != io.EOF {
		return nil, &specfile.Error{File: name, Err: fmt.Errorf("more than one YAML document (%w)", specfile.ErrSpec)}
	}
	if r, ok := fractions["rate"]; ok {
		spec.RateExact = r
	}
	if b, ok := fractions["burst"]; ok {
		spec.BurstExact = b
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, specfile.YAMLError(name, err)
	}
	lines := specfile.KeyLines(&root, "")
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
		var se *specfile.Error
		if errors.As(err, &se) {
			se.File = name
			if se.Line == 0 {
				se.Line = lines[strings.SplitN(se.Field, ".", 2)[0]]
			}
			return nil, se
		}
		return nil, &specfile.Error{File: name, Err: err}
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

// ReadSpec reads the spec file at path (see [ParseSpec]).
func ReadSpec(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	return ParseSpec(f, path)
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
	if s.Model != "" && s.Model != specfile.SplitModel {
		return specErr("model", "%q, want %s here (a spec of another model is read by that model's package; see SpecModel)", s.Model, specfile.SplitModel)
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
func (s *Spec) checkAxisUse(a Axis) *specfile.Error {
	conflict := func(field string, set bool) *specfile.Error {
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

// specErr is the error of a spec's field, wrapping [specfile.ErrSpec].
func specErr(field, format string, args ...any) *specfile.Error {
	return specfile.StudyErr(field, 0, format, args...)
}

// Override sets the parameters of s named by keys (YAML keys: "rate",
// "k", "sweep", ...) to those of from: flags given on a command line over
// a spec file, say. "rate" and "burst" carry their exact values along.
// Panics on a key that is not a field of Spec (a programmer error).
func (s *Spec) Override(from *Spec, keys ...string) {
	for _, k := range keys {
		dst, ok1 := specfile.YAMLField(s, k)
		src, ok2 := specfile.YAMLField(from, k)
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
