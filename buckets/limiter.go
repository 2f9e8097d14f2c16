package buckets

// Decision is what a [Limiter] decides for one job.
type Decision[T Number] struct {
	// Admitted reports whether the job passes, at once or after Delay.
	Admitted bool
	// Delay is how long an admitted job waits before it is released, in
	// seconds (ticks for an exact model), >= 0: always 0 for a policer or
	// a window, and 0 for a rejected job.
	Delay T
}

// A Limiter decides, one arrival at a time, whether a job passes. The
// family here: the token bucket in policing or shaping mode ([Bucket]),
// the leaky bucket as a queue ([Leaky]) and as a meter ([Meter], the
// GCRA), the fixed window counter ([FixedWindow]), the sliding window log
// ([SlidingLog]), the sliding window counter ([SlidingWindow]) and a
// throttle ([Throttle]).
//
// Offer presents a job arriving at instant t: seconds since the origin for
// the float64 limiters, ticks for the exact ones. Instants must be
// non-decreasing and >= 0 (the time of a [Limiter] starts at 0); Offer
// panics on NaN or on an instant earlier than the last one it admitted. A
// rejected job leaves the limiter as it was, apart from the passing of time
// (refills, grants, window changes) and the random draw of a throttle.
//
// Promise returns the limiter's nominal arrival curve: the most jobs it
// says it lets pass (policers, windows) or releases (shapers) in any closed
// interval [s, s + d] of length d >= 0, in the units of t. Token buckets,
// the GCRA, the leaky bucket, the throttle and the sliding window log keep
// their promise; the fixed window and the sliding window counter do not
// (see their documentation), and [MeasureArrivalCurve] measures by how
// much.
type Limiter[T Number] interface {
	Offer(t T) Decision[T]
	Promise(d T) float64
}
