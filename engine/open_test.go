package engine

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Issue 9, item 2: a Vulkan instance that lists no device is unusable like
// a missing driver: "auto" falls back to the CPU path saying why, an
// explicit Vulkan choice fails with ErrNoDevice worded for the caller.
func TestOpenNoDevice(t *testing.T) {
	inst, err := NewInstance(Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver to start from: %v", err)
	}
	inst.Close()
	none := OpenOptions{devices: func(*Instance) []DeviceInfo { return nil }}

	s, err := Open("auto", none)
	if err != nil {
		t.Fatalf("auto with no device: %v; want the CPU path", err)
	}
	if s.Device != nil || s.Instance != nil || s.Fallback != "no usable Vulkan device (the Vulkan driver lists no device); running on the CPU path" {
		t.Errorf("auto with no device: device %v, fallback %q", s.Device, s.Fallback)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}

	_, err = Open("gpu", none)
	var oe *OpenError
	if !errors.As(err, &oe) || !errors.Is(err, ErrNoDevice) || oe.BadSpec() {
		t.Fatalf("gpu with no device: %v; want an *OpenError wrapping ErrNoDevice", err)
	}
	msg := oe.Words("--device", false, "--device cpu", "`vkstat devices`")
	want := "--device gpu: no Vulkan device: the Vulkan loader and driver work but list no device; see `vkstat devices`, or use --device cpu"
	if msg != want {
		t.Errorf("worded for a command line:\n%s\nwant\n%s", msg, want)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("the library's wording names a flag: %v", err)
	}
}

// A spec that names no device is the caller's mistake, not Vulkan's.
func TestOpenBadSpec(t *testing.T) {
	s, err := Open("cpu", OpenOptions{})
	if err != nil || s.Device != nil || s.Fallback != "" {
		t.Fatalf("cpu: %v, %+v; want the CPU path without a note", err, s)
	}
	inst, err := NewInstance(Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver: %v", err)
	}
	inst.Close()
	_, err = Open("no-such-device-name", OpenOptions{})
	var oe *OpenError
	if !errors.As(err, &oe) || !oe.BadSpec() || !strings.Contains(err.Error(), "unknown device") {
		t.Errorf("an unknown name: %v; want an *OpenError that is BadSpec", err)
	}
}

// SelectAll reads lists, "all" and "vulkan", each device once in order;
// without a CPU path "all" is every Vulkan device and "auto" falls back
// from the best GPU to lavapipe.
func TestSelectAll(t *testing.T) {
	lvp := DeviceInfo{Index: 0, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: "cpu"}
	gpu := DeviceInfo{Index: 1, Name: "NVIDIA H100", Type: "discrete"}
	both, soft := []DeviceInfo{lvp, gpu}, []DeviceInfo{lvp}
	for _, c := range []struct {
		infos      []DeviceInfo
		items      []string
		vulkanOnly bool
		want       []int
	}{
		{both, []string{"all"}, false, []int{CPUPath, 0, 1}},
		{both, []string{"all"}, true, []int{0, 1}},
		{both, []string{"cpu", "ALL", "cpu", "1"}, false, []int{CPUPath, 0, 1}},
		{both, []string{"vulkan"}, false, []int{0, 1}},
		{both, []string{"auto"}, false, []int{1}},
		{both, []string{"lavapipe", "gpu"}, true, []int{0, 1}},
		{soft, []string{"auto"}, false, []int{CPUPath}},
		{soft, []string{"auto"}, true, []int{0}},
		{nil, []string{"all"}, false, []int{CPUPath}},
	} {
		got, err := SelectAll(c.infos, c.items, c.vulkanOnly)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SelectAll(%d devices, %q, vulkanOnly %v) = %v, %v; want %v", len(c.infos), c.items, c.vulkanOnly, got, err, c.want)
		}
	}
	for _, c := range []struct {
		infos      []DeviceInfo
		items      []string
		vulkanOnly bool
		badSpec    bool
	}{
		{both, []string{"cpu"}, true, false},
		{nil, []string{"auto"}, true, false},
		{nil, []string{"vulkan"}, false, false},
		{both, []string{"cpu", "no-such-device"}, false, true},
	} {
		_, err := SelectAll(c.infos, c.items, c.vulkanOnly)
		var oe *OpenError
		if !errors.As(err, &oe) || oe.BadSpec() != c.badSpec || !c.badSpec && !errors.Is(err, ErrNoDevice) {
			t.Errorf("SelectAll(%d devices, %q, vulkanOnly %v): %v; want an *OpenError, BadSpec %v", len(c.infos), c.items, c.vulkanOnly, err, c.badSpec)
		}
	}
}

