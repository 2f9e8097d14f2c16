package splitstudy

import (
	"strings"
	"testing"

	"github.com/ratesim/ratesim/exact"
)

// TestRunParams: the split and the errors of RunParams.Spec. r = 1, b = 10
// in k = 2 equal parts is (1/2, 5) twice; "0.3:4,0.7:6" is given exactly;
// b = 10 cannot be split 20 ways (half a token each); a sum of rates that
// is not r is refused unless AllowUnequal; errors name the parameter as
// Name words it.
func TestRunParams(t *testing.T) {
	base := RunParams{Rate: "1", Burst: "10", K: 2, Dispatch: "rr", Order: "fcfs", Jobs: 100, Warmup: 10,
		Name: func(k string) string { return "--" + k }}
	spec, err := base.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Subs) != 2 || spec.Subs[0].Rate.Cmp(exact.Frac(exact.Int128{}.Add64(1), 2)) != 0 || spec.Subs[1].Burst.Cmp(exact.Int(5)) != 0 || spec.MaxJobs != 100 || spec.Warmup != 10 {
		t.Errorf("k = 2: subs %v, jobs %d, warm-up %d; want (1/2, 5) twice, 100, 10", spec.Subs, spec.MaxJobs, spec.Warmup)
	}
	sub := base
	sub.Sub, sub.Given = "0.3:4,0.7:6", func(k string) bool { return k == "sub" }
	if spec, err := sub.Spec(); err != nil || len(spec.Subs) != 2 || spec.Subs[0].Rate.Cmp(exact.Frac(exact.Int128{}.Add64(3), 10)) != 0 || spec.Subs[1].Burst.String() != "6" {
		t.Errorf("sub pairs: %v, %v", spec.Subs, err)
	}
	trace := base
	trace.WholeTrace = true
	if spec, err := trace.Spec(); err != nil || spec.MaxJobs != 0 {
		t.Errorf("a whole trace: jobs %d, %v; want 0 (all of it)", spec.MaxJobs, err)
	}
	for _, c := range []struct {
		change func(p *RunParams)
		want   string
	}{
		{func(p *RunParams) { p.Rate = "0" }, "--rate 0: want a rate > 0 tokens/s"},
		{func(p *RunParams) { p.Burst = "1/2" }, "--burst 1/2: want a burst >= 1 token"},
		{func(p *RunParams) { p.K = 20 }, "--k 20: want k <= 10: burst 10 split 20 ways leaves less than 1 token per sub-bucket"},
		{func(p *RunParams) { p.Sub, p.Given = "0.5:5,0.4:5", func(k string) bool { return k == "sub" } }, "--sub 0.5:5,0.4:5 with --rate 1 --burst 10: "},
		{func(p *RunParams) { p.Dispatch = "" }, "--dispatch '': want one of"},
		{func(p *RunParams) { p.Warmup = 100 }, "--warmup 100: want a number of jobs below --jobs 100"},
	} {
		p := base
		c.change(&p)
		if _, err := p.Spec(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want it to start %q", err, c.want)
		}
	}
}
