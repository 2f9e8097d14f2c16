package param

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

type toy struct {
	Rate    string   `yaml:"rate"`
	Nodes   int      `yaml:"nodes"`
	Seed    uint64   `yaml:"seed"`
	Loss    float64  `yaml:"loss"`
	Police  bool     `yaml:"police"`
	Period  string   `yaml:"sync_period"`
	Mode    string   `yaml:"mode"`
	Outage  []string `yaml:"outage,flow"`
	Window  string   `yaml:"window"`
	Comment string   `yaml:"-"`
}

func unitInterval(v any) string {
	if x := v.(float64); x < 0 || x >= 1 {
		return "a probability in [0, 1)"
	}
	return ""
}

func toyTable() *Table {
	return New("toy", "designs", toy{},
		Param{Key: "rate", Kind: Rat, Unit: "tokens/s", Default: "10", Usage: "rate R", Check: Positive, Sweep: true},
		Param{Key: "nodes", Kind: Int, Default: "4", Usage: "N", Check: AtLeast(1), Sweep: true},
		Param{Key: "seed", Short: "s", Kind: Int, Default: "1", Usage: "root seed"},
		Param{Key: "loss", Kind: Float, Default: "0", Usage: "loss", Check: unitInterval, ReadBy: []string{"sync", "grd"}},
		Param{Key: "police", Kind: Bool, Usage: "police"},
		Param{Key: "sync_period", Kind: Duration, Unit: "s", Default: "100ms", Inf: true, Usage: "period", ReadBy: []string{"sync"}},
		Param{Key: "mode", Kind: Enum, Choices: []string{"copy", "share"}, Default: "copy", Usage: "mode"},
		Param{Key: "outage", Kind: List, Usage: "FROM:TO", ReadBy: []string{"store"}},
		Param{Key: "window", Kind: Seconds, Default: "1/3", Usage: "W", Check: Positive},
	)
}

func TestVerifyDerivedFlags(t *testing.T) {
	if err := Verify(toyTable(), nil); err != nil {
		t.Fatal(err)
	}
}

// A hand-written flag set that disagrees with the table, as commands had
// before the table: Verify must name each disagreement.
func TestVerifyCatchesHandWrittenFlags(t *testing.T) {
	tb := toyTable()
	flags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("toy", pflag.ContinueOnError)
		var p toy
		tb.Bind(fs, &p)
		// Rebind two flags by hand: another default, and no check.
		hand := pflag.NewFlagSet("toy", pflag.ContinueOnError)
		fs.VisitAll(func(f *pflag.Flag) {
			switch f.Name {
			case "nodes":
				hand.IntVar(&p.Nodes, "nodes", 5, "N")
			case "loss":
				hand.Float64Var(&p.Loss, "loss", 0, "loss")
			default:
				hand.AddFlag(f)
			}
		})
		return hand
	}
	err := Verify(tb, flags)
	if err == nil {
		t.Fatal("Verify accepted a flag with another default and another check")
	}
	for _, want := range []string{`--nodes's default is "5", the key nodes's "4"`, `"0" for nodes`, `"1" for loss`, `"-1" for loss`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Verify's error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "for rate") {
		t.Errorf("Verify blamed rate, which the table binds:\n%v", err)
	}
}

func TestFlagErrors(t *testing.T) {
	tb := toyTable()
	for _, c := range []struct{ args, want string }{
		{"--nodes 0", "--nodes 0: want a whole number >= 1"},
		{"--nodes x", "--nodes x: want a whole number >= 1, at most 9223372036854775807"},
		{"--nodes 1e6", "--nodes 1e6: want a whole number >= 1, at most 9223372036854775807, written in digits (1e6 is 1000000)"},
		{"--seed 1e3", "--seed 1e3: want a whole number from 0 to 18446744073709551615, written in digits (1e3 is 1000)"},
		{"--sync-period 1.5ns", "--sync-period 1.5ns: want a duration that fits"},
		{"--rate 10/0", "--rate 10/0: want a decimal or a fraction p/q"},
		{"--rate -1", "--rate -1: want a number > 0"},
		{"--loss NaN", "--loss NaN: want a finite number"},
		{"--mode both", "--mode both: want one of copy or share"},
		{"--window 0", "--window 0: want a duration > 0"},
		{"--window inf", "--window inf: want a finite duration"},
	} {
		fs := pflag.NewFlagSet("toy", pflag.ContinueOnError)
		fs.SetOutput(discard{})
		var p toy
		tb.Bind(fs, &p)
		err := fs.Parse(strings.Fields(c.args))
		var pe *Error
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Error(), c.want) {
			t.Errorf("%s: got %v, want an *Error starting %q", c.args, err, c.want)
		}
		if !errors.Is(err, ErrParam) {
			t.Errorf("%s: %v does not wrap ErrParam", c.args, err)
		}
	}
	// 1.5 ns names the two durations that fit, engine's message.
	fs := pflag.NewFlagSet("toy", pflag.ContinueOnError)
	var p toy
	tb.Bind(fs, &p)
	err := fs.Set("sync-period", "1.5ns")
	if err == nil || !strings.Contains(err.Error(), "1ns") || !strings.Contains(err.Error(), "2ns") {
		t.Errorf("--sync-period 1.5ns: %v, want the nearest 1ns and 2ns named", err)
	}
}

