// Package version owns what ratesim says of itself: its version, from the
// module's build information (a tag when built with `go install
// module@version`, "(devel)" from a checkout) or set at link time, the VCS
// revision when the build recorded one, and the version of the JSON
// outputs' schema.
package version

import (
	"runtime"
	"runtime/debug"
)

// Schema is the version of the layout of every JSON output (run --json,
// limiters --json, trace stats --json, sweep and merge results): it
// changes when a key is renamed or removed or its meaning changes.
//
// History: 1, the first layout; 2, keys with units everywhere and the same
// statistic named the same in every output (docs/outputs.md, "JSON outputs"); 3,
// the overshoot exact over every interval length (drl, clients, limiters)
// and drl's jobs_over_promise renamed jobs_delayed_by_shaper.
const Schema = 3

// Linked is set at link time to override the module version:
// go build -ldflags "-X github.com/ratesim/ratesim/internal/version.Linked=v1.2.3".
var Linked string

// Info is the version information of the running binary.
type Info struct {
	Version   string // the module version, Linked when set, or "(devel)"
	Revision  string // the VCS revision, when the build recorded one
	Modified  bool   // the working tree had uncommitted changes
	GoVersion string // the Go toolchain that built it
}

// Get returns the version information of the running binary.
func Get() Info {
	in := Info{Version: "(devel)", GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if Linked != "" {
		in.Version = Linked
	}
	return in
}

// Commit returns the revision with "+dirty" appended for a modified tree,
// or "" when the build recorded none.
func (in Info) Commit() string {
	if in.Revision == "" || !in.Modified {
		return in.Revision
	}
	return in.Revision + "+dirty"
}

// String returns the version, with the short revision when known, for
// --version and captions: "v1.2.3", or "(devel) 4f4c957+dirty".
func (in Info) String() string {
	s := in.Version
	if in.Revision != "" {
		r := in.Revision
		if len(r) > 7 {
			r = r[:7]
		}
		s += " " + r
		if in.Modified {
			s += "+dirty"
		}
	}
	return s
}
