package main

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/internal/param"
)

// TestParamTables checks that the flags of ratesim clients and limiters
// and the YAML keys of their tables are one declaration: for each
// parameter, a fresh command's flag has the table's default and takes or
// refuses each of param.Hostile's values as the key does, with the same
// message (param.Verify).
func TestParamTables(t *testing.T) {
	for _, c := range []struct {
		table *param.Table
		flags func() *pflag.FlagSet
	}{
		{clientstudy.ClientsTable, func() *pflag.FlagSet { return newClientsCmd().Flags() }},
		{limiterstudy.LimitersTable, func() *pflag.FlagSet { return newLimitersCmd().Flags() }},
	} {
		if err := param.Verify(c.table, c.flags); err != nil {
			t.Errorf("%s:\n%v", c.table.Name(), err)
		}
	}
}
