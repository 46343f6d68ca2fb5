package chol

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestVulkanManyRightHandSides: the solves loop about 2P times per
// right-hand side in one invocation, and llvmpipe (lavapipe) silently ends
// an invocation's loops after 65,535 iterations in all: at P = 49 and 800
// right-hand sides X was 2.8 off and the log-det and info codes garbage,
// until the host spread the columns over dispatches. Every output, with
// planted failures, against the reference on every device.
func TestVulkanManyRightHandSides(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		// Other devices have no loop limit but run the same split, slower
		// (SwiftShader: 1.2 s a matrix): fewer matrices there.
		n := 10
		if !dev.Info.IsLavapipe() {
			n = 3
		}
		c := makeCase(n, 49, 800, false, true, true, 5)
		want := c.reference(t, fmt.Sprintf("many-rhs/N%d/P49/K800", n))
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			if dt == tensor.F64 && !dev.Info.Float64 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", dev.Info.Name, dt), func(t *testing.T) {
				r := c.request(dt)
				got, _, err := Vulkan(context.Background(), dev, r)
				if err != nil {
					t.Fatal(err)
				}
				checkCholResult(t, got, want, dt, r)
			})
		}
	}
}

// TestVulkanLoopLimitRefusal: a factorisation too long for one invocation
// on lavapipe (P = 400: about 80,000 loop iterations, which gave L 207 off
// and a log-det of 0) is an error there, not a wrong answer.
func TestVulkanLoopLimitRefusal(t *testing.T) {
	a := tensor.New(tensor.F32, 1, 400, 400)
	for i := 0; i < 400; i++ {
		a.F32[i*400+i] = 1
	}
	for _, dev := range testdev.Devices(t) {
		if !dev.Info.IsLavapipe() {
			continue
		}
		_, _, err := Vulkan(context.Background(), dev, Request{Input: Input{A: a}, Options: Options{L: true}})
		if err == nil || !strings.Contains(err.Error(), "65,535") {
			t.Errorf("%s: P = 400: got %v, want an error about the loop limit", dev.Info.Name, err)
		}
	}
}
