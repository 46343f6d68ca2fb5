package latent

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestOptionParams: the options every front end takes, with their
// defaults, read from text: the axes as integers comma-separated, bad
// axes refused naming them.
func TestOptionParams(t *testing.T) {
	ps := Params()
	for name, d := range map[string]any{"axes": []int{-2, -1}, "ddof": 0, "lags": 0, "nan": "propagate", "batch": 0} {
		if p := engine.FindParam(ps, name); p == nil || !reflect.DeepEqual(p.Default, d) {
			t.Errorf("%s: %+v, want default %v", name, p, d)
		}
	}
	if len(ps) != 5 || !slices.Equal(engine.FindParam(ps, "nan").Choices, []string{"propagate", "skip"}) {
		t.Errorf("params %+v: want axes, ddof, lags, nan (propagate or skip), batch", ps)
	}
	var o Options
	for name, text := range map[string]string{"axes": "0, -2,4", "ddof": "1", "lags": "2", "nan": "skip", "batch": "8"} {
		if err := engine.FindParam(ps, name).SetText(&o, text); err != nil {
			t.Fatalf("%s %q: %v", name, text, err)
		}
	}
	if !slices.Equal(o.Axes, []int{0, -2, 4}) || o.DDof != 1 || o.Lags != 2 || o.NaN != Skip || o.Batch != 8 {
		t.Errorf("set %+v", o)
	}
	for bad, words := range map[string]string{"": `axes: no axis given`, "1,,2": `axes "1,,2": an empty axis between commas`, "a": `axes "a": "a" is not an integer`} {
		err := engine.FindParam(ps, "axes").SetText(&o, bad)
		var fe *engine.FieldError
		if !errors.As(err, &fe) || err.Error() != words || !slices.Equal(o.Axes, []int{0, -2, 4}) {
			t.Errorf("axes %q: %v, want %s (axes %v)", bad, err, words, o.Axes)
		}
	}
	if err := engine.FindParam(ps, "nan").SetText(&o, "ignore"); err == nil || o.NaN != Skip {
		t.Errorf("nan ignore: %v, %v", err, o.NaN)
	}
}
