package chol

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) {
	// The built-in tuning only: a tune cache of the machine's user must
	// not change which kernel the tests run (the subgroup kernel's tests
	// ask for it through tune.WithOverride).
	os.Setenv("VKSTAT_TUNE_DIR", "off")
	testdev.Main(m)
}

func vulkanImpl(t *testing.T, dev *engine.Device) cholImpl {
	return func(r Request) (*Result, error) {
		res, _, err := Vulkan(context.Background(), dev, r)
		return res, err
	}
}

// TestVulkan runs the suite on every Vulkan device, the validation layer on.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runCholSuite(t, vulkanImpl(t, dev))
		})
	}
}

// TestVulkanGlobal runs the factorisation with L in global memory: forced
// on small P, and by necessity from the smallest P whose L does not fit the
// device's workgroup memory (planLayout on the device's report: float32
// P = 129 and float64 P = 91 on lavapipe's 32 KiB, 158 and 112 on NVIDIA's
// 48 KiB). P = 100 and 150 (the sizes that need it on 32 KiB) must take the
// path the device's limits call for, and then run global in any case.
func TestVulkanGlobal(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			type tcase struct {
				p     int
				dt    tensor.DType
				force bool // run global whatever the device would pick
				need  bool // the device's limits must make it global
			}
			var cases []tcase
			for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
				for _, p := range []int{1, 5, 49} {
					cases = append(cases, tcase{p, dt, true, false})
				}
				for _, p := range []int{100, 150} {
					cases = append(cases, tcase{p, dt, false, false})
				}
				if p, ok := firstGlobalP(dev.Info, dt == tensor.F64); ok {
					cases = append(cases, tcase{p, dt, false, true})
				}
			}
			for _, c := range cases {
				t.Run(fmt.Sprintf("P%d/%s", c.p, c.dt), func(t *testing.T) {
					plan, err := planLayout(dev.Info, c.p, c.dt == tensor.F64)
					if err != nil {
						t.Fatal(err)
					}
					if c.need && !plan.global {
						t.Fatalf("P = %d %s: planLayout keeps L in %d B of workgroup memory, over the device's %d B",
							c.p, c.dt, plan.sharedBytes(c.dt.Size()), dev.Info.MaxSharedMemory)
					}
					// The path the device's report calls for, unforced.
					k, err := newKernel(dev, c.p, c.dt, nil)
					if err != nil {
						if c.dt == tensor.F64 && !dev.Info.Float64 {
							t.Skip(err)
						}
						t.Fatal(err)
					}
					if k.global != plan.global {
						t.Fatalf("P = %d %s: global = %v, but the device's limits (%d B of workgroup memory) call for %v",
							c.p, c.dt, k.global, dev.Info.MaxSharedMemory, plan.global)
					}
					test := &testOptions{global: c.force || !plan.global}
					if k, err = newKernel(dev, c.p, c.dt, test); err != nil {
						t.Fatal(err)
					}
					if !k.global {
						t.Fatalf("P = %d %s did not take the global path", c.p, c.dt)
					}
					n := 65
					if c.p > 64 {
						n = 17
					}
					tc := makeCase(n, c.p, 2, false, true, c.dt == tensor.F64, uint64(c.p))
					want := tc.reference(t, fmt.Sprintf("global/P%d/%v", c.p, c.dt == tensor.F64))
					r := tc.request(c.dt)
					r.test = test
					got, err := vulkanImpl(t, dev)(r)
					if err != nil {
						t.Fatal(err)
					}
					checkCholResult(t, got, want, c.dt, tc.request(c.dt))
				})
			}
		})
	}
}

// firstGlobalP is the smallest P that planLayout puts in global memory on
// a device with info's limits, if any P within its workgroup size does.
func firstGlobalP(info engine.DeviceInfo, double bool) (int, bool) {
	for p := 1; ; p++ {
		l, err := planLayout(info, p, double)
		if err != nil {
			return 0, false
		}
		if l.global {
			return p, true
		}
	}
}

