package stack

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
)

// TestVulkanLoopLimit: llvmpipe (lavapipe) silently ends a shader
// invocation's loops after 65,535 iterations in all; a 256×256 multilook
// loops 65,792 times per output pixel and a 149-pixel refined Lee window
// about 67,000 times. On lavapipe they are refused; elsewhere the
// multilook agrees with the CPU path (the filter's CPU run would take
// seconds: k²·H·W).
func TestVulkanLoopLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name    string
		h, w    int
		cfg     Config
		compare bool
	}{
		{"looks256x256", 512, 256, Config{LooksAz: 256, LooksRg: 256}, true},
		{"refined-lee149", 150, 150, Config{Filter: Filter{Kind: RefinedLee, Size: 149}}, false},
	} {
		g := Grid{Width: c.w, Height: c.h}
		var dates []Date
		for i := 0; i < 2; i++ {
			d := &memDate{name: fmt.Sprintf("d%d", i), g: g, data: make([]float32, c.h*c.w)}
			for j := range d.data {
				d.data[j] = float32(1 + rng.ExpFloat64())
			}
			dates = append(dates, d)
		}
		p, err := NewPlan(c.cfg, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, dev := range testdev.Devices(t) {
			got, err := Vulkan(context.Background(), dev, p, dates)
			if dev.Info.IsLavapipe() {
				if !errors.Is(err, engine.ErrDeviceLimit) {
					t.Errorf("%s on %s: got %v, want a refusal (the loop limit)", c.name, dev.Info.Name, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.compare {
				continue
			}
			want, err := CPU(context.Background(), p, dates)
			if err != nil {
				t.Fatal(err)
			}
			// Mean, min, max and count show every look was summed. Std and
			// CV of two dates are the difference of two float32 means of
			// 65,536 looks each, about 4,000 times smaller than the means,
			// so their rounding (SwiftShader sums in another order than
			// the CPU path) is amplified that much: held to the means'
			// error instead.
			g, w := resultArrays(got), resultArrays(want)
			compare(t, c.name+" on "+dev.Info.Name, [6][]float64{g[0], nil, nil, g[3], g[4], g[5]}, [6][]float64{w[0], nil, nil, w[3], w[4], w[5]}, 2e-5)
			meanScale, meanMin := 0.0, w[0][0]
			for _, v := range w[0] {
				meanScale, meanMin = max(meanScale, v), min(meanMin, v)
			}
			for k, tol := range map[int]float64{1: 2e-5 * meanScale, 2: 2e-5 * meanScale / meanMin} { // std, CV = std/mean
				for i := range w[k] {
					if d := g[k][i] - w[k][i]; !(d <= tol && -d <= tol) {
						t.Fatalf("%s on %s: %s[%d] = %g, want %g (within %g: the means' rounding)", c.name, dev.Info.Name, statNames[k], i, g[k][i], w[k][i], tol)
					}
				}
			}
		}
	}
}
