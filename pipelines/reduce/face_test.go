package reduce

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestRunSourceAndCentralOnCPU: RunSource's CPU path loads the source and
// reduces it (row means 2.5 and 25, by hand); Options.Central is refused
// where no device runs it (the CPU path, and RunSource's streamed array).
func TestRunSourceAndCentralOnCPU(t *testing.T) {
	ctx := context.Background()
	x := tensor.FromF64([]float64{1, 2, 3, 4, 10, 20, 30, 40}, 2, 4)
	opt := Options{Axes: Axes{1}, Stats: []Stat{Mean}}
	r, err := RunSource(ctx, nil, tensor.SourceOf(x), opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Stats[Mean].Float64s(); len(got) != 2 || got[0] != 2.5 || got[1] != 25 {
		t.Errorf("RunSource's means %v, want [2.5 25]", got)
	}
	opt.Central = true
	if _, err := Run(ctx, nil, x, opt); err == nil {
		t.Errorf("Run with Central on the CPU path: no error")
	}
	if _, err := RunSource(ctx, nil, tensor.SourceOf(x), opt); err == nil {
		t.Errorf("RunSource with Central: no error")
	}
}
