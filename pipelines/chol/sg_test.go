package chol

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// sgP are the orders chol_sg.comp is held to: around subgroup sizes 8 and
// 32 and the sizes PACO uses.
var sgP = []int{1, 2, 7, 8, 9, 31, 32, 33, 49, 64, 100, 128}

// TestVulkanSubgroup runs chol_sg.comp (forced through tune.WithOverride),
// right- and left-looking, against the float64 reference on every device:
// factor, solves with several right-hand sides, inverse, log-det and bᵀA⁻¹b, float32
// and float64, with planted failures (non-SPD, NaN on and below the
// diagonal) in every batch. Where planSubgroup refuses P (workgroup memory,
// lavapipe's loop limit), the request must go to chol.comp and still be
// right; where it allows it, chol_sg.comp must be the kernel that ran.
func TestVulkanSubgroup(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			if !hasSubgroups(dev.Info) {
				t.Skipf("%s has no subgroup operations in compute", dev.Info.Name)
			}
			for _, order := range []string{"right", "left", "dot"} {
				for _, mpw := range []int{1, 4} {
					set := map[string]any{"kernel": "subgroup", "sg_order": order, "sg_matrices": mpw}
					ctx := tune.WithOverride(context.Background(), "chol", set)
					for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
						for i, p := range sgP {
							if mpw == 1 && i%3 != 0 {
								continue // one matrix per workgroup: a few sizes suffice
							}
							if testing.Short() && (mpw == 1 || i%2 == 1) {
								continue // the race runs: half the sizes (make test runs them all)
							}
							runSGCase(t, ctx, dev, order, mpw, dt, p, 1+i%3)
						}
					}
				}
			}
		})
	}
}

func runSGCase(t *testing.T, ctx context.Context, dev *engine.Device, order string, mpw int, dt tensor.DType, p, k int) {
	t.Run(fmt.Sprintf("%s/mpw%d/%s/P%d/K%d", order, mpw, dt, p, k), func(t *testing.T) {
		if dt == tensor.F64 && !dev.Info.Float64 {
			t.Skip("no float64")
		}
		n := 65
		if p > 64 {
			n = 22
		}
		c := makeCase(n, p, k, false, true, dt == tensor.F64, uint64(p*1000+k))
		want := c.reference(t, fmt.Sprintf("sg/P%d/N%d/K%d/%v", p, n, k, dt == tensor.F64))
		full := c.request(dt)
		r := full
		tn, err := resolveTuning(ctx, dev.Info)
		if err != nil {
			t.Fatal(err)
		}
		m, why := planSubgroup(dev.Info, p, dt == tensor.F64, flagLogDet|flagInverse, tn)
		kern, err := pickKernel(ctx, dev, r, dims{n: n, p: p, k: k, rhs: true})
		if err != nil {
			t.Fatal(err)
		}
		if (kern.sg > 0) != (m > 0) || m > 0 && kern.mpw != m {
			t.Fatalf("planSubgroup gives %d matrices per workgroup (%s), but the kernel picked has sg %d, mpw %d", m, why, kern.sg, kern.mpw)
		}
		if m == 0 {
			t.Logf("P = %d %s goes to chol.comp: %s", p, dt, why)
		} else if m > mpw {
			t.Fatalf("%d matrices per workgroup, over sg_matrices = %d", m, mpw)
		}
		got, _, err := Vulkan(ctx, dev, r)
		if err != nil {
			t.Fatal(err)
		}
		checkCholResult(t, got, want, dt, r)
		// Each output alone: the subgroup kernel honours every combination.
		for _, sub := range []Request{{Input: Input{A: r.A}, Options: Options{LogDet: true}}, {Input: Input{A: r.A, B: r.B}}, {Input: Input{A: r.A}, Options: Options{Inverse: true}}, {Input: Input{A: r.A, B: r.B}, Options: Options{Quad: true, LogDet: true}}, {Input: Input{A: r.A}}} {
			got, _, err := Vulkan(ctx, dev, sub)
			if err != nil {
				t.Fatal(err)
			}
			checkCholResult(t, got, want, dt, sub)
		}
	})
}

