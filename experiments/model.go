package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/internal/crash"
	"github.com/ratesim/ratesim/internal/version"
)

// Model is a study the sweep runner runs point by point and replication
// by replication: the split of a token bucket (package
// experiments/splitstudy), the distributed rate-limiting designs of
// package drl, the reacting clients. The runner owns
// the seeds, the workers, the shard and the progress; the model owns what
// a replication computes and how a point's replications become rows of
// the results table. Its methods are called from several goroutines at
// once and must not share state across calls.
type Model interface {
	// NumPoints is the number of points of the sweep, >= 1.
	NumPoints() int
	// NumReplications is the number of replications per point, >= 1.
	NumReplications() int
	// RootSeed is the root seed of the sweep.
	RootSeed() uint64
	// Columns names the columns of the rows, units in the names
	// (mean_delay_s).
	Columns() []string
	// Replicate runs replication rep of point with run seed seed
	// (ReplicationSeed(RootSeed(), point, rep)) and returns what Rows needs
	// of it.
	Replicate(ctx context.Context, point, rep int, seed uint64) (any, error)
	// Rows returns the rows of a point from its replications, in
	// replication order: each row a value per column, a float64 (NaN for
	// none) or a string.
	Rows(point int, reps []any) ([][]any, error)
}

// Table is the results of a [Model]'s sweep: a row per point and
// whatever the model distinguishes within a point (a design, say).
type Table struct {
	Schema       int      `json:"schema_version"`
	Version      string   `json:"ratesim_version"`
	GoVersion    string   `json:"go_version,omitempty"`
	Commit       string   `json:"commit,omitempty"`
	Model        string   `json:"model"`
	SpecDigest   string   `json:"spec_sha256,omitempty"` // of the spec file's bytes: merge checks the shards ran one spec
	Name         string   `json:"name,omitempty"`
	Seed         uint64   `json:"seed"`
	Replications int      `json:"replications"`
	Shard        string   `json:"shard,omitempty"` // "i/n", or "" for the whole sweep
	PointsTotal  int      `json:"points_total"`
	Points       []int    `json:"points"`  // the points run, in order; Rows holds theirs in the same order
	Columns      []string `json:"columns"` // "point" (the point's index), then the model's
	Rows         [][]any  `json:"-"`
	Interrupted  bool     `json:"interrupted,omitempty"`
}

// RunModel runs every replication of every point of m (or of the shard's
// points) on opt.Workers goroutines and returns the rows of each point,
// in point order. The results do not depend on the number of workers or
// the sharding: replication rep of point p runs with seed
// ReplicationSeed(m.RootSeed(), p, rep) (a model may derive its streams
// otherwise from (point, rep), as the split study does for common random
// numbers). On cancellation it returns the points finished, with
// Interrupted set, and ctx.Err().
//
// opt.DoneTable resumes: the rows of its points are kept and only the
// other points run, so that the table is the one an uninterrupted run
// gives (the caller checks first with [Table.CheckResume], or the study's
// own check, that it is the same sweep).
func RunModel(ctx context.Context, name, model string, m Model, opt SweepOptions) (*Table, error) {
	if err := opt.Shard.validate(); err != nil {
		return nil, err
	}
	doneRows := map[int][][]any{}
	if d := opt.DoneTable; d != nil {
		for _, p := range d.Points {
			if p < 0 || p >= m.NumPoints() || !opt.Shard.Has(p) {
				return nil, fmt.Errorf("experiments: finished point %d is not a point of this sweep (%d points, shard %q)", p, m.NumPoints(), opt.Shard)
			}
			doneRows[p] = [][]any{}
		}
		for _, r := range d.Rows {
			p, _ := r[0].(float64)
			if _, ok := doneRows[int(p)]; !ok {
				return nil, fmt.Errorf("experiments: a finished row has point %v, which the table does not list", r[0])
			}
			doneRows[int(p)] = append(doneRows[int(p)], r)
		}
	}
	n, reps := m.NumPoints(), m.NumReplications()
	if n < 1 || n > MaxPoints || reps < 1 || reps > MaxReplications {
		return nil, fmt.Errorf("experiments: %d points of %d replications: want 1 to %d points of 1 to %d replications", n, reps, MaxPoints, MaxReplications)
	}
	var sel []int
	mine := 0
	for i := range n {
		if opt.Shard.Has(i) {
			mine++
			if _, done := doneRows[i]; !done {
				sel = append(sel, i)
			}
		}
	}
	canon, sel, copies := modelSamePoints(m, sel, opt.Shard)
	vi := version.Get()
	t := &Table{Schema: version.Schema, Version: vi.Version, GoVersion: vi.GoVersion, Commit: vi.Commit(), Model: model, Name: name, Seed: m.RootSeed(),
		Replications: reps, Shard: opt.Shard.String(), PointsTotal: n, Columns: append([]string{"point"}, m.Columns()...), Points: []int{}}
	rows := make([][][]any, len(sel))
	finished := make([]bool, len(sel))
	run := func(ctx context.Context, p, rep int) (any, error) {
		return replicateSafe(ctx, m, canon[p], rep, ReplicationSeed(m.RootSeed(), canon[p], rep))
	}
	done := func(i int, reps []any) error {
		rs, err := m.Rows(sel[i], reps)
		for j, r := range rs {
			rs[j] = append([]any{float64(sel[i])}, r...)
		}
		rows[i], finished[i] = rs, err == nil
		return err
	}
	var progress func(points, replications int)
	if opt.Progress != nil {
		progress = func(points, nrep int) {
			opt.Progress(SweepProgress{Points: len(doneRows) + points, PointsTotal: mine, Replications: nrep, ReplicationsTotal: len(sel) * reps})
		}
	}
	firstErr := replicate(ctx, sel, reps, opt.Workers, run, done, progress)
	byPoint := doneRows
	for i, ok := range finished {
		if ok {
			byPoint[sel[i]] = rows[i]
		}
	}
	copyRows(byPoint, canon, copies)
	for p := range n {
		if rs, ok := byPoint[p]; ok {
			t.Points = append(t.Points, p)
			t.Rows = append(t.Rows, rs...)
		}
	}
	if firstErr != nil {
		return t, firstErr
	}
	if err := ctx.Err(); err != nil {
		t.Interrupted = true
		return t, err
	}
	return t, nil
}

