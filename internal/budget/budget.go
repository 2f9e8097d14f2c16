// Package budget bounds the memory a run may need, estimated from its
// parameters before any work starts (issue 28): a run whose state would
// exceed the budget is refused naming the parameter, the estimate and the
// largest value that fits, so that Go's out-of-memory crash is never the
// answer.
package budget

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unknown is the budget when the machine's memory cannot be read: 4 GiB.
const Unknown = 4 << 30

// Default returns the default budget in bytes: half of the memory this
// process may use, the machine's physical memory or less where ulimit -v
// or a container's cgroup limit is lower ([Unknown] when it cannot be
// read).
func Default() uint64 {
	if have, ok := physicalMemory(); ok {
		return have / 2
	}
	return Unknown
}

// Physical returns the machine's physical memory in bytes, and false when
// it cannot be known.
func Physical() (uint64, bool) { return physicalMemory() }

// Parse reads a memory size: bytes ("1000000"), or a number with a unit
// B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (of 1024),
// > 0. "" is the default.
func Parse(s string) (uint64, error) {
	if s == "" {
		return Default(), nil
	}
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suf string
		m   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x > 0) || x*mult >= math.MaxUint64/2 {
		return 0, fmt.Errorf("want a memory size > 0 such as 2GB, 512MiB or 1000000 (bytes)")
	}
	return uint64(math.Ceil(x * mult)), nil
}

// Noted, when set, is told of every estimate [Fits] makes (the command
// line passes them to its supervisor, which quotes them if the run dies
// out of memory: the estimate was wrong).
var Noted func(line string)

// Fits reports whether count items of each bytes fit in budget bytes,
// beside a base of fixed state, and returns the estimate (bytes) and the
// largest count that fits (>= 0).
func Fits(budget uint64, count, each float64) (need float64, most int64, ok bool) {
	need = count * each
	if Noted != nil {
		Noted(fmt.Sprintf("estimated about %s of state (%g × %g B) before it started, within a budget of %s", Bytes(need), count, each, Bytes(float64(budget))))
	}
	most = int64(min(float64(budget)/each, math.MaxInt64/2))
	return need, most, need <= float64(budget)
}

// Explain says why a count does not fit: "about 2.56 GB of state (256 B
// per user), more than the memory budget 1 GB (--max-memory; by default
// half the machine's memory)".
func Explain(need float64, each float64, unit string, budget uint64) string {
	return fmt.Sprintf("about %s of state (%g B per %s), more than the memory budget %s (--max-memory; by default half of the memory this process may use: the machine's, or less under ulimit -v or a container's limit)",
		Bytes(need), each, unit, Bytes(float64(budget)))
}

// Bytes shows a size in bytes with an SI unit: "2.56 GB".
func Bytes(b float64) string {
	for _, u := range []struct {
		s string
		m float64
	}{{"EB", 1e18}, {"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if b >= u.m {
			return fmt.Sprintf("%.3g %s", b/u.m, u.s)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}
