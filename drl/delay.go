package drl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ratesim/ratesim/engine"
)

// Delay is a distribution of network delays, ns:
//
//	fixed      A
//	uniform    an integer uniform in [A, B]
//	lognormal  exp(N(ln A, Sigma²)) rounded to the nanosecond: median A, shape Sigma
//	trace      one of Values drawn uniformly at random: the empirical
//	           distribution of a column of a file (ReadDelayColumn)
//
// The zero value is a fixed delay of 0.
type Delay struct {
	Kind  string      // "fixed", "uniform", "lognormal" or "trace"; "" is fixed
	A, B  engine.Time // ns, >= 0
	Sigma float64     // lognormal shape, >= 0
	// trace: the file and column read (their values: Samples).
	Path, Col string
	samples   *[]engine.Time // behind a pointer: a Delay stays comparable
}

// Samples returns the values of a trace delay, ns, in file order (nil for
// the other kinds); the caller must not modify them.
func (d Delay) Samples() []engine.Time {
	if d.samples == nil {
		return nil
	}
	return *d.samples
}

// Fixed reports whether the delay is always A (no draw).
func (d Delay) Fixed() bool { return d.Kind == "" || d.Kind == "fixed" }

// Draw returns one delay, ns; rng is used only by random kinds.
func (d Delay) Draw(rng *rand.Rand) engine.Time {
	switch d.Kind {
	case "uniform":
		return d.A + engine.Time(rng.Int64N(int64(d.B-d.A)+1))
	case "lognormal":
		if d.A == 0 {
			return 0
		}
		x := math.Exp(math.Log(float64(d.A)) + d.Sigma*rng.NormFloat64())
		if x >= float64(MaxDelay) {
			// Beyond the tail ParseDelay bounds (P < 1e-17 a draw).
			return MaxDelay
		}
		return engine.Time(math.Round(x))
	case "trace":
		xs := *d.samples
		return xs[rng.IntN(len(xs))]
	}
	return d.A
}

func (d Delay) String() string {
	switch d.Kind {
	case "uniform":
		return fmt.Sprintf("uniform:%v:%v", time.Duration(d.A), time.Duration(d.B))
	case "lognormal":
		return fmt.Sprintf("lognormal:%v:%v", time.Duration(d.A), d.Sigma)
	case "trace":
		return fmt.Sprintf("trace:%s:%s", d.Path, d.Col)
	}
	return time.Duration(d.A).String()
}

// MaxDelay is the longest round trip or message delay a run takes: one
// day (86400 s). Delays add to instants that must stay within the clock's
// range (engine.Time, about 292 years) over the run's horizon; a day is
// far beyond any network delay and leaves that range to the arrivals. A
// store or peer that never answers is not a delay: model it with an
// outage (--outage, --fail).
const MaxDelay = engine.Time(86400e9)

// lognormalTailZ is the standard normal quantile ParseDelay checks a
// lognormal delay's tail at: P(Z > 8.5) is about 1e-17, so a run of 10^10
// draws (the most --max-jobs allows) reaches past it with probability
// 1e-7; such a draw is clamped to MaxDelay.
const lognormalTailZ = 8.5

// Max returns the largest delay d draws, ns (for a lognormal, its
// quantile at lognormalTailZ, saturating at math.MaxInt64).
func (d Delay) Max() engine.Time {
	switch d.Kind {
	case "uniform":
		return d.B
	case "lognormal":
		x := float64(d.A) * math.Exp(lognormalTailZ*d.Sigma)
		if !(x < math.MaxInt64) {
			return math.MaxInt64
		}
		return engine.Time(x)
	case "trace":
		return slices.Max(*d.samples)
	}
	return d.A
}

// DelayFile returns the file a delay "trace:FILE:COL" reads, and "" for
// the other kinds: an input a command must not overwrite with its outputs.
func DelayFile(s string) string {
	rest, ok := strings.CutPrefix(s, "trace:")
	if i := strings.LastIndex(rest, ":"); ok && i > 0 {
		return rest[:i]
	}
	return ""
}

