package cov

import (
	"context"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/internal/device/testdev"
	"github.com/vkstat/vkstat/internal/device/tune"
)

// TestTunerHardCases: on a device with float64, the built-in parameters
// pass every hard case, and float accumulation is put out by the large
// means (relative error about 1e-3 at 1e6 ± 0.5, against 1e-4), as it
// failed the suites on the H100 when the tuner chose it.
func TestTunerHardCases(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			tu := Tuner(dev)
			if !dev.Info.Float64 {
				if len(tu.Hard) != 0 {
					t.Errorf("hard cases %q on a device without float64, where every candidate sums in float", tu.Hard)
				}
				return
			}
			ctx := context.Background()
			for h, name := range tu.Hard {
				if err := tu.Check(tune.WithOverride(ctx, "cov", tu.Candidates[0]), h); err != nil {
					t.Errorf("built-in %s: %s: %v", tune.Format(tu.Candidates[0]), name, err)
				}
			}
			float := map[string]any{"kernel": "tiled", "accumulate": "float", "tiled_r": 4, "tiled_wg": 128, "tiled_tt": 16}
			failed := ""
			for h, name := range tu.Hard {
				if err := tu.Check(tune.WithOverride(ctx, "cov", float), h); err != nil {
					failed += name + "; "
				}
			}
			if !strings.Contains(failed, "large means") {
				t.Errorf("float accumulation passed the large means (failed: %q)", failed)
			}
		})
	}
}
