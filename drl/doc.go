// Package drl owns the distributed rate-limiting designs of ratesim: the
// ways a limit (R tokens/s, B tokens) per key is enforced by a fleet of N
// nodes, each a documented model run on the same arrivals, side by side
// with the one bucket (R, B) that the fleet promises.
//
// # Designs
//
//	one     the one bucket (R, B) per key: the lower bound (R. Guérin, "When
//	        Two is Worse Than One", 2019, Theorem 2: no split does better).
//	static  N nodes behind a dispatcher (rr, random, hash of the key), each
//	        a sub-bucket (R/N, B/N) per key; scale events (Spec.Static.Scale, at
//	        instants in ns) re-split the limit over a new N: a surviving
//	        node keeps its fill level (its unfinished work U, so its tokens
//	        scale by N/N'), a new node starts full (as an autoscaled pod
//	        does), a removed node's state is dropped. Spec.Static.NodeLimiter puts
//	        any library profile on each node instead, configured per node
//	        (also the store's local fallback).
//	store   a central store: every decision is a round trip of delay D
//	        (Spec.Store.RTT, ns: fixed, uniform, lognormal, or drawn from a
//	        column of measured delays, ReadDelayColumn) to one bucket (R, B)
//	        per key, which decides at t + floor(D/2); the job's delay is D plus
//	        the bucket's wait. While the store is down (Spec.Store.Outages,
//	        intervals [from, to) in ns) a node decides at once as Spec.Store.Fail
//	        says: open (admit), closed (reject) or local (its sub-bucket
//	        (R/N, B/N)). With Spec.Store.Cache a node caches a key the store
//	        refused until its next token and refuses its jobs meanwhile
//	        without a round trip. Spec.Store.Limiter replaces the store's
//	        bucket by GCRA(1/R, (B - 1)/R) as redis-cell keeps it (a refused
//	        hit leaves it unchanged) or by a fixed window of B jobs per
//	        B/R s (Redis INCR, which counts refused hits: no decision
//	        changes), both policing, or by a library profile
//	        (Spec.Store.Profile: redis-rate is go-redis/redis_rate's Lua
//	        script). interop/redis checks the fixed window and redis_rate
//	        against a real redis-server, job for job; the GCRA is checked
//	        against redis-cell v0.5.0's own test table (no redis-cell
//	        module can be built here).
//	sync    Gubernator v2.13.0's GLOBAL behaviour decision for decision,
//	        with its TOKEN_BUCKET (Spec.Sync.Algorithm SyncTokenBucket, the
//	        default, as in Gubernator) or LEAKY_BUCKET (SyncLeakyBucket)
//	        (gubernator-io/gubernator gubernator.go, global.go,
//	        algorithms.go, replicated_hash.go): the owner is the hash
//	        ring's choice among Spec.Sync.Peers; every daemon answers from its
//	        own cache item as if it owned the key and queues every hit,
//	        admitted or not, for the owner; queued hits are sent
//	        GlobalSyncWait (Spec.Sync.Period; Gubernator's default 100 ms,
//	        config.go:143) after the ticker starts, or when GlobalBatchLimit
//	        (Spec.Sync.BatchLimit; default 1000 keys, config.go:142) keys are
//	        queued; the owner applies a batch as one request of the summed
//	        hits at the first hit's CreatedAt with DRAIN_OVER_LIMIT and
//	        broadcasts its status, batched the same way; a peer's copy holds
//	        the owner's integer Remaining, its leak (or age) restarting at
//	        receipt. BatchWait (500 µs, config.go:139) batches forwarded
//	        non-GLOBAL requests and plays no part. Gubernator answers
//	        UNDER_LIMIT or OVER_LIMIT: sync polices (Spec.Police is
//	        required). The differential tests in interop/gubernator run it
//	        against real daemons.
//	reconcile
//	        local buckets with periodic reconciliation (Raghavan et al.,
//	        SIGCOMM 2007; the article's "local buckets, reconciled"), the
//	        idealized form of sync (syncDesign) and no system that exists:
//	        each node keeps the exact state of the key's bucket, which keeps
//	        refilling between broadcasts; only admitted hits are sent to the
//	        owner (a rendezvous hash of the key), Spec.Sync.Period after the
//	        first one or when Spec.Sync.BatchLimit keys are queued, and applied
//	        one by one at receipt; the owner broadcasts its exact state,
//	        batched the same way. Spec.Sync.Delay is the one-way delay of
//	        each message, Spec.Sync.Loss its loss probability, and between
//	        reconciliations a node decides with a copy of the whole bucket
//	        (LocalCopy) or with its sub-bucket (R/N, B/N) set to the
//	        owner's fill level on each broadcast (LocalShare). It shapes or
//	        polices. It is what reconciling exact buckets could at best do
//	        with that batching.
//	lease   the allowance of the article: a node admits with tokens it
//	        holds; with none it asks a central bucket (R, B) for
//	        Spec.Lease.Size tokens (a round trip Spec.Store.RTT), jobs arriving
//	        meanwhile waiting for the reply; tokens unused Spec.Lease.TTL (ns)
//	        after the latest grant go back. Policing, the jobs a grant does
//	        not cover are rejected; shaping, a bucket with no whole token
//	        reserves the next one (FCFS with the other requests) and the
//	        jobs left wait, in order, for the node's next request.
//	grd     global random drop (B. Raghavan et al., "Cloud control with
//	        distributed rate limiting", SIGCOMM 2007): every
//	        Spec.Demand.EstimateInterval each node reports its smoothed demand
//	        (EWMA weight Spec.Demand.Smoothing) to a coordinator, which sends back
//	        the drop probability max(0, 1 - R/D), D the global demand.
//	fps     flow proportional share (same paper, with a node's demand as its
//	        weight): the coordinator sends node l the share e_l/D, rounded to
//	        1/ShareQuantum with Σ = 1 exactly, and the node enforces the
//	        bucket (R·e_l/D, B·e_l/D), exactly; shaping, a job waits in
//	        order for its token at the node's current rate, which changes
//	        with each share (on the run's 1/S ns grid: see demand). grd
//	        always polices: a drop is the design, there is no bucket whose
//	        token a job could wait for. Spec.Demand.Exchange sends the estimates
//	        through the coordinator,
//	        all-to-all among the nodes that saw the key, or by gossip to
//	        Spec.Demand.Fanout random peers.
//
// Limits that the tests check decision for decision: reconcile with T = 0
// and no delay is the one bucket (each node holds the true state when a job
// arrives); reconcile with T = ∞ in share mode is the static split (no message
// is ever sent); a store with zero round trip and no outage is the one
// bucket, with or without its cache; a lease of one token with no round
// trip is the policing one bucket and, shaping with hash dispatch, the
// shaping one bucket.
//
// Every bucket shapes (a job waits for its token, the note's eq. (1)) or,
// with Spec.Police, polices (a job that finds no token is rejected); grd,
// which keeps no bucket, drops either way.
//
// # Online
//
// Run offers an open-loop stream of arrivals. Online drives a design one
// job at a time on the caller's clock instead, for clients that react to
// its decisions (package clients, ratesim clients --design): it is a
// clients.Remote, whose late answers (a store's round trip, a lease's
// grant) reach the client at the instant they arrive.
//
// # Exactness
//
// Instants are integer nanoseconds (engine.Time) and every bucket keeps the
// instant F at which its equivalent G/D/1 queue empties in units of 1/S ns,
// S the scale of (R, B) (buckets.CommonScale); a sub-bucket (R/N, B/N)
// has token time N/R and the same burst time B/R, so one scale serves every
// N. Every decision is the one exact arithmetic makes; floats appear only in
// random draws (delays, losses, dispatch) and in reported figures.
//
// # What is measured
//
// Summarize gives the jobs admitted and rejected, the mean, p99 (nearest
// rank) and largest delay of the admitted jobs in seconds, the messages
// sent and lost, the jobs decided without the store, and the worst
// overshoot: the supremum of α*(d)/(B + R·d) over every interval length
// d >= 0 and key, where α*(d) is the most admitted jobs of a key in any
// closed interval of length d, and the excess, the supremum of α*(d) −
// (B + R·d) in jobs, both exact (netcalc.OvershootMeter, a maximum over
// the pairs of a key's admitted instants, measured as the run goes). A
// design that keeps the promise has overshoot <= 1 and excess <= 0;
// fail-open and stale reconciliation exceed them, by the amounts reported.
// The largest ratio at the lengths Durations (sampled_overshoot) is kept
// for figures; it can miss the worst length. It also gives the share of the run during
// which a key's admitted rate over a window exceeded R (compared exactly),
// Jain's fairness index of the fractions admitted across nodes and across
// keys, and for reconcile the mean age of the owner's state each decision was
// made with (staleness). Result.Rate bins the admitted rate over time.
//
// Where the design is a split of the promise that the theorem covers (the
// static split, shaping, without scale events: see Theorem2NA) Run also
// checks Theorem 2 and Lemma 1 key by key with systems.Check, exactly, as
// ratesim run does: the key's one bucket (R, B) against its sub-buckets
// (R/N, B/N) at the nodes that saw it, each a buckets.TokenBucket fed the
// jobs the design sent there, whose waits must be the design's own.
// Result.Theorem2 says whether it held, and where it failed first.
//
// # Randomness and memory
//
// Each random component draws from its own PCG stream (Spec.Seed, stream):
// dispatch systems.StreamDispatch, round trips (store and lease)
// StreamStoreRTT, message delays StreamSyncDelay, losses StreamSyncLoss,
// the on/off outage process StreamOutage, global random drop
// StreamDemandDrop, gossip peers StreamGossip; the same seed gives the
// same run. Model state is kept per key, and per (node, key) pair a node
// has seen, never N × keys: a reconcile broadcast reaches the nodes holding
// the keys one by one and the others (which only cache the snapshot)
// through one delivery, all N - 1 messages counted. Timed events live on
// an engine.Sim. The arrival curve of each key's admitted stream and the
// time its rate exceeds R are measured as the run goes (a departure is
// final once the arrivals have passed it, and feeds a per-key walk that
// keeps the instants of the last max(d) and rate window), so that memory
// is per active key and per job still waiting, not per job;
// Spec.KeepDepartures keeps every departure instead (8 bytes a job), for
// the figures. A Result keeps each admitted job's delay when it is not 0
// (8 bytes), for the exact quantiles.
//
// # Designs as types
//
// Each design is one type in its own file (design_one.go, design_static.go,
// design_store.go, design_sync.go, design_reconcile.go, design_lease.go,
// design_demand.go) implementing [Design]: its name, the flags of the
// parameters it reads, its checks, what Theorem 2 says of it, its caption,
// description and header line, the events it marks on a time series, and
// its [Model]. The registry lists them in the order the command runs them;
// adding a design is its file and one line of the registry ([Register]
// adds one from outside the package). Nothing else names a design.
//
// The study (the parameters as a user writes them, comparisons, sweeps
// and their figures) is package experiments/drlstudy.
//
// # Sources
//
// The rate-limiting article "Rate limiting, throttling and pacing" (local
// R/N, shared store, local buckets with reconciliation; fail-open and
// fail-closed); gubernator-io/gubernator v2.13.0
// (github.com/gubernator-io/gubernator/v2: gubernator.go, global.go,
// algorithms.go, interval.go, lrucache.go, replicated_hash.go;
// config.go:139-143 sets BatchWait to 500 µs, GlobalBatchLimit to 1000 and
// GlobalSyncWait to 100 ms: the 500 µs once given here for GlobalSyncWait
// is BatchWait); B. Raghavan et al., "Cloud control with distributed rate
// limiting", SIGCOMM 2007.
package drl
