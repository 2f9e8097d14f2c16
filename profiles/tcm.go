package profiles

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Colour is the mark a three-colour marker gives a packet.
type Colour uint8

const (
	Green  Colour = iota // conforms to the committed rate and burst
	Yellow               // exceeds the committed, within the excess (RFC 2697) or peak (RFC 2698) burst
	Red                  // exceeds both
)

// String returns "green", "yellow" or "red".
func (c Colour) String() string {
	switch c {
	case Green:
		return "green"
	case Yellow:
		return "yellow"
	case Red:
		return "red"
	}
	return "Colour(?)"
}

// ColourCounts counts the packets a marker has marked, by colour.
type ColourCounts struct {
	Green, Yellow, Red int64
}

// ColourVerdicts maps the colours a marker gives to the verdicts of the
// limiter protocol. Green is always [buckets.Admit]; the RFCs leave what follows a
// mark to the network, so yellow and red are configurable: the default
// admits yellow (the packet is only marked) and rejects red (a policer
// dropping red).
type ColourVerdicts struct {
	Yellow buckets.Verdict // Admit or Reject
	Red    buckets.Verdict // Admit or Reject
}

// DefaultColourVerdicts admits green and yellow and rejects red.
var DefaultColourVerdicts = ColourVerdicts{Yellow: buckets.Admit, Red: buckets.Reject}

func (v ColourVerdicts) of(c Colour) buckets.Verdict {
	switch c {
	case Yellow:
		return v.Yellow
	case Red:
		return v.Red
	}
	return buckets.Admit
}

// ticker counts the token increments of a bucket filled one byte at a
// time, rate times per second, at the instants k/rate s (k >= 1) after the
// run's origin, in exact arithmetic: n(t) = floor(t · rate / 1e9).
type ticker struct {
	p, q int64 // rate = p/q bytes per second
}

func newTicker(rate exact.Rat, name, key string) (ticker, error) {
	if rate.Sign() <= 0 || !rate.Num().IsInt64() {
		return ticker{}, fmt.Errorf("profiles: %s: %s %v: want a rate > 0 bytes/s with a 64-bit numerator", name, key, rate)
	}
	q, ok := mulOK(rate.Den(), int64(engine.Second))
	if !ok {
		return ticker{}, fmt.Errorf("profiles: %s: %s %v: denominator too large", name, key, rate)
	}
	return ticker{p: rate.Num().Int64(), q: q}, nil
}

// n returns the increments made by t (those at or before t).
func (k ticker) n(t engine.Time) exact.Int128 {
	return exact.Mul64(int64(t), k.p).FloorDiv(k.q)
}

// at returns the instant of increment number m, rounded up to the
// nanosecond: the first instant u with n(u) >= m.
func (k ticker) at(m exact.Int128) (engine.Time, bool) {
	// u = ceil(m·q / p)
	x, ok := m.Mul64OK(k.q)
	if !ok {
		return 0, false
	}
	u := x.CeilDiv(k.p)
	if !u.IsInt64() {
		return 0, false
	}
	return engine.Time(u.Int64()), true
}

// perWindow returns the most increments in a half-open window of d
// nanoseconds, ceil(d · rate / 1e9).
func (k ticker) perWindow(d engine.Time) float64 {
	return exact.Mul64(int64(d), k.p).CeilDiv(k.q).Float64()
}

// SrTCMConfig describes a single rate three colour marker (RFC 2697) in
// colour-blind mode.
type SrTCMConfig struct {
	CIR  exact.Rat // committed information rate, bytes per second, > 0
	CBS  int64     // committed burst size, bytes, >= 0
	EBS  int64     // excess burst size, bytes, >= 0; CBS + EBS > 0
	Size int64     // bytes per job, >= 1
	Map  ColourVerdicts
}

// SrTCM is the single rate three colour marker of RFC 2697, colour-blind:
// two token buckets C (size CBS) and E (size EBS), both full at the start,
// and one increment stream of CIR bytes per second that goes to C while C
// is below CBS, else to E while E is below EBS, else is lost. A packet of B
// bytes is green if Tc >= B (Tc -= B), else yellow if Te >= B (Te -= B),
// else red (no change).
//
// Source: RFC 2697 section 3 ("updated CIR times per second": the
// increments are whole bytes, here at the exact instants k/CIR after the
// run's origin, an increment due at an arrival's instant counting first).
//
// Colour maps to a verdict through Map: by default green and yellow are
// admitted and red rejected. The meter marks before anything is dropped, so
// a yellow packet spends Te even when yellow is mapped to Reject: the one
// case where a refused job changes a profile's state. Counts returns the
// colours given so far; Last the colour of the latest packet.
type SrTCM struct {
	cfg    SrTCMConfig
	clock  clock
	tick   ticker
	n      exact.Int128 // increments applied
	tc, te int64
	counts ColourCounts
	last   Colour
}

