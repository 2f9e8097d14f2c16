package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/internal/param"
)

// keepNumberWording makes cmd (whose flags table binds) word a value that
// is not a number as ratesim's commands did before their flags came from
// internal/param tables (wholeNumberError's wording): "--limit 0.5: want a
// whole number (--limit: USAGE)", "--load x: want a decimal number
// (--load: USAGE)", a Bool's as pflag's strconv.ParseBool error; each
// followed by "(see 'ratesim CMD --help')". Other errors go to the
// parent's FlagErrorFunc.
func keepNumberWording(cmd *cobra.Command, table *param.Table) {
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var pe *param.Error
		if errors.As(err, &pe) && pe.FromFlag {
			switch p := table.Lookup(pe.Key); {
			case p != nil && (p.Kind == param.Int || p.Kind == param.Float):
				return fmt.Errorf("%w (see '%s --help')", numberFlagError(c, pe, p.Kind), c.CommandPath())
			case p != nil && p.Kind == param.Bool:
				err = fmt.Errorf("invalid argument %q for %q flag: strconv.ParseBool: parsing %q: invalid syntax", pe.Value, "--"+pe.Flag, pe.Value)
			}
		}
		return c.Parent().FlagErrorFunc()(c, err)
	})
}

// numberFlagError words pe, a value of an Int or Float flag that its
// grammar refuses, as wholeNumberError does pflag's.
func numberFlagError(c *cobra.Command, pe *param.Error, kind param.Kind) error {
	want := "a whole number"
	if kind == param.Float {
		want = "a decimal number"
	}
	if fl := c.Flags().Lookup(pe.Flag); fl != nil {
		want += " (--" + fl.Name + ": " + fl.Usage + ")"
	}
	if kind == param.Float && strings.Contains(pe.Value, "/") {
		want += "; this flag takes decimals, each used exactly as written (fractions such as 10/3 are taken by run, limiters, clients and drl)"
	}
	return flagError(pe.Flag, pe.Value, want)
}
