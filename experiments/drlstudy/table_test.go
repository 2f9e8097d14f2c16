package drlstudy

import (
	"testing"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/internal/param"
)

// The table is one declaration per parameter: its flags and YAML keys
// take and refuse the same values (param.Verify), every parameter a
// design names in its Flags is declared, with that design among its
// readers, and the defaults are the declared ones.
func TestTable(t *testing.T) {
	if err := param.Verify(Table, nil); err != nil {
		t.Error(err)
	}
	flags, readers := drl.FlagDesigns()
	for _, f := range flags {
		p := Table.Lookup(f)
		if p == nil {
			t.Errorf("--%s, read by %v, is not declared", f, readers[f])
			continue
		}
		if len(p.ReadBy) != len(readers[f]) {
			t.Errorf("--%s: read by %v, declared for %v", f, readers[f], p.ReadBy)
		}
	}
	// ratesim drl's defaults, as its help gives them.
	d := DefaultParams()
	if d.Designs != "all" || d.Rate != "10" || d.Burst != "20" || d.Nodes != 4 || d.SyncPeriod != "100ms" || d.BatchLimit != 1000 || d.Smoothing != 0.5 || d.Jobs != 100000 || d.Seed != 1 || d.Scale != nil {
		t.Errorf("DefaultParams() = %+v", d)
	}
}
