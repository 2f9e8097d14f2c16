package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/systems"
)

// figureFormats are the formats of every figure flag.
var figureFormats = []string{"png", "svg", "pdf"}

// flagValues lists the values shell completion offers for the flags that
// take one of a fixed set, by flag name: --format is always a trace
// format, and --plot-format a figure format.
func flagValues() map[string][]string {
	return map[string][]string{
		"dispatch":    systems.DispatchNames,
		"order":       {"fcfs", "lifo", "random"},
		"limiter":     limiterstudy.LimiterNames,
		"limiters":    limiterstudy.LimiterNames,
		"builtin":     builtinNames(),
		"time-format": {"unix", "unix-ms", "unix-us", "unix-ns", "datetime", "rfc3339"},
		"format":      arrivals.Formats,
		"plot-format": figureFormats,
		"backoff":     clients.BackoffNames(),
		"designs":     drl.Designs,
		"design":      drl.Designs,
		"algorithm":   {"token-bucket", "leaky-bucket"},
	}
}

// completeValues registers value completion for every flag of the tree
// named in flagValues, and makes 'ratesim completion SHELL' refuse a shell
// it has no script for (cobra would print the help and exit 0).
func completeValues(root *cobra.Command) {
	values := flagValues()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			vals, ok := values[fl.Name]
			if !ok {
				return
			}
			c.RegisterFlagCompletionFunc(fl.Name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("ratesim completion %s: no script for this shell: want one of %s", args[0], strings.Join(shells, ", "))
		}
	}
}
