package limiterstudy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/plots"
	"github.com/ratesim/ratesim/profiles"
)

// TestProfileFigureLabels: two nginx profiles (with and without nodelay)
// get one legend entry and one promise curve each, named by their specs,
// and a run of profiles only is captioned by the profiles, not by the
// family's window, queue and throttle parameters, which do not apply.
func TestProfileFigureLabels(t *testing.T) {
	spec := testLimitersSpec()
	spec.Names = []string{}
	spec.Input = "eight at 0"
	for _, s := range []string{"nginx:rate=10r/s,burst=5", "nginx:rate=10r/s,burst=5,nodelay"} {
		p, err := profiles.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		spec.Profiles = append(spec.Profiles, p)
	}
	res, err := RunLimiters(context.Background(), spec, &limProc{times: slices.Repeat([]float64{0}, 8)})
	if err != nil {
		t.Fatal(err)
	}
	labels := limiterLabels(res)
	if len(labels) != 2 || labels[0] == labels[1] || !strings.HasPrefix(labels[0], "nginx:") || !strings.Contains(labels[1], "nodelay") {
		t.Errorf("labels %q, want the two nginx specs", labels)
	}
	c := LimiterCaption(spec)
	if strings.Contains(c, "W = ") || strings.Contains(c, "throttle") || !strings.Contains(c, "nodelay") {
		t.Errorf("caption of a profiles-only run %q: want the profiles' specs, not the family's parameters", c)
	}
	figs, err := LimiterFigures(res)
	if err != nil {
		t.Fatal(err)
	}
	st := figs[0].Figure.(*plots.Stack)
	seen := map[string]int{}
	for _, pn := range st.Panels {
		for _, l := range pn.Lines {
			if l.Label != "" {
				seen[l.Label]++
			}
		}
	}
	for _, l := range labels {
		if seen["promise "+l+" promise"]+seen[l+" promise"] == 0 {
			t.Errorf("no promise curve for %s among %v", l, seen)
		}
	}
}
