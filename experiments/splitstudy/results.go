package splitstudy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/internal/specfile"
	"github.com/ratesim/ratesim/internal/version"
)

// numCSV is x's text in the results CSV: empty for NaN, +Inf and -Inf as
// such, a finite value in the shortest form that reads back the same.
func numCSV(x experiments.Num) string {
	f := float64(x)
	if math.IsNaN(f) {
		return ""
	}
	return formatFloat(f)
}

func formatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// SystemStats are the statistics of one system at a point of a sweep, in
// seconds, over the measured jobs of its replications (the warm-up jobs
// are left out). The names are those of ratesim run's per-system
// statistics ([Stats]).
type SystemStats struct {
	MeanDelay   experiments.Num `json:"mean_delay_s"`      // the average of the replication means
	MeanDelayCI experiments.Num `json:"mean_delay_ci95_s"` // half-width of its 95% confidence interval (Student t)
	// Quantiles of the pooled delays, nearest rank (see QuantileMethod):
	// exact while the pooled delayed jobs fit ExactQuantileJobs, from a
	// DDSketch of 1% relative accuracy beyond.
	P50     experiments.Num `json:"p50_delay_s"`
	P90     experiments.Num `json:"p90_delay_s"`
	P99     experiments.Num `json:"p99_delay_s"`
	P999    experiments.Num `json:"p999_delay_s"`
	Delayed experiments.Num `json:"delayed_fraction"` // fraction of measured jobs delayed (delay > 0)
	// PK is the Pollaczek-Khinchine mean delay where the system is M/D/1
	// (Poisson arrivals, bursts of 1, random or weighted dispatch), NaN
	// otherwise.
	PK experiments.Num `json:"pk_mean_delay_s"`
}

// PointResult is a point of a sweep with its statistics over its
// replications.
type PointResult struct {
	Point
	One   SystemStats `json:"one"`   // the one bucket
	Split SystemStats `json:"split"` // the split system
	// Ratio is mean_delay(split)/mean_delay(one) over paired replications,
	// and [RatioLo, RatioHi] its 95% confidence interval, from the delta
	// method on the log of the ratio (see RatioCI): positive, like the
	// ratio.
	Ratio      experiments.Num `json:"mean_delay_ratio"`
	RatioLo    experiments.Num `json:"mean_delay_ratio_ci95_lo"`
	RatioHi    experiments.Num `json:"mean_delay_ratio_ci95_hi"`
	MaxSubLoad experiments.Num `json:"max_sub_load"` // max_l p_l·λ/(q_l·r); >= 1: a sub-bucket is overloaded
	Violations uint64          `json:"violations"`   // evaluated instants where Theorem 2 failed, over all replications (must be 0)
	// LemmaViolations counts evaluated instants where Lemma 1 failed
	// (must be 0).
	LemmaViolations uint64 `json:"lemma_violations"`
}

// Stable reports whether every sub-bucket has load below 1, so that the
// point's statistics estimate a steady state.
func (r *PointResult) Stable() bool { return float64(r.MaxSubLoad) < 1 }

// Results are the outcome of a sweep, or of a shard of one.
type Results struct {
	Schema      int           `json:"schema_version"`        // version.Schema of the layout
	Version     string        `json:"ratesim_version"`       // version of the ratesim that ran it
	GoVersion   string        `json:"go_version"`            // Go toolchain that built it
	Commit      string        `json:"commit,omitempty"`      // VCS revision, when known
	Seed        uint64        `json:"seed"`                  // root seed (also in the spec)
	Spec        *Spec         `json:"spec"`                  // the experiment
	Shard       string        `json:"shard,omitempty"`       // "i/n" for a shard, empty for the whole sweep
	PointsTotal int           `json:"points_total"`          // points of the whole sweep
	Interrupted bool          `json:"interrupted,omitempty"` // stopped early: Points holds the finished ones
	Points      []PointResult `json:"points"`                // in point order
}

// column is a column of the results: its header and, for a parameter of
// the point, its text; for a statistic, the field that holds it (a Num,
// or a count).
type column struct {
	name  string
	text  func(r *PointResult) string
	stat  func(r *PointResult) *experiments.Num
	count func(r *PointResult) *uint64
}

// csv is the column's text for r in the results CSV.
func (c column) csv(r *PointResult) string {
	switch {
	case c.stat != nil:
		return numCSV(*c.stat(r))
	case c.count != nil:
		return strconv.FormatUint(*c.count(r), 10)
	}
	return c.text(r)
}

// cell is the column's value for r in the table of [experiments.RunModel]:
// the index of the point as a float64, a parameter as its CSV text, a
// statistic as a float64 (NaN for none).
func (c column) cell(r *PointResult) any {
	switch {
	case c.name == "point":
		return float64(r.Index)
	case c.stat != nil:
		return float64(*c.stat(r))
	case c.count != nil:
		return float64(*c.count(r))
	}
	return c.text(r)
}

// row is r as a row of the table of [experiments.RunModel], "point"
// first.
func (r *PointResult) row() []any {
	row := make([]any, len(columns))
	for i, c := range columns {
		row[i] = c.cell(r)
	}
	return row
}

