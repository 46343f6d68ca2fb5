package latent

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestSpectraPlansReused: in a session (a device kept open, as Python's
// vkstat keeps it), the second spectra call of a shape builds and loads
// no VkFFT plan: the device lends it the plans of the first (nothing is
// saved on disk here, VKSTAT_FFT_CACHE=off).
func TestSpectraPlansReused(t *testing.T) {
	t.Setenv("VKSTAT_FFT_CACHE", "off")
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 2, 3, 6, 12, 10
	x, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range testdev.Devices(t) {
		var got [2]*Result
		for i := range got {
			if got[i], err = Run(context.Background(), dev, x.As(tensor.F32), Options{Spectra: true}); err != nil {
				t.Fatal(err)
			}
		}
		first, second := got[0].Spectra.Plans, got[1].Spectra.Plans
		t.Logf("%s: first call %v; second %v", dev.Info.Name, first, second)
		if first.Built+first.Loaded+first.Reused != 2 {
			t.Errorf("%s: first call took %v, want 2 plans (frames, series)", dev.Info.Name, first)
		}
		if second.Built != 0 || second.Loaded != 0 || second.Reused != 2 {
			t.Errorf("%s: second call took %v, want the 2 plans reused", dev.Info.Name, second)
		}
	}
}
