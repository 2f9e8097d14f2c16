package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Every sentence of the report that states a comparison, an optimum, a
// direction or a count is written by a function of the numbers of the
// table beside it (this file and the sections), never as fixed text; the
// qualitative result of each is also recorded as a conclusion, so that
// the quick version can say which of its conclusions differ from the full
// version's.

// conclusion is one qualitative result of the report: an identifier
// stable across runs ("split-k/trend") and its value ("rises").
type conclusion struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

// conclusionsFile is the file, in the output folder, that lists the
// report's conclusions.
const conclusionsFile = "conclusions.json"

// conclusionsDoc is the layout of conclusions.json.
type conclusionsDoc struct {
	Schema      int          `json:"schema_version"`
	Mode        string       `json:"mode"` // "full" or "quick"
	Seed        uint64       `json:"seed"`
	Conclusions []conclusion `json:"conclusions"`
}

// conclude records a conclusion of the report.
func (d *doc) conclude(id, value string) {
	d.conclusions = append(d.conclusions, conclusion{id, value})
}

// writeConclusions stages conclusions.json.
func (d *doc) writeConclusions() error {
	mode := "full"
	if d.cfg.Quick {
		mode = "quick"
	}
	b, err := json.MarshalIndent(conclusionsDoc{Schema: 1, Mode: mode, Seed: d.cfg.Seed, Conclusions: d.conclusions}, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = d.file(conclusionsFile, append(b, '\n'))
	return err
}

// readReference reads the conclusions of the full version in folder dir;
// nil and a reason when there is none to compare with.
func readReference(dir string) (*conclusionsDoc, string) {
	if dir == "" {
		return nil, "no full version was given to compare with (ratesim paper --compare)"
	}
	path := filepath.Join(dir, conclusionsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Sprintf("no full version to compare with: %s cannot be read", filepath.ToSlash(path))
	}
	var c conclusionsDoc
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Sprintf("no full version to compare with: %s: %v", filepath.ToSlash(path), err)
	}
	if c.Mode != "full" {
		return nil, fmt.Sprintf("no full version to compare with: %s is a %s version's", filepath.ToSlash(path), c.Mode)
	}
	return &c, ""
}

// differences compares the conclusions of a quick version with the full
// version's: those whose values differ, and those that only one of the
// two has.
func differences(quick, full []conclusion) (differ, onlyQuick, onlyFull []string) {
	fv := map[string]string{}
	for _, c := range full {
		fv[c.ID] = c.Value
	}
	qv := map[string]bool{}
	for _, c := range quick {
		qv[c.ID] = true
		v, ok := fv[c.ID]
		switch {
		case !ok:
			onlyQuick = append(onlyQuick, c.ID)
		case v != c.Value:
			differ = append(differ, fmt.Sprintf("`%s`: quick %q, full %q", c.ID, c.Value, v))
		}
	}
	for _, c := range full {
		if !qv[c.ID] {
			onlyFull = append(onlyFull, c.ID)
		}
	}
	return differ, onlyQuick, onlyFull
}

// sectionConclusions lists the report's conclusions and, in the quick
// version, compares them with the full version's (Config.Compare).
func sectionConclusions(d *doc) error {
	d.h(2, "Conclusions")
	var rows [][]string
	for _, c := range d.conclusions {
		rows = append(rows, []string{"`" + c.ID + "`", c.Value})
	}
	d.table("The qualitative conclusions of this report, each computed from the tables and figure data above (also in "+conclusionsFile+", which ratesim paper --quick --compare reads).", []string{"conclusion", "value"}, rows)
	if d.cfg.Quick {
		ref, why := d.reference, d.referenceWhy
		switch {
		case ref == nil:
			d.p("Compared with the full version: not done, %s.", why)
		default:
			differ, onlyQuick, onlyFull := differences(d.conclusions, ref.Conclusions)
			if len(differ)+len(onlyQuick)+len(onlyFull) == 0 {
				d.p("Compared with the full version (%s, seed %d): all %d conclusions are the same.", d.cfg.Compare, ref.Seed, len(d.conclusions))
			} else {
				var parts []string
				if len(differ) > 0 {
					parts = append(parts, fmt.Sprintf("%d of %d differ: %s", len(differ), len(d.conclusions), strings.Join(differ, "; ")))
				}
				if len(onlyQuick) > 0 {
					parts = append(parts, "only in the quick version: "+strings.Join(onlyQuick, ", "))
				}
				if len(onlyFull) > 0 {
					parts = append(parts, "only in the full version: "+strings.Join(onlyFull, ", "))
				}
				d.p("Compared with the full version (%s, seed %d): %s. The two versions differ only in their sizes (jobs, replications, instances searched): where they disagree, the full version's conclusion is the better supported.", d.cfg.Compare, ref.Seed, strings.Join(parts, "; "))
			}
		}
	}
	return d.writeConclusions()
}

// trend describes how ys (one per x, x increasing) move with x, in words
// a caption can use: "rises at every step, from 1.17 at k = 2 to 3.4 at
// k = 64", "falls at every step ...", or "is not monotone in k: smallest
// at k = 8 (1.1), largest at k = 64 (3.4)". The value is the conclusion:
// "rises", "falls" or "not monotone". name is the x symbol; f formats a
// y.
func trend(name string, xs, ys []float64, f func(float64) string) (text, value string) {
	if len(xs) < 2 {
		return fmt.Sprintf("is defined at one point only, %s = %s (%s)", name, fmtF(xs[0]), f(ys[0])), "one point"
	}
	up, down := true, true
	lo, hi := 0, 0
	for i := 1; i < len(ys); i++ {
		up = up && ys[i] > ys[i-1]
		down = down && ys[i] < ys[i-1]
		if ys[i] < ys[lo] {
			lo = i
		}
		if ys[i] > ys[hi] {
			hi = i
		}
	}
	n := len(xs) - 1
	switch {
	case up:
		return fmt.Sprintf("rises at every step, from %s at %s = %s to %s at %s = %s", f(ys[0]), name, fmtF(xs[0]), f(ys[n]), name, fmtF(xs[n])), "rises"
	case down:
		return fmt.Sprintf("falls at every step, from %s at %s = %s to %s at %s = %s", f(ys[0]), name, fmtF(xs[0]), f(ys[n]), name, fmtF(xs[n])), "falls"
	}
	return fmt.Sprintf("is not monotone in %s: smallest at %s = %s (%s), largest at %s = %s (%s)", name, name, fmtF(xs[lo]), f(ys[lo]), name, fmtF(xs[hi]), f(ys[hi])), "not monotone"
}
