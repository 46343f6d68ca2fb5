package eig

import (
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestVulkanLoopSplit: llvmpipe (lavapipe) silently ends a shader's loops
// after 65,535 iterations. At n = 200 (float32, A in global memory) a sweep
// is 199 rounds of about 160 loop iterations per invocation, so the first
// sequence's 6 sweeps in one dispatch would run about 190,000: with the
// split switched off (loopBudget = 1<<30) lavapipe returned Info OK after
// "6 sweeps" with eigenvalues wrong by 8 % of the largest and
// ‖VᵀV − I‖ = 1.1. The host splits the rounds over dispatches; this checks
// that the plan does split at this size and that the result holds.
func TestVulkanLoopSplit(t *testing.T) {
	const n = 200
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			k, err := newKernel(dev, n, tensor.F32, nil)
			if err != nil {
				t.Fatal(err)
			}
			if perSweep := k.m - 1; k.rounds >= 6*perSweep {
				t.Fatalf("%d rounds per dispatch: the first sequence's 6 sweeps (%d rounds) are not split", k.rounds, 6*perSweep)
			}
			a := batch(2, n, n)
			r := run(t, vulkanImpl(dev), a.As(tensor.F32), Options{})
			t.Logf("%d rounds per dispatch; sweeps %v", k.rounds, r.Sweeps)
			check(t, a, r, tensor.F32)
		})
	}
}
