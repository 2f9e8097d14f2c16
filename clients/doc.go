// Package clients owns the clients that react to a limiter's decisions:
// retrying populations with backoff and jitter, paced clients and
// backfills, cron-synchronized clients, the downstream server the admitted
// stream feeds, and Marc Brooker's backoff study. Everything is an
// [engine.Sim] component: plain event handlers on one goroutine.
//
// # Limiters
//
// Clients talk to a limiter through the [buckets.Limiter] protocol: offered a
// job at t, a limiter admits it, delays it by an exact wait, queues it to
// be released by its own event, or rejects it, optionally saying when to
// retry (Retry-After). A [Gate] drives one limiter on the Sim: it offers
// jobs, makes the limiter's release events, hands released jobs back to
// the client that offered them, and sends every job that passes to a
// [Sink] at the exact instant it passes. Any Limiter can be plugged in, so
// a hard limit (a policing bucket: a cliff) and a throttle (a shaper that
// delays, or a probabilistic throttle: a slope) can be compared under the
// same clients.
//
// A limiter whose answers come late, and may then be refusals (a
// distributed design whose node asks a store: package drl's Online), is a
// [Remote]; [RunRemote] runs a Scenario against one. Its late answers
// reach the client at the instant they arrive, so a request's latency
// includes the wait for the answer, and a late refusal is backed off from
// then.
//
// # Clients
//
//   - [Retrying]: requests from an open-loop stream of instants
//     (iter.Seq[engine.Time]) or closed-loop users with a think time; a
//     rejected request sleeps what its [Backoff] says and tries again, up
//     to MaxAttempts or a Deadline, after which it is given up.
//   - [Backoff] strategies, after Brooker, [Exponential Backoff And
//     Jitter] (AWS Architecture Blog, 2015): [NoBackoff], [Constant],
//     [Exponential], [FullJitter], [EqualJitter], [DecorrelatedJitter],
//     and [HonorRetryAfter] for a limiter's Retry-After with or without
//     jitter on top.
//   - [Paced]: a client that spaces its own requests at least 1/Rate
//     apart, plus jitter, in front of the limiter: "a leaky bucket applied
//     to your own output" (the article, "Pacing and smoothing").
//   - [Backfill]: a paced backlog at a fraction of the downstream's
//     capacity, adjusted by additive increase and multiplicative decrease
//     on the live traffic's measured downstream latency.
//   - [Cron]: N clients firing at every period boundary, with or without
//     start jitter.
//
// [Stats] measure requests, attempts, successes and give-ups, attempts per
// request, retry amplification (attempts per original request) in bins of
// time, goodput, and the latency each user saw, from the request's arrival
// to its success.
//
// # Success
//
// Without a downstream server a request succeeds when it passes the
// limiter (admitted, at the end of its delay, or released from its
// queue). With one ([Scenario].Server, [Gate.Serve]) it succeeds when the
// server has served it: its latency ends at its departure, and a request
// the limiter let pass but the server's full buffer lost has failed, as a
// 503 from downstream would: the client learns it at the instant the job
// reached the server and retries by its policy (its backoff, MaxAttempts,
// Deadline), like a rejection with no Retry-After. Goodput then counts
// requests served.
//
// # Downstream
//
// A [Server] is a finite FIFO queue in front of one server with service
// time 1/μ: the buffer downstream of the limiter. It counts arrivals (every
// attempt that passed the limiter), overflows and queueing delays per
// class of job, and with [Server.SetBin] a series per bin of time: the
// overflows of each class and the largest number of jobs at the server,
// exact over the step function of its occupancy ([Bin].Server in a
// [Scenario]'s series). A burst inside the limiter's promise
// B + R·d can overflow a buffer sized for the average; pacing the same
// traffic does not (see TestDownstreamBufferOverflowAndPacing).
//
// # Exactness
//
// Instants are [engine.Time] (integer nanoseconds). Rates are exact
// rationals ([exact.Rat]); a job that passes between two nanoseconds (a
// shaper at 3 jobs/s) keeps its exact instant on its way to the Server,
// whose service instants are exact too, so every overflow and every tie
// (a departure at the instant of an arrival) is decided as exact
// arithmetic decides it. Random draws (jitter, network delays) are
// float64 seconds, converted to nanoseconds once with
// [engine.FromSeconds]. Reported quantities are rounded once from their
// exact values.
//
// # Randomness
//
// Every random component takes its own math/rand/v2 source; library code
// never uses the global one. [Stream] derives a component's PCG stream
// from (seed, point, replication, component), so a run is a function of
// its seed and results do not depend on how many workers run them.
//
// # Entry points
//
//   - [Run] runs a [Scenario] (foreground clients, optional server and
//     backfill) against a limiter.
//   - [OCCStudy] runs Brooker's optimistic-concurrency study, N = 10 to
//     190 clients, the five strategies, 100 runs per point, in parallel
//     ([DefaultOCC] is the blog's set-up); [RunOCC] is one run.
//
// [Exponential Backoff And Jitter]: https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
package clients
