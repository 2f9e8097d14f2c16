package splitstudy

import (
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// BenchmarkAppendRow formats one --jobs-out row (the formatter
// goroutine's work per job): a job at about 10^6 s with nanosecond digits,
// a zero wait in the one bucket and a positive one in the split, as most
// delayed rows look at the default load.
func BenchmarkAppendRow(b *testing.B) {
	r := rawRow{id: 123456, at: 1_112_370*engine.Second + 123_456_789, sub: 1,
		one: exact.Int128{}, oneDen: 1, split: exact.I128(1_534_800_000), splitDen: 1}
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendRow(buf[:0], &r)
	}
}
