package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// BenchKind is the kind field of a bench report.
const BenchKind = "vkstat-bench-report"

// BenchOptions shape a Bench run. The zero value times the small cases in
// both precisions, 5 runs each and no warm-up.
type BenchOptions struct {
	// Size picks the cases (Small when empty).
	Size Size
	// Precisions keeps the cases of these precisions; nil keeps all.
	Precisions []tensor.DType
	// Repeat is the number of timed runs per measurement, whose median is
	// reported (5 when 0); Warmup the untimed runs before them, or
	// WarmupByTime (Measure).
	Repeat, Warmup int
	// Version is the caller's vkstat version, Command how the run was
	// asked for, Validation whether the devices run with the validation
	// layer on: all three are recorded in the report.
	Version    string
	Command    string
	Validation bool
	// Log, when set, receives a line for each figure as it is measured
	// (and for each measurement that fails), for a progress display.
	Log func(line string)
}

// CommandLine is the vkstat command that repeats a run of o (its size,
// repeats, warm-up and validation) over suites (bench's --suite) on
// devices (its --device; "" for all) in precision (its --precision; "" or
// auto for both), as the report records it.
func (o BenchOptions) CommandLine(suites, devices, precision string) string {
	if devices == "" {
		devices = "all"
	}
	cmd := fmt.Sprintf("vkstat bench --suite %s --device %s --size %s --repeat %d", suites, devices, o.Size, o.Repeat)
	if o.Warmup != WarmupByTime {
		cmd += fmt.Sprintf(" --warmup %d", o.Warmup)
	}
	if o.Validation {
		cmd = strings.Replace(cmd, "vkstat bench", "vkstat --validate bench", 1)
	}
	if precision != "" && precision != "auto" {
		cmd = strings.Replace(cmd, "vkstat", "vkstat --precision "+precision, 1)
	}
	return cmd
}

// BenchResult is one case of one operation in one precision on one
// device.
type BenchResult struct {
	Op        string `json:"op"`
	Suite     string `json:"suite"`
	Case      string `json:"case"`
	Shape     []int  `json:"shape"`
	Precision string `json:"precision"`
	// Status is ok, skip (the device lacks a feature) or error.
	Status     string  `json:"status"`
	Detail     string  `json:"detail,omitempty"`
	UploadMs   float64 `json:"upload_ms"`
	KernelMs   float64 `json:"kernel_ms"`
	DownloadMs float64 `json:"download_ms"`
	WallMs     float64 `json:"wall_ms"`
	// GPUTimed reports whether kernel_ms comes from GPU timestamps (always
	// true on the CPU path, where it is the computation's own time).
	GPUTimed bool `json:"gpu_timed"`
	// WarmupRuns is the number of untimed runs before the timed ones,
	// WarmupMs their wall time and WarmedBy what ended the warm-up: a
	// --warmup count, a second of kernel time, two medians that agree, or
	// the cap (Measure, WarmupByTime).
	WarmupRuns int     `json:"warmup_runs"`
	WarmupMs   float64 `json:"warmup_ms"`
	WarmedBy   string  `json:"warmed_by"`
	// ComputedAs is the precision the computation ran in where it is not
	// the input's (the CPU path's PACO is float64 only).
	ComputedAs string `json:"computed_as,omitempty"`
	Work       Work   `json:"work"`
	Unit       string `json:"unit"`
	// Throughput is work per kernel time, ThroughputWall per wall time,
	// in Unit.
	Throughput     float64 `json:"throughput"`
	ThroughputWall float64 `json:"throughput_wall"`
	// KernelGBs is Work.Bytes per kernel time; CopyFraction is that over
	// the device's copy bandwidth.
	KernelGBs    float64 `json:"kernel_gb_per_s"`
	CopyFraction float64 `json:"copy_fraction"`
	Peer         *Peer   `json:"peer,omitempty"`
}

// BenchDevice is one device's figures.
type BenchDevice struct {
	Device DeviceRecord `json:"device"`
	// Copy is the bandwidth CopyFraction refers to: the faster of the copy
	// engine (CopyEngine) and a copy shader (ShaderCopy) on Vulkan devices.
	Copy       Bandwidth  `json:"copy_bandwidth"`
	CopyEngine *Bandwidth `json:"copy_engine,omitempty"`
	ShaderCopy *Bandwidth `json:"shader_copy,omitempty"`
	// Link is host↔device bandwidth the way operations move data.
	Link    *Link          `json:"link,omitempty"`
	Results []*BenchResult `json:"results"`
}

