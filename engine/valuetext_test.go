package engine

import (
	"encoding/json"
	"testing"
)

// The text of values as SetText reads them, written out by hand.
func TestValueText(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
		ok   bool
	}{
		{0.1, "0.1", true},
		{1e-7, "1e-07", true},
		{-3, "-3", true},
		{true, "true", true},
		{"psf", "psf", true},
		{json.Number("2.50"), "2.50", true},
		{[]float64{0.5, 0.25}, "0.5,0.25", true},
		{[]int{-2, -1}, "-2,-1", true},
		{[]string{"mean", "std"}, "mean,std", true},
		{[]any{1.5, json.Number("3"), "x", true}, "1.5,3,x,", true},
		{[]int{}, "", true},
		{struct{}{}, "{}", false},
	} {
		if got, ok := ValueText(c.v); got != c.want || ok != c.ok {
			t.Errorf("ValueText(%#v) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}
