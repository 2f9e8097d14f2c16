package specfile

import (
	"errors"
	"strings"
	"testing"
)

// TestRead: a spec within the limits reads whole; one byte over 1 MiB, a
// value over 4 KiB and a tag outside YAML's core schema are refused with
// the file (and line), wrapping ErrSpec.
func TestRead(t *testing.T) {
	if data, err := Read(strings.NewReader("k: 2\n"), "s.yaml"); err != nil || string(data) != "k: 2\n" {
		t.Errorf("k: 2: %q, %v", data, err)
	}
	for _, c := range []struct{ in, want string }{
		{"a: " + strings.Repeat("x", maxSpecBytes) + "\n", "s.yaml: larger than 1048576 bytes"},
		{"k: 2\nname: " + strings.Repeat("x", maxSpecString+1) + "\n", "s.yaml:2: a value of 4097 bytes: want at most 4096"},
		{"k: !custom 2\n", "s.yaml:1: tag !custom"},
	} {
		_, err := Read(strings.NewReader(c.in), "s.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrSpec) {
			t.Errorf("error %v, want it to start %q and wrap ErrSpec", err, c.want)
		}
	}
}

// TestModel: the model a spec names, the split by default.
func TestModel(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"k: 2\n", SplitModel, ""},
		{"model: drl\ndrl: {}\n", "drl", ""},
		{"model: [a]\n", "", "s.yaml:1: model: want a model name"},
		{"a: [\n", "", "s.yaml"},
	} {
		got, err := Model([]byte(c.in), "s.yaml")
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: %q, %v; want %q, %q", c.in, got, err, c.want, c.err)
		}
	}
}
