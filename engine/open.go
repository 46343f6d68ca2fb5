package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
)

// OpenOptions configure Open and OpenAll.
type OpenOptions struct {
	// Validate turns the Vulkan validation layer on (Options.Validate). It
	// also turns the fallback of "auto" off: a validated run that cannot
	// validate is an error, not a run on the CPU path.
	Validate bool
	// Device are the options of the devices opened.
	Device DeviceOptions
	// VulkanOnly is for work that has no CPU path (the shader lab): "all"
	// is every Vulkan device, "auto" the best GPU, else lavapipe, else the
	// first device listed, and the CPU path is an error.
	VulkanOnly bool
	// Auto, when set, is how a spec of "auto" alone picks among the
	// Vulkan devices listed: the job's fastest path (Choose), the CPU
	// path included. nil, or with Validate or VulkanOnly: the best GPU,
	// else the CPU path.
	Auto func(infos []DeviceInfo) Choice
	// Census, when set, is the machine's saved listing of its GPUs: a spec
	// of "auto" alone (not under Validate) decides from it without loading
	// Vulkan when the path it picks from the GPUs listed there (by Auto,
	// else the best GPU) is the CPU path, and every listing of the devices
	// renews it.
	Census Census

	// devices lists an instance's devices; tests replace it to see what
	// an instance that lists none does. nil: Instance.Devices.
	devices func(*Instance) []DeviceInfo
}

// Census is a saved listing of the machine's GPUs (tune.Census keeps it
// beside the tune cache): what "auto" decides from without loading the
// Vulkan loader, so that a machine without a GPU never loads it after its
// first listing.
type Census interface {
	// Read gives the GPUs listed and when (a time, for the notes); ok is
	// false when there is no listing, or when it is stale (a driver, the
	// variables that choose drivers or the GPU device nodes changed).
	Read() (gpus []DeviceInfo, when string, ok bool)
	// Write saves a new listing of the devices (the GPUs among them).
	Write(infos []DeviceInfo)
}

// Session is where work runs: a Vulkan device and its instance, or the
// CPU path (Device nil).
type Session struct {
	Instance *Instance
	// Device is the opened device; nil means the native Go CPU path.
	Device *Device
	// Fallback says, in one line, why "auto" runs on the CPU path
	// although Vulkan was asked for (no loader, no driver, no device);
	// empty otherwise. Callers print it as a note.
	Fallback string
	// Why says, in one line, why "auto" chose the path it did; empty for
	// any other spec.
	Why string
}

// Open opens the device that spec names, as Select reads it: "auto",
// "cpu", "gpu", "lavapipe", an index or part of a name. "cpu" never
// touches Vulkan. "auto" (or "") falls back to the CPU path, saying why in
// Session.Fallback, when Vulkan is unusable (no loader, no driver, no
// device) or lists no GPU; any explicit Vulkan choice that cannot be
// honoured is an *OpenError naming the cause.
func Open(spec string, opt OpenOptions) (*Session, error) {
	set, err := OpenAll(spec, opt)
	if err != nil {
		return nil, err
	}
	if len(set.Devices) != 1 {
		n := len(set.Devices)
		set.Close()
		return nil, &OpenError{Spec: spec, Err: fmt.Errorf("%q names %d devices, where one is wanted", spec, n)}
	}
	return &Session{Instance: set.Instance, Device: set.Devices[0], Fallback: set.Fallback, Why: set.Why}, nil
}

// Set is several devices opened together on one instance: for work that
// runs on each of them in turn (verify, bench, the shader lab).
type Set struct {
	Instance *Instance
	// Devices are the devices opened, each once, in the order the spec
	// names them; nil stands for the CPU path.
	Devices []*Device
	// Fallback says, in one line, why the set is the CPU path only
	// although the spec asked for Vulkan devices too ("auto", "all"):
	// Vulkan is unusable (no loader, no driver, no device). Empty
	// otherwise. Callers print it as a note.
	Fallback string
	// Why says, in one line, why a spec of "auto" alone chose the path it
	// did; empty for any other spec.
	Why string
}

