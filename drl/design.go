package drl

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ratesim/ratesim/internal/param"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// Design is one distributed rate-limiting design: everything the package,
// the drl study and the command line know of it that is not common to
// every design. Each design is one type in its own file (design_one.go,
// design_static.go, ...) and one line of [registry]; nothing else names
// it. Spec.Design selects a design by its Name.
type Design interface {
	// Name is the design's name on the command line and in the
	// results ("static").
	Name() string
	// Flags are the command line's flags of the parameters of Spec that
	// the design reads beyond the common ones (R, B, nodes, dispatch,
	// police, seed): a flag that no design run reads changes nothing and
	// is refused. "node-limiter" among them says the design runs
	// Spec.Static.NodeLimiter; "peers" that it has Gubernator peers.
	Flags() []string
	// Params declares (internal/param) the parameters of the command line
	// and of the drl study that the design is the first of the registry
	// to read: a parameter several designs read is declared once, by the
	// first, and the others name it in Flags. A parameter's readers
	// (param.Param.ReadBy) are the designs whose Flags name it.
	Params() []param.Param
	// Parse sets the design's group of parameters in s (Spec.Static,
	// Spec.Store, ...) from the values of the parameters it declares
	// (Params), each checked there once, and returns a *ParamError
	// naming the first it refuses, or nil. It reads only the keys it
	// declares; s.Nodes is set.
	Parse(s *Spec, v Values) error
	// Check returns an error wrapping ErrSpec for a field of s the design
	// cannot run with, or nil. Spec.Validate has checked the fields every
	// design shares.
	Check(s Spec) error
	// CheckParams is Check in the words of the parameters as the user
	// gave them: raw(key) is the value of the parameter key (a YAML key
	// of the drl study) as given. It returns a *ParamError naming the
	// parameter, or nil.
	CheckParams(s Spec, raw Values) error
	// LocalBuckets reports whether the design keeps a bucket (R/N, B/N)
	// of each key at each node under s, which needs B/N >= 1.
	LocalBuckets(s Spec) bool
	// Theorem2NA says why the check of Theorem 2 does not apply to the
	// design under s, or "" when it does (see Theorem2NA).
	Theorem2NA(s Spec) string
	// LeftOut says why --designs all leaves the design out under s (only
	// s.Bucket and s.Police are set), or "" when it runs it.
	LeftOut(s Spec) string
	// Caption lists the parameters that change the design's numbers,
	// written for a figure's caption, with the flag that sets each (a
	// sweep over that flag leaves it out).
	Caption(s Spec) []CaptionParam
	// Describe describes the design's parameters after the promise, for
	// humans: ", 4 nodes, dispatch rr, round trip 1ms, shaping".
	Describe(s Spec) string
	// Header is the design's line in the header of ratesim drl's table,
	// after its name, or "" for none.
	Header(s Spec) string
	// Marks are the events of a run to mark on a time series.
	Marks(s Spec) []Mark
	// New builds the design's model of s, which tells r its decisions.
	// s has passed Validate.
	New(s Spec, r *Recorder) (Model, error)
}

// Model is a design running: Run calls Offer for each job in arrival
// order, after every event due at or before j.T has run on sim. A model
// tells its Recorder each decision, at the instant it is made.
type Model interface {
	Offer(sim *engine.Sim, j systems.Job) error
}

// CaptionParam is a parameter of a caption: the command line's flag that
// sets it and its text.
type CaptionParam struct{ Flag, Text string }

// Mark is an event of a run on a time series, seconds since the origin:
// an interval [From, To) shaded as a band (the store down), or an instant
// From = To drawn as a dashed vertical line (a re-split). Label names the
// first mark of its kind.
type Mark struct {
	From, To float64
	Label    string
}

// Band reports whether m is an interval rather than an instant.
func (m Mark) Band() bool { return m.To > m.From }

// registry holds the designs in the order the command runs them. Adding a
// design is its file and one line here.
var registry = []Design{
	designOne{},
	designStatic{},
	designStore{},
	designSync{},
	designReconcile{},
	designLease{},
	designDemand{fps: false},
	designDemand{fps: true},
}

// Designs lists the names of the designs, in the order the command runs
// them (the registry's).
var Designs = names(registry)

func names(ds []Design) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name()
	}
	return out
}

// Lookup returns the design named name.
func Lookup(name string) (Design, bool) {
	for _, d := range registry {
		if d.Name() == name {
			return d, true
		}
	}
	return nil, false
}

// Register adds d after the designs registered so far (for a test, or a
// design kept outside the package) and returns the function that removes
// it again. It is not safe to call while designs run. Panics if a design
// of that name is registered.
func Register(d Design) (unregister func()) {
	if _, ok := Lookup(d.Name()); ok {
		panic("drl: Register: a design " + d.Name() + " is registered")
	}
	saved, savedNames := registry, Designs
	registry = append(slices.Clip(registry), d)
	Designs = names(registry)
	return func() { registry, Designs = saved, savedNames }
}

// Reads reports whether the design named name reads the parameter of the
// command line's flag (see Design.Flags).
func Reads(name, flag string) bool {
	d, ok := Lookup(name)
	return ok && slices.Contains(d.Flags(), flag)
}

