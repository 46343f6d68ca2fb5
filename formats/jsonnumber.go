package formats

import "math"

// JSONNumber is v as a JSON document holds it: JSON has no NaN or
// infinities, which are null.
func JSONNumber(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}