// NewSrTCM returns an RFC 2697 marker at time 0 with both buckets full.
func NewSrTCM(c SrTCMConfig) (*SrTCM, error) {
	if c.CBS < 0 || c.EBS < 0 || c.CBS+c.EBS <= 0 || c.Size < 1 || c.CBS > math.MaxInt64/2 || c.EBS > math.MaxInt64/2 {
		return nil, fmt.Errorf("profiles: srtcm: cbs %d, ebs %d, size %d: want cbs, ebs >= 0 with one > 0, and size >= 1", c.CBS, c.EBS, c.Size)
	}
	if err := c.Map.check("srtcm"); err != nil {
		return nil, err
	}
	tk, err := newTicker(c.CIR, "srtcm", "cir")
	if err != nil {
		return nil, err
	}
	return &SrTCM{cfg: c, tick: tk, tc: c.CBS, te: c.EBS}, nil
}

func (v ColourVerdicts) check(name string) error {
	if (v.Yellow != buckets.Admit && v.Yellow != buckets.Reject) || (v.Red != buckets.Admit && v.Red != buckets.Reject) {
		return fmt.Errorf("profiles: %s: colours map only to admit or reject", name)
	}
	return nil
}

// Counts returns how many jobs were marked green, yellow and red.
func (m *SrTCM) Counts() ColourCounts { return m.counts }

// Last returns the colour of the latest job.
func (m *SrTCM) Last() Colour { return m.last }

// fill applies the increments due by t.
func (m *SrTCM) fill(t engine.Time) {
	n := m.tick.n(t)
	k := n.Sub(m.n)
	m.n = n
	if k.Sign() <= 0 {
		return
	}
	toC := m.cfg.CBS - m.tc
	if k.Cmp(exact.I128(toC)) <= 0 {
		m.tc += k.Int64()
		return
	}
	m.tc = m.cfg.CBS
	k = k.Sub(exact.I128(toC))
	if toE := m.cfg.EBS - m.te; k.Cmp(exact.I128(toE)) <= 0 {
		m.te += k.Int64()
	} else {
		m.te = m.cfg.EBS
	}
}

// Offer marks one job of Size bytes arriving at t and returns the verdict
// its colour maps to.
func (m *SrTCM) Offer(t engine.Time, id int64) buckets.Decision {
	m.clock.advance(t, "SrTCM")
	m.fill(t)
	b := m.cfg.Size
	c := Red
	switch {
	case m.tc >= b:
		c, m.tc = Green, m.tc-b
	case m.te >= b:
		c, m.te = Yellow, m.te-b
	}
	m.last = c
	switch c {
	case Green:
		m.counts.Green++
	case Yellow:
		m.counts.Yellow++
	default:
		m.counts.Red++
	}
	if m.cfg.Map.of(c) == buckets.Admit {
		return admitted()
	}
	return rejected(m.retryAfter(t))
}

// retryAfter is the time until a job would get an admitted colour: green
// once C holds Size bytes, or yellow (when admitted) once C is full and E
// holds Size bytes; increments go to C first.
func (m *SrTCM) retryAfter(t engine.Time) engine.Time {
	b := m.cfg.Size
	best := engine.Forever
	try := func(need int64) {
		if u, ok := m.tick.at(m.n.Add64(need)); ok && u-t < best {
			best = u - t
		}
	}
	if b <= m.cfg.CBS {
		try(max(b-m.tc, 0))
	}
	if m.cfg.Map.Yellow == buckets.Admit && b <= m.cfg.EBS {
		try(m.cfg.CBS - m.tc + max(b-m.te, 0))
	}
	if best == engine.Forever || best <= 0 {
		return 0
	}
	return best
}

// Next returns engine.Forever: a marker never queues.
func (m *SrTCM) Next() engine.Time { return engine.Forever }

// Release panics: a marker never queues.
func (m *SrTCM) Release() buckets.Released { return noQueue("SrTCM") }

// Promise returns the most jobs admitted in any closed window of d
// nanoseconds: floor((CBS + EBS + ceil(d · CIR)) / Size) when yellow is
// admitted, floor((CBS + ceil(d · CIR)) / Size) when only green is, and
// +Inf when red is admitted. For Size 1 it is attained by a dense stream
// from full buckets in a window starting just before an increment; for
// larger sizes it is an upper bound (bytes may be stranded in one bucket).
func (m *SrTCM) Promise(d engine.Time) float64 {
	if m.cfg.Map.Red == buckets.Admit {
		return math.Inf(1)
	}
	bytes := float64(m.cfg.CBS) + m.tick.perWindow(d)
	if m.cfg.Map.Yellow == buckets.Admit {
		bytes += float64(m.cfg.EBS)
	}
	return math.Floor(bytes / float64(m.cfg.Size))
}

