package suite

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// DeviceRecord identifies a device in reports, so that reports from
// different machines and vendors can be set side by side.
type DeviceRecord struct {
	Label         string `json:"label"`
	Path          string `json:"path"` // "vulkan" or "cpu"
	Index         int    `json:"index"`
	Name          string `json:"name"`
	Type          string `json:"type"`
	Vendor        string `json:"vendor"`
	Driver        string `json:"driver,omitempty"`
	DriverInfo    string `json:"driver_info,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`
	APIVersion    string `json:"api_version,omitempty"`
	Float64       bool   `json:"float64"`
	Timestamps    bool   `json:"timestamps"`
	Threads       int    `json:"threads,omitempty"`
}

// Describe is dev's record: a Vulkan device's report, or the CPU path's
// (Go version, threads) when dev is nil.
func Describe(dev *engine.Device) DeviceRecord {
	if dev == nil {
		return DeviceRecord{Label: "cpu", Path: "cpu", Index: engine.CPUPath, Name: "CPU path (native Go)", Type: "cpu",
			Vendor: cpuModel(), Driver: runtime.Version(), Float64: true, Timestamps: false, Threads: runtime.GOMAXPROCS(0)}
	}
	in := dev.Info
	return DeviceRecord{Label: in.Name, Path: "vulkan", Index: in.Index, Name: in.Name, Type: in.Type, Vendor: in.Vendor,
		Driver: in.Driver, DriverInfo: in.DriverInfo, DriverVersion: in.DriverVersion, APIVersion: in.APIVersion,
		Float64: in.Float64, Timestamps: in.Timestamps}
}

// Title is the device's one-line description.
func (d DeviceRecord) Title() string {
	if d.Path == "cpu" {
		return fmt.Sprintf("cpu: %s (%s, %d threads)", d.Name, d.Driver, d.Threads)
	}
	drv := strings.TrimSpace(d.Driver + " " + d.DriverInfo)
	if drv == "" {
		drv = "driver " + d.DriverVersion
	}
	return fmt.Sprintf("%d: %s (%s, %s, %s, Vulkan %s)", d.Index, d.Name, d.Type, d.Vendor, drv, d.APIVersion)
}

// Host describes the machine a report was made on.
type Host struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPU      string `json:"cpu"`
	CPUs     int    `json:"cpus"`
	Go       string `json:"go"`
}

func hostInfo() Host {
	h, _ := os.Hostname()
	return Host{Hostname: h, OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel(), CPUs: runtime.NumCPU(), Go: runtime.Version()}
}

// cpuModel is /proc/cpuinfo's model name, or the architecture.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

// loadAvg returns the first three fields of /proc/loadavg, or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
