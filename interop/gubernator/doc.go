// Package gubernator holds ratesim's differential tests against the real
// Gubernator v2.13.0 (github.com/gubernator-io/gubernator/v2), in a
// module of its own so that the main module takes neither gRPC nor the
// rest of Gubernator's dependencies. See gubernator_test.go.
package gubernator