// ListAll lists the Vulkan devices that spec names (as OpenAll with
// VulkanOnly; "cpu" alone lists none) without opening them: what a device
// could run, asked before running anything. The devices found are
// returned with the error of a name that finds none.
func ListAll(spec string) ([]DeviceInfo, error) {
	if spec == "cpu" {
		return nil, nil
	}
	inst, err := NewInstance(Options{})
	if err != nil {
		return nil, err
	}
	defer inst.Close()
	all := inst.Devices()
	idx, err := SelectAll(all, strings.Split(spec, ","), true)
	var infos []DeviceInfo
	for _, i := range idx {
		infos = append(infos, all[i])
	}
	return infos, err
}

// OpenAll opens the devices that spec names: a comma-separated list of
// what Select takes, "all" (the CPU path and every Vulkan device) and
// "vulkan" (every Vulkan device). "" is "auto". A spec of only "cpu" never
// touches Vulkan. When Vulkan is unusable and spec names nothing but
// "all", "auto" and "cpu", the set is the CPU path, saying why in
// Set.Fallback (not under Validate); any explicit Vulkan choice that
// cannot be honoured is an *OpenError naming the cause. With
// opt.VulkanOnly, see OpenOptions. Each device opened is logged at debug
// level (slog): its name, type, driver, Vulkan version, float64 and
// subgroup size, or the CPU path and its threads.
func OpenAll(spec string, opt OpenOptions) (*Set, error) {
	set, err := openAll(spec, opt)
	if err != nil {
		return nil, err
	}
	for _, d := range set.Devices {
		if d == nil {
			slog.Debug("device opened", "name", "CPU path (native Go)", "threads", runtime.GOMAXPROCS(0))
			continue
		}
		slog.Debug("device opened", "name", d.Info.Name, "type", d.Info.Type, "driver", d.Info.DriverInfo, "vulkan", d.Info.APIVersion,
			"float64", d.Info.Float64, "subgroup", d.Info.SubgroupSize)
	}
	return set, nil
}

func openAll(spec string, opt OpenOptions) (*Set, error) {
	var items []string
	for _, s := range strings.Split(spec, ",") {
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, s)
		}
	}
	if len(items) == 0 {
		items = []string{"auto"}
	}
	needVulkan, fallback := opt.VulkanOnly, !opt.VulkanOnly && !opt.Validate
	for _, s := range items {
		s = strings.ToLower(s)
		needVulkan = needVulkan || s != "cpu"
		fallback = fallback && (s == "all" || s == "auto" || s == "cpu")
	}
	auto := len(items) == 1 && strings.EqualFold(items[0], "auto") && !opt.VulkanOnly
	if auto && !opt.Validate && opt.Census != nil {
		if gpus, when, ok := opt.Census.Read(); ok {
			ch := Choice{Index: CPUPath, Why: "auto: no GPU on this machine; the CPU path"}
			if len(gpus) > 0 || opt.Auto != nil {
				ch = opt.choose(gpus)
			}
			if ch.Index == CPUPath {
				why := fmt.Sprintf("%s; Vulkan not loaded (the GPUs as listed %s)", ch.Why, when)
				return &Set{Devices: []*Device{nil}, Why: why}, nil
			}
		}
	}
	set := &Set{}
	var infos []DeviceInfo
	if needVulkan {
		list := opt.devices
		if list == nil {
			list = (*Instance).Devices
		}
		inst, err := NewInstance(Options{Validate: opt.Validate})
		if errors.Is(err, ErrNoDevice) {
			err = fmt.Errorf("%s: %w", spec, err)
		}
		if err == nil && len(list(inst)) == 0 {
			inst.Close()
			inst, err = nil, fmt.Errorf("%s: %w: the Vulkan loader and driver work but list no device", spec, ErrNoDevice)
		}
		if reason, unusable := Unusable(err); err != nil && fallback && unusable {
			set.Devices = []*Device{nil}
			set.Fallback = fmt.Sprintf("no usable Vulkan device (%s); running on the CPU path", reason)
			return set, nil
		}
		if err != nil {
			return nil, &OpenError{Spec: spec, Err: err}
		}
		set.Instance, infos = inst, list(inst)
		if opt.Census != nil {
			opt.Census.Write(infos)
		}
	}
	var idx []int
	if auto && !opt.Validate {
		ch := opt.choose(infos)
		idx, set.Why = []int{ch.Index}, ch.Why
	} else {
		var err error
		if idx, err = SelectAll(infos, items, opt.VulkanOnly); err != nil {
			set.Close()
			return nil, err
		}
		if auto {
			set.Why = autoWhy(infos, idx[0])
		}
	}
	for _, i := range idx {
		var d *Device
		if i != CPUPath {
			var err error
			if d, err = set.Instance.OpenWith(i, opt.Device); err != nil {
				set.Close()
				return nil, err
			}
		}
		set.Devices = append(set.Devices, d)
	}
	if set.Instance != nil && !slices.ContainsFunc(set.Devices, func(d *Device) bool { return d != nil }) {
		// The CPU path only ("auto" without a GPU): no instance held.
		err := set.Instance.Close()
		set.Instance = nil
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}

