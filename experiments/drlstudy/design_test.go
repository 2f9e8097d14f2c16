package drlstudy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/param"
	"github.com/ratesim/ratesim/systems"
)

// designAlternate is a toy design, registered by TestRegisterDesign alone:
// the job with an even number is admitted at once by node ID mod N, the
// others are rejected. It is its type, its methods and one call of
// drl.Register, outside package drl: nothing else names it.
type designAlternate struct{}

func (designAlternate) Name() string                           { return "alternate" }
func (designAlternate) Params() []param.Param                  { return nil }
func (designAlternate) Flags() []string                        { return []string{"loss"} }
func (designAlternate) Parse(*drl.Spec, drl.Values) error      { return nil }
func (designAlternate) Check(drl.Spec) error                   { return nil }
func (designAlternate) CheckParams(drl.Spec, drl.Values) error { return nil }
func (designAlternate) LocalBuckets(drl.Spec) bool             { return false }
func (designAlternate) Theorem2NA(drl.Spec) string             { return "a toy" }
func (designAlternate) LeftOut(drl.Spec) string                { return "" }
func (designAlternate) Describe(s drl.Spec) string {
	return fmt.Sprintf(", %d nodes, every other job", s.Nodes)
}
func (designAlternate) Header(drl.Spec) string    { return "admits every other job" }
func (designAlternate) Marks(drl.Spec) []drl.Mark { return nil }
func (designAlternate) Caption(drl.Spec) []drl.CaptionParam {
	return []drl.CaptionParam{{Flag: "loss", Text: "every other job"}}
}

func (designAlternate) New(s drl.Spec, r *drl.Recorder) (drl.Model, error) {
	return &alternate{n: s.Nodes, r: r}, nil
}

type alternate struct {
	n int
	r *drl.Recorder
}

func (a *alternate) Offer(_ *engine.Sim, j systems.Job) error {
	if j.ID%2 == 0 {
		a.r.Admit(int(j.ID)%a.n, j, 0, a.r.At(0))
	} else {
		a.r.Reject(int(j.ID)%a.n, j)
	}
	return nil
}

// A design registered in a test alone runs through the study: "all"
// includes it, its rows come after the registry's designs, and the
// figures' caption and Theorem 2 read it through the interface.
func TestRegisterDesign(t *testing.T) {
	unregister := drl.Register(designAlternate{})
	if !slices.Contains(drl.Designs, "alternate") {
		t.Fatalf("Designs = %v after Register", drl.Designs)
	}
	s := parseStudy(t, `
model: drl
drl: {designs: "one,alternate", police: true, jobs: 801}
sweep:
  nodes: [1, 3]
`)
	tab := runStudy(t, s, 1)
	if len(tab.Rows) != 4 {
		t.Fatalf("%d rows, want 2 designs × 2 points", len(tab.Rows))
	}
	adm := tab.Column("admitted")
	for i, r := range tab.Rows {
		if i%2 == 0 {
			continue
		}
		// Jobs 0, 2, ..., 800 of 801: 401 admitted.
		if r[1] != "alternate" || r[adm] != float64(401) && r[adm] != int64(401) {
			t.Errorf("row %d: design %v, admitted %v (%T); want alternate, 401", i, r[1], r[adm], r[adm])
		}
	}
	spec := drl.Spec{Design: "alternate", Nodes: 3, Dispatch: "rr"}
	if got := Caption(spec, []string{"alternate"}, "input"); !strings.HasSuffix(got, "; alternate: every other job") {
		t.Errorf("caption %q", got)
	}
	if got := drl.Theorem2NA(spec); got != "a toy" {
		t.Errorf("Theorem2NA = %q", got)
	}
	if !drl.Reads("alternate", "loss") || drl.Reads("alternate", "rtt") {
		t.Error("Reads does not follow Flags")
	}
	unregister()
	if slices.Contains(drl.Designs, "alternate") {
		t.Fatalf("Designs = %v after unregistering", drl.Designs)
	}
	if _, ok := drl.Lookup("alternate"); ok {
		t.Fatal("alternate still registered")
	}
}
