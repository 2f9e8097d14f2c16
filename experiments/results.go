package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Num is a statistic that may be undefined: NaN is written as JSON null and
// as an empty CSV field, ±Inf as the JSON strings "+Inf" and "-Inf" and the
// same CSV text. Finite values are written in the shortest form that reads
// back to the same float64, so results survive a round trip exactly.
type Num float64

// MarshalJSON implements json.Marshaler.
func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (x *Num) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null":
		*x = Num(math.NaN())
	case `"+Inf"`:
		*x = Num(math.Inf(1))
	case `"-Inf"`:
		*x = Num(math.Inf(-1))
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("experiments: %s is not a number, null, \"+Inf\" or \"-Inf\"", s)
		}
		*x = Num(f)
	}
	return nil
}

func (x Num) csv() string {
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

// Quantiles are delay quantiles in seconds, from DDSketches merged across
// replications (1% relative accuracy; the q-quantile is the value of
// 0-based rank floor(q·(n-1)) among the n pooled measured delays).
type Quantiles struct {
	P50  Num `json:"p50_s"`
	P90  Num `json:"p90_s"`
	P99  Num `json:"p99_s"`
	P999 Num `json:"p999_s"`
}

// PointResult is a point of a sweep with its statistics over its
// replications. Delays are in seconds and count measured jobs only (the
// warm-up jobs of each replication are left out).
type PointResult struct {
	Point
	MeanOne      Num       `json:"mean_one_s"`        // mean delay of the one bucket: the average of the replication means
	MeanOneCI    Num       `json:"mean_one_ci95_s"`   // half-width of its 95% confidence interval (Student t)
	MeanSplit    Num       `json:"mean_split_s"`      // the same for the split system
	MeanSplitCI  Num       `json:"mean_split_ci95_s"` //
	Ratio        Num       `json:"ratio"`             // split/one ratio of the mean delays (paired replications)
	RatioLo      Num       `json:"ratio_ci95_lo"`     // its 95% confidence interval (delta method, see RatioCI)
	RatioHi      Num       `json:"ratio_ci95_hi"`     //
	One          Quantiles `json:"one"`               // pooled delay quantiles of the one bucket
	Split        Quantiles `json:"split"`             // and of the split system
	DelayedOne   Num       `json:"delayed_one"`       // fraction of measured jobs delayed (delay > 0)
	DelayedSplit Num       `json:"delayed_split"`     //
	MaxSubLoad   Num       `json:"max_sub_load"`      // max_l p_l·λ/(q_l·r); >= 1: a sub-bucket is overloaded
	PKOne        Num       `json:"pk_one_s"`          // Pollaczek-Khinchine mean delay of the one bucket when it is M/D/1
	PKSplit      Num       `json:"pk_split_s"`        // and of the split system when every sub-bucket is
	Violations   uint64    `json:"violations"`        // events where Theorem 2 failed, over all replications (must be 0)
	// LemmaViolations counts events where Lemma 1 failed (must be 0).
	LemmaViolations uint64 `json:"lemma_violations"`
}

// Stable reports whether every sub-bucket has load below 1, so that the
// point's statistics estimate a steady state.
func (r *PointResult) Stable() bool { return float64(r.MaxSubLoad) < 1 }

// Results are the outcome of a sweep, or of a shard of one.
type Results struct {
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

// column is a CSV column: its header and its text for a point.
type column struct {
	name string
	text func(r *PointResult) string
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

func num(f func(r *PointResult) Num) func(r *PointResult) string {
	return func(r *PointResult) string { return f(r).csv() }
}

// columns of the results CSV: the parameters of the point, then its
// statistics.
var columns = []column{
	{"point", func(r *PointResult) string { return strconv.Itoa(r.Index) }},
	{"arrivals", func(r *PointResult) string { return r.Arrivals }},
	{"load", func(r *PointResult) string { return formatFloat(r.Load) }},
	{"lambda_jobs_per_s", func(r *PointResult) string { return formatFloat(r.Lambda()) }},
	{"rate_tokens_per_s", func(r *PointResult) string { return formatFloat(r.Rate) }},
	{"burst_tokens", func(r *PointResult) string { return formatFloat(r.Burst) }},
	{"k", func(r *PointResult) string { return strconv.Itoa(r.K) }},
	{"p", func(r *PointResult) string { return first(r.TrafficShares) }},
	{"q_rate", func(r *PointResult) string { return first(r.RateShares) }},
	{"q_burst", func(r *PointResult) string { return first(r.BurstShares) }},
	{"traffic_shares", func(r *PointResult) string { return shares(r.TrafficShares) }},
	{"rate_shares", func(r *PointResult) string { return shares(r.RateShares) }},
	{"burst_shares", func(r *PointResult) string { return shares(r.BurstShares) }},
	{"dispatch", func(r *PointResult) string { return r.Dispatch }},
	{"order", func(r *PointResult) string { return r.Order }},
	{"jobs", func(r *PointResult) string { return strconv.FormatInt(r.Jobs, 10) }},
	{"warmup", func(r *PointResult) string { return strconv.FormatInt(r.Warmup, 10) }},
	{"replications", func(r *PointResult) string { return strconv.Itoa(r.Replications) }},
	{"mean_one_s", num(func(r *PointResult) Num { return r.MeanOne })},
	{"mean_one_ci95_s", num(func(r *PointResult) Num { return r.MeanOneCI })},
	{"mean_split_s", num(func(r *PointResult) Num { return r.MeanSplit })},
	{"mean_split_ci95_s", num(func(r *PointResult) Num { return r.MeanSplitCI })},
	{"ratio", num(func(r *PointResult) Num { return r.Ratio })},
	{"ratio_ci95_lo", num(func(r *PointResult) Num { return r.RatioLo })},
	{"ratio_ci95_hi", num(func(r *PointResult) Num { return r.RatioHi })},
	{"p50_one_s", num(func(r *PointResult) Num { return r.One.P50 })},
	{"p90_one_s", num(func(r *PointResult) Num { return r.One.P90 })},
	{"p99_one_s", num(func(r *PointResult) Num { return r.One.P99 })},
	{"p999_one_s", num(func(r *PointResult) Num { return r.One.P999 })},
	{"p50_split_s", num(func(r *PointResult) Num { return r.Split.P50 })},
	{"p90_split_s", num(func(r *PointResult) Num { return r.Split.P90 })},
	{"p99_split_s", num(func(r *PointResult) Num { return r.Split.P99 })},
	{"p999_split_s", num(func(r *PointResult) Num { return r.Split.P999 })},
	{"delayed_one", num(func(r *PointResult) Num { return r.DelayedOne })},
	{"delayed_split", num(func(r *PointResult) Num { return r.DelayedSplit })},
	{"max_sub_load", num(func(r *PointResult) Num { return r.MaxSubLoad })},
	{"pk_one_s", num(func(r *PointResult) Num { return r.PKOne })},
	{"pk_split_s", num(func(r *PointResult) Num { return r.PKSplit })},
	{"violations", func(r *PointResult) string { return strconv.FormatUint(r.Violations, 10) }},
	{"lemma_violations", func(r *PointResult) string { return strconv.FormatUint(r.LemmaViolations, 10) }},
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
			b.WriteString(c.text(&r.Points[i]))
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

// ReadResults reads results written by [Results.WriteJSON]. Errors name the
// path.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
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
