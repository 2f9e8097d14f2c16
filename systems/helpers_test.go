package systems

import (
	"math/big"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

func rat(s string) exact.Rat { return exact.MustParse(s) }

func params(rate, burst string) buckets.Params {
	return buckets.Params{Rate: rat(rate), Burst: rat(burst)}
}

// sec returns decimal seconds as an exact instant; it panics if s is not a
// whole number of nanoseconds.
func sec(s string) engine.Time {
	ns := new(big.Rat).Mul(rat(s).Big(), big.NewRat(1e9, 1))
	if !ns.IsInt() {
		panic("sec(" + s + ") is not a whole number of nanoseconds")
	}
	return engine.Time(ns.Num().Int64())
}

// seconds returns an exact number of ns as a big.Rat of seconds.
func seconds(x exact.Rat) *big.Rat { return new(big.Rat).Quo(x.Big(), big.NewRat(1e9, 1)) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// instanceOf builds an Instance from decimal seconds.
func instanceOf(one buckets.Params, subs []buckets.Params, times []string, sub []int) Instance {
	in := Instance{One: one, Subs: subs, Sub: sub}
	for _, s := range times {
		in.Times = append(in.Times, sec(s))
	}
	return in
}
