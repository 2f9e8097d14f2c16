package splitstudy

import "math"

// RunJSON is the JSON of a run (ratesim run --json) after the output's
// header: the result, then what was run, in seconds, tokens and tokens/s.
type RunJSON struct {
	Result
	Input        string       `json:"input"`
	Rate         float64      `json:"rate_tokens_per_s"`
	Burst        float64      `json:"burst_tokens"`
	Subs         []ParamsJSON `json:"sub_buckets"`
	Dispatch     string       `json:"dispatch"`
	Order        string       `json:"order"`
	Seed         uint64       `json:"seed"`
	MeanRatio    *float64     `json:"mean_delay_ratio"` // split over one; null when the one bucket delays no job
	SkippedLines int          `json:"skipped_lines"`
}

// ParamsJSON is a sub-bucket in [RunJSON]: rate and burst as numbers,
// and exactly (a decimal or a fraction).
type ParamsJSON struct {
	Rate       float64 `json:"rate_tokens_per_s"`
	Burst      float64 `json:"burst_tokens"`
	RateExact  string  `json:"rate_tokens_per_s_exact"` // the exact value, as given or reduced: "1/3"
	BurstExact string  `json:"burst_tokens_exact"`
}

// NewRunJSON returns the JSON of res, the result of spec on the arrivals
// input describes ("trace jobs.csv"), skipped bad trace lines left out.
func NewRunJSON(input string, spec RunSpec, res Result, skipped int) RunJSON {
	out := RunJSON{Result: res, Input: input, Rate: spec.One.Rate.Float64(), Burst: spec.One.Burst.Float64(),
		Dispatch: spec.Dispatch, Order: spec.Order.String(), Seed: spec.Seed, SkippedLines: skipped}
	for _, s := range spec.Subs {
		out.Subs = append(out.Subs, ParamsJSON{Rate: s.Rate.Float64(), Burst: s.Burst.Float64(), RateExact: s.Rate.String(), BurstExact: s.Burst.String()})
	}
	if r := Ratio(res.Split.Mean, res.One.Mean); !math.IsNaN(r) && !math.IsInf(r, 0) {
		out.MeanRatio = &r // null when undefined (no delay in the one bucket)
	}
	return out
}

// Ratio is the split/one ratio a/b of two mean delays. Special cases:
//
//	a = b = 0   NaN (no job waited in either system)
//	b = 0       +Inf (no job waited in the one bucket)
func Ratio(a, b float64) float64 {
	if b == 0 {
		if a == 0 {
			return math.NaN()
		}
		return math.Inf(1)
	}
	return a / b
}
