package clients

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
)

// GRPCThrottle is gRPC's retry throttling (gRFC A6, "gRPC Retry Design",
// section "Throttling Retry Attempts and Hedged RPCs"; grpc/grpc
// src/core/client_channel/retry_throttle.cc and its test
// test/core/client_channel/retry_throttle_test.cc, 2024), kept in
// milli-tokens as grpc-core keeps it:
//
//   - the count starts at MaxMilli (maxTokens·1000; maxTokens in (0,
//     1000]);
//   - every failed attempt takes 1000 (one token), never below 0;
//   - every successful attempt adds RatioMilli (tokenRatio·1000, tokenRatio
//     with at most three decimals), never above MaxMilli;
//   - a failure may be retried only while, after its decrement, the count
//     is above MaxMilli/2 (RecordFailure returns new_value > max/2).
//
// The failure is recorded before the max-attempts check, so a request's
// last failure takes its token too. In steady state with a fraction f of
// attempts failing the count drifts by −f·1 + (1−f)·ratio per attempt, so
// retries stop when f exceeds ratio/(1 + ratio) (9.09% at ratio 0.1). gRPC
// caps max attempts at 5 (A6, "maxAttempts ... values greater than 5 are
// treated as 5").
//
// The zero value is not usable; create one with [NewGRPCThrottle].
type GRPCThrottle struct {
	MaxMilli, RatioMilli int64
	milli                int64
}

// NewGRPCThrottle returns a full throttle of maxMilli milli-tokens and
// ratioMilli milli-tokens per success, or an error unless 0 < maxMilli
// <= 1e6 and ratioMilli > 0.
func NewGRPCThrottle(maxMilli, ratioMilli int64) (*GRPCThrottle, error) {
	if maxMilli <= 0 || maxMilli > 1_000_000 {
		return nil, fmt.Errorf("clients: grpc max_tokens %g, want in (0, 1000]", float64(maxMilli)/1000)
	}
	if ratioMilli <= 0 {
		return nil, fmt.Errorf("clients: grpc token_ratio %g, want > 0 (at most three decimals)", float64(ratioMilli)/1000)
	}
	return &GRPCThrottle{MaxMilli: maxMilli, RatioMilli: ratioMilli, milli: maxMilli}, nil
}

// Milli returns the count in milli-tokens.
func (g *GRPCThrottle) Milli() int64 { return g.milli }

// RecordFailure takes a token and reports whether retries are allowed.
func (g *GRPCThrottle) RecordFailure() bool {
	g.milli = max(0, g.milli-1000)
	return g.milli > g.MaxMilli/2
}

// RecordSuccess adds the ratio.
func (g *GRPCThrottle) RecordSuccess() { g.milli = min(g.MaxMilli, g.milli+g.RatioMilli) }

// Sent does nothing.
func (g *GRPCThrottle) Sent(engine.Time, bool) {}

// Answered records the attempt's outcome.
func (g *GRPCThrottle) Answered(_ engine.Time, ok, _ bool, _ int64) {
	if ok {
		g.RecordSuccess()
	} else {
		g.RecordFailure()
	}
}

// Retry reports whether the count, after the failure just recorded, is
// above the threshold MaxMilli/2. (MaxMilli/2 is exact: grpc-core compares
// new_value > max_milli_tokens / 2 in integers.)
func (g *GRPCThrottle) Retry(engine.Time, bool) (bool, int64) { return g.milli > g.MaxMilli/2, 0 }

func (g *GRPCThrottle) String() string {
	return fmt.Sprintf("grpc (max_tokens %g, token_ratio %g)", float64(g.MaxMilli)/1000, float64(g.RatioMilli)/1000)
}
