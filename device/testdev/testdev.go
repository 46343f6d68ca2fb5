// Package testdev opens the Vulkan devices that tests run on, with the
// validation layer on, once per test binary: every device the loader lists
// (lavapipe, and SwiftShader when its ICD is added, see scripts/deps.sh),
// plus the first device with float64 opened again without it.
//
// Without a Vulkan device the tests that need one skip, except under CI
// (CI=true), where lavapipe must be present and they fail instead.
package testdev

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

var (
	once    sync.Once
	inst    *engine.Instance
	devs    []*engine.Device
	openErr error
)

func open() {
	inst, openErr = engine.NewInstance(engine.Options{Validate: true})
	if openErr != nil {
		return
	}
	for _, info := range inst.Devices() {
		d, err := inst.Open(info.Index)
		if err != nil {
			openErr = fmt.Errorf("opening %s: %w", info.Name, err)
			return
		}
		devs = append(devs, d)
	}
	if len(devs) == 0 {
		openErr = fmt.Errorf("the Vulkan loader found no device")
		return
	}
	// The first device with float64 opens a second time without it, so that
	// the kernels written for devices without float64 (the _f32acc32
	// variants) run in every test run, whatever the machine has.
	// VKSTAT_TEST_WITHOUT_FLOAT64=0 leaves it out (make test-race, whose
	// repeated runs look for races in Go code that one device exercises).
	if os.Getenv("VKSTAT_TEST_WITHOUT_FLOAT64") == "0" {
		return
	}
	for _, d := range devs {
		if !d.Info.Float64 {
			continue
		}
		opt, err := engine.DeviceOptionsFromEnv()
		if err != nil {
			openErr = err
			return
		}
		opt.Disable |= engine.Float64
		nd, err := inst.OpenWith(d.Info.Index, opt)
		if err != nil {
			openErr = fmt.Errorf("opening %s without float64: %w", d.Info.Name, err)
			return
		}
		devs = append(devs, nd)
		break
	}
}

// Devices returns every Vulkan device, opened with validation. It skips the
// test when there is none, or fails it under CI.
func Devices(t testing.TB) []*engine.Device {
	t.Helper()
	once.Do(open)
	if openErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Vulkan device under CI (install mesa-vulkan-drivers for lavapipe): %v", openErr)
		}
		t.Skipf("no Vulkan device: %v", openErr)
	}
	return devs
}

// Main runs the tests, then closes the devices and the instance and fails
// the binary if the validation layer reported anything on the way (leaked
// objects, say). Use it as TestMain: func TestMain(m *testing.M) { testdev.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	for _, d := range devs {
		if err := d.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing device:", err)
			code = 1
		}
	}
	if inst != nil {
		if err := inst.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing instance:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// SkipNoFloat64 skips t when err reports a float64 operation on a device
// without float64 (engine.ErrNoFloat64): call it with the error of each
// run whose precision the suite chose, on the subtest that ran it.
func SkipNoFloat64(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, engine.ErrNoFloat64) {
		t.Skip(err)
	}
}
