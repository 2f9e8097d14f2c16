// Package redis_test checks drl's central store against a real
// redis-server: the store design's limiters, each run by ratesim on a
// trace or a random stream, and the same jobs replayed at the same
// instants against Redis, decision for decision.
package redis_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	_ "github.com/go-redis/redis_rate/v10" // its lua.go, read by redisRateScript
	"github.com/redis/go-redis/v9"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/profiles"
)

// jobs are a stream of arrivals with an absolute origin (Unix ns of t = 0).
type jobs struct {
	name   string
	origin int64
	as     []arrivals.Arrival
}

// slice is an arrivals.Process over a slice.
type slice struct {
	as []arrivals.Arrival
	i  int
}

func (s *slice) Next() (arrivals.Arrival, error) {
	if s.i == len(s.as) {
		return arrivals.Arrival{}, io.EOF
	}
	s.i++
	return s.as[s.i-1], nil
}

// tracesDir is ../shared/traces beside the repository, as seen from
// interop/redis.
const tracesDir = "../../../shared/traces"

// traceJobs reads a real trace from ../shared/traces, skipping the test
// cleanly when the folder is absent.
func traceJobs(t *testing.T, rel string, opt arrivals.TraceOptions) jobs {
	t.Helper()
	path := filepath.Join(tracesDir, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: real trace %s not found (../shared/traces is beside the repository, not in it): %v", rel, err)
	}
	tr, err := arrivals.Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	j := jobs{name: rel}
	for {
		a, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		j.as = append(j.as, a)
	}
	j.origin, _ = tr.Origin()
	return j
}

// randomJobs draws n arrivals: exponential gaps of mean gap ns rounded to
// the grid (1 ms: many ties), keys uniform among k.
func randomJobs(seed uint64, n int, gap, grid engine.Time, k int) jobs {
	r := rand.New(rand.NewPCG(seed, 1))
	j := jobs{name: fmt.Sprintf("random seed %d (gap %v s, grid %v s, %d keys)", seed, gap, grid, k), origin: 1767225600_123456789}
	var t engine.Time
	for range n {
		t += engine.Time(r.ExpFloat64()*float64(gap)) / grid * grid
		key := uint64(1 + r.IntN(k))
		j.as = append(j.as, arrivals.Arrival{T: t, Key: key, Hash: key})
	}
	return j
}

// storeRun runs the store design of s on j and returns which jobs it
// admitted.
func storeRun(t *testing.T, s drl.Spec, j jobs) []bool {
	t.Helper()
	res, err := drl.Run(context.Background(), s, &slice{as: j.as}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]bool, len(j.as))
	for i := range out {
		out[i] = res.AdmittedJob(int64(i))
	}
	return out
}

