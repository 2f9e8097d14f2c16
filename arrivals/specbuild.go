package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// The builders of the processes and transforms of a spec.

// rate returns the component's rate= or the default rate.
func (c *specComponent) rate(env SpecEnv, g *Generated) (float64, error) {
	if c.has("rate") {
		return c.float("rate", 0, specIsRate, "a finite rate > 0 jobs/s")
	}
	if env.Rate == 0 {
		return 0, fmt.Errorf("rate= is required (there is no default rate)")
	}
	if !validRate(env.Rate) {
		return 0, fmt.Errorf("default rate %g jobs/s is invalid: want finite and > 0", env.Rate)
	}
	g.DefaultRate = true
	c.record("rate", fmtFloat(env.Rate))
	return env.Rate, nil
}

// exactRate returns the component's rate= as an exact number, or the
// default rate: env.ExactRate when set, otherwise env.Rate as the decimal
// it is written as (exact.FromFloat64).
func (c *specComponent) exactRate(env SpecEnv, g *Generated) (exact.Rat, error) {
	if c.has("rate") {
		return c.rat("rate", exact.Rat{}, ratPositive, "a rate > 0 jobs/s, a decimal or a fraction p/q")
	}
	if env.ExactRate.Sign() > 0 {
		g.DefaultRate = true
		c.record("rate", env.ExactRate.String())
		return env.ExactRate, nil
	}
	f, err := c.rate(env, g)
	if err != nil {
		return exact.Rat{}, err
	}
	r, err := exact.FromFloat64(f)
	if err != nil {
		return exact.Rat{}, fmt.Errorf("default rate %g jobs/s is invalid: %v", f, err)
	}
	return r, nil
}

// source returns the random source of a stream.
func specSource(env SpecEnv, stream uint64) (rand.Source, error) {
	if env.Source == nil {
		return nil, fmt.Errorf("no random source (SpecEnv.Source is nil)")
	}
	return env.Source(stream), nil
}

func buildProcess(c *specComponent, env SpecEnv, stream uint64, g *Generated) (Process, float64, error) {
	switch c.name {
	case "poisson":
		rate, err := c.rate(env, g)
		if err != nil {
			return nil, 0, err
		}
		src, err := specSource(env, stream)
		if err != nil {
			return nil, 0, err
		}
		p, err := NewPoisson(rate, src)
		return p, rate, err
	case "periodic":
		rate, err := c.exactRate(env, g)
		if err != nil {
			return nil, 0, err
		}
		off, err := c.seconds("offset", exact.Rat{}, ratNonNegative, "an offset >= 0 s, a decimal, a fraction p/q or with units (250ms)")
		if err != nil {
			return nil, 0, err
		}
		p, err := NewPeriodicRate(rate, off)
		if err != nil {
			return nil, 0, err
		}
		mean := rate.Float64()
		if !validRate(mean) {
			return nil, 0, fmt.Errorf("rate %s jobs/s is invalid: want a finite rate with a finite mean gap", rate)
		}
		return p, mean, nil
	case "renewal":
		return buildRenewal(c, env, stream, g)
	case "mmpp":
		return buildMMPP(c, env, stream)
	case "onoff":
		return buildOnOff(c, env, stream, g)
	case "batch":
		rate, err := c.rate(env, g)
		if err != nil {
			return nil, 0, err
		}
		law, err := c.word("size", "geom", BatchSizes)
		if err != nil {
			return nil, 0, err
		}
		mean, err := c.float("mean", 4, func(x float64) bool { return x >= 1 && x <= 1e9 }, "a mean batch size between 1 and 1e9 jobs")
		if err != nil {
			return nil, 0, err
		}
		src, err := specSource(env, stream)
		if err != nil {
			return nil, 0, err
		}
		p, err := NewBatch(rate, BatchSize{Law: law, Mean: mean}, src)
		return p, rate, err
	case "cron":
		n, err := c.required("n", specWhole(1, MaxCronClients), "a whole number of clients >= 1")
		if err != nil {
			return nil, 0, err
		}
		if !c.has("period") {
			return nil, 0, fmt.Errorf("parameter period is required: a period > 0 s")
		}
		period, err := c.seconds("period", exact.Rat{}, ratPositive, "a period > 0 s, a decimal, a fraction p/q or with units (1m)")
		if err != nil {
			return nil, 0, err
		}
		off, err := c.seconds("offset", exact.Rat{}, ratNonNegative, "an offset >= 0 s, a decimal, a fraction p/q or with units (250ms)")
		if err != nil {
			return nil, 0, err
		}
		j, err := c.float("jitter", 0, specNonNegative, "a finite jitter >= 0 s")
		if err != nil {
			return nil, 0, err
		}
		dist, err := c.word("dist", "uniform", []string{"uniform", "exp"})
		if err != nil {
			return nil, 0, err
		}
		var src rand.Source
		if j > 0 {
			if src, err = specSource(env, stream); err != nil {
				return nil, 0, err
			}
		}
		p := CronParams{N: int64(n), Period: period, Offset: off, Jitter: j, JitterDist: dist}
		cr, err := NewCron(p, src)
		if err != nil {
			return nil, 0, err
		}
		if !validRate(p.MeanRate()) {
			return nil, 0, fmt.Errorf("n/period = %g jobs/s is invalid: want finite and > 0", p.MeanRate())
		}
		return cr, p.MeanRate(), nil
	}
	panic("arrivals: unhandled process " + c.name)
}