// choose is auto's decision among infos: opt.Auto's, else the best GPU,
// else the CPU path.
func (opt OpenOptions) choose(infos []DeviceInfo) Choice {
	if opt.Auto != nil {
		return opt.Auto(infos)
	}
	i := bestGPU(infos)
	if i < 0 {
		i = CPUPath
	}
	return Choice{Index: i, Why: autoWhy(infos, i)}
}

// autoWhy says why auto without a job chose device i (an Index among
// infos, which a census lists apart from the other devices): the best
// GPU, or the CPU path when there is none.
func autoWhy(infos []DeviceInfo, i int) string {
	for _, in := range infos {
		if in.Index == i {
			return fmt.Sprintf("auto: the best GPU, %s (%s)", in.Name, in.Type)
		}
	}
	return fmt.Sprintf("auto: no GPU among %s; the CPU path", names(infos))
}

// SelectAll picks the devices that items name among infos, each once, in
// order: what Select takes, "all" (the CPU path, unless vulkanOnly, and
// every device) and "vulkan" (every device). With vulkanOnly, "auto" falls
// back from the best GPU to lavapipe, else the first device, and "cpu" is
// an error. A name that picks no device is an *OpenError.
func SelectAll(infos []DeviceInfo, items []string, vulkanOnly bool) ([]int, error) {
	if vulkanOnly && len(infos) == 0 {
		spec := strings.Join(items, ",")
		return nil, &OpenError{Spec: spec, Err: fmt.Errorf("%s: %w: the Vulkan instance lists none", spec, ErrNoDevice)}
	}
	var idx []int
	add := func(i int) {
		if !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	for _, s := range items {
		switch k := strings.ToLower(s); {
		case k == "all" || k == "vulkan":
			if k == "all" && !vulkanOnly {
				add(CPUPath)
			} else if len(infos) == 0 {
				return nil, &OpenError{Spec: s, Err: fmt.Errorf("%s: %w: the Vulkan instance lists none", s, ErrNoDevice)}
			}
			for _, in := range infos {
				add(in.Index)
			}
		case k == "cpu" && vulkanOnly:
			return nil, &OpenError{Spec: s, Err: fmt.Errorf("%s: %w: the CPU path runs no shaders (lavapipe runs them on the CPU)", s, ErrNoDevice)}
		default:
			i, err := Select(infos, s)
			if err != nil {
				return nil, &OpenError{Spec: s, Err: err}
			}
			if i == CPUPath && vulkanOnly {
				i = softwareDevice(infos)
			}
			add(i)
		}
	}
	return idx, nil
}

// softwareDevice is where work without a CPU path runs when there is no
// GPU: lavapipe, else the first device listed.
func softwareDevice(infos []DeviceInfo) int {
	for _, in := range infos {
		if in.IsLavapipe() {
			return in.Index
		}
	}
	return infos[0].Index
}

// Close releases the devices, then the instance; validation messages
// raised while closing (leaks) are returned. Closing twice is a no-op.
func (s *Set) Close() error {
	var err error
	for _, d := range s.Devices {
		if d != nil {
			err = errors.Join(err, d.Close())
		}
	}
	if s.Instance != nil {
		err = errors.Join(err, s.Instance.Close())
	}
	s.Devices, s.Instance = nil, nil
	return err
}

// Close releases the device and the instance; validation messages raised
// while closing (leaks) are returned. Closing twice is a no-op.
func (s *Session) Close() error {
	err := (&Set{Instance: s.Instance, Devices: []*Device{s.Device}}).Close()
	s.Device, s.Instance = nil, nil
	return err
}

// Unusable reports whether err, from NewInstance or Open, says that
// Vulkan cannot be used on this machine at all (no loader, no driver, no
// device) rather than that a particular choice cannot be honoured, and
// gives the short reason for a one-line note.
func Unusable(err error) (reason string, ok bool) {
	switch {
	case errors.Is(err, ErrNoLoader):
		return "no Vulkan loader", true
	case errors.Is(err, ErrNoDriver):
		return "no usable Vulkan driver" + driverEnvHint(), true
	case errors.Is(err, ErrNoDevice):
		return "the Vulkan driver lists no device", true
	}
	return "", false
}

// driverEnvHint names the environment variable that selects the drivers,
// when one is set: it is then usually the reason none loads.
func driverEnvHint() string {
	for _, n := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES"} {
		if v := os.Getenv(n); v != "" {
			return fmt.Sprintf("; %s=%s", n, v)
		}
	}
	return ""
}

