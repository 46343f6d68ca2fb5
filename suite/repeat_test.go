package suite

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// TestRepeatCallCosts (issue 31, What must show 1): a second identical
// library call of map, reduce (along the first and the last axis), cov and
// chol allocates no device memory and creates no pipeline, descriptor pool,
// command buffer, query pool or fence, and copies each byte that crosses
// to or from the device at most once on the host — none of an imported
// array's — on the CPU path and on every device the suites run on (with
// VKSTAT_DISCRETE=1, as scripts/test-datapath.sh runs them, through
// staging or imported memory). Inputs of 1–3 MiB are above the import
// threshold. Issue 39: nor does it record a command buffer or write a
// descriptor.
func TestRepeatCallCosts(t *testing.T) {
	ms := []reduce.Stat{reduce.Mean, reduce.Std}
	cases := []struct {
		op string
		c  Case
	}{
		{"map", Case{Shape: []int{1 << 18}, Seed: 1}},
		{"reduce", reduce.NewCase([]int{8, 256, 256}, 0, reduce.Options{}, ms, false)},
		{"reduce", reduce.NewCase([]int{512, 1024}, -1, reduce.Options{}, ms, false)},
		{"cov", withShape("cov", Small, 128, 64, 49)},
		{"chol", withShape("chol", "", 512, 32, 32)},
	}
	ops := map[string]Op{}
	for _, op := range Ops() {
		ops[op.Name] = op
	}
	check := func(t *testing.T, dev *engine.Device) {
		for _, k := range cases {
			op, c := ops[k.op], k.c
			c.Seed = 7
			t.Run(op.Name+" "+c.Label(), func(t *testing.T) {
				in := op.Build(c, tensor.F32)
				if _, _, err := op.Run(context.Background(), dev, c, in); err != nil {
					t.Fatal(err)
				}
				_, tm, err := op.Run(context.Background(), dev, c, in)
				if err != nil {
					t.Fatal(err)
				}
				n := tm.Counts
				if dev == nil {
					if n != (engine.Counts{}) {
						t.Errorf("the CPU path counted %+v", n)
					}
					return
				}
				t.Logf("second call: moved %d up, %d down; %+v", tm.UpBytes, tm.DownBytes, n)
				if n.Allocs != 0 || n.AllocBytes != 0 || n.Frees != 0 {
					t.Errorf("%d allocations (%d bytes) and %d frees, want none", n.Allocs, n.AllocBytes, n.Frees)
				}
				if n.Pipelines != 0 || n.ShaderModules != 0 || n.DescriptorPools != 0 || n.CommandBuffers != 0 || n.QueryPools != 0 || n.Fences != 0 || n.Semaphores != 0 {
					t.Errorf("objects created: %d pipelines, %d shader modules, %d descriptor pools, %d command buffers, %d query pools, %d fences",
						n.Pipelines, n.ShaderModules, n.DescriptorPools, n.CommandBuffers, n.QueryPools, n.Fences)
				}
				// Issue 39: every sequence of the call replays the
				// command buffer the first call recorded, with its
				// descriptor sets (on UMA devices nothing at all is
				// recorded; elsewhere the staging ring's copies are).
				if n.Replays < 1 || n.DescriptorSets != 0 || n.DescriptorWrites != 0 {
					t.Errorf("%d sequences replayed, %d descriptor sets allocated, %d descriptors written; want replays and no descriptor work",
						n.Replays, n.DescriptorSets, n.DescriptorWrites)
				}
				if dev.UMA() && (n.Recordings != 0 || n.Buffers != 0) {
					t.Errorf("%d command buffers recorded, %d VkBuffers made; want none", n.Recordings, n.Buffers)
				}
				if n.Dispatches < 1 || n.Submits < 1 {
					t.Errorf("%d dispatches, %d submits: the call was not counted", n.Dispatches, n.Submits)
				}
				// Every byte that crosses is host-copied once, or
				// copied by the device from or into imported memory.
				moved := tm.UpBytes + tm.DownBytes
				if n.HostCopied()+n.Imported != moved {
					t.Errorf("host copies %d + imported %d bytes, for %d bytes moved", n.HostCopied(), n.Imported, moved)
				}
				if dev.UMA() && n.MappedIn+n.MappedOut != moved {
					t.Errorf("UMA: %d bytes copied into and out of mapped memory, for %d moved", n.MappedIn+n.MappedOut, moved)
				}
				// Where the device imports host memory, the main input
				// (at least 1 MiB) goes up with no host copy.
				if big := int64(in[0].Bytes()); dev.Imports() && n.Imported < big {
					t.Errorf("%d bytes imported, want at least the %d of the main input", n.Imported, big)
				}
			})
		}
	}
	t.Run("cpu", func(t *testing.T) { check(t, nil) })
	for _, d := range testdev.Devices(t) {
		t.Run(d.Info.Name, func(t *testing.T) { check(t, d) })
	}
}

// withShape is the first case of the named operation's bench cases of
// size sz (its verify cases when sz is empty) with the given shape: the
// case's options, at another size.
func withShape(name string, sz Size, shape ...int) Case {
	for _, op := range Ops() {
		if op.Name == name {
			c := op.Verify[0]
			if sz != "" {
				c = op.Bench[sz][0].Case
			}
			c.Shape = shape
			return c
		}
	}
	panic("no operation " + name)
}