func buildRenewal(c *specComponent, env SpecEnv, stream uint64, g *Generated) (Process, float64, error) {
	dist, err := c.word("dist", "exp", GapFamilies)
	if err != nil {
		return nil, 0, err
	}
	rate, err := c.rate(env, g)
	if err != nil {
		return nil, 0, err
	}
	src, err := specSource(env, stream)
	if err != nil {
		return nil, 0, err
	}
	if c.has("alpha") {
		if dist != "pareto" {
			return nil, 0, fmt.Errorf("alpha applies to dist=pareto only")
		}
		if c.has("scv") {
			return nil, 0, fmt.Errorf("give scv or alpha, not both (for pareto, scv = 1/(alpha(alpha-2)))")
		}
		alpha, err := c.float("alpha", 0, func(x float64) bool { return x > 1 && !math.IsInf(x, 1) }, "a finite shape > 1")
		if err != nil {
			return nil, 0, err
		}
		gap, err := ParetoGaps(rate, alpha, src)
		if err != nil {
			return nil, 0, err
		}
		p, err := NewRenewal(gap)
		return p, rate, err
	}
	scv, err := c.float("scv", defaultSCV(dist), specNonNegative, "a finite SCV >= 0")
	if err != nil {
		return nil, 0, err
	}
	gap, err := GapDistribution(dist, rate, scv, src)
	if err != nil {
		return nil, 0, err
	}
	p, err := NewRenewal(gap)
	return p, rate, err
}

func buildMMPP(c *specComponent, env SpecEnv, stream uint64) (Process, float64, error) {
	if !c.has("rates") {
		return nil, 0, fmt.Errorf("parameter rates is required: the arrival rate of each state, jobs/s, separated by /")
	}
	lambda, err := c.list("rates", specNonNegative, "finite rates >= 0 jobs/s")
	if err != nil {
		return nil, 0, err
	}
	n := len(lambda)
	q := make([][]float64, n)
	switch {
	case c.has("sojourn") && c.has("q"):
		return nil, 0, fmt.Errorf("give sojourn or q, not both")
	case c.has("sojourn"):
		soj, err := c.list("sojourn", specPositive, "finite mean sojourns > 0 s")
		if err != nil {
			return nil, 0, err
		}
		if len(soj) != n {
			return nil, 0, fmt.Errorf("sojourn has %d entries for %d states (rates)", len(soj), n)
		}
		if n < 2 {
			return nil, 0, fmt.Errorf("sojourn needs at least 2 states; with one state use poisson")
		}
		for i := range n {
			q[i] = make([]float64, n)
			for j := range n {
				if j != i {
					q[i][j] = 1 / soj[i] / float64(n-1)
				}
			}
		}
	case c.has("q"):
		c.used["q"] = true
		if rows := strings.Count(c.vals["q"], ";") + 1; rows != n {
			return nil, 0, fmt.Errorf("q has %d rows (separated by ;) for %d states (rates)", rows, n)
		}
		rows := strings.Split(c.vals["q"], ";")
		if len(rows) != n {
			return nil, 0, fmt.Errorf("q has %d rows (separated by ;) for %d states (rates)", len(rows), n)
		}
		var canon []string
		for i, row := range rows {
			if cols := strings.Count(row, "/") + 1; cols != n {
				return nil, 0, fmt.Errorf("q row %d has %d entries for %d states", i, cols, n)
			}
			for _, f := range strings.Split(row, "/") {
				x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || !specNonNegative(x) && len(q[i]) != i {
					return nil, 0, fmt.Errorf("q row %d: entry %q is invalid: want finite rates >= 0 /s, separated by /", i, strings.TrimSpace(f))
				}
				q[i] = append(q[i], x)
			}
			if len(q[i]) != n {
				return nil, 0, fmt.Errorf("q row %d has %d entries for %d states", i, len(q[i]), n)
			}
			canon = append(canon, joinFloats(q[i], "/"))
		}
		c.record("q", strings.Join(canon, ";"))
	default:
		if n > 1 {
			return nil, 0, fmt.Errorf("give sojourn (mean time in each state, s) or q (the generator)")
		}
		q[0] = []float64{0}
	}
	src, err := specSource(env, stream)
	if err != nil {
		return nil, 0, err
	}
	m, err := NewMMPP(lambda, q, src)
	if err != nil {
		return nil, 0, err
	}
	return m, m.MeanRate(), nil
}