// agree compares ratesim's decisions with Redis's, job for job.
func agree(t *testing.T, what string, got, want []bool) (refused int) {
	t.Helper()
	admitted, bad := 0, 0
	for i := range want {
		if want[i] {
			admitted++
		}
		if got[i] != want[i] {
			if bad < 5 {
				t.Errorf("%s: job %d: ratesim admitted %v, Redis %v", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d jobs disagree", what, bad, len(want))
	} else {
		t.Logf("%s: %d jobs, %d admitted by both, 0 disagreements", what, len(want), admitted)
	}
	return len(want) - admitted
}

// storeSpec is the store design with a fixed round trip of rtt ns on
// nodes nodes: the store decides job j at j.T + rtt/2, in arrival order.
func storeSpec(rate, burst string, nodes int, rtt engine.Time) drl.Spec {
	return drl.Spec{Design: "store", Bucket: buckets.Params{Rate: exact.MustParse(rate), Burst: exact.MustParse(burst)}, Nodes: nodes, Dispatch: "rr", Police: true, Seed: 1,
		Store: drl.StoreParams{RTT: drl.Delay{A: rtt}},
	}
}

// redisRateReplay offers each job to the redis_rate script at the store's
// instant of it, origin + T + rtt/2, and returns whether Redis allowed it.
// ARGV are what redis_rate v10's AllowN passes (burst, rate, the period
// in seconds formatted as go-redis formats a float64, cost 1), then the
// instant. After each call the key is made persistent: the script's SET
// ... EX is in Redis's wall clock, not the run's, and a key of the run
// must not expire while the replay (faster or slower than the run) is
// still in its time; an expiry in the run's own time never changes a
// decision (past it, now > tat and the script takes tat = now).
func redisRateReplay(t *testing.T, c *redis.Client, script string, j jobs, rate, burst int, period float64, rtt engine.Time) []bool {
	t.Helper()
	ctx := context.Background()
	sha, err := c.ScriptLoad(ctx, script).Result()
	if err != nil {
		t.Fatalf("SCRIPT LOAD: %v", err)
	}
	if err := c.FlushDB(ctx).Err(); err != nil { // every replay starts from an empty store
		t.Fatal(err)
	}
	// Pipelined in batches: Redis runs the commands one by one in order,
	// so the replies are those of one call after the other.
	out := make([]bool, len(j.as))
	const batch = 1000
	for lo := 0; lo < len(j.as); lo += batch {
		pipe := c.Pipeline()
		cmds := make([]*redis.Cmd, 0, batch)
		for _, a := range j.as[lo:min(lo+batch, len(j.as))] {
			u := j.origin + int64(a.T+rtt/2)
			sec, usec := u/1e9, u%1e9/1000
			key := "rr:" + strconv.FormatUint(a.Key, 10)
			cmds = append(cmds, pipe.EvalSha(ctx, sha, []string{key}, burst, rate, strconv.FormatFloat(period, 'f', -1, 64), 1, sec, usec))
			pipe.Persist(ctx, key)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatalf("jobs %d..: %v", lo, err)
		}
		for i, cmd := range cmds {
			v, err := cmd.Slice()
			if err != nil {
				t.Fatalf("job %d: EVALSHA: %v", lo+i, err)
			}
			out[lo+i] = v[0].(int64) > 0
		}
	}
	return out
}

// fixedWindowReplay is the Redis pattern the store's fixed window models:
// for a job decided at instant u (T + rtt/2 since the run's origin), INCR
// the key of its window k = floor(u / W), EXPIRE it when the count is 1,
// and admit when the count is at most L (EXPIRE ... NX after every INCR:
// it sets a TTL only on the key the first INCR created, so a pipeline can
// send it without waiting for the count). W = burst/rate s exactly (its
// floor taken in exact arithmetic). EXPIRE is in Redis's wall clock: the
// TTL is W rounded up to whole seconds plus an hour, so that no key of the
// replay expires while its window is open in the run; a key names its
// window, so no later job would read it anyway.
func fixedWindowReplay(t *testing.T, c *redis.Client, j jobs, rate, burst string, rtt engine.Time) []bool {
	t.Helper()
	ctx := context.Background()
	w := new(big.Rat).Mul(mustRat(burst), new(big.Rat).Inv(mustRat(rate)))
	wns := new(big.Rat).Mul(w, big.NewRat(1e9, 1))
	ttl := new(big.Int).Quo(new(big.Int).Add(w.Num(), new(big.Int).Sub(w.Denom(), big.NewInt(1))), w.Denom()).Int64() + 3600
	limit := mustRat(burst).Num().Int64()
	if err := c.FlushDB(ctx).Err(); err != nil { // every replay starts from an empty store
		t.Fatal(err)
	}
	// Pipelined: INCR then EXPIRE (which only sets the TTL of a key INCR
	// created, as "when the count is 1" does: EXPIRE ... NX).
	out := make([]bool, len(j.as))
	const batch = 1000
	for lo := 0; lo < len(j.as); lo += batch {
		pipe := c.Pipeline()
		cmds := make([]*redis.IntCmd, 0, batch)
		for _, a := range j.as[lo:min(lo+batch, len(j.as))] {
			u := big.NewRat(int64(a.T+rtt/2), 1)
			q := new(big.Rat).Quo(u, wns)
			k := new(big.Int).Quo(q.Num(), q.Denom()) // floor: u >= 0
			key := "fw:" + strconv.FormatUint(a.Key, 10) + ":" + k.String()
			cmds = append(cmds, pipe.Incr(ctx, key))
			pipe.Do(ctx, "EXPIRE", key, ttl, "NX")
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatalf("jobs %d..: %v", lo, err)
		}
		for i, cmd := range cmds {
			out[lo+i] = cmd.Val() <= limit
		}
	}
	return out
}

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// cases are the limits and round trips tried on every stream.
var cases = []struct {
	rate, burst int
	nodes       int
	rtt         engine.Time
}{
	{10, 20, 4, 2 * engine.Millisecond},
	{3, 5, 2, 0},
	{1, 1, 3, 10 * engine.Millisecond},
	{50, 4, 1, 3 * engine.Millisecond},
}

// streams returns the job streams: a real trace (skipped without
// ../shared) and random ones.
func streams(t *testing.T) []jobs {
	out := []jobs{
		randomJobs(1, 3000, 100*engine.Millisecond, engine.Millisecond, 1),
		randomJobs(2, 3000, 30*engine.Millisecond, engine.Millisecond, 5),
		randomJobs(3, 2000, 300*engine.Millisecond, engine.Microsecond, 2),
	}
	if _, err := os.Stat(tracesDir); err == nil {
		out = append(out,
			traceJobs(t, "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv", arrivals.TraceOptions{TimeCol: "TIMESTAMP", TimeFormat: "datetime"}),
			traceJobs(t, "alibaba-gentd26/lora_request_trace.csv", arrivals.TraceOptions{TimeCol: "gmt_create", TimeFormat: "datetime", KeyCol: "groupId", Sort: true}))
	} else {
		t.Logf("../shared/traces not found: random streams only (%v)", err)
	}
	return out
}

// TestStoreRedisRateAgainstRedis: the store keeping redis_rate's GCRA
// (--store-limiter 'redis-rate:...', the profile of its Lua script) admits
// exactly the jobs the real script admits in a real redis-server, each
// job at the store's instant of it.
func TestStoreRedisRateAgainstRedis(t *testing.T) {
	c := startRedis(t)
	script := redisRateScript(t)
	refused, n := 0, 0
	for _, j := range streams(t) {
		for _, cs := range cases {
			s := storeSpec(fmt.Sprint(cs.rate), fmt.Sprint(cs.burst), cs.nodes, cs.rtt)
			origin := new(big.Rat).SetFrac64(j.origin, 1e9).FloatString(9)
			p, err := profiles.Parse(fmt.Sprintf("redis-rate:rate=%d,burst=%d,period=1s,origin=%s", cs.rate, cs.burst, origin))
			if err != nil {
				t.Fatal(err)
			}
			s.Store.Limiter, s.Store.Profile, s.Store.ProfileName = drl.StoreLibrary, p.New, p.String()
			got := storeRun(t, s, j)
			want := redisRateReplay(t, c, script, j, cs.rate, cs.burst, 1, cs.rtt)
			refused += agree(t, fmt.Sprintf("%s, redis_rate %d/s burst %d, %d nodes, rtt %v s", j.name, cs.rate, cs.burst, cs.nodes, cs.rtt), got, want)
			n += len(want)

			// The exact GCRA store (--store-limiter gcra) is the same
			// limit in exact arithmetic; the script's float64 can move a
			// decision at a tie. Reported, not required.
			s.Store.Limiter, s.Store.Profile = drl.StoreGCRA, nil
			exactGot := storeRun(t, s, j)
			diff := 0
			for i := range want {
				if exactGot[i] != want[i] {
					diff++
				}
			}
			t.Logf("  exact GCRA store: %d of %d jobs differ from the script (its float64 roundings; reported, not required)", diff, len(want))
		}
	}
	mixed(t, refused, n)
}

// mixed fails a test whose cases, together, refused nothing or everything:
// such a test could not tell two limiters apart.
func mixed(t *testing.T, refused, n int) {
	t.Helper()
	if refused == 0 || refused == n {
		t.Errorf("Redis refused %d of %d jobs over all cases: the cases cannot tell limiters apart", refused, n)
	}
	t.Logf("over all cases: %d jobs, %d refused, all decided alike", n, refused)
}

// TestStoreFixedWindowAgainstRedis: the store's fixed window (L = B jobs
// per W = B/R s, --store-limiter fixed-window) admits exactly the jobs
// that INCR + EXPIRE on a key per window admits in a real redis-server.
func TestStoreFixedWindowAgainstRedis(t *testing.T) {
	c := startRedis(t)
	refused, n := 0, 0
	for _, j := range streams(t) {
		for _, cs := range cases {
			rate, burst := fmt.Sprint(cs.rate), fmt.Sprint(cs.burst)
			s := storeSpec(rate, burst, cs.nodes, cs.rtt)
			s.Store.Limiter = drl.StoreFixedWindow
			got := storeRun(t, s, j)
			want := fixedWindowReplay(t, c, j, rate, burst, cs.rtt)
			refused += agree(t, fmt.Sprintf("%s, fixed window %s per %s/%s s, %d nodes, rtt %v s", j.name, burst, burst, rate, cs.nodes, cs.rtt), got, want)
			n += len(want)
		}
	}
	mixed(t, refused, n)
}
