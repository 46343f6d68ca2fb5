package latent

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestReport holds vkstat latent's summary table and summary.json's input
// to a hand-worked run: one sample of two channels of two pixels,
// channel 0 (1, 3) and channel 1 (0, 8), moments over the pixels: means 2
// and 4, variances 1 and 16, minima 1 and 0, maxima 3 and 8, skew 0 and
// excess kurtosis −2 (two equal weights).
func TestReport(t *testing.T) {
	x := tensor.FromF64([]float64{1, 3, 0, 8}, 1, 2, 1, 1, 2)
	opt := DefaultOptions()
	if err := opt.Select([]string{"moments"}); err != nil {
		t.Fatal(err)
	}
	opt.Axes = []int{3, 4}
	res, err := Run(context.Background(), nil, x, opt)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Path: "x.npy", Format: "npy", DType: "float64", Shape: x.Shape, ComputedAs: tensor.F64}
	table, sum := res.Report(in, "cpu", "1 of up to 1 samples", opt, []string{"d/mean.npy"})
	for _, want := range []string{
		"input:   x.npy (npy, float64 (1, 2, 1, 1, 2); computed as float64)\n",
		"device:  cpu\nbatches: 1 of up to 1 samples\n",
		"NaN/Inf: 0 NaN, 0 ±Inf in the input (--nan propagate)\n",
		"mean over axes [3 4]  (1, 2, 1)  2    3       4    0    \n",
		"var                   (1, 2, 1)  1    8.5     16   0    \n",
		"min                   (1, 2, 1)  0    0.5     1    0    \n",
		"kurt                  (1, 2, 1)  -2   -2      -2   0    \n",
		"wrote:   d/mean.npy\n",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if got := sum["input"].(map[string]any)["computed_as"]; got != "float64" || sum["device"] != "cpu" {
		t.Errorf("summary input %v, device %v", sum["input"], sum["device"])
	}
	if g4(1.0/3) != "0.3333" || g4(math.NaN()) != "NaN" {
		t.Errorf("G4: %s %s", g4(1.0/3), g4(math.NaN()))
	}
}
