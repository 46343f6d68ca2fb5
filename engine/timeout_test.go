package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/glsl"
)

// slowShader keeps every invocation busy for iters dependent steps
// (lavapipe caps a loop at 65,535 iterations: the work is made wide, not
// long, so that it ends and the test can see the device recover).
const slowShader = `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer O { float o[]; };
layout(push_constant) uniform P { uint iters; } p;
void main() {
	float s = float(gl_GlobalInvocationID.x);
	for (uint i = 0u; i < p.iters; i++) {
		s = s * 0.999 + float(i & 7u);
	}
	o[gl_GlobalInvocationID.x] = s;
}
`

// TestTimeout: a kernel that outlasts Device.SetTimeout gives ErrTimeout
// rather than a hang, and the device runs the next sequence normally once
// the kernel has finished (validation on: nothing freed under it).
func TestTimeout(t *testing.T) {
	r, err := glsl.Compile([]byte(slowShader), "slow.comp", glsl.Options{})
	if err != nil {
		t.Skip(err)
	}
	for _, d := range testdev.Devices(t) {
		if !d.Info.IsLavapipe() {
			continue // sized for lavapipe; a GPU finishes it before any timeout worth testing
		}
		k, err := d.Kernel(engine.KernelSpec{Name: "slow", Code: r.SPIRV})
		if err != nil {
			t.Fatal(err)
		}
		const groups = 300
		buf, err := d.NewBuffer(groups * 64 * 4)
		if err != nil {
			t.Fatal(err)
		}
		push := func(iters uint32) []byte { return binary.LittleEndian.AppendUint32(nil, iters) }
		d.SetTimeout(20 * time.Millisecond)
		t0 := time.Now()
		_, err = d.Run(context.Background(), func(s *engine.Sequence) {
			s.Dispatch(k, [3]uint32{groups, 1, 1}, push(60000), engine.Bind(buf))
		})
		if !errors.Is(err, engine.ErrTimeout) {
			t.Fatalf("%s: want ErrTimeout, got %v after %v", d.Info.Name, err, time.Since(t0))
		}
		d.SetTimeout(0)
		out := make([]byte, 4*64)
		if _, err := d.Run(context.Background(), func(s *engine.Sequence) {
			s.Dispatch(k, [3]uint32{1, 1, 1}, push(3), engine.Bind(buf))
			s.Download(buf, 0, out)
		}); err != nil {
			t.Fatalf("%s: after a timeout: %v", d.Info.Name, err)
		}
		// s = x, then three steps: x·0.999³ + 0·0.999² + 1·0.999 + 2.
		if got := binary.LittleEndian.Uint32(out[4:]); got == 0 {
			t.Errorf("%s: no result after the timeout", d.Info.Name)
		}
		buf.Release()
	}
}