// FlagDesigns returns, for each flag some design reads, the designs that
// read it, in registry order; flags in order of first appearance.
func FlagDesigns() (flags []string, designs map[string][]string) {
	designs = map[string][]string{}
	for _, d := range registry {
		for _, f := range d.Flags() {
			if designs[f] == nil {
				flags = append(flags, f)
			}
			designs[f] = append(designs[f], d.Name())
		}
	}
	return flags, designs
}

// DesignParams returns the declarations of the parameters the designs
// read (Design.Params), in registry order, each with its readers set
// (the designs whose Flags name it).
func DesignParams() []param.Param {
	_, readers := FlagDesigns()
	var out []param.Param
	seen := map[string]bool{}
	for _, d := range registry {
		for _, p := range d.Params() {
			if seen[p.Key] {
				continue // one type, two designs (grd and fps)
			}
			seen[p.Key] = true
			p.ReadBy = readers[p.FlagName()]
			out = append(out, p)
		}
	}
	return out
}

// Recorder is what a model tells its decisions to, and the exact units
// of its run: every instant and span in units of 1/Scale ns, as in
// package buckets.
type Recorder struct {
	res *Result
	u   units
}

// Scale returns the units per nanosecond of the run.
func (r *Recorder) Scale() int64 { return r.u.scale }

// At returns instant t (ns) in units.
func (r *Recorder) At(t engine.Time) exact.Int128 { return r.u.at(t) }

// Admit records that node admitted j after extra ns of network time and
// a wait of wait units in a bucket.
func (r *Recorder) Admit(node int, j systems.Job, extra engine.Time, wait exact.Int128) {
	r.res.admit(node, j, extra, wait)
}

// Reject records that node rejected j.
func (r *Recorder) Reject(node int, j systems.Job) { r.res.reject(node, j) }

// modeText is how the jobs without a token are treated under s.
func modeText(s Spec) string {
	if s.Police {
		return ", policing"
	}
	return ", shaping"
}

// nodesText is the nodes and dispatch of s, for Describe.
func nodesText(s Spec) string { return fmt.Sprintf(", %d nodes, dispatch %s", s.Nodes, s.Dispatch) }

// span is a duration for a description: "0.1 s", or "never".
func span(t engine.Time) string {
	if t == engine.Forever {
		return "never"
	}
	return fmt.Sprintf("%v s", t.Seconds())
}

// capDur is a duration for a caption: "100ms", or "never".
func capDur(t engine.Time) string {
	if t == engine.Forever {
		return "never"
	}
	return time.Duration(t).String()
}

// policingNA is why Theorem 2 does not apply to a policing design.
const policingNA = "policing: no job waits, S = 0"

// refuseNodeLimiter is the error for a node limiter given to a design
// that keeps no per-node limiter.
func refuseNodeLimiter(s Spec) error {
	if s.Static.NodeLimiter == nil {
		return nil
	}
	return fmt.Errorf("drl: node limiter %s: design %s keeps no per-node limiter a library could stand in for (want static, or store with its local fallback): %w", s.Static.NodeLimiterName, s.Design, ErrSpec)
}

// captionList builds a caption: add appends a parameter.
type captionList []CaptionParam

func (c *captionList) add(flag, format string, args ...any) {
	*c = append(*c, CaptionParam{flag, fmt.Sprintf(format, args...)})
}

// scaleText lists scale events for humans.
func scaleText(evs []ScaleEvent, at func(engine.Time) string) string {
	var ev []string
	for _, e := range evs {
		ev = append(ev, fmt.Sprintf("%d nodes at %s", e.Nodes, at(e.At)))
	}
	return strings.Join(ev, ", ")
}

// defaults gives a design the answers of a design that reads no
// parameter beyond the common ones, keeps a bucket per node, is never
// left out, and has nothing to add to a caption, a header or a time
// series; a design embeds it and overrides what differs.
type defaults struct{}

func (defaults) Params() []param.Param          { return nil }
func (defaults) Flags() []string                { return nil }
func (defaults) Parse(*Spec, Values) error      { return nil }
func (defaults) Check(Spec) error               { return nil }
func (defaults) CheckParams(Spec, Values) error { return nil }
func (defaults) LocalBuckets(Spec) bool         { return true }
func (defaults) LeftOut(Spec) string            { return "" }
func (defaults) Caption(Spec) []CaptionParam    { return nil }
func (defaults) Header(Spec) string             { return "" }
func (defaults) Marks(Spec) []Mark              { return nil }

// Describe describes the parameters of s that matter to its design, for
// humans: "R = 10 tokens/s, B = 10 tokens, 4 nodes, dispatch rr, ...".
func (s Spec) Describe() string {
	p := fmt.Sprintf("R = %v tokens/s, B = %v tokens", s.Bucket.Rate, s.Bucket.Burst)
	d, ok := Lookup(s.Design)
	if !ok {
		return p
	}
	return p + d.Describe(s)
}

// marksOf returns n marks, the i-th over span(i) (instants, ns; an
// instant when both are equal), the first labelled label.
func marksOf(n int, span func(i int) (from, to engine.Time), label string) []Mark {
	var out []Mark
	for i := range n {
		from, to := span(i)
		out = append(out, Mark{From: from.Seconds(), To: to.Seconds()})
	}
	if len(out) > 0 {
		out[0].Label = label
	}
	return out
}
