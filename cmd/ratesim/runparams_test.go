package main

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/param"
)

// TestRunParamTable: ratesim run's flags of the split study's parameters
// are those splitstudy.RunTable declares: each flag's default is the
// key's, and on the default and every hostile value the flag and the YAML
// key both take the value (holding the same) or both refuse it with the
// same message.
func TestRunParamTable(t *testing.T) {
	if err := param.Verify(splitstudy.RunTable, func() *pflag.FlagSet { return newRunCmd().Flags() }); err != nil {
		t.Error(err)
	}
}