func replicateSafe(ctx context.Context, m Model, point, rep int, seed uint64) (r any, err error) {
	defer crash.Recover(&err)
	return m.Replicate(ctx, point, rep, seed)
}

// cell formats one value of a row for CSV: a float64 with the fewest
// digits that read back the same ("NaN" and "+Inf" as strconv writes
// them), a string as it is.
func cell(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	panic(fmt.Sprintf("experiments: table value %v of type %T", v, v))
}

// WriteCSV writes the table as CSV: a header of the columns, then a line
// per row.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Columns)
	rec := make([]string, len(t.Columns))
	for _, r := range t.Rows {
		for i, v := range r {
			rec[i] = cell(v)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// jsonCell is a value of a row in JSON: numbers as numbers, NaN and
// infinities (which JSON lacks) as null and "inf" / "-inf".
func jsonCell(v any) any {
	if x, ok := v.(float64); ok {
		switch {
		case math.IsNaN(x):
			return nil
		case math.IsInf(x, 1):
			return "inf"
		case math.IsInf(x, -1):
			return "-inf"
		}
	}
	return v
}

// WriteJSON writes the table as one JSON object: the header fields, then
// "rows", a list of objects whose keys are the columns, in column order.
func (t *Table) WriteJSON(w io.Writer) error {
	head, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	var b []byte
	b = append(b, head[:len(head)-2]...) // up to the closing "\n}"
	b = append(b, ",\n  \"rows\": ["...)
	for i, r := range t.Rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {"...)
		for j, v := range r {
			if j > 0 {
				b = append(b, ", "...)
			}
			k, _ := json.Marshal(t.Columns[j])
			x, err := json.Marshal(jsonCell(v))
			if err != nil {
				return err
			}
			b = append(append(append(b, k...), ": "...), x...)
		}
		b = append(b, '}')
	}
	if len(t.Rows) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "]\n}\n"...)
	_, err = w.Write(b)
	return err
}

// WriteFiles writes the table to csvPath and jsonPath, each whole or not
// at all (see internal/atomicfile).
func (t *Table) WriteFiles(csvPath, jsonPath string) error {
	for _, f := range []struct {
		path  string
		write func(io.Writer) error
	}{{csvPath, t.WriteCSV}, {jsonPath, t.WriteJSON}} {
		if err := atomicfile.Write(context.Background(), f.path, f.write); err != nil {
			return fmt.Errorf("experiments: writing %s: %w", f.path, err)
		}
	}
	return nil
}

// Column returns the index of the named column, or -1.
func (t *Table) Column(name string) int { return slices.Index(t.Columns, name) }

// CheckResume reports whether t, the table of an earlier run read back
// with [ReadTable], can be resumed by a run of model with spec digest
// digest, seed, replications, columns (point included) and shard, by this
// build: the error says which differs.
func (t *Table) CheckResume(model, digest string, seed uint64, reps int, columns []string, shard Shard, ver, goVer, commit string) error {
	switch {
	case t.Model != model:
		return fmt.Errorf("experiments: the results are of model %q, the spec of %q", t.Model, model)
	case t.SpecDigest != digest || !slices.Equal(t.Columns, columns):
		return fmt.Errorf("experiments: the results were run with another spec (its bytes have changed)")
	case t.Seed != seed || t.Replications != reps:
		return fmt.Errorf("experiments: the results have seed %d and %d replications, the run %d and %d", t.Seed, t.Replications, seed, reps)
	case t.Shard != shard.String():
		return fmt.Errorf("experiments: the results are of shard %q, the run of %q", t.Shard, shard.String())
	case t.Schema != version.Schema || t.Version != ver || t.GoVersion != goVer || t.Commit != commit:
		return fmt.Errorf("experiments: the results were written by ratesim %s %s (%s), this is %s %s (%s)", t.Version, t.Commit, t.GoVersion, ver, commit, goVer)
	}
	return nil
}

// ReadTable reads a table that [Table.WriteJSON] wrote (a shard's, say).
// Numbers come back as float64, null as NaN and "inf" / "-inf" as
// infinities, so that writing it again gives the same bytes.
func ReadTable(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	var raw struct {
		Table
		Rows []map[string]any `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("experiments: %s: %w", path, err)
	}
	t := raw.Table
	if t.Model == "" || len(t.Columns) == 0 {
		return nil, fmt.Errorf("experiments: %s: not a model's results table (no model or columns)", path)
	}
	for i, r := range raw.Rows {
		row := make([]any, len(t.Columns))
		for j, c := range t.Columns {
			v, ok := r[c]
			if !ok {
				return nil, fmt.Errorf("experiments: %s: row %d has no %s", path, i+1, c)
			}
			switch x := v.(type) {
			case nil:
				row[j] = math.NaN()
			case json.Number:
				f, err := x.Float64()
				if err != nil {
					return nil, fmt.Errorf("experiments: %s: row %d: %s: %w", path, i+1, c, err)
				}
				row[j] = f
			case string:
				switch x {
				case "inf":
					row[j] = math.Inf(1)
				case "-inf":
					row[j] = math.Inf(-1)
				default:
					row[j] = x
				}
			default:
				return nil, fmt.Errorf("experiments: %s: row %d: %s is neither a number nor a string", path, i+1, c)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return &t, nil
}

// MergeTables combines the tables of the shards of one model's sweep into
// the table a single run writes, rows in point order. The parts must come
// from the same model, spec (SpecDigest), seed, replications and build,
// hold disjoint points and cover every point; the error names the part.
func MergeTables(parts []*Table) (*Table, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("experiments: nothing to merge")
	}
	ref := parts[0]
	out := *ref
	out.Shard, out.Points, out.Rows, out.Interrupted = "", nil, nil, false
	seen := map[int]int{}
	type prow struct {
		point int
		row   []any
	}
	var rows []prow
	for i, p := range parts {
		switch {
		case p.Model != ref.Model || p.SpecDigest != ref.SpecDigest || p.Name != ref.Name || !slices.Equal(p.Columns, ref.Columns):
			return nil, fmt.Errorf("experiments: part %d has a different spec from part 1", i+1)
		case p.Seed != ref.Seed || p.Replications != ref.Replications:
			return nil, fmt.Errorf("experiments: part %d has seed %d and %d replications, part 1 seed %d and %d", i+1, p.Seed, p.Replications, ref.Seed, ref.Replications)
		case p.Schema != ref.Schema || p.Version != ref.Version || p.GoVersion != ref.GoVersion || p.Commit != ref.Commit:
			return nil, fmt.Errorf("experiments: part %d was run by another ratesim build than part 1: results must come from one build", i+1)
		case p.PointsTotal != ref.PointsTotal:
			return nil, fmt.Errorf("experiments: part %d has %d points in all, part 1 %d", i+1, p.PointsTotal, ref.PointsTotal)
		case p.Interrupted:
			return nil, fmt.Errorf("experiments: part %d was interrupted: run its shard again", i+1)
		}
		for _, pt := range p.Points {
			if j, dup := seen[pt]; dup {
				return nil, fmt.Errorf("experiments: point %d is in part %d and part %d", pt, j+1, i+1)
			}
			seen[pt] = i
		}
		for _, r := range p.Rows {
			pt, _ := r[0].(float64)
			rows = append(rows, prow{int(pt), r})
		}
	}
	if len(seen) != ref.PointsTotal {
		return nil, fmt.Errorf("experiments: the parts hold %d of %d points (an interrupted or absent shard?)", len(seen), ref.PointsTotal)
	}
	slices.SortStableFunc(rows, func(a, b prow) int { return a.point - b.point })
	for pt := range ref.PointsTotal {
		out.Points = append(out.Points, pt)
	}
	for _, r := range rows {
		out.Rows = append(out.Rows, r.row)
	}
	return &out, nil
}

// SweepOptions control how a sweep runs; they do not change its results.
type SweepOptions struct {
	Workers int   // replications run in parallel; 0 means runtime.GOMAXPROCS(0)
	Shard   Shard // the subset of points to run; the zero value runs them all
	// Progress, when not nil, is called after each replication, from the
	// goroutine that called RunModel.
	Progress func(SweepProgress)
	// DoneTable holds the rows of the points an earlier, interrupted run
	// of the same sweep finished (checked with [Table.CheckResume]):
	// RunModel runs only the other points and returns all of them, in
	// point order. Since a point's rows depend on (seed, point) alone, the
	// table is that of one uninterrupted run, byte for byte once written.
	DoneTable *Table
}

// SweepProgress is how far a sweep has come.
type SweepProgress struct {
	Points      int // points finished, those of SweepOptions.Done included
	PointsTotal int // points of the sweep, or of its shard
	// Replications counts the replications this call has run, of the
	// ReplicationsTotal it runs (the points of Done excluded).
	Replications, ReplicationsTotal int
}
