package compensated

import "testing"

func TestSumExact(t *testing.T) {
	// 1e16 + 1 + ... (1e4 ones) - 1e16: a plain sum loses every 1 (the
	// spacing of float64 at 1e16 is 2); the exact answer is 1e4.
	var k Sum[float64]
	plain := 1e16
	k.Add(1e16)
	for range 10000 {
		k.Add(1)
		plain += 1
	}
	k.Add(-1e16)
	plain -= 1e16
	if got := k.Value(); got != 1e4 {
		t.Errorf("compensated sum = %v, want 1e4 (plain sum gives %v)", got, plain)
	}
}

func TestSumTenths(t *testing.T) {
	// 0.1 added 1e6 times: the exact sum of the float64 nearest 0.1 taken
	// 1e6 times is 100000.0000000000055511151231257827 (exact rational
	// arithmetic), whose nearest float64 is 100000. A plain running sum
	// gives 100000.00000133288.
	var k Sum[float64]
	for range 1000000 {
		k.Add(0.1)
	}
	if got, want := k.Value(), 100000.0; got != want {
		t.Errorf("sum of 1e6 x 0.1 = %.17g, want %.17g", got, want)
	}
}
