package stack

import (
	"errors"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestOptionParams: Config's parameters as the front ends take them: the
// looks and the window as text, the filter's fields in place, the
// defaults shown (1x1, no window, a filter's window 5) and bad text
// refused naming its parameter.
func TestOptionParams(t *testing.T) {
	ps := Params()
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	want := []string{"looks", "window", "quantity", "filter", "filter_size", "enl", "ddof"}
	if len(names) != len(want) {
		t.Fatalf("params %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("params %v, want %v", names, want)
		}
	}
	for name, d := range map[string]any{"looks": "1x1", "window": "", "quantity": "intensity", "filter": "none", "filter_size": 5, "enl": 0.0, "ddof": 0} {
		if got := engine.FindParam(ps, name).Default; got != d {
			t.Errorf("%s: default %v, want %v", name, got, d)
		}
	}
	cfg := DefaultConfig()
	for name, text := range map[string]string{"looks": "2x8", "window": "1, 2,30,40", "quantity": "amplitude", "filter": "refined-lee", "filter_size": "7", "enl": "4.5", "ddof": "1"} {
		if err := engine.FindParam(ps, name).SetText(&cfg, text); err != nil {
			t.Fatalf("%s %q: %v", name, text, err)
		}
	}
	if want := (Config{LooksAz: 2, LooksRg: 8, Window: Window{X: 1, Y: 2, W: 30, H: 40}, Quantity: Amplitude, Filter: Filter{Kind: RefinedLee, Size: 7, ENL: 4.5}, Ddof: 1}); cfg != want {
		t.Errorf("set %+v, want %+v", cfg, want)
	}
	if cfg.Text("looks") != "2x8" || cfg.Text("window") != "1,2,30,40" {
		t.Errorf("Text: looks %q, window %q", cfg.Text("looks"), cfg.Text("window"))
	}
	for name, bad := range map[string]string{"looks": "0", "window": "1,2,x", "quantity": "phase", "filter": "median"} {
		before := cfg
		err := engine.FindParam(ps, name).SetText(&cfg, bad)
		var fe *engine.FieldError
		if err == nil || cfg != before || (name != "filter" && (!errors.As(err, &fe) || fe.Field != name)) {
			t.Errorf("%s %q: err %v, config %+v", name, bad, err, cfg)
		}
	}
}
