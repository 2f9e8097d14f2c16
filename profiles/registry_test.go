package profiles

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// TestRegistryDefaults builds every profile from its name alone and checks
// that the canonical string parses back to the same values.
func TestRegistryDefaults(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range Registry() {
		if seen[in.Name] {
			t.Fatalf("profile %q listed twice", in.Name)
		}
		seen[in.Name] = true
		if in.Library == "" || in.Versions == "" || in.Doc == "" || len(in.Keys) == 0 {
			t.Errorf("%s: incomplete Info %+v", in.Name, in)
		}
		for _, k := range in.Keys {
			if k.Unit == "" || k.Doc == "" || strings.ToLower(k.Name) != k.Name || strings.Contains(k.Name, "-") {
				t.Errorf("%s: key %+v: want a snake_case name, a unit and a doc", in.Name, k)
			}
		}
		p, err := Parse(in.Name)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in.Name, err)
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", p.String(), err)
		}
		if diff := cmp.Diff(p.values, q.values); diff != "" {
			t.Errorf("%s: canonical string %q does not round-trip (-first +second):\n%s", in.Name, p.String(), diff)
		}
		l := p.New()
		if l.Next() != engine.Forever {
			t.Errorf("%s: Next() = %v, want engine.Forever", in.Name, l.Next())
		}
		if _, ok := l.(buckets.Curve); !ok {
			t.Errorf("%s: the limiter does not state its arrival curve", in.Name)
		}
		l.Offer(0, 0)
	}
	if len(seen) != 14 {
		t.Errorf("%d profiles, want 14", len(seen))
	}
}

// TestParseCanonical checks spaces, flags and the canonical form.
func TestParseCanonical(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{" nginx : rate = 10r/s , burst=5 , nodelay ", "nginx:rate=10r/s,burst=5,nodelay"},
		{"nginx:rate=30r/m", "nginx:rate=30r/m"},
		{"xrate:burst=3,limit=10", "xrate:limit=10,burst=3,call=allow,max_wait=inf,version=v0.16.0"},
		{"uber", "uber:rate=100,per=1s,slack=10,version=v0.3.1"},
	} {
		p, err := Parse(c.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.spec, err)
		}
		if got := p.String(); got != c.want {
			t.Errorf("Parse(%q).String() = %q, want %q", c.spec, got, c.want)
		}
	}
}

// TestParseErrors checks that errors name the profile, the key and what
// would fit.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"nope:x=1", `unknown profile "nope"; profiles: xrate, guava-bursty`},
		{"xrate:brust=3", `xrate: unknown key "brust"; keys: limit, burst, call, max_wait, version`},
		{"xrate:burst=-1", `xrate: burst="-1": want an integer in [0, 2147483647] (tokens)`},
		{"xrate:limit=fast", `xrate: limit="fast": want a finite number >= 0 (events/s)`},
		{"xrate:call=block", `xrate: call="block": want one of allow, reserve, wait`},
		{"xrate:max_wait=1s", `max_wait applies to call=wait only`},
		{"xrate:version=1.2", `xrate: version="1.2": want a version v0.MINOR.PATCH`},
		{"xrate:burst=1,burst=2", `xrate: key "burst" given twice`},
		{"xrate:burst", `xrate: key "burst" needs a value (tokens)`},
		{"nginx:rate=10r/h", `nginx: rate="10r/h": want N r/s or N r/m`},
		{"nginx:burst=0", `nginx: burst="0": want an integer in [1, 2147483647] (requests)`},
		{"nginx:delay=2,nodelay", `delay= and nodelay exclude each other`},
		{"nginx:nodelay=maybe", `nginx: nodelay="maybe": want true or false`},
		{"envoy:fill_interval=10ms", `envoy: fill_interval="10ms": want a duration such as 1s or 100ms, >= 0.05 s`},
		{"guava-warmup:warmup_period=0s", `guava-warmup: warmup_period="0s": want a duration`},
		{"guava-bursty:permits_per_second=0", `guava-bursty: permits_per_second="0": want a finite number > 0 (permits/s)`},
		{"bucket4j-greedy:refill_tokens=5,refill_period=3ns", `refill_tokens 5: want 1 to 3`},
		{"trtcm:pir=5,cir=10", `cir 10 > pir 5`},
		{"srtcm:cbs=0,ebs=0", `want cbs, ebs >= 0 with one > 0`},
		{"redis-rate:origin=-1", `redis-rate: origin="-1": want a decimal number of seconds >= 0`},
		{"uber:rate=0", `uber: rate="0": want an integer in [1, 2147483647]`},
	} {
		_, err := Parse(c.spec)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error containing %q", c.spec, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "profiles: ") {
			t.Errorf("Parse(%q) = %q, want an error containing %q", c.spec, err, c.want)
		}
	}
	if _, err := Parse("nope"); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("Parse(nope) = %v, want ErrUnknownProfile", err)
	}
}

// TestRefusalLeavesStateUnchanged checks the protocol's rule on every
// profile (except a marker with yellow mapped to Reject, documented as the
// exception): a limiter offered a stream, and a twin offered the same
// stream without the jobs the first refused, decide every other job alike.
func TestRefusalLeavesStateUnchanged(t *testing.T) {
	src := rand.New(rand.NewPCG(6, 1))
	for _, ps := range promiseSpecs {
		if strings.Contains(ps.spec, "yellow=reject") {
			continue
		}
		p := MustParse(ps.spec)
		for _, sk := range streams {
			ts := sk.gen(src, 1000, ps.gap)
			a, b := p.New(), p.New()
			for i, at := range ts {
				da := a.Offer(at, int64(i))
				if da.Verdict == buckets.Reject {
					continue
				}
				if db := b.Offer(at, int64(i)); db.Verdict != da.Verdict || db.Wait.Cmp(da.Wait) != 0 {
					t.Fatalf("%s, stream %s, job %d at %v: %v wait %v after refusals, %v wait %v without them", ps.spec, sk.name, i, at, da.Verdict, da.Wait, db.Verdict, db.Wait)
				}
			}
		}
	}
}

// TestOfferPanicsWhenTimeGoesBack checks the protocol's programmer error.
func TestOfferPanicsWhenTimeGoesBack(t *testing.T) {
	for _, in := range Registry() {
		l := MustParse(in.Name).New()
		l.Offer(s1, 0)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Offer at an earlier instant did not panic", in.Name)
				}
			}()
			l.Offer(s1-1, 1)
		}()
	}
}

// TestDelays: the profiles whose library call may block are the shapers,
// read from each library's API (a refusing call never sleeps).
func TestDelays(t *testing.T) {
	for spec, want := range map[string]bool{
		"xrate":                         false,
		"xrate:call=reserve":            true,
		"guava-bursty":                  true,
		"guava-bursty:call=try_acquire": false,
		"guava-bursty:call=try_acquire,timeout=1ms": true,
		"bucket4j-greedy":                        false,
		"bucket4j-greedy:call=block":             true,
		"bucket4j-greedy:call=block,max_wait=0s": false,
		"nginx:burst=5":                          true,
		"nginx:burst=5,nodelay":                  false,
		"nginx:burst=5,delay=5":                  false,
		"nginx:burst=5,delay=2":                  true,
		"uber":                                   true,
		"throttled:max_burst=5":                  false,
		"srtcm":                                  false,
	} {
		p, err := Parse(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := p.Delays(); got != want {
			t.Errorf("%s: Delays() = %v, want %v", spec, got, want)
		}
	}
}
