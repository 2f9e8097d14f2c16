package experiments

import (
	"fmt"
	"math"
	"strconv"
)

// Num is a statistic that may be undefined: NaN is written as JSON null and
// as an empty CSV field, ±Inf as the JSON strings "+Inf" and "-Inf" and the
// same CSV text. Finite values are written in the shortest form that reads
// back to the same float64, so results survive a round trip exactly.
type Num float64

// MarshalJSON implements json.Marshaler.
func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (x *Num) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null":
		*x = Num(math.NaN())
	case `"+Inf"`:
		*x = Num(math.Inf(1))
	case `"-Inf"`:
		*x = Num(math.Inf(-1))
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("experiments: %s is not a number, null, \"+Inf\" or \"-Inf\"", s)
		}
		*x = Num(f)
	}
	return nil
}

func formatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