// ParseDelay reads a delay distribution: "2ms" or "fixed:2ms",
// "uniform:1ms:3ms", "lognormal:2ms:0.5" (median, shape), or
// "trace:FILE:COL", the values of column COL of FILE (ReadDelayColumn;
// the last colon ends the file name). Durations take a unit (ns, us, ms,
// s) or are plain seconds ("0.002"). A trace is read when parsed; its
// errors name FILE:LINE.
func ParseDelay(s string) (Delay, error) {
	d, err := parseDelay(s)
	if err != nil || d.Max() <= MaxDelay {
		return d, err
	}
	why := fmt.Sprintf("at most %v (a longer wait is an outage: --outage with --fail)", time.Duration(MaxDelay))
	switch d.Kind {
	case "lognormal":
		// The largest shape whose tail quantile fits: ln(MaxDelay/A)/z.
		sg := math.Log(float64(MaxDelay)/float64(d.A)) / lognormalTailZ
		if sg < 0 {
			return Delay{}, fmt.Errorf("drl: delay %q: the median is %s: %w", s, why, ErrSpec)
		}
		why = fmt.Sprintf("a shape <= %s with median %v (its quantile at z = %v, %v here, must be %s)",
			strconv.FormatFloat(math.Floor(sg*1e4)/1e4, 'f', -1, 64), time.Duration(d.A), lognormalTailZ, fmtDelay(d.Max()), why)
	case "trace":
		why = fmt.Sprintf("every value %s; its largest is %v", why, fmtDelay(d.Max()))
	default:
		why = fmt.Sprintf("%s; this is %v", why, fmtDelay(d.Max()))
	}
	return Delay{}, fmt.Errorf("drl: delay %q: %s: %w", s, why, ErrSpec)
}

// fmtDelay shows a delay, "inf" for engine.Forever and beyond.
func fmtDelay(t engine.Time) string {
	if t >= engine.Forever {
		return "inf"
	}
	return time.Duration(t).String()
}

func parseDelay(s string) (Delay, error) {
	if rest, ok := strings.CutPrefix(s, "trace:"); ok {
		i := strings.LastIndex(rest, ":")
		if i <= 0 || i == len(rest)-1 {
			return Delay{}, fmt.Errorf("drl: delay %q: want trace:FILE:COL, COL a header name or a column number from 1: %w", s, ErrSpec)
		}
		return ReadDelayColumn(rest[:i], rest[i+1:])
	}
	parts := strings.Split(s, ":")
	bad := func(why string) (Delay, error) {
		return Delay{}, fmt.Errorf("drl: delay %q: %s (want 2ms, fixed:2ms, uniform:1ms:3ms, lognormal:2ms:0.5 or trace:FILE:COL): %w", s, why, ErrSpec)
	}
	kind := "fixed"
	if len(parts) > 1 {
		kind, parts = parts[0], parts[1:]
	}
	// The fields each kind takes, and what a wrong count is told.
	fields := map[string]struct {
		n    int
		want string
	}{"fixed": {1, "a fixed delay has one duration"}, "uniform": {2, "a uniform delay has two durations"}, "lognormal": {2, "a lognormal delay has a median and a shape"}}
	f, ok := fields[kind]
	if !ok {
		return bad("unknown kind " + strconv.Quote(kind))
	}
	if len(parts) != f.n {
		return bad(f.want)
	}
	a, err := ParseDuration(parts[0])
	if err != nil {
		return bad(delayDurationWhy(err))
	}
	switch kind {
	case "uniform":
		b, err := ParseDuration(parts[1])
		if err != nil {
			return bad(delayDurationWhy(err))
		}
		if b < a {
			return bad("the upper end is below the lower")
		}
		return Delay{Kind: "uniform", A: a, B: b}, nil
	case "lognormal":
		sg, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || !(sg >= 0) || math.IsInf(sg, 0) {
			return bad("the shape is a finite number >= 0")
		}
		return Delay{Kind: "lognormal", A: a, Sigma: sg}, nil
	}
	return Delay{Kind: "fixed", A: a}, nil
}

// delayDurationWhy is why a delay's duration was refused, with the longest
// delay that fits when the duration was out of range rather than not one.
func delayDurationWhy(err error) string {
	var de *engine.DurationError
	if errors.As(err, &de) && !de.Syntax {
		return fmt.Sprintf("%v; a delay is at most %v", err, time.Duration(MaxDelay))
	}
	return err.Error()
}
