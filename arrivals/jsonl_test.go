package arrivals

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

const jsonlSample = `{"time": 1700000000.25, "user": "alice", "sub": 1}
{"user": "bob", "time": "1700000000.5", "sub": 0}

{"time": 1700000001, "user": "al\u0069ce", "nested": {"time": 5, "s": "}"}, "sub": 2}
{"time":1700000001,"user":"carol","time":1700000002,"sub":0}
  {"tag": [1, {"time": 3}], "time": 1700000003, "sub": 1, "user": null}  
{"time": 1700000004, "sub": 1}
`

// TestJSONL reads hand-written JSON lines: a number and a string time,
// field order, escapes, nested objects and arrays that hold the field
// name, a duplicate field (the last counts), a null and a missing key.
func TestJSONL(t *testing.T) {
	_, all, err := readTrace(t, jsonlSample, "events.jsonl", TraceOptions{KeyCol: "user", SubCol: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if got := times(all); !slices.Equal(got, []engine.Time{0, 250 * ms, 750 * ms, 1750 * ms, 2750 * ms, 3750 * ms}) {
		t.Errorf("times %v, want 0 0.25 0.75 1.75 2.75 3.75 s", got)
	}
	if got := lines(all); !slices.Equal(got, []int{1, 2, 4, 5, 6, 7}) {
		t.Errorf("lines %v, want 1 2 4 5 6 7", got)
	}
	var subs []int
	for _, a := range all {
		subs = append(subs, a.Sub)
	}
	if !slices.Equal(subs, []int{1, 0, 2, 0, 1, 1}) {
		t.Errorf("subs %v", subs)
	}
	if all[0].Hash != fnvKey("alice") || all[2].Hash != fnvKey("alice") || all[1].Hash != fnvKey("bob") ||
		all[4].Hash != fnvKey("null") || all[5].Hash != fnvKey("") || all[0].Key != all[2].Key || all[0].Key == all[1].Key {
		t.Errorf("keys %x", []uint64{all[0].Key, all[1].Key, all[2].Key, all[4].Key, all[5].Key})
	}
	// RFC 3339 strings in another field.
	_, all, err = readTrace(t, `{"ts": "2023-11-16T23:59:59.5Z"}`+"\n"+`{"ts": "2023-11-17T01:00:00+01:00"}`+"\n", "x.ndjson",
		TraceOptions{TimeCol: "ts", TimeFormat: "rfc3339"})
	if err != nil || !slices.Equal(times(all), []engine.Time{0, 500 * ms}) {
		t.Errorf("rfc3339: %v, times %v; want 0 0.5", err, times(all))
	}
}

func TestJSONLBadLines(t *testing.T) {
	good := `{"time": 10}` + "\n"
	for _, tc := range []struct{ line, want string }{
		{`[1, 2]`, "not a JSON object"},
		{`{"time": 11`, "not a JSON object"},
		{`time: 11`, "not a JSON object"},
		{`{"t": 11, "x": 1}`, `no field "time" in`},
		{`{"time": true}`, `time field "time" is a boolean`},
		{`{"time": {"s": 1}}`, `is an object`},
		{`{"time": 1.1e1}`, "bad time 1.1e1"},
		{`{"time": "soon"}`, `bad time "soon"`},
		{`{"time": 9}`, "earlier than the previous arrival"},
		{`{"time": 11, "sub": -1}`, "bad sub-bucket index -1"},
		{`{"time": 11}`, `no sub-bucket field "sub"`},
	} {
		log := good + good + tc.line + "\n" + `{"time": 12, "sub": 0}` + "\n"
		opt := TraceOptions{}
		if strings.Contains(tc.want, "sub") {
			opt.SubCol = "sub"
			log = strings.ReplaceAll(log, `{"time": 10}`, `{"time": 10, "sub": 0}`)
		}
		_, all, err := readTrace(t, log, "e.jsonl", opt)
		var te *TraceError
		if !errors.As(err, &te) || te.Line != 3 || !strings.HasPrefix(err.Error(), "arrivals: e.jsonl:3: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want e.jsonl:3 and %q", tc.line, err, tc.want)
		}
		if len(all) != 2 {
			t.Errorf("%s: %d arrivals before the error, want 2", tc.line, len(all))
		}
		opt.SkipBad = true
		tr, all, err := readTrace(t, log, "e.jsonl", opt)
		if err != nil || len(all) != 3 || tr.Skipped() != 1 {
			t.Errorf("%s with SkipBad: %v, %d arrivals, %d skipped", tc.line, err, len(all), tr.Skipped())
		}
	}
}

// TestEachMember checks the member scanner on tricky objects, against
// names and values written by hand.
func TestEachMember(t *testing.T) {
	obj := []byte(`{ "a" : 1 , "b\"c":"x,}y", "d":[1,{"e":"]"}], "f":{"g":{}} ,"h":-2.5e3,"i":null}`)
	var got []string
	eachMember(obj, func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	want := []string{`a=1`, `b\"c="x,}y"`, `d=[1,{"e":"]"}]`, `f={"g":{}}`, `h=-2.5e3`, `i=null`}
	if !slices.Equal(got, want) {
		t.Errorf("members %q, want %q", got, want)
	}
}
