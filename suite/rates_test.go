package suite_test

import (
	"context"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/suite"
)

// MeasureRates on the CPU path and a Vulkan device (a second logical
// device, as a new process would open): every asked operation gets a
// positive rate, fixed cost and first call; a device's start-up is
// measured, the CPU path has none.
func TestMeasureRates(t *testing.T) {
	devs := testdev.Devices(t)
	for _, dev := range devs[:1] {
		r, err := suite.MeasureRates(context.Background(), dev, []string{"map"}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, ok := r.Ops["map"]
		if !ok || len(r.Ops) != 1 || m.Flops <= 0 || m.FixedMs <= 0 || r.StartupMs <= 0 || r.GPU != dev.Info.IsGPU() {
			t.Errorf("%s: %+v", dev.Info.Name, r)
		}
	}
	r, err := suite.MeasureRates(context.Background(), nil, []string{"map", "chol"}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Ops) != 2 || r.Ops["chol"].Flops <= 0 || r.StartupMs != 0 || r.GPU {
		t.Errorf("the CPU path: %+v", r)
	}
}

// TestRatesOf: the suites named that have rates, in the order named; all
// is every one; a suite without rates (latent) is left out.
func TestRatesOf(t *testing.T) {
	if got := suite.RatesOf(" all "); !slices.Equal(got, suite.RateOps) {
		t.Errorf("all: %q, want %q", got, suite.RateOps)
	}
	if got := suite.RatesOf("paco, latent,reduce"); !slices.Equal(got, []string{"paco", "reduce"}) {
		t.Errorf("paco, latent,reduce: %q", got)
	}
}
