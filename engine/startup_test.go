package engine

import (
	"errors"
	"os"
	"testing"

	"github.com/vkstat/vkstat/shaders"
)

// freshDevices opens every Vulkan device on an instance of its own, with
// validation, so that counts start from zero; t ends them.
func freshDevices(t *testing.T) *Set {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	set, err := OpenAll("vulkan", OpenOptions{Validate: true, VulkanOnly: true})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Error(err)
		}
	})
	return set
}

// Issue 31 item 5: start-up's phases are measured, and each device's are
// counted once.
func TestStartupPhases(t *testing.T) {
	set := freshDevices(t)
	st := set.Startup()
	if st.Loader <= 0 || st.Instance <= 0 || st.Devices <= 0 || st.Device <= 0 || st.Cache <= 0 {
		t.Errorf("a phase is missing: %+v", st)
	}
	one := (&Set{Instance: set.Instance, Devices: set.Devices[:1]}).Startup()
	if len(set.Devices) > 1 && one.Device >= st.Device {
		t.Errorf("device phase of one device %v, of %d devices %v", one.Device, len(set.Devices), st.Device)
	}
	if cpu := (&Set{Devices: []*Device{nil}}).Startup(); cpu.Total() != 0 {
		t.Errorf("the CPU path has a start-up: %+v", cpu)
	}
}

// Issue 31 item 5: a SPIR-V module becomes one shader module per device
// however many variants are built of it; Kernels builds each variant once
// (a key asked twice included), and asking again builds nothing.
func TestKernelsShareModules(t *testing.T) {
	f32, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	f64, err := shaders.Code("map_f64")
	if err != nil {
		t.Fatal(err)
	}
	type push struct {
		A, B, C float64
		N       int
	}
	specs := []KernelSpec{
		{Name: "map_f32", Code: f32, Push: push{}, Spec: []uint32{32}},
		{Name: "map_f32", Code: f32, Push: push{}, Spec: []uint32{64}},
		{Name: "map_f32", Code: f32, Push: push{}, Spec: []uint32{32}},
		{Name: "map_f32", Code: f32, Push: push{}, Spec: []uint32{128}},
	}
	for _, d := range freshDevices(t).Devices {
		want := specs
		if d.Info.Float64 {
			want = append(want, KernelSpec{Name: "map_f64", Code: f64, Push: push{}, Spec: []uint32{64}})
		}
		ks, err := d.Kernels(want...)
		if err != nil {
			t.Fatalf("%s: %v", d.Info.Name, err)
		}
		if ks[0] != ks[2] || ks[0] == ks[1] || ks[1] == ks[3] {
			t.Errorf("%s: kernels %p %p %p %p: want the first and third the same, the rest apart", d.Info.Name, ks[0], ks[1], ks[2], ks[3])
		}
		modules, variants := 1, 3
		if d.Info.Float64 {
			modules, variants = 2, 4
		}
		spent, built := d.Pipelines()
		if d.Modules() != modules || built != variants || spent <= 0 {
			t.Errorf("%s: %d shader modules and %d pipelines built (in %v); want %d and %d", d.Info.Name, d.Modules(), built, spent, modules, variants)
		}
		again, err := d.Kernel(specs[1])
		if err != nil {
			t.Fatal(err)
		}
		if _, n := d.Pipelines(); again != ks[1] || n != variants || d.Modules() != modules {
			t.Errorf("%s: asking again built %d more pipelines, %d more modules", d.Info.Name, n-variants, d.Modules()-modules)
		}
	}
}

// A loader whose drivers list no device fails vkEnumeratePhysicalDevices
// with VK_ERROR_INITIALIZATION_FAILED: that is no device (auto falls back
// to the CPU path), not an unknown failure. Mesa's Intel driver on a
// machine without an Intel GPU is such a driver.
func TestDriversWithoutDevices(t *testing.T) {
	if _, err := os.Stat("/usr/share/vulkan/icd.d/intel_icd.x86_64.json"); err != nil {
		t.Skip("no Mesa Intel driver to select")
	}
	for _, v := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_DISABLE"} {
		t.Setenv(v, "") // restored after the test
		os.Unsetenv(v)
	}
	t.Setenv("VK_LOADER_DRIVERS_SELECT", "*intel_icd*")
	inst, err := NewInstance(Options{})
	if err == nil {
		n := len(inst.Devices())
		inst.Close()
		t.Skipf("the loader lists %d device(s) (an Intel GPU, or a loader older than 1.3.234)", n)
	}
	if !errors.Is(err, ErrNoDevice) {
		t.Fatalf("%v; want ErrNoDevice", err)
	}
	if _, unusable := Unusable(err); !unusable {
		t.Errorf("%v is not unusable Vulkan", err)
	}
}