// TrTCMConfig describes a two rate three colour marker (RFC 2698) in
// colour-blind mode.
type TrTCMConfig struct {
	PIR  exact.Rat // peak information rate, bytes per second, > 0
	PBS  int64     // peak burst size, bytes, >= 1
	CIR  exact.Rat // committed information rate, bytes per second, > 0, <= PIR
	CBS  int64     // committed burst size, bytes, >= 1
	Size int64     // bytes per job, >= 1
	Map  ColourVerdicts
}

// TrTCM is the two rate three colour marker of RFC 2698, colour-blind:
// bucket P (size PBS) filled PIR bytes per second and bucket C (size CBS)
// filled CIR bytes per second, both full at the start, each increment at
// the exact instants k/rate after the run's origin. A packet of B bytes is
// red if Tp < B; else yellow if Tc < B (Tp -= B); else green (Tp -= B,
// Tc -= B).
//
// Source: RFC 2698 section 3.
//
// Colours map to verdicts through Map as for [SrTCM]; a yellow packet
// spends Tp even when yellow is mapped to Reject.
type TrTCM struct {
	cfg    TrTCMConfig
	clock  clock
	pt, ct ticker
	pn, cn exact.Int128
	tp, tc int64
	counts ColourCounts
	last   Colour
}

// NewTrTCM returns an RFC 2698 marker at time 0 with both buckets full.
func NewTrTCM(c TrTCMConfig) (*TrTCM, error) {
	if c.PBS < 1 || c.CBS < 1 || c.Size < 1 {
		return nil, fmt.Errorf("profiles: trtcm: pbs %d, cbs %d, size %d: want each >= 1", c.PBS, c.CBS, c.Size)
	}
	if err := c.Map.check("trtcm"); err != nil {
		return nil, err
	}
	if c.CIR.Cmp(c.PIR) > 0 {
		return nil, fmt.Errorf("profiles: trtcm: cir %v > pir %v: RFC 2698 requires PIR >= CIR", c.CIR, c.PIR)
	}
	pt, err := newTicker(c.PIR, "trtcm", "pir")
	if err != nil {
		return nil, err
	}
	ct, err := newTicker(c.CIR, "trtcm", "cir")
	if err != nil {
		return nil, err
	}
	return &TrTCM{cfg: c, pt: pt, ct: ct, tp: c.PBS, tc: c.CBS}, nil
}

// Counts returns how many jobs were marked green, yellow and red.
func (m *TrTCM) Counts() ColourCounts { return m.counts }

// Last returns the colour of the latest job.
func (m *TrTCM) Last() Colour { return m.last }

// addCapped returns min(size, tokens + k) for k >= 0.
func addCapped(tokens, size int64, k exact.Int128) int64 {
	if k.Cmp(exact.I128(size-tokens)) >= 0 {
		return size
	}
	return tokens + k.Int64()
}

// Offer marks one job of Size bytes arriving at t and returns the verdict
// its colour maps to.
func (m *TrTCM) Offer(t engine.Time, id int64) buckets.Decision {
	m.clock.advance(t, "TrTCM")
	pn, cn := m.pt.n(t), m.ct.n(t)
	m.tp = addCapped(m.tp, m.cfg.PBS, pn.Sub(m.pn))
	m.tc = addCapped(m.tc, m.cfg.CBS, cn.Sub(m.cn))
	m.pn, m.cn = pn, cn
	b := m.cfg.Size
	var c Colour
	switch {
	case m.tp < b:
		c = Red
		m.counts.Red++
	case m.tc < b:
		c, m.tp = Yellow, m.tp-b
		m.counts.Yellow++
	default:
		c, m.tp, m.tc = Green, m.tp-b, m.tc-b
		m.counts.Green++
	}
	m.last = c
	if m.cfg.Map.of(c) == buckets.Admit {
		return admitted()
	}
	return rejected(m.retryAfter(t))
}

// retryAfter is the time until P holds Size bytes (and C too when yellow is
// rejected).
func (m *TrTCM) retryAfter(t engine.Time) engine.Time {
	b := m.cfg.Size
	if b > m.cfg.PBS || (m.cfg.Map.Yellow != buckets.Admit && b > m.cfg.CBS) {
		return 0
	}
	up, ok := m.pt.at(m.pn.Add64(max(b-m.tp, 0)))
	if !ok {
		return 0
	}
	if m.cfg.Map.Yellow != buckets.Admit {
		uc, ok := m.ct.at(m.cn.Add64(max(b-m.tc, 0)))
		if !ok {
			return 0
		}
		up = max(up, uc)
	}
	if up <= t {
		return 0
	}
	return up - t
}

