package main

import (
	"github.com/ratesim/ratesim/internal/budget"
	"github.com/spf13/pflag"
)

// physicalMemory returns the machine's memory in bytes, and false when it
// cannot be known.
func physicalMemory() (uint64, bool) { return budget.Physical() }

// addMaxMemory adds --max-memory to fl, read into p.
func addMaxMemory(fl *pflag.FlagSet, p *string) {
	fl.StringVar(p, "max-memory", "", "refuse, before it starts, a run whose state (users, nodes, backfill, ...) is estimated above this many bytes (2GB, 512MiB; default half of the machine's memory)")
}

// maxMemory reads --max-memory.
func maxMemory(text string) (uint64, error) {
	b, err := budget.Parse(text)
	if err != nil {
		return 0, flagError("max-memory", text, err.Error()[len("want "):])
	}
	return b, nil
}
