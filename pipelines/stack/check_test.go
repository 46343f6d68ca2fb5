package stack

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestConfigCheck: the options no grid can take are refused before a file
// is read, each naming its parameters, said in the library's words and in
// the command line's (--filter-size for filter_size); NewPlan refuses them
// too (ErrConfig); the defaults and a filter's own window pass.
func TestConfigCheck(t *testing.T) {
	flag := func(p, _ string) string { return "--" + strings.ReplaceAll(p, "_", "-") }
	for _, c := range []struct {
		cfg        Config
		lib, words string
	}{
		{Config{Filter: Filter{Size: 5}}, "filter_size and enl go with filter (boxcar, lee or refined-lee)",
			"--filter-size and --enl go with --filter (boxcar, lee or refined-lee)"},
		{Config{Filter: Filter{Kind: Boxcar, Size: 5, ENL: 4}}, "enl goes with the Lee filters (filter lee or refined-lee)",
			"--enl goes with the Lee filters (--filter lee or refined-lee)"},
		{Config{Filter: Filter{Kind: Lee, Size: 4}}, "filter_size: want an odd window of at least 3 for filter lee, got 4",
			"--filter-size: want an odd window of at least 3 for --filter lee, got 4"},
		{Config{Filter: Filter{Kind: RefinedLee, Size: 3}}, "filter_size: want an odd window of at least 5 for filter refined-lee, got 3",
			"--filter-size: want an odd window of at least 5 for --filter refined-lee, got 3"},
		{Config{Filter: Filter{Kind: Lee, Size: 5, ENL: -1}}, "enl: want a positive number of looks, got -1",
			"--enl: want a positive number of looks, got -1"},
		{Config{Ddof: -1}, "ddof must be 0 or more, got -1", "--ddof must be 0 or more, got -1"},
	} {
		err := c.cfg.Check()
		if err == nil || err.Error() != c.lib {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.lib)
			continue
		}
		var words interface {
			Words(engine.Setting) string
		}
		if !errors.As(err, &words) || words.Words(flag) != c.words {
			t.Errorf("%+v: worded %q, want %q", c.cfg, words.Words(flag), c.words)
		}
		if _, err := NewPlan(c.cfg, Grid{Width: 8, Height: 8}); !errors.Is(err, ErrConfig) || !strings.HasSuffix(err.Error(), c.lib) {
			t.Errorf("NewPlan %+v: %v", c.cfg, err)
		}
	}
	for _, cfg := range []Config{{}, {Filter: Filter{Kind: RefinedLee, Size: 5, ENL: 2}}, {Filter: Filter{Kind: Boxcar, Size: 3}, Ddof: 1}} {
		if err := cfg.Check(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	var fe *engine.FieldError
	if _, err := ParseQuantity("power"); !errors.As(err, &fe) || fe.Field != "quantity" {
		t.Errorf("quantity power: %v", err)
	}
	if err := CheckBand(0); !errors.As(err, &fe) || fe.Words(flag) != "--band: bands are numbered from 1, got 0" {
		t.Errorf("band 0: %v", err)
	}
}

// TestNewWindowAndFilter: the window of either spelling, in input pixels,
// and the filter's default window, as every front end takes them.
func TestNewWindowAndFilter(t *testing.T) {
	if w, err := NewWindow([]int{3, 4, 10, 0}, false, 2, 5); err != nil || w != (Window{X: 3, Y: 4, W: 10}) {
		t.Errorf("window 3,4,10,0: %+v, %v", w, err)
	}
	// crop: rows first, in boxes of 2×5 (rows × columns) pixels.
	if w, err := NewWindow([]int{1, 2, 3, 4}, true, 2, 5); err != nil || w != (Window{X: 10, Y: 2, W: 20, H: 6}) {
		t.Errorf("crop 1,2,3,4: %+v, %v", w, err)
	}
	for _, bad := range [][]int{nil, {1, 2, 3}, {0, 0, -1, 0}} {
		_, err := NewWindow(bad, false, 1, 1)
		if err == nil || !strings.HasPrefix(err.Error(), "window: want four integers ≥ 0 (xoff, yoff, xsize, ysize") {
			t.Errorf("window %v: %v", bad, err)
		}
	}
	if f := NewFilter(Lee, 0, 0); f.Size != DefaultFilterSize {
		t.Errorf("lee with no size: %+v", f)
	}
	if f := NewFilter(NoFilter, 0, 0); f.Size != 0 {
		t.Errorf("no filter: %+v", f)
	}
	if f := NewFilter(Boxcar, 7, 0); f.Size != 7 {
		t.Errorf("boxcar 7: %+v", f)
	}
}