// table is r as the table of [experiments.RunModel]: what a resumed sweep
// keeps of the points finished.
func (r *Results) table() *experiments.Table {
	t := &experiments.Table{Model: specfile.SplitModel, Seed: r.Seed, Shard: r.Shard, PointsTotal: r.PointsTotal, Columns: CSVColumns()}
	for i := range r.Points {
		t.Points = append(t.Points, r.Points[i].Index)
		t.Rows = append(t.Rows, r.Points[i].row())
	}
	return t
}

// results are the statistics of the points of t, the table of m's sweep
// (see [Model.Rows]).
func (m *Model) results(t *experiments.Table) *Results {
	res := &Results{Schema: t.Schema, Seed: m.spec.Seed, Spec: m.spec, Shard: t.Shard, PointsTotal: t.PointsTotal, Interrupted: t.Interrupted}
	for _, row := range t.Rows {
		pr := PointResult{Point: m.pts[int(row[0].(float64))]}
		for i, c := range columns {
			switch {
			case c.stat != nil:
				*c.stat(&pr) = experiments.Num(row[i].(float64))
			case c.count != nil:
				*c.count(&pr) = uint64(row[i].(float64))
			}
		}
		res.Points = append(res.Points, pr)
	}
	return res
}

func shares(s []float64) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = formatFloat(x)
	}
	return strings.Join(parts, ";")
}

func first(s []float64) string {
	if len(s) == 0 {
		return ""
	}
	return formatFloat(s[0])
}

// loadCSV is the load column: empty for a point that reads a trace, where
// the spec's load does not apply.
func (r *PointResult) loadCSV() string {
	if r.trace != nil {
		return ""
	}
	return formatFloat(r.Load)
}