func TestBindDefaultsAndValues(t *testing.T) {
	tb := toyTable()
	fs := pflag.NewFlagSet("toy", pflag.ContinueOnError)
	p := toy{Comment: "kept"}
	tb.Bind(fs, &p)
	want := toy{Rate: "10", Nodes: 4, Seed: 1, Period: "100ms", Mode: "copy", Window: "1/3", Comment: "kept"}
	if !equal(p, want) {
		t.Fatalf("defaults %+v, want %+v", p, want)
	}
	if err := fs.Parse([]string{"--rate", "10/13", "-s", "7", "--police", "--outage", "1s:2s", "--outage", "5s:6s", "--sync-period", "inf", "--window", "1.5ns"}); err != nil {
		t.Fatal(err)
	}
	want = toy{Rate: "10/13", Nodes: 4, Seed: 7, Police: true, Period: "inf", Mode: "copy", Outage: []string{"1s:2s", "5s:6s"}, Window: "1.5ns", Comment: "kept"}
	if !equal(p, want) {
		t.Fatalf("parsed %+v, want %+v", p, want)
	}
}

func equal(a, b toy) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func decode(t *testing.T, tb *Table, src string) (toy, error) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	var p toy
	tb.Defaults(&p)
	return p, tb.Decode("spec.yaml", &doc, &p)
}

func TestDecode(t *testing.T) {
	tb := toyTable()
	p, err := decode(t, tb, "rate: 10/13\nnodes: 8\noutage: [1s:2s, 3s:4s]\nsync_period: 1h30m\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := (toy{Rate: "10/13", Nodes: 8, Seed: 1, Period: "1h30m", Mode: "copy", Outage: []string{"1s:2s", "3s:4s"}, Window: "1/3"}); !equal(p, want) {
		t.Fatalf("decoded %+v, want %+v", p, want)
	}
	for _, c := range []struct{ src, want string }{
		{"rate: 1\nnodes: 0\n", "spec.yaml:2: nodes 0: want a whole number >= 1"},
		{"nodez: 3\n", `spec.yaml:1: unknown key "nodez": want one of rate, nodes, seed`},
		{"sync-period: 1s\n", `spec.yaml:1: unknown key "sync-period"`}, // a flag's spelling is not a key
		{"nodes: 2\nnodes: 3\n", `spec.yaml:2: key "nodes" given twice`},
		{"mode: !!python/object:os.system x\n", "spec.yaml:1: mode !!python/object:os.system: want a single value"},
		{"nodes: [1, 2]\n", "spec.yaml:1: nodes !!seq: want a single value (int)"},
		{"- 1\n", "spec.yaml:1: want a mapping"},
	} {
		if _, err := decode(t, tb, c.src); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}

func TestSetEchoUnread(t *testing.T) {
	tb := toyTable()
	p := tb.New().(*toy)
	if err := tb.Set(p, "sync-period", "10ms"); err != nil {
		t.Fatal(err)
	}
	if err := tb.Set(p, "nodes", "0"); err == nil || err.Error() != "nodes 0: want a whole number >= 1" {
		t.Errorf("Set nodes 0: %v", err)
	} else if err := AsFlag(err); err.Error() != "--nodes 0: want a whole number >= 1" {
		t.Errorf("AsFlag: %v", err)
	}
	if err := tb.Set(p, "speed", "1"); err == nil || !strings.Contains(err.Error(), `no parameter "speed"`) {
		t.Errorf("Set speed: %v", err)
	}
	if got := strings.Join(tb.Sweepable(), ","); got != "rate,nodes" {
		t.Errorf("Sweepable %s", got)
	}
	b, err := json.Marshal(tb.Echo(p))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"rate":"10","nodes":4,"seed":1,"loss":0,"police":false,"sync_period":"10ms","mode":"copy","outage":null,"window":"1/3"}`; string(b) != want {
		t.Errorf("Echo %s\nwant %s", b, want)
	}
	given := func(k string) bool { return k == "loss" || k == "rate" }
	if err := tb.Unread(given, []string{"one", "static"}, true); err == nil || !strings.HasPrefix(err.Error(), "--loss applies to sync, grd only, not to the designs run (one,static)") {
		t.Errorf("Unread: %v", err)
	}
	if err := tb.Unread(given, []string{"grd"}, false); err != nil {
		t.Errorf("Unread with a reader running: %v", err)
	}
}

func TestNewRefusesBadDeclarations(t *testing.T) {
	for name, ps := range map[string][]Param{
		"no field":     {{Key: "speed", Kind: Int}},
		"wrong type":   {{Key: "nodes", Kind: Float}},
		"twice":        {{Key: "nodes", Kind: Int}, {Key: "rate", Flag: "nodes", Kind: Rat}},
		"default bad":  {{Key: "nodes", Kind: Int, Default: "0", Check: AtLeast(1)}},
		"list of ints": {{Key: "outage", Kind: Int}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New accepted %+v", name, ps)
				}
			}()
			New("toy", "designs", toy{}, ps...)
		}()
	}
}