func buildOnOff(c *specComponent, env SpecEnv, stream uint64, g *Generated) (Process, float64, error) {
	n, err := c.float("n", 1, specWhole(1, MaxOnOffSources), "a whole number of sources from 1 to 1048576")
	if err != nil {
		return nil, 0, err
	}
	on, err := c.required("on", specPositive, "the mean ON period, finite and > 0 s")
	if err != nil {
		return nil, 0, err
	}
	off, err := c.required("off", specPositive, "the mean OFF period, finite and > 0 s")
	if err != nil {
		return nil, 0, err
	}
	p := OnOffParams{N: int(n), MeanOn: on, MeanOff: off}
	if c.has("peak") {
		if c.has("rate") {
			return nil, 0, fmt.Errorf("give peak (per source while ON) or rate (total mean), not both")
		}
		if p.Peak, err = c.float("peak", 0, specIsRate, "a finite rate > 0 jobs/s"); err != nil {
			return nil, 0, err
		}
	} else {
		rate, err := c.rate(env, g)
		if err != nil {
			return nil, 0, err
		}
		p.Peak = rate * (on + off) / (on * n)
	}
	if p.Dist, err = c.word("dist", "exp", []string{"exp", "pareto"}); err != nil {
		return nil, 0, err
	}
	if p.Dist == "pareto" {
		if p.Alpha, err = c.float("alpha", 1.5, func(x float64) bool { return x > 1 && !math.IsInf(x, 1) }, "a finite shape > 1"); err != nil {
			return nil, 0, err
		}
	}
	if p.Emit, err = c.word("emit", "poisson", []string{"poisson", "periodic"}); err != nil {
		return nil, 0, err
	}
	src, err := specSource(env, stream)
	if err != nil {
		return nil, 0, err
	}
	o, err := NewOnOff(p, src)
	if err != nil {
		return nil, 0, err
	}
	return o, p.MeanRate(), nil
}

func buildTransform(c *specComponent, env SpecEnv, stream uint64, g *Generated) error {
	switch c.name {
	case "scale":
		target, err := c.rate(env, g)
		if err != nil {
			return err
		}
		if g.Process, err = Scale(g.Process, g.MeanRate/target); err != nil {
			return err
		}
		g.MeanRate = target
	case "thin":
		keep, err := c.required("p", func(x float64) bool { return x > 0 && x <= 1 }, "a probability 0 < p <= 1 of keeping each arrival")
		if err != nil {
			return err
		}
		src, err := specSource(env, stream)
		if err != nil {
			return err
		}
		if g.Process, err = Thin(g.Process, keep, src); err != nil {
			return err
		}
		g.MeanRate *= keep
	case "jitter":
		dist, key := "uniform", "max"
		if c.has("mean") {
			if c.has("max") {
				return fmt.Errorf("give max (uniform) or mean (exponential), not both")
			}
			dist, key = "exp", "mean"
		}
		j, err := c.required(key, specNonNegative, "a finite jitter >= 0 s: max=J for uniform on [0, J], mean=J for exponential")
		if err != nil {
			return err
		}
		if j > MaxJitter {
			return fmt.Errorf("%s %g s is invalid: want at most %g s (about 3.2 years)", key, j, float64(MaxJitter))
		}
		// Little's law: the transform holds about rate·J arrivals.
		if held := g.MeanRate * j; held > MaxJitterHeld/2 {
			return fmt.Errorf("%s %g s at mean rate %g jobs/s would hold about %.3g delayed arrivals in memory (rate·jitter): want %s <= %.6g s",
				key, j, g.MeanRate, held, key, MaxJitterHeld/2/g.MeanRate)
		}
		var src rand.Source
		if j > 0 {
			if src, err = specSource(env, stream); err != nil {
				return err
			}
		}
		if g.Process, err = Jitter(g.Process, j, dist, src); err != nil {
			return err
		}
	case "window":
		if !c.has("from") && !c.has("to") {
			return fmt.Errorf("give from and/or to, in seconds")
		}
		const whole = "a whole number of nanoseconds, in seconds (3600, 0.25) or as a duration (1h, 250ms)"
		from, err := c.duration("from", 0, false, func(x engine.Time) bool { return x >= 0 }, "a start >= 0, "+whole)
		if err != nil {
			return err
		}
		to, err := c.duration("to", engine.Forever, true, func(x engine.Time) bool { return x > from }, fmt.Sprintf("an end > from = %v s, %s, or inf", from, whole))
		if err != nil {
			return err
		}
		if g.Process, err = Window(g.Process, from, to); err != nil {
			return err
		}
	case "keys":
		n, err := c.required("n", specWhole(1, MaxZipfKeys), "a whole number of keys from 1 to 2^53")
		if err != nil {
			return err
		}
		s, err := c.float("s", 1, specNonNegative, "a finite Zipf exponent >= 0")
		if err != nil {
			return err
		}
		src, err := specSource(env, stream)
		if err != nil {
			return err
		}
		z, err := NewZipf(uint64(n), s, src)
		if err != nil {
			return err
		}
		g.Process = WithZipfKeys(g.Process, z)
		g.Keyed = true
	default:
		panic("arrivals: unhandled transform " + c.name)
	}
	return nil
}