// Next returns engine.Forever: a marker never queues.
func (m *TrTCM) Next() engine.Time { return engine.Forever }

// Release panics: a marker never queues.
func (m *TrTCM) Release() buckets.Released { return noQueue("TrTCM") }

// Promise returns the most jobs admitted in any closed window of d
// nanoseconds: floor((PBS + ceil(d · PIR)) / Size), and no more than
// floor((CBS + ceil(d · CIR)) / Size) when yellow is rejected; +Inf when
// red is admitted. Attained for Size 1, an upper bound otherwise.
func (m *TrTCM) Promise(d engine.Time) float64 {
	if m.cfg.Map.Red == buckets.Admit {
		return math.Inf(1)
	}
	n := math.Floor((float64(m.cfg.PBS) + m.pt.perWindow(d)) / float64(m.cfg.Size))
	if m.cfg.Map.Yellow != buckets.Admit {
		n = min(n, math.Floor((float64(m.cfg.CBS)+m.ct.perWindow(d))/float64(m.cfg.Size)))
	}
	return n
}

var colourKeys = []Key{
	{Name: "size", Default: "1", Unit: "bytes", Doc: "bytes per job, >= 1"},
	{Name: "yellow", Default: "admit", Unit: "admit|reject", Doc: "the verdict of a yellow job (the meter spends tokens either way)"},
	{Name: "red", Default: "reject", Unit: "reject|admit", Doc: "the verdict of a red job"},
}

func colourMap(a *args) ColourVerdicts {
	v := DefaultColourVerdicts
	if a.choice("yellow", "admit", "reject") == "reject" {
		v.Yellow = buckets.Reject
	}
	if a.choice("red", "reject", "admit") == "admit" {
		v.Red = buckets.Admit
	}
	return v
}

var srTCMInfo = Info{
	Name:     "srtcm",
	Library:  "RFC 2697 single rate three colour marker, colour-blind",
	Versions: "RFC 2697 (1999)",
	Doc:      "buckets C (cbs) and E (ebs), full at start, whole-byte increments cir times a second, C first; green/yellow admitted, red rejected by default",
	Keys: append([]Key{
		{Name: "cir", Default: "10", Unit: "bytes/s", Doc: "committed information rate, decimal or p/q > 0"},
		{Name: "cbs", Default: "10", Unit: "bytes", Doc: "committed burst size, >= 0"},
		{Name: "ebs", Default: "10", Unit: "bytes", Doc: "excess burst size, >= 0 (cbs + ebs > 0)"},
	}, colourKeys...),
	build: func(a *args) (func() buckets.Limiter, error) {
		c := SrTCMConfig{
			CIR:  a.rat("cir"),
			CBS:  a.int("cbs", 0, math.MaxInt64/2),
			EBS:  a.int("ebs", 0, math.MaxInt64/2),
			Size: a.int("size", 1, math.MaxInt64),
			Map:  colourMap(a),
		}
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewSrTCM(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewSrTCM(c); return l }, nil
	},
}

var trTCMInfo = Info{
	Name:     "trtcm",
	Library:  "RFC 2698 two rate three colour marker, colour-blind",
	Versions: "RFC 2698 (1999)",
	Doc:      "buckets P (pbs at pir) and C (cbs at cir), full at start; red when P is short; green/yellow admitted, red rejected by default",
	Keys: append([]Key{
		{Name: "pir", Default: "20", Unit: "bytes/s", Doc: "peak information rate, decimal or p/q >= cir"},
		{Name: "pbs", Default: "20", Unit: "bytes", Doc: "peak burst size, >= 1"},
		{Name: "cir", Default: "10", Unit: "bytes/s", Doc: "committed information rate, decimal or p/q > 0"},
		{Name: "cbs", Default: "10", Unit: "bytes", Doc: "committed burst size, >= 1"},
	}, colourKeys...),
	build: func(a *args) (func() buckets.Limiter, error) {
		c := TrTCMConfig{
			PIR:  a.rat("pir"),
			PBS:  a.int("pbs", 1, math.MaxInt64/2),
			CIR:  a.rat("cir"),
			CBS:  a.int("cbs", 1, math.MaxInt64/2),
			Size: a.int("size", 1, math.MaxInt64),
			Map:  colourMap(a),
		}
		if a.err != nil {
			return nil, a.err
		}
		if _, err := NewTrTCM(c); err != nil {
			return nil, err
		}
		return func() buckets.Limiter { l, _ := NewTrTCM(c); return l }, nil
	},
}