// OpenAll on an instance that lists no device: "all" is the CPU path
// with a note, "vulkan" and a validated "all" are errors, "cpu" never
// opens Vulkan.
func TestOpenAllNoDevice(t *testing.T) {
	s, err := OpenAll("cpu", OpenOptions{devices: func(*Instance) []DeviceInfo { panic("cpu opened Vulkan") }})
	if err != nil || len(s.Devices) != 1 || s.Devices[0] != nil || s.Instance != nil || s.Fallback != "" {
		t.Fatalf("cpu: %+v, %v; want the CPU path alone", s, err)
	}
	inst, err := NewInstance(Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver to start from: %v", err)
	}
	inst.Close()
	none := OpenOptions{devices: func(*Instance) []DeviceInfo { return nil }}
	s, err = OpenAll("all", none)
	if err != nil || len(s.Devices) != 1 || s.Devices[0] != nil || !strings.Contains(s.Fallback, "running on the CPU path") {
		t.Fatalf("all with no device: %+v, %v; want the CPU path with a note", s, err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	none.Validate = true
	for spec, opt := range map[string]OpenOptions{"vulkan": {devices: none.devices}, "all": none, "cpu,auto": none} {
		if _, err := OpenAll(spec, opt); !errors.Is(err, ErrNoDevice) {
			t.Errorf("%s with no device (validate %v): %v; want ErrNoDevice", spec, opt.Validate, err)
		}
	}
}

// census is a listing kept in memory, as tune.CensusFile keeps one on
// disk.
type census struct {
	gpus    []DeviceInfo
	known   bool
	written [][]DeviceInfo
}

func (c *census) Read() ([]DeviceInfo, string, bool) { return c.gpus, "in the test", c.known }
func (c *census) Write(infos []DeviceInfo)           { c.written = append(c.written, infos) }

// Issue 39 item 4: "auto" alone decides from a census that lists no GPU
// without loading Vulkan (a loader that cannot load would show as the
// fallback note), with a chooser or without; a census that lists a GPU
// the chooser takes, or none at all, sends it to Vulkan, whose listing
// renews the census; "all" and a validated "auto" never read it.
func TestOpenAllCensus(t *testing.T) {
	t.Setenv("VKSTAT_VULKAN_LIB", "/nonexistent/libvulkan.so.1")
	gpu := DeviceInfo{Index: 1, Name: "a test's GPU", Type: "discrete"} // listed after lavapipe, say
	cpuPick := func([]DeviceInfo) Choice { return Choice{Index: CPUPath, Why: "auto: the test's CPU path"} }
	gpuPick := func(infos []DeviceInfo) Choice { return Choice{Index: infos[0].Index, Why: "auto: the test's GPU"} }
	for _, c := range []struct {
		name   string
		cen    census
		auto   func([]DeviceInfo) Choice
		loaded bool
		why    string
	}{
		{"no GPU", census{known: true}, nil, false, "auto: no GPU on this machine; the CPU path; Vulkan not loaded (the GPUs as listed in the test)"},
		{"no GPU, a chooser", census{known: true}, cpuPick, false, "auto: the test's CPU path; Vulkan not loaded (the GPUs as listed in the test)"},
		{"a GPU the chooser leaves", census{known: true, gpus: []DeviceInfo{gpu}}, cpuPick, false, "auto: the test's CPU path; Vulkan not loaded"},
		{"a GPU", census{known: true, gpus: []DeviceInfo{gpu}}, nil, true, ""},
		{"a GPU the chooser takes", census{known: true, gpus: []DeviceInfo{gpu}}, gpuPick, true, ""},
		{"no census", census{}, cpuPick, true, ""},
	} {
		s, err := OpenAll("auto", OpenOptions{Census: &c.cen, Auto: c.auto})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		loaded := strings.Contains(s.Fallback, "no Vulkan loader")
		if loaded != c.loaded || len(s.Devices) != 1 || s.Devices[0] != nil || !strings.HasPrefix(s.Why, c.why) {
			t.Errorf("%s: loader tried %v, want %v; devices %v, why %q, fallback %q", c.name, loaded, c.loaded, s.Devices, s.Why, s.Fallback)
		}
		s.Close()
	}
	cen := census{known: true}
	if _, err := OpenAll("auto", OpenOptions{Census: &cen, Validate: true}); !errors.Is(err, ErrNoLoader) {
		t.Errorf("validated auto with a census of no GPU: %v; want the loader tried, and missed", err)
	}
	if s, err := OpenAll("all", OpenOptions{Census: &cen}); err != nil || !strings.Contains(s.Fallback, "no Vulkan loader") {
		t.Errorf("all with a census of no GPU: %v; want the loader tried, and missed", err)
	}

	// A listing renews the census.
	t.Setenv("VKSTAT_VULKAN_LIB", "")
	inst, err := NewInstance(Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver to start from: %v", err)
	}
	inst.Close()
	cen = census{}
	s, err := OpenAll("auto", OpenOptions{Census: &cen})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(cen.written) != 1 || len(cen.written[0]) == 0 {
		t.Errorf("a listing wrote %v to the census; want the devices, once", cen.written)
	}
}

// TestList: every device the loader lists, with the features disabled
// taken away (float64 off on each), beside its memory budget and as the
// driver gives it; a missing driver is ErrNoDriver's error.
func TestList(t *testing.T) {
	l, err := List(false, Float64)
	if err != nil {
		t.Skipf("no Vulkan loader and driver: %v", err)
	}
	if len(l.Devices) == 0 || len(l.Budgets) != len(l.Devices) || len(l.Raw) != len(l.Devices) {
		t.Fatalf("%d devices, %d budgets, %d raw", len(l.Devices), len(l.Budgets), len(l.Raw))
	}
	for i, d := range l.Devices {
		if d.Float64 || d.Index != l.Raw[i].Index || l.Budgets[i].Bytes == 0 {
			t.Errorf("%s: float64 %v (disabled), raw index %d, budget %v", d.Name, d.Float64, l.Raw[i].Index, l.Budgets[i])
		}
	}
	t.Setenv("VK_DRIVER_FILES", "/nonexistent.json")
	if _, err := List(false, 0); !errors.Is(err, ErrNoDriver) {
		t.Errorf("no driver: %v", err)
	}
}

// TestOpenAllLogs: every device OpenAll opens is logged at debug level,
// for every front end (the command line's --verbose, Python's logging
// through slog): the CPU path with its threads, a Vulkan device with its
// name, driver, Vulkan version, float64 and subgroup size.
func TestOpenAllLogs(t *testing.T) {
	var buf bytes.Buffer
	saved := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(saved)
	s, err := OpenAll("cpu", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if want := fmt.Sprintf(`msg="device opened" name="CPU path (native Go)" threads=%d`, runtime.GOMAXPROCS(0)); !strings.Contains(buf.String(), want) {
		t.Errorf("cpu: the log %q lacks %q", buf.String(), want)
	}
	buf.Reset()
	s, err = OpenAll("vulkan", OpenOptions{VulkanOnly: true})
	if err != nil {
		t.Skipf("no Vulkan device: %v", err)
	}
	defer s.Close()
	d := s.Devices[0].Info
	for _, want := range []string{`msg="device opened"`, fmt.Sprintf("name=%q", d.Name), "vulkan=" + d.APIVersion, fmt.Sprintf("float64=%v subgroup=%d", d.Float64, d.SubgroupSize)} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("vulkan: the log %q lacks %q", buf.String(), want)
		}
	}
	if n := strings.Count(buf.String(), "device opened"); n != len(s.Devices) {
		t.Errorf("vulkan: %d devices logged, want %d", n, len(s.Devices))
	}
}
