package version

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in          Info
		str, commit string
	}{
		{Info{Version: "v1.2.3"}, "v1.2.3", ""},
		{Info{Version: "(devel)", Revision: "4f4c957a0b1c2d3e"}, "(devel) 4f4c957", "4f4c957a0b1c2d3e"},
		{Info{Version: "(devel)", Revision: "4f4c957a0b1c2d3e", Modified: true}, "(devel) 4f4c957+dirty", "4f4c957a0b1c2d3e+dirty"},
	} {
		if got := tc.in.String(); got != tc.str {
			t.Errorf("%+v.String() = %q, want %q", tc.in, got, tc.str)
		}
		if got := tc.in.Commit(); got != tc.commit {
			t.Errorf("%+v.Commit() = %q, want %q", tc.in, got, tc.commit)
		}
	}
}

func TestLinked(t *testing.T) {
	defer func(v string) { Linked = v }(Linked)
	Linked = "v9.9.9"
	if got := Get().Version; got != "v9.9.9" {
		t.Errorf("Get().Version = %q with Linked set, want v9.9.9", got)
	}
}