// TestVulkanSubgroupManyRightHandSides: chol_sg.comp's solves spread over
// dispatches within lavapipe's loop limit (P = 49, 300 right-hand sides:
// about 420 iterations each per lane at 8 lanes), every output checked.
func TestVulkanSubgroupManyRightHandSides(t *testing.T) {
	ctx := tune.WithOverride(context.Background(), "chol", map[string]any{"kernel": "subgroup"})
	for _, dev := range testdev.Devices(t) {
		if !hasSubgroups(dev.Info) {
			continue
		}
		c := makeCase(9, 49, 300, false, true, true, 11)
		want := c.reference(t, "sg-many-rhs")
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			if dt == tensor.F64 && !dev.Info.Float64 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", dev.Info.Name, dt), func(t *testing.T) {
				full := c.request(dt)
				r := Request{Input: Input{A: full.A, B: full.B}, Options: Options{LogDet: true, Quad: true}}
				got, _, err := Vulkan(ctx, dev, r)
				if err != nil {
					t.Fatal(err)
				}
				checkCholResult(t, got, want, dt, r)
			})
		}
	}
}

// TestPickKernel: the built-in choice is chol.comp; asked for, the subgroup
// kernel serves every output where the device has subgroup operations in
// compute.
func TestPickKernel(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		a := tensor.New(tensor.F32, 3, 5, 5)
		d := dims{n: 3, p: 5}
		k, err := pickKernel(context.Background(), dev, Request{Input: Input{A: a}}, d)
		if err != nil {
			t.Fatal(err)
		}
		if k.sg != 0 {
			t.Errorf("%s: the built-in kernel is chol_sg.comp", dev.Info.Name)
		}
		ctx := tune.WithOverride(context.Background(), "chol", map[string]any{"kernel": "subgroup"})
		if k, err = pickKernel(ctx, dev, Request{Input: Input{A: a}, Options: Options{Inverse: true}}, d); err != nil || (k.sg != 0) != hasSubgroups(dev.Info) {
			t.Errorf("%s: subgroup kernel asked for: sg = %d, device has subgroups %v (%v)", dev.Info.Name, k.sg, hasSubgroups(dev.Info), err)
		}
	}
}

// TestPlanSubgroup checks planSubgroup on hand-written device limits: one
// matrix takes (P(P+1)/2 + P)·es bytes, so 32 KiB hold float32 P <= 126
// (8127 elements) and float64 P <= 89 (4094); 48 KiB float32 P <= 155
// (12245). On lavapipe with 8 lanes the factorisation's loop bound
// (sgLoops) stops float32 before P = 127 anyway.
func TestPlanSubgroup(t *testing.T) {
	info := func(shared, lanes uint32, ops ...string) engine.DeviceInfo {
		return engine.DeviceInfo{Name: "hand", MaxSharedMemory: shared, MaxWorkgroupInvocation: 1024,
			MaxWorkgroupSize: [3]uint32{1024, 1024, 64}, SubgroupSize: lanes, SubgroupOps: ops}
	}
	tn := tuning{kernel: "subgroup", sgMatrices: 64, sgMaxP: 1024}
	for _, c := range []struct {
		shared, lanes uint32
		double        bool
		last          int
	}{{32 << 10, 8, false, 126}, {32 << 10, 8, true, 89}, {48 << 10, 32, false, 155}, {48 << 10, 32, true, 109}} {
		in := info(c.shared, c.lanes, "basic")
		for _, p := range []int{1, c.last - 1, c.last, c.last + 1} {
			m, why := planSubgroup(in, p, c.double, 0, tn)
			if want := p <= c.last; (m > 0) != want {
				t.Errorf("%d B, double %v, P = %d: %d matrices per workgroup (%s), want any: %v", c.shared, c.double, p, m, why, want)
			}
		}
	}
	// Matrices per workgroup: the fewest of sg_matrices, memory and size.
	if m, _ := planSubgroup(info(48<<10, 32, "basic"), 49, false, 0, tuning{sgMatrices: 64, sgMaxP: 128}); m != 9 {
		t.Errorf("P = 49 float32 in 48 KiB: %d matrices per workgroup, want 9 (5096 B each)", m)
	}
	if m, _ := planSubgroup(info(48<<10, 32, "basic"), 8, false, 0, tuning{sgMatrices: 64, sgMaxP: 128}); m != 32 {
		t.Errorf("P = 8, 32 lanes: %d matrices per workgroup, want 32 (1024 invocations)", m)
	}
	if m, _ := planSubgroup(info(48<<10, 32, "basic"), 8, false, 0, tuning{sgMatrices: 4, sgMaxP: 128}); m != 4 {
		t.Errorf("P = 8, sg_matrices 4: %d matrices per workgroup", m)
	}
	if m, _ := planSubgroup(info(48<<10, 32, "basic"), 65, false, 0, tuning{sgMatrices: 4, sgMaxP: 64}); m != 0 {
		t.Errorf("P = 65 above sg_max_p 64: %d matrices per workgroup", m)
	}
	if m, _ := planSubgroup(info(48<<10, 32), 8, false, 0, tn); m != 0 {
		t.Errorf("no subgroup operations: %d matrices per workgroup", m)
	}
	lvp := info(32<<10, 8, "basic")
	lvp.Name = "llvmpipe (LLVM 15.0.6, 256 bits)"
	for p := 1; p <= 126; p++ {
		if m, why := planSubgroup(lvp, p, false, flagLogDet, tn); m == 0 {
			t.Errorf("lavapipe, P = %d float32: refused (%s), want the loop bound (%d) within the limit", p, why, sgLoops(p, 8, false, false, flagLogDet))
		}
	}
}