// columns of the results CSV: the parameters of the point, then its
// statistics.
var columns = []column{
	{name: "point", text: func(r *PointResult) string { return strconv.Itoa(r.Index) }},
	{name: "arrivals", text: func(r *PointResult) string { return r.Arrivals }},
	{name: "load", text: func(r *PointResult) string { return r.loadCSV() }},
	{name: "lambda_jobs_per_s", text: func(r *PointResult) string { return numCSV(experiments.Num(r.Lambda())) }}, // empty for a trace
	{name: "rate_tokens_per_s", text: func(r *PointResult) string { return formatFloat(r.Rate) }},
	{name: "burst_tokens", text: func(r *PointResult) string { return formatFloat(r.Burst) }},
	{name: "k", text: func(r *PointResult) string { return strconv.Itoa(r.K) }},
	{name: "p", text: func(r *PointResult) string { return first(r.TrafficShares) }},
	{name: "q_rate", text: func(r *PointResult) string { return first(r.RateShares) }},
	{name: "q_burst", text: func(r *PointResult) string { return first(r.BurstShares) }},
	{name: "traffic_shares", text: func(r *PointResult) string { return shares(r.TrafficShares) }},
	{name: "rate_shares", text: func(r *PointResult) string { return shares(r.RateShares) }},
	{name: "burst_shares", text: func(r *PointResult) string { return shares(r.BurstShares) }},
	{name: "dispatch", text: func(r *PointResult) string { return r.Dispatch }},
	{name: "order", text: func(r *PointResult) string { return r.Order }},
	{name: "jobs", text: func(r *PointResult) string { return strconv.FormatInt(r.Jobs, 10) }},
	{name: "warmup", text: func(r *PointResult) string { return strconv.FormatInt(r.Warmup, 10) }},
	{name: "replications", text: func(r *PointResult) string { return strconv.Itoa(r.Replications) }},
	{name: "one_mean_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.One.MeanDelay }},
	{name: "one_mean_delay_ci95_s", stat: func(r *PointResult) *experiments.Num { return &r.One.MeanDelayCI }},
	{name: "split_mean_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.MeanDelay }},
	{name: "split_mean_delay_ci95_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.MeanDelayCI }},
	{name: "mean_delay_ratio", stat: func(r *PointResult) *experiments.Num { return &r.Ratio }},
	{name: "mean_delay_ratio_ci95_lo", stat: func(r *PointResult) *experiments.Num { return &r.RatioLo }},
	{name: "mean_delay_ratio_ci95_hi", stat: func(r *PointResult) *experiments.Num { return &r.RatioHi }},
	{name: "one_p50_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.One.P50 }},
	{name: "one_p90_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.One.P90 }},
	{name: "one_p99_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.One.P99 }},
	{name: "one_p999_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.One.P999 }},
	{name: "split_p50_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.P50 }},
	{name: "split_p90_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.P90 }},
	{name: "split_p99_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.P99 }},
	{name: "split_p999_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.P999 }},
	{name: "one_delayed_fraction", stat: func(r *PointResult) *experiments.Num { return &r.One.Delayed }},
	{name: "split_delayed_fraction", stat: func(r *PointResult) *experiments.Num { return &r.Split.Delayed }},
	{name: "max_sub_load", stat: func(r *PointResult) *experiments.Num { return &r.MaxSubLoad }},
	{name: "one_pk_mean_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.One.PK }},
	{name: "split_pk_mean_delay_s", stat: func(r *PointResult) *experiments.Num { return &r.Split.PK }},
	{name: "violations", count: func(r *PointResult) *uint64 { return &r.Violations }},
	{name: "lemma_violations", count: func(r *PointResult) *uint64 { return &r.LemmaViolations }},
}

// CSVColumns returns the header of the results CSV.
func CSVColumns() []string {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.name
	}
	return names
}

// WriteCSV writes one row per point, parameters then statistics (see
// [CSVColumns]). Share lists are written as "0.7;0.3". No field needs
// quoting.
func (r *Results) WriteCSV(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString(strings.Join(CSVColumns(), ",") + "\n")
	for i := range r.Points {
		for j, c := range columns {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(c.csv(&r.Points[i]))
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes the results as one indented JSON object.
func (r *Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadResults reads results written by [Results.WriteJSON] of this
// schema (version.Schema). Errors name the path; results of another
// schema are refused with the two versions.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var head struct {
		Schema int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("experiments: %s: not a ratesim results file: %w", path, err)
	}
	if head.Schema != version.Schema {
		got := fmt.Sprintf("results of schema_version %d", head.Schema)
		if head.Schema == 0 {
			got = "results without a schema_version (from a ratesim that recorded none)"
		}
		return nil, fmt.Errorf("experiments: %s: %s; this ratesim reads %d: rerun the sweep with it", path, got, version.Schema)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Results
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("experiments: %s: not a ratesim results file: %w", path, err)
	}
	if r.Spec == nil {
		return nil, fmt.Errorf("experiments: %s: results without a spec", path)
	}
	if err := r.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", path, err)
	}
	return &r, nil
}

// WriteFiles writes the results to csvPath and jsonPath, each to a
// temporary file renamed over the target, so that each file is whole or
// absent.
func (r *Results) WriteFiles(csvPath, jsonPath string) error {
	for _, f := range []struct {
		path  string
		write func(io.Writer) error
	}{{csvPath, r.WriteCSV}, {jsonPath, r.WriteJSON}} {
		err := atomicfile.Write(context.Background(), f.path, f.write)
		if err != nil {
			return fmt.Errorf("experiments: writing %s: %w", f.path, err)
		}
	}
	return nil
}

// CheckResume reports whether r, the results of an earlier run read back
// with [ReadResults], can be resumed by a run of spec on shard with this
// build (version, Go version and commit as [Results] records them): the
// same schema, spec, seed, shard and build, so that the points r holds are
// those the run would compute. The error says which differs.
func (r *Results) CheckResume(spec *Spec, shard experiments.Shard, ver, goVer, commit string) error {
	a, err := json.Marshal(r.Spec)
	if err != nil {
		return err
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	switch {
	case r.Schema != version.Schema:
		return fmt.Errorf("experiments: the results have schema_version %d, this ratesim writes %d", r.Schema, version.Schema)
	case !bytes.Equal(a, b):
		return fmt.Errorf("experiments: the results are of another experiment (their spec differs from this one: %s)", specDiff(a, b))
	case r.Seed != spec.Seed:
		return fmt.Errorf("experiments: the results have seed %d, this run %d", r.Seed, spec.Seed)
	case r.Shard != shard.String():
		return fmt.Errorf("experiments: the results are of shard %q, this run of %q", r.Shard, shard.String())
	case r.Version != ver || r.GoVersion != goVer || r.Commit != commit:
		return fmt.Errorf("experiments: the results were written by ratesim %s %s (%s), this is %s %s (%s): points must come from one build",
			r.Version, r.Commit, r.GoVersion, ver, commit, goVer)
	}
	seen := make(map[int]bool, len(r.Points))
	for _, p := range r.Points {
		if p.Index < 0 || p.Index >= r.PointsTotal || !shard.Has(p.Index) || seen[p.Index] {
			return fmt.Errorf("experiments: the results hold point %d, not a point of this sweep, or twice", p.Index)
		}
		seen[p.Index] = true
	}
	return nil
}

// specDiff names the fields in which the JSON objects a (the results'
// spec) and b (this run's) differ, with both values, at most four:
// "seed 1 in the results, 2 in this run".
func specDiff(a, b []byte) string {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "unreadable"
	}
	var diffs []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		mx, okx := x.(map[string]any)
		my, oky := y.(map[string]any)
		if okx && oky {
			keys := make([]string, 0, len(mx)+len(my))
			for k := range mx {
				keys = append(keys, k)
			}
			for k := range my {
				if _, ok := mx[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, mx[k], my[k])
			}
			return
		}
		ja, _ := json.Marshal(x)
		jb, _ := json.Marshal(y)
		if !bytes.Equal(ja, jb) {
			diffs = append(diffs, fmt.Sprintf("%s %s in the results, %s in this run", path, ja, jb))
		}
	}
	walk("", x, y)
	if len(diffs) > 4 {
		diffs = append(diffs[:4], fmt.Sprintf("and %d more", len(diffs)-4))
	}
	return strings.Join(diffs, "; ")
}
