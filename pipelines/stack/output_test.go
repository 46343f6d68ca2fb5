package stack

import (
	"bytes"
	"math"
	"testing"
)

// TestOutput holds the statistics as written to hand-worked values: mean
// intensities 100 and 0.1 are 20 and −10 dB, as amplitudes 40 and −20 dB;
// std stays linear under --db; counts are int32 little-endian bytes.
func TestOutput(t *testing.T) {
	r := &Result{Mean: []float32{100, 0.1}, Std: []float32{2, 3}, Count: []float32{3, 70000}}
	for _, c := range []struct {
		name string
		db   bool
		q    Quantity
		want []float32
		inDB bool
	}{
		{"mean", true, Intensity, []float32{20, -10}, true},
		{"mean", true, Amplitude, []float32{40, -20}, true},
		{"mean", false, Amplitude, []float32{100, 0.1}, false},
		{"std", true, Intensity, []float32{2, 3}, false},
	} {
		v, inDB := r.Output(c.name, c.db, c.q)
		if inDB != c.inDB || len(v) != 2 || math.Abs(float64(v[0]-c.want[0])) > 1e-5 || math.Abs(float64(v[1]-c.want[1])) > 1e-5 {
			t.Errorf("%s db %v %v: %v %v, want %v %v", c.name, c.db, c.q, v, inDB, c.want, c.inDB)
		}
	}
	if !IsCount("count") || !IsCount("samples") || IsCount("mean") {
		t.Error("IsCount: count and samples are counts, mean is not")
	}
	if got, want := Int32Bytes(r.Count), []byte{3, 0, 0, 0, 0x70, 0x11, 1, 0}; !bytes.Equal(got, want) {
		t.Errorf("Int32Bytes = %v, want %v", got, want)
	}
}
