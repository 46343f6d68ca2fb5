package latent

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
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

// TestParseSamples: "" is every sample; LO:HI within the n samples is
// taken, spaces allowed; an empty, reversed or outside range is refused
// naming the samples.
func TestParseSamples(t *testing.T) {
	for text, want := range map[string][2]int{"": {0, 5}, "0:5": {0, 5}, " 1 : 3": {1, 3}, "4:5": {4, 5}} {
		if lo, hi, err := ParseSamples(text, []int{5, 4, 8, 8}); err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("%q: %d:%d %v, want %v", text, lo, hi, err, want)
		}
	}
	for _, text := range []string{"3:3", "4:2", "-1:2", "0:6", "2", "a:b", ":"} {
		if _, _, err := ParseSamples(text, []int{5, 4, 8, 8}); err == nil || err.Error() != "samples "+strconv.Quote(text)+": want LO:HI with 0 <= LO < HI <= 5 (the tensor's samples)" {
			t.Errorf("%q: %v", text, err)
		}
	}
	if lo, hi, err := ParseSamples("", nil); err != nil || lo != 0 || hi != 1 {
		t.Errorf("a scalar: %d:%d %v, want its one sample", lo, hi, err)
	}
}

// TestTruthSlope: the slope of a truth.json as SynthTruth writes it; JSON
// without one, or not JSON, is refused.
func TestTruthSlope(t *testing.T) {
	raw, err := json.Marshal(SynthTruth{SpatialSlope: -2.5, Shape: []int{1, 2, 3, 4, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := TruthSlope(raw); err != nil || *s != -2.5 {
		t.Errorf("slope %v %v, want -2.5", s, err)
	}
	if _, err := TruthSlope([]byte(`{"rho": 0.5}`)); err == nil || !strings.Contains(err.Error(), "no spatial_slope") {
		t.Errorf("no slope: %v", err)
	}
	if _, err := TruthSlope([]byte(`[`)); err == nil {
		t.Error("not JSON: no error")
	}
}
