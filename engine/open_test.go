package engine

import (
	"errors"
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