// TestPlanLayout checks planLayout on hand-written device limits against
// thresholds worked out by hand: with S bytes of workgroup memory and one
// matrix per workgroup (P > 32), L stays in workgroup memory while
// (P(P−1)/2 + 2)·es + 4 <= S. 32 KiB: float32 P <= 128 (8128 + 2 elements),
// float64 P <= 90 (4005 + 2); 48 KiB: 157 (12246 + 2) and 111 (6105 + 2);
// 64 KiB: 181 (16290 + 2) and 128 (8128 + 2). A device that reports no
// limit gets 32 KiB.
func TestPlanLayout(t *testing.T) {
	info := func(shared, inv uint32) engine.DeviceInfo {
		return engine.DeviceInfo{Name: "hand", MaxSharedMemory: shared, MaxWorkgroupInvocation: inv, MaxWorkgroupSize: [3]uint32{inv, inv, 64}}
	}
	for _, c := range []struct {
		shared       uint32
		lastF32, f64 int // the largest P kept in workgroup memory
	}{{32 << 10, 128, 90}, {48 << 10, 157, 111}, {64 << 10, 181, 128}, {0, 128, 90}} {
		for _, d := range []struct {
			double bool
			last   int
		}{{false, c.lastF32}, {true, c.f64}} {
			in := info(c.shared, 1024)
			for p, want := range map[int]bool{1: false, 5: false, 49: false, d.last - 1: false, d.last: false, d.last + 1: true, d.last + 2: true} {
				l, err := planLayout(in, p, d.double)
				if err != nil {
					t.Fatalf("%d B, P = %d, double %v: %v", c.shared, p, d.double, err)
				}
				if l.global != want {
					t.Errorf("%d B, P = %d, double %v: global = %v, want %v", c.shared, p, d.double, l.global, want)
				}
			}
			if got, ok := firstGlobalP(in, d.double); !ok || got != d.last+1 {
				t.Errorf("%d B, double %v: first global P = %d (%v), want %d", c.shared, d.double, got, ok, d.last+1)
			}
		}
	}
	// Small P share a workgroup: P = 16 in float32 is TPM 16, MPW 4,
	// 4·(120 + 2)·4 + 16 = 1968 bytes: global on a 1 KiB device, not on 2 KiB.
	for shared, want := range map[uint32]bool{1 << 10: true, 2 << 10: false} {
		l, err := planLayout(info(shared, 1024), 16, false)
		if err != nil {
			t.Fatal(err)
		}
		if l.tpm != 16 || l.mpw != 4 || l.lsz != 120 || l.global != want {
			t.Errorf("%d B, P = 16: %+v, want TPM 16, MPW 4, LSZ 120, global %v", shared, l, want)
		}
	}
	// The workgroup size bounds P: TPM = 256 for P = 129 needs 256 invocations.
	if _, err := planLayout(info(64<<10, 128), 129, false); err == nil || !errors.Is(err, engine.ErrDeviceLimit) {
		t.Errorf("P = 129 on 128 invocations: %v, want ErrDeviceLimit", err)
	}
	if _, ok := firstGlobalP(info(64<<10, 128), true); ok {
		t.Errorf("64 KiB, 128 invocations: a global P within the workgroup size")
	}
}

// TestVulkanFolded runs batches that need more than 65,535 workgroups, so
// that the batch index is folded over the dispatch dimensions.
func TestVulkanFolded(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			const n = 70000
			tc := makeCase(n, 2, 1, true, true, false, 7)
			want := tc.reference(t, "folded")
			r := tc.request(tensor.F32)
			r.test = &testOptions{maxMPW: 1}
			got, err := vulkanImpl(t, dev)(r)
			if err != nil {
				t.Fatal(err)
			}
			checkCholResult(t, got, want, tensor.F32, tc.request(tensor.F32))

		})
	}
}

// TestVulkanTooLarge checks that a P beyond one workgroup's invocations is
// a clear error, not a wrong answer.
func TestVulkanTooLarge(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		p := 2*int(dev.Info.MaxWorkgroupInvocation) + 1
		_, err := newKernel(dev, p, tensor.F32, nil)
		if err == nil || !strings.Contains(err.Error(), "invocations") {
			t.Errorf("%s: P = %d: got %v, want an error about invocations", dev.Info.Name, p, err)
		}
		a := tensor.New(tensor.F32, 1, p, p)
		if _, _, err := Vulkan(context.Background(), dev, Request{Input: Input{A: a}}); err == nil {
			t.Errorf("%s: P = %d: Vulkan gave no error", dev.Info.Name, p)
		}
	}
}