// OpenError is Open's error when the device a spec names cannot be
// opened: Err, the cause, wraps ErrNoLoader, ErrNoDriver or ErrNoDevice,
// or says that the spec names no device (the caller's mistake).
type OpenError struct {
	Spec string
	Err  error
}

func (e *OpenError) Unwrap() error { return e.Err }

// Error words the error and the advice for a caller of the library.
func (e *OpenError) Error() string {
	return e.Words("device", true, `device "cpu"`, "Instance.Devices")
}

// BadSpec reports whether the spec itself is wrong (it names no device
// there is a kind of), as opposed to Vulkan being unusable.
func (e *OpenError) BadSpec() bool {
	_, unusable := Unusable(e.Err)
	return !unusable && !errors.Is(e.Err, ErrNoValidation)
}

// Words words the error with the caller's names for things: option is how
// the caller names the device option ("--device"), quoted whether the
// spec is quoted after it, cpu how one asks for the CPU path ("--device
// cpu"), list where the devices are listed ("`vkstat devices`").
func (e *OpenError) Words(option string, quoted bool, cpu, list string) string {
	spec := e.Spec
	if quoted {
		spec = fmt.Sprintf("%q", spec)
	}
	switch {
	case errors.Is(e.Err, ErrNoLoader):
		return fmt.Sprintf("%s %s: %v; the CPU path (%s) needs neither", option, spec, e.Err, cpu)
	case errors.Is(e.Err, ErrNoDriver):
		advice := "install a Vulkan driver (Debian/Ubuntu: apt-get install mesa-vulkan-drivers for lavapipe, or your GPU vendor's), or use " + cpu
		if driverEnvHint() != "" {
			advice = "unset it or point it at an existing ICD .json file (e.g. /usr/share/vulkan/icd.d/lvp_icd.x86_64.json), " + advice
		}
		return fmt.Sprintf("%s %s: %v; %s", option, spec, e.Err, advice)
	case errors.Is(e.Err, ErrNoDevice):
		// The cause names the spec.
		return fmt.Sprintf("%s %v; see %s, or use %s", option, e.Err, list, cpu)
	case errors.Is(e.Err, ErrNoValidation):
		return e.Err.Error() // whatever the device
	}
	return fmt.Sprintf("%s %v", option, e.Err)
}

// Listing is what `vkstat devices` and the C ABI's device list show of the
// Vulkan devices the loader sees: each with the features of a disable set
// taken away (DeviceInfo.Without), its memory budget, and Raw, the devices
// as the driver gives them (what tune's census records).
type Listing struct {
	Devices []DeviceInfo
	Budgets []MemoryBudget
	Raw     []DeviceInfo
}

// List lists the Vulkan devices (Listing) without disable's features; the
// error is NewInstance's where Vulkan does not start (ErrNoLoader or
// ErrNoDriver where either is missing), else a budget query's or Close's.
func List(validate bool, disable Features) (Listing, error) {
	var l Listing
	inst, err := NewInstance(Options{Validate: validate})
	if err != nil {
		return l, err
	}
	l.Raw = inst.Devices()
	for _, in := range l.Raw {
		l.Devices = append(l.Devices, in.Without(disable))
		b, err := inst.MemoryBudget(in.Index)
		if err != nil {
			inst.Close()
			return Listing{}, err
		}
		l.Budgets = append(l.Budgets, b)
	}
	return l, inst.Close()
}