// TestSubgroupDotFallback: the dot order needs subgroup arithmetic in
// compute; without it (a device opened without subgroup operations keeps
// the basic ones only) chol_sg.comp runs left-looking.
func TestSubgroupDotFallback(t *testing.T) {
	ctx := tune.WithOverride(context.Background(), "chol", map[string]any{"kernel": "subgroup", "sg_order": "dot"})
	full := engine.DeviceInfo{Name: "hand", SubgroupSize: 32, SubgroupOps: []string{"basic", "vote", "arithmetic"}}
	for _, c := range []struct {
		info engine.DeviceInfo
		want string
	}{{full, "dot"}, {full.Without(engine.Subgroup), "left"}} {
		tn, err := resolveTuning(ctx, c.info)
		if err != nil {
			t.Fatal(err)
		}
		if tn.order != c.want {
			t.Errorf("%s: order %q, want %q", c.info.Name, tn.order, c.want)
		}
	}
}

// TestVulkanSubgroupSuite runs the whole chol suite (runCholSuite) with the
// subgroup kernel asked for, so that chol_sg.comp meets every size, batch,
// planted failure, output subset and refusal that chol.comp meets; sizes
// it has no room for go to chol.comp.
func TestVulkanSubgroupSuite(t *testing.T) {
	ctx := tune.WithOverride(context.Background(), "chol", map[string]any{"kernel": "subgroup"})
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			if !hasSubgroups(dev.Info) {
				t.Skipf("%s has no subgroup operations in compute", dev.Info.Name)
			}
			runCholSuite(t, func(r Request) (*Result, error) {
				res, _, err := Vulkan(ctx, dev, r)
				return res, err
			})
		})
	}
}

// TestVulkanSubgroupLoopLimit runs, on each device, the largest P that
// planSubgroup sends to chol_sg.comp in float32 for each order, with and
// without the inverse (on lavapipe, 32 KiB and the loop bound: P = 126
// right- and left-looking without it, up to about 57,000 iterations a
// lane, and P = 77 with it, close to the 65,535 after which lavapipe
// silently ends a shader's loops; P = 82 with the inverse, let through by
// a looser bound, gave an inverse 0.4 off), with two right-hand sides,
// against the reference.
func TestVulkanSubgroupLoopLimit(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		if !hasSubgroups(dev.Info) || !dev.Info.Float64 && dev.Info.IsLavapipe() {
			continue // lavapipe without float64 is the same device
		}
		for _, order := range []string{"right", "left", "dot"} {
			set := map[string]any{"kernel": "subgroup", "sg_order": order, "sg_max_p": 1024}
			ctx := tune.WithOverride(context.Background(), "chol", set)
			tn, err := resolveTuning(ctx, dev.Info)
			if err != nil {
				t.Fatal(err)
			}
			for _, inv := range []bool{true, false} {
				flags := uint32(flagLogDet)
				if inv {
					flags |= flagInverse
				}
				p := 0
				for q := 1; q <= 1024; q++ {
					if m, _ := planSubgroup(dev.Info, q, false, flags, tn); m > 0 {
						p = q
					} else if q > 16 {
						break
					}
				}
				t.Run(fmt.Sprintf("%s/%s/inverse%v/P%d", dev.Info.Name, order, inv, p), func(t *testing.T) {
					c := makeCase(3, p, 2, false, false, false, uint64(p))
					want := c.reference(t, fmt.Sprintf("sg-limit/P%d", p))
					r := c.request(tensor.F32)
					r.Inverse = inv
					if k, err := pickKernel(ctx, dev, r, dims{n: 3, p: p, k: 2, rhs: true}); err != nil || k.sg == 0 {
						t.Fatalf("P = %d did not go to chol_sg.comp (%v)", p, err)
					}
					got, _, err := Vulkan(ctx, dev, r)
					if err != nil {
						t.Fatal(err)
					}
					checkCholResult(t, got, want, tensor.F32, r)
				})
			}
		}
	}
}
