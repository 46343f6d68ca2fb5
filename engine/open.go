package engine

import (
	"errors"
	"fmt"
	"os"
)

// OpenOptions configure Open.
type OpenOptions struct {
	// Validate turns the Vulkan validation layer on (Options.Validate). It
	// also turns the fallback of "auto" off: a validated run that cannot
	// validate is an error, not a run on the CPU path.
	Validate bool
	// Device are the options of the device opened.
	Device DeviceOptions

	// devices lists an instance's devices; tests replace it to see what
	// an instance that lists none does. nil: Instance.Devices.
	devices func(*Instance) []DeviceInfo
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
}

// Open opens the device that spec names, as Select reads it: "auto",
// "cpu", "gpu", "lavapipe", an index or part of a name. "cpu" never
// touches Vulkan. "auto" (or "") falls back to the CPU path, saying why in
// Session.Fallback, when Vulkan is unusable (no loader, no driver, no
// device) or lists no GPU; any explicit Vulkan choice that cannot be
// honoured is an *OpenError naming the cause.
func Open(spec string, opt OpenOptions) (*Session, error) {
	s := &Session{}
	if spec == "cpu" {
		return s, nil
	}
	list := opt.devices
	if list == nil {
		list = (*Instance).Devices
	}
	auto := spec == "auto" || spec == ""
	inst, err := NewInstance(Options{Validate: opt.Validate})
	if err == nil && len(list(inst)) == 0 {
		inst.Close()
		inst, err = nil, fmt.Errorf("%s: %w: the Vulkan loader and driver work but list no device", spec, ErrNoDevice)
	}
	if err != nil {
		if reason, unusable := Unusable(err); auto && unusable && !opt.Validate {
			s.Fallback = fmt.Sprintf("no usable Vulkan device (%s); running on the CPU path", reason)
			return s, nil
		}
		return nil, &OpenError{Spec: spec, Err: err}
	}
	idx, err := Select(list(inst), spec)
	if err != nil || idx == CPUPath {
		inst.Close()
		if err != nil {
			return nil, &OpenError{Spec: spec, Err: err}
		}
		return s, nil
	}
	dev, err := inst.OpenWith(idx, opt.Device)
	if err != nil {
		inst.Close()
		return nil, err
	}
	s.Instance, s.Device = inst, dev
	return s, nil
}

// Close releases the device and the instance; validation messages raised
// while closing (leaks) are returned. Closing twice is a no-op.
func (s *Session) Close() error {
	var err error
	if s.Device != nil {
		err = s.Device.Close()
	}
	if s.Instance != nil {
		err = errors.Join(err, s.Instance.Close())
	}
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
	return !unusable
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
	}
	return fmt.Sprintf("%s %v", option, e.Err)
}
