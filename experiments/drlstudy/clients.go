package drlstudy

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments/clientstudy"
)

// ClientsDesigns builds the designs of a clients study
// (clientstudy.ClientsStudy, model: clients): a clients block's design
// key names one of [Designs], enforcing R = rate, B = limit, and its
// design parameters are those ratesim clients --design borrows from
// ratesim drl, as keys of [Params] (nodes, police, sync_period, ...).
// It implements clientstudy.ClientsDesigns.
type ClientsDesigns struct{}

// clientDesignParams are the keys of Params a clients block takes with a
// design: the flags ratesim clients borrows from ratesim drl.
var clientDesignParams = []string{"nodes", "dispatch", "police", "rtt", "outage", "outage_process", "store_limiter", "store_cache", "fail",
	"sync_period", "batch_limit", "sync_delay", "loss", "local", "algorithm", "lease_size", "lease_ttl", "estimate_interval", "smoothing", "exchange", "fanout"}

// Params returns the keys of the design parameters, in the order of
// ratesim drl's flags.
func (ClientsDesigns) Params() []string { return slices.Clone(clientDesignParams) }

// Remote validates the design and its parameters for the run of p and
// returns the builder of a fresh design per run (a *Online, every request
// of one key) and a description of its parameters. Errors are
// *clientstudy.ParamError naming the key: design for an unknown design,
// limit for a burst below one token per node.
func (ClientsDesigns) Remote(design string, params map[string]*yaml.Node, p *clientstudy.ClientsParams) (func(origin int64) (clients.Remote, error), string, error) {
	if !slices.Contains(drl.Designs, design) {
		return nil, "", &clientstudy.ParamError{Param: "design", Value: design, Want: "one of " + strings.Join(drl.Designs, ", ")}
	}
	dp := DefaultParams()
	dp.Designs, dp.Rate, dp.Burst, dp.Seed = design, p.Rate, strconv.FormatInt(p.Limit, 10), p.Seed
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(clientDesignParams, k) {
			return nil, "", &clientstudy.ParamError{Param: k, Value: nodeText(params[k]), Want: "a parameter of a design (one of " + strings.Join(clientDesignParams, ", ") + ")"}
		}
		if err := setParam(&dp, k, params[k]); err != nil {
			return nil, "", &clientstudy.ParamError{Param: k, Value: nodeText(params[k]), Want: strings.TrimPrefix(err.Error(), "want ")}
		}
	}
	s, _, err := dp.Spec()
	var pe *drl.ParamError
	if errors.As(err, &pe) {
		name := map[string]string{"burst": "limit", "designs": "design"}[pe.Param]
		if name == "" {
			name = pe.Param
		}
		return nil, "", &clientstudy.ParamError{Param: name, Value: pe.Value, Want: pe.Want}
	}
	if err != nil {
		return nil, "", err
	}
	s.Design = design
	return func(origin int64) (clients.Remote, error) {
		s := s
		s.Origin = origin
		return drl.NewOnline(s)
	}, s.Describe(), nil
}
