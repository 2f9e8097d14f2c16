package engine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// recorder is a component that logs (instant, arg) of each of its events and,
// for arg < 0, schedules a follow-up event at now + 1 with arg -arg.
type recorder struct {
	log []Event
}

func (r *recorder) Handle(s *Sim, now Time, arg int) {
	r.log = append(r.log, Event{At: now, Arg: arg})
	if arg < 0 {
		s.Schedule(now+1, r, -arg)
	}
}

func TestStepOrder(t *testing.T) {
	// Scheduled out of order with ties at 1 and 2; ties run in insertion
	// order, so the expected order is read off the schedule by hand.
	s := NewSim()
	r := &recorder{}
	s.Schedule(2, r, 20)
	s.Schedule(1, r, 10)
	s.Schedule(2, r, 21)
	s.Schedule(0, r, -5) // runs at 0 and schedules arg 5 at 1, after arg 10
	s.Schedule(1, r, 11)
	s.Run()
	want := []Event{{At: 0, Arg: -5}, {At: 1, Arg: 10}, {At: 1, Arg: 11}, {At: 1, Arg: 5}, {At: 2, Arg: 20}, {At: 2, Arg: 21}}
	if len(r.log) != len(want) {
		t.Fatalf("ran %d events, want %d: %v", len(r.log), len(want), r.log)
	}
	for i := range want {
		if r.log[i] != want[i] {
			t.Errorf("step %d: ran (%v, %d), want (%v, %d)", i, r.log[i].At, r.log[i].Arg, want[i].At, want[i].Arg)
		}
	}
	if s.Now() != 2 || s.Steps() != 6 || s.Pending() != 0 {
		t.Errorf("after Run: Now=%v Steps=%d Pending=%d, want 2, 6, 0", s.Now(), s.Steps(), s.Pending())
	}
	if s.Step() {
		t.Error("Step on an empty queue returned true")
	}
}

// TestHeapAgainstSort compares the run order of many random events (with
// many ties) against a stable sort by time, an independent oracle.
func TestHeapAgainstSort(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 1))
	s := NewSim()
	r := &recorder{}
	type ev struct {
		at  Time
		arg int
	}
	var evs []ev
	for i := range 5000 {
		at := Time(src.IntN(200)) / 4 // many ties
		evs = append(evs, ev{at, i})
		s.Schedule(at, r, i)
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	s.Run()
	for i, e := range evs {
		if r.log[i].At != e.at || r.log[i].Arg != e.arg {
			t.Fatalf("event %d: ran (%v, %d), want (%v, %d)", i, r.log[i].At, r.log[i].Arg, e.at, e.arg)
		}
	}
}

func TestRunUntil(t *testing.T) {
	s := NewSim()
	r := &recorder{}
	for _, at := range []Time{30, 10, 20, 25} {
		s.Schedule(at, r, int(at))
	}
	s.RunUntil(25)
	if len(r.log) != 3 || s.Now() != 25 || s.Pending() != 1 || s.Peek() != 30 {
		t.Errorf("RunUntil(25): ran %d, Now %v, Pending %d, Peek %v; want 3, 25, 1, 30", len(r.log), s.Now(), s.Pending(), s.Peek())
	}
	s.RunUntil(100)
	if s.Now() != 30 || s.Peek() != Forever {
		t.Errorf("RunUntil(100): Now %v, Peek %v; want 30 and Forever", s.Now(), s.Peek())
	}
}

func TestObserversSeeEachEvent(t *testing.T) {
	s := NewSim()
	r := &recorder{}
	var seen []Time
	s.Observe(func(ev Event) { seen = append(seen, ev.At) })
	s.Schedule(2*Second, r, -1) // runs at 2 s and schedules a follow-up 1 ns later
	s.Schedule(Second, r, 0)
	s.Run()
	want := []Time{Second, 2 * Second, 2*Second + 1}
	if !slices.Equal(seen, want) {
		t.Errorf("observer saw %v, want %v", seen, want)
	}
}

func TestSchedulePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   Time
	}{
		{"past", 0},
		{"Forever", Forever},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSim()
			r := &recorder{}
			s.Schedule(1, r, 0)
			s.Step()
			defer func() {
				if recover() == nil {
					t.Errorf("Schedule(%v) at Now()=1 did not panic", tc.at)
				}
			}()
			s.Schedule(tc.at, r, 0)
		})
	}
}

type nop struct{}

func (nop) Handle(*Sim, Time, int) {}

// BenchmarkScheduleStep measures one Schedule plus one Step with about 64
// events pending, the size of a small model's queue.
func BenchmarkScheduleStep(b *testing.B) {
	s := NewSim()
	h := nop{}
	src := rand.New(rand.NewPCG(1, 1))
	for range 64 {
		s.Schedule(Time(src.Float64()), h, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Schedule(s.Now()+Time(src.Float64()), h, 0)
		s.Step()
	}
}

func TestTimeSecondsAndString(t *testing.T) {
	for _, c := range []struct {
		t    Time
		secs float64
		text string
	}{
		{0, 0, "0"},
		{300 * Millisecond, 0.3, "0.3"},
		{-1500 * Millisecond, -1.5, "-1.5"},
		{1700000000*Second + 1, 1700000000.000000001, "1700000000.000000001"},
		{Forever, 9223372036.854775807, "9223372036.854775807"},
		{-Forever - 1, -9223372036.854775808, "-9223372036.854775808"},
	} {
		if got := c.t.Seconds(); got != c.secs {
			t.Errorf("Time(%d).Seconds() = %v, want %v", int64(c.t), got, c.secs)
		}
		if got := c.t.String(); got != c.text {
			t.Errorf("Time(%d).String() = %q, want %q", int64(c.t), got, c.text)
		}
	}
	for _, c := range []struct {
		s  float64
		t  Time
		ok bool
	}{
		{0.1, 100 * Millisecond, true},
		{1e-9, 1, true},
		{0.4e-9, 0, true},
		{-2.5e-9, -3, true}, // ties away from zero
		{9.3e9, 0, false},
		{math.NaN(), 0, false},
	} {
		if got, ok := FromSeconds(c.s); got != c.t || ok != c.ok {
			t.Errorf("FromSeconds(%v) = %v, %v; want %v, %v", c.s, got, ok, c.t, c.ok)
		}
	}
}

// TestPriority: at one instant, priority 0 runs before priority 1 whatever
// the order of scheduling; within a priority, schedule order.
func TestPriority(t *testing.T) {
	s := NewSim()
	r := &recorder{}
	s.SchedulePriority(5, 1, r, 1)
	s.SchedulePriority(5, 0, r, 2)
	s.SchedulePriority(5, 1, r, 3)
	s.SchedulePriority(4, 9, r, 4)
	s.Run()
	want := []int{4, 2, 1, 3}
	for i, e := range r.log {
		if e.Arg != want[i] {
			t.Fatalf("ran %v, want args %v", r.log, want)
		}
	}
}

// TestTimeStringExact compares String with math/big's exact decimal of
// t/1e9 (trailing zeros dropped) on random and edge instants.
func TestTimeStringExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []Time{1, -1, 10, 1e9, 1e9 + 10, -Forever - 1, Forever, 100 * Millisecond}
	for range 10000 {
		cases = append(cases, Time(r.Int64()), Time(r.Int64N(1e12)), -Time(r.Int64N(1e10)))
	}
	for _, c := range cases {
		want := new(big.Rat).SetFrac(big.NewInt(int64(c)), big.NewInt(1e9)).FloatString(9)
		want = strings.TrimRight(strings.TrimRight(want, "0"), ".")
		if want == "" || want == "-" {
			want += "0"
		}
		if got := c.String(); got != want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(c), got, want)
		}
	}
}
