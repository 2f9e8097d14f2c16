package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// requireEnv, set to 1 by .ci/run, turns "redis-server is not installed"
// from a skip into a failure: CI must run these tests.
const requireEnv = "RATESIM_REQUIRE_REDIS"

// startRedis starts Debian's redis-server on a free loopback port, with
// no persistence, and returns a client to it; the server is stopped when
// the test ends. Without redis-server it skips with a message saying how
// to install it, or fails when RATESIM_REQUIRE_REDIS=1.
func startRedis(t *testing.T) *redis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server not found in PATH (Debian: apt-get install -y redis-server): " + err.Error()
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s; %s=1 requires it", msg, requireEnv)
		}
		t.Skip("skipping: " + msg)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--logfile", "")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := c.Ping(ctx).Err(); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not answer PING within 10 s: %v\n%s", port, err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`redis_version:(\S+)`).FindStringSubmatch(info); m != nil {
		t.Logf("redis-server %s (%s) on 127.0.0.1:%d", m[1], bin, port)
	}
	return c
}

// redisRateScript returns go-redis/redis_rate v10's allowN Lua script as
// the module cache holds it (lua.go of the version go.mod requires, found
// with `go list -m -json`), with one substitution: Redis's clock,
// redis.call("TIME"), becomes {ARGV[5], ARGV[6]}, the job's instant passed
// as TIME returns it (seconds and microseconds, as strings), so that the
// script decides at the store's instant of each job rather than at the
// wall clock's. Nothing else of the script changes.
func redisRateScript(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", "github.com/go-redis/redis_rate/v10").Output()
	if err != nil {
		t.Fatalf("go list -m -json github.com/go-redis/redis_rate/v10: %v", err)
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go list -m: no module directory in %s (%v); run go mod download", out, err)
	}
	src, err := os.ReadFile(mod.Dir + "/lua.go")
	if err != nil {
		t.Fatal(err)
	}
	const open = "var allowN = redis.NewScript(`"
	s := string(src)
	i := strings.Index(s, open)
	if i < 0 {
		t.Fatalf("redis_rate %s lua.go: no %q", mod.Version, open)
	}
	script := s[i+len(open):]
	script = script[:strings.Index(script, "`")]
	const clock = `redis.call("TIME")`
	if n := strings.Count(script, clock); n != 1 {
		t.Fatalf("redis_rate %s allowN: %d occurrences of %s, want 1", mod.Version, n, clock)
	}
	t.Logf("redis_rate %s allowN script from %s/lua.go, %s -> {ARGV[5], ARGV[6]}", mod.Version, mod.Dir, clock)
	return strings.Replace(script, clock, "{ARGV[5], ARGV[6]}", 1)
}
