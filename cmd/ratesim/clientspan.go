package main

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/experiments/clientstudy"
)

// clientsSpanError refuses generated requests whose expected span, jobs−1
// gaps at λ = spec.Offered requests/s, is beyond the clock's range for a
// clients run (clientstudy.MaxClientSpan, a quarter of engine.Time's 292
// years), naming --load with the least load that fits, or --jobs when
// --load was not given; nil when the span fits or the requests come from
// a trace. Without it such a run is refused for its series' bins instead,
// naming --bin, which the user did not set.
func (f *clientsFlags) clientsSpanError(spec clientstudy.ClientsSpec, loadGiven bool) error {
	if f.p.Trace != nil || !(spec.Offered > 0) || spec.MaxJobs <= 1 {
		return nil
	}
	span := float64(spec.MaxJobs-1) / spec.Offered // seconds
	most := clientstudy.MaxClientSpan.Seconds()
	if span <= most {
		return nil
	}
	why := fmt.Sprintf("%d requests at λ = %.4g requests/s span about %.4g s, beyond %.10g s (a quarter of the clock's range)", spec.MaxJobs, spec.Offered, span, most)
	if loadGiven {
		least := f.p.Load * span / most
		least = math.Ceil(least/math.Pow(10, math.Floor(math.Log10(least))-3)) * math.Pow(10, math.Floor(math.Log10(least))-3) // 4 digits, up
		return flagError("load", f.p.Load, fmt.Sprintf("a load >= %.4g, or fewer --jobs: %s", least, why))
	}
	return flagError("jobs", spec.MaxJobs, fmt.Sprintf("at most %d requests: %s", int64(most*spec.Offered)+1, why))
}