// BenchReport is what `vkstat bench --json` writes.
type BenchReport struct {
	Kind          string `json:"kind"`
	VkstatVersion string `json:"vkstat_version"`
	Date          string `json:"date"`
	Host          Host   `json:"host"`
	Validation    bool   `json:"validation"`
	Command       string `json:"command"`
	Size          Size   `json:"size"`
	Repeat        int    `json:"repeat"`
	// Warmup is the warm-up count asked for, or WarmupByTime (-1); each
	// result says what it got.
	Warmup  int            `json:"warmup"`
	Devices []*BenchDevice `json:"devices"`
	Errors  int            `json:"errors"`
	// LoadAvg is /proc/loadavg's 1-, 5- and 15-minute load at the start
	// and at the end: other work on the machine makes figures noisy.
	LoadAvg []string `json:"load_avg,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Bench measures each device's copy bandwidth (and, on Vulkan devices, a
// copy shader's and the host link's), then times every bench case of ops
// of the chosen size and precisions on every device of devs (a nil entry
// is the CPU path): upload, kernel, download and wall time, throughput,
// and the fraction of the copy bandwidth the kernel reaches. A measurement
// that fails is a row with status error, counted in the report's Errors;
// a bandwidth that cannot be measured, or ctx cancelled, is an error.
func Bench(ctx context.Context, devs []*engine.Device, ops []Op, opt BenchOptions) (*BenchReport, error) {
	if opt.Size == "" {
		opt.Size = Small
	}
	if opt.Repeat == 0 {
		opt.Repeat = 5
	}
	if opt.Repeat < 1 || opt.Warmup < WarmupByTime {
		return nil, fmt.Errorf("repeat must be at least 1 and warm-up at least 0 (got %d and %d)", opt.Repeat, opt.Warmup)
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			opt.Log(fmt.Sprintf(format, args...))
		}
	}
	rep := &BenchReport{Kind: BenchKind, VkstatVersion: opt.Version, Date: time.Now().UTC().Format(time.RFC3339),
		Host: hostInfo(), Validation: opt.Validation, Command: opt.Command, Size: opt.Size, Repeat: opt.Repeat, Warmup: opt.Warmup}
	if l := loadAvg(); l != "" {
		rep.LoadAvg = append(rep.LoadAvg, l)
		defer func() { rep.LoadAvg = append(rep.LoadAvg, loadAvg()) }()
	}
	// Large enough to defeat caches (256 MiB read, 256 MiB written); the
	// link is timed on 256 MiB each way, as the GPU peer script does.
	const copyBytes, linkBytes = 256 << 20, 256 << 20
	for _, dev := range devs {
		rec := Describe(dev)
		bw, err := CopyBandwidth(ctx, dev, copyBytes, opt.Repeat)
		if err != nil {
			return nil, err
		}
		logf("%s: copy bandwidth %.1f GB/s (%d MiB, %s)", rec.Label, bw.GBs, bw.Bytes>>20, bw.Method)
		bd := &BenchDevice{Device: rec, Copy: bw}
		rep.Devices = append(rep.Devices, bd)
		if dev == nil {
			continue
		}
		engineBW := bw
		bd.CopyEngine = &engineBW
		if sc, err := ShaderCopyBandwidth(ctx, dev, copyBytes, opt.Repeat); err == nil {
			bd.ShaderCopy = &sc
			logf("%s: shader copy %.1f GB/s (%d MiB)", rec.Label, sc.GBs, sc.Bytes>>20)
			if sc.GBs > bd.Copy.GBs {
				bd.Copy = sc
			}
		} else {
			logf("%s: shader copy: %v", rec.Label, err)
		}
		link, err := LinkBandwidth(ctx, dev, linkBytes, opt.Repeat)
		if err != nil {
			return nil, fmt.Errorf("link bandwidth on %s: %w", rec.Label, err)
		}
		bd.Link = &link
		logf("%s: host→device %.1f GB/s, device→host %.1f GB/s (%d MiB)", rec.Label, link.HostToDevice, link.DeviceToHost, link.Bytes>>20)
	}
	for _, op := range ops {
		for _, bc := range op.Bench[opt.Size] {
			if opt.Precisions != nil && !slices.Contains(opt.Precisions, bc.DType) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			in := op.Build(bc.Case, bc.DType)
			w := op.Work(bc.Case, bc.DType)
			for i, dev := range devs {
				d := rep.Devices[i]
				r := &BenchResult{Op: op.Name, Suite: op.Suite, Case: bc.Label(), Shape: bc.Shape, Precision: bc.DType.String(),
					Status: "ok", Work: w, Unit: string(op.Unit)}
				if dev == nil && op.CPUComputes != 0 && op.CPUComputes != bc.DType {
					r.ComputedAs = op.CPUComputes.String()
				}
				if op.Peer != nil {
					r.Peer = op.Peer(bc.Case, bc.DType)
				}
				d.Results = append(d.Results, r)
				if why := op.Skip(dev, bc.DType); why != "" {
					r.Status, r.Detail = "skip", why
					continue
				}
				m, err := Measure(ctx, dev, op, bc.Case, in, opt.Warmup, opt.Repeat)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					r.Status, r.Detail = "error", err.Error()
					rep.Errors++
					logf("%s %s %s on %s: %v", op.Name, bc.Label(), bc.DType, d.Device.Label, err)
					continue
				}
				r.UploadMs, r.KernelMs, r.DownloadMs, r.WallMs = ms(m.Upload), ms(m.Kernel), ms(m.Download), ms(m.Wall)
				r.GPUTimed = m.GPUTimed
				r.WarmupRuns, r.WarmupMs, r.WarmedBy = m.WarmupRuns, ms(m.WarmupTime), m.WarmedBy
				if m.GPUTimed {
					r.Throughput = Rate(w, op.Unit, m.Kernel)
					r.KernelGBs = Rate(w, GBs, m.Kernel)
					if d.Copy.GBs > 0 {
						r.CopyFraction = r.KernelGBs / d.Copy.GBs
					}
				}
				r.ThroughputWall = Rate(w, op.Unit, m.Wall)
				logf("%s %s %s on %s: wall %.3f ms, kernel %.3f ms", op.Name, bc.Label(), bc.DType, d.Device.Label, r.WallMs, r.KernelMs)
			}
		}
	}
	return rep, nil
}
