package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/vkstat/vkstat/formats"

	ucli "github.com/urfave/cli/v2"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/vkstat/vkstat/suite"
	"github.com/vkstat/vkstat/tensor"
)

func benchCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "bench",
		Usage:     "time every operation on every device: upload, kernel, download, wall; throughput and fraction of copy bandwidth",
		UsageText: "vkstat bench [--suite map|reduce|cov|chol|paco|all] [--device all|...] [--size small|paper] [--repeat N] [--json out.json] [--png out.png]\n   vkstat bench --tune [--suite map|reduce|cov|chol|all] [--device ...] [--repeat N] [--no-save] [--json tune.json]",
		Description: `For each operation of the suite and each size, on each device: the upload,
kernel (GPU timestamps), download and total wall time, host arrays in to
host arrays out, each the median of --repeat runs after --warmup untimed
ones; the throughput (GB/s, GFLOP/s or matrices/s) from the kernel time and
from the wall time; and the fraction of the device's copy bandwidth that the
kernel reaches (bytes it must read and write over kernel time). The copy
bandwidth is measured first on each device: a 256 MiB buffer-to-buffer
vkCmdCopyBuffer timed by GPU timestamps, or Go's copy() on every core for the
CPU path; read and written bytes both count, and the best run is kept.

--size small (the default) keeps each operation to seconds; --suite all
over the CPU path and lavapipe took about two and a half minutes on two
cores (the bandwidth measurement and the PACO-sized cases dominate); pick
one suite, --device or --repeat 1 for a quicker look. --size paper is the seed documents'
workloads (a 5·10⁶-element map, a 64×1024×1024 float32 stack reduced along
axis 0) and PACO-sized batches (16384 sets of 64 samples of 49 pixels; 16384
49×49 matrices), minutes on lavapipe.

Prints a Markdown table; --json writes every figure (and the peer scripts'
matching workloads, see bench/peers), --png a bar chart per operation.

--tune searches the tunable pipelines' parameters (map: workgroup size;
reduce: the last-axis kernel, an invocation, a workgroup or a subgroup per
row; cov: the blocks or tiled covariance kernel, its accumulation and tiles;
chol: a workgroup or a subgroup per matrix) on each Vulkan device instead:
every candidate is first checked against
the float64 reference (a wrong one is left out however fast), then its
kernel time is the median of --repeat runs at representative sizes; the
winner (the built-in choice unless another is at least 5% faster) is stored
in the device's tune cache, $VKSTAT_TUNE_DIR or <user cache dir>/vkstat/tune/
<vendor>-<device>-<driver>.json, which every later run on that device reads
(vkstat devices --tune says where each value comes from). --no-save prints
the tables only. See docs/tune.md.

Examples:
   vkstat bench
   vkstat bench --suite reduce --device lavapipe --repeat 10
   vkstat bench --suite all --size paper --device gpu --json h100.json --png h100.png
   vkstat bench --tune --device gpu
   vkstat bench --tune --suite reduce --device lavapipe --repeat 3 --no-save
   vkstat bench --tune --suite cov --device lavapipe --repeat 3 --no-save
   vkstat bench --tune --suite chol --device gpu --repeat 10`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "suite", Value: "all", Usage: "operations to time: " + strings.Join(suite.Suites, ", ") + ", a comma-separated list of them, or all"},
			&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Usage: "devices to time: all, vulkan, or a comma-separated list (default: all; the global --device is used when given)"},
			&ucli.StringFlag{Name: "size", Value: "small", Usage: "workload sizes: small or paper"},
			&ucli.StringFlag{Name: "precision", Aliases: []string{"p"}, Usage: "time only the f32 or f64 cases (default: auto, both; the global --precision is used when given)"},
			&ucli.IntFlag{Name: "repeat", Aliases: []string{"n"}, Value: 5, Usage: "timed runs per measurement (the median is reported)"},
			&ucli.IntFlag{Name: "warmup", Value: 1, Usage: "untimed runs before the timed ones"},
			&ucli.StringFlag{Name: "json", Usage: "write every figure to this file"},
			&ucli.StringFlag{Name: "png", Usage: "write a bar chart of kernel throughput to this file"},
			&ucli.BoolFlag{Name: "tune", Usage: "search the tunable pipelines' parameters on each Vulkan device and store the winners in its tune cache (see the description)"},
			&ucli.BoolFlag{Name: "no-save", Usage: "with --tune: print the tables, leave the tune cache alone"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("bench: unexpected argument %q", c.Args().First())
			}
			if c.Bool("tune") {
				return benchTune(c)
			}
			if c.Bool("no-save") {
				return usagef("--no-save goes with --tune")
			}
			ops, err := suite.Select(suite.Ops(), c.String("suite"))
			if err != nil {
				return usageError{fmt.Errorf("--suite: %w", err)}
			}
			size, err := suite.ParseSize(c.String("size"))
			if err != nil {
				return usageError{fmt.Errorf("--size: %w", err)}
			}
			repeat, warmup := c.Int("repeat"), c.Int("warmup")
			if repeat < 1 || warmup < 0 {
				return usagef("--repeat must be at least 1 and --warmup at least 0 (got %d and %d)", repeat, warmup)
			}
			dts, err := benchPrecisions(c)
			if err != nil {
				return err
			}
			for _, f := range []string{"json", "png"} {
				if err := checkOutputFile(f, c.String(f)); err != nil {
					return err
				}
			}
			ts, err := openTargets(c)
			if err != nil {
				return err
			}
			rep, err := runBench(c, ts, ops, size, dts, repeat, warmup)
			if cerr := closeTargets(ts); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			printBench(c.App.Writer, rep)
			outs := formats.Outputs{Ctx: c.Context}
			defer outs.Abort()
			if path := c.String("json"); path != "" {
				outs.Add(path, encodeJSON(rep))
			}
			if path := c.String("png"); path != "" {
				outs.Add(path, func(w io.Writer) error { return benchChart(w, rep) })
			}
			if err := outs.Commit(); err != nil {
				return err
			}
			if rep.Errors > 0 {
				return fmt.Errorf("bench: %d measurement(s) failed", rep.Errors)
			}
			return nil
		},
	}
}

// benchPrecisions reads the global --precision: auto keeps every bench
// case, f32 or f64 only those of that precision.
func benchPrecisions(c *ucli.Context) ([]tensor.DType, error) {
	return verifyPrecisions(c)
}

type benchResult struct {
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
	// ComputedAs is the precision the computation ran in where it is not
	// the input's (the CPU path's PACO is float64 only).
	ComputedAs string     `json:"computed_as,omitempty"`
	Work       suite.Work `json:"work"`
	Unit       string     `json:"unit"`
	// Throughput is work per kernel time, ThroughputWall per wall time,
	// in Unit.
	Throughput     float64 `json:"throughput"`
	ThroughputWall float64 `json:"throughput_wall"`
	// KernelGBs is Work.Bytes per kernel time; CopyFraction is that over
	// the device's copy bandwidth.
	KernelGBs    float64     `json:"kernel_gb_per_s"`
	CopyFraction float64     `json:"copy_fraction"`
	Peer         *suite.Peer `json:"peer,omitempty"`
}

type benchDevice struct {
	Device deviceRecord `json:"device"`
	// Copy is the bandwidth "% of copy" refers to: the faster of the copy
	// engine (CopyEngine) and a copy shader (ShaderCopy) on Vulkan devices.
	Copy       suite.Bandwidth  `json:"copy_bandwidth"`
	CopyEngine *suite.Bandwidth `json:"copy_engine,omitempty"`
	ShaderCopy *suite.Bandwidth `json:"shader_copy,omitempty"`
	// Link is host↔device bandwidth the way operations move data.
	Link    *suite.Link    `json:"link,omitempty"`
	Results []*benchResult `json:"results"`
}

type benchReport struct {
	Kind          string         `json:"kind"`
	VkstatVersion string         `json:"vkstat_version"`
	Date          string         `json:"date"`
	Host          hostRecord     `json:"host"`
	Validation    bool           `json:"validation"`
	Command       string         `json:"command"`
	Size          suite.Size     `json:"size"`
	Repeat        int            `json:"repeat"`
	Warmup        int            `json:"warmup"`
	Devices       []*benchDevice `json:"devices"`
	Errors        int            `json:"errors"`
	// LoadAvg is /proc/loadavg's 1-, 5- and 15-minute load at the start
	// and at the end: other work on the machine makes figures noisy.
	LoadAvg []string `json:"load_avg,omitempty"`
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

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func runBench(c *ucli.Context, ts []*target, ops []suite.Op, size suite.Size, dts []tensor.DType, repeat, warmup int) (*benchReport, error) {
	ctx := c.Context
	errw := c.App.ErrWriter
	rep := &benchReport{Kind: "vkstat-bench-report", VkstatVersion: Version, Date: time.Now().UTC().Format(time.RFC3339),
		Host: hostInfo(), Validation: lineageBool(c, "validate"), Size: size, Repeat: repeat, Warmup: warmup}
	dev, _ := lineageString(c, "device")
	if dev == "" {
		dev = "all"
	}
	rep.Command = fmt.Sprintf("vkstat bench --suite %s --device %s --size %s --repeat %d --warmup %d", c.String("suite"), dev, size, repeat, warmup)
	if rep.Validation {
		rep.Command = strings.Replace(rep.Command, "vkstat bench", "vkstat --validate bench", 1)
	}
	if p, _ := lineageString(c, "precision"); p != "" && p != "auto" {
		rep.Command = strings.Replace(rep.Command, "vkstat", "vkstat --precision "+p, 1)
	}
	if l := loadAvg(); l != "" {
		rep.LoadAvg = append(rep.LoadAvg, l)
		defer func() { rep.LoadAvg = append(rep.LoadAvg, loadAvg()) }()
	}
	// Large enough to defeat caches (256 MiB read, 256 MiB written); the
	// link is timed on 256 MiB each way, as the GPU peer script does.
	const copyBytes, linkBytes = 256 << 20, 256 << 20
	for _, t := range ts {
		bw, err := suite.CopyBandwidth(ctx, t.dev, copyBytes, repeat)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(errw, "bench: %s: copy bandwidth %.1f GB/s (%d MiB, %s)\n", t.rec.Label, bw.GBs, bw.Bytes>>20, bw.Method)
		bd := &benchDevice{Device: t.rec, Copy: bw}
		rep.Devices = append(rep.Devices, bd)
		if t.dev == nil {
			continue
		}
		engineBW := bw
		bd.CopyEngine = &engineBW
		if sc, err := suite.ShaderCopyBandwidth(ctx, t.dev, copyBytes, repeat); err == nil {
			bd.ShaderCopy = &sc
			fmt.Fprintf(errw, "bench: %s: shader copy %.1f GB/s (%d MiB)\n", t.rec.Label, sc.GBs, sc.Bytes>>20)
			if sc.GBs > bd.Copy.GBs {
				bd.Copy = sc
			}
		} else {
			fmt.Fprintf(errw, "bench: %s: shader copy: %v\n", t.rec.Label, err)
		}
		link, err := suite.LinkBandwidth(ctx, t.dev, linkBytes, repeat)
		if err != nil {
			return nil, fmt.Errorf("link bandwidth on %s: %w", t.rec.Label, err)
		}
		bd.Link = &link
		fmt.Fprintf(errw, "bench: %s: host→device %.1f GB/s, device→host %.1f GB/s (%d MiB)\n", t.rec.Label, link.HostToDevice, link.DeviceToHost, link.Bytes>>20)
	}
	for _, op := range ops {
		for _, bc := range op.Bench[size] {
			if !hasDType(dts, bc.DType) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			in := op.Build(bc.Case, bc.DType)
			w := op.Work(bc.Case, bc.DType)
			for i, t := range ts {
				r := &benchResult{Op: op.Name, Suite: op.Suite, Case: bc.Label(), Shape: bc.Shape, Precision: bc.DType.String(),
					Status: "ok", Work: w, Unit: string(op.Unit)}
				if t.dev == nil && op.CPUComputes != 0 && op.CPUComputes != bc.DType {
					r.ComputedAs = op.CPUComputes.String()
				}
				if op.Peer != nil {
					r.Peer = op.Peer(bc.Case, bc.DType)
				}
				d := rep.Devices[i]
				d.Results = append(d.Results, r)
				if why := op.Skip(t.dev, bc.DType); why != "" {
					r.Status, r.Detail = "skip", why
					continue
				}
				m, err := suite.Measure(ctx, t.dev, op, bc.Case, in, warmup, repeat)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					r.Status, r.Detail = "error", err.Error()
					rep.Errors++
					fmt.Fprintf(errw, "bench: %s %s %s on %s: %v\n", op.Name, bc.Label(), bc.DType, t.rec.Label, err)
					continue
				}
				r.UploadMs, r.KernelMs, r.DownloadMs, r.WallMs = ms(m.Upload), ms(m.Kernel), ms(m.Download), ms(m.Wall)
				r.GPUTimed = m.GPUTimed
				if m.GPUTimed {
					r.Throughput = suite.Rate(w, op.Unit, m.Kernel)
					r.KernelGBs = suite.Rate(w, suite.GBs, m.Kernel)
					if d.Copy.GBs > 0 {
						r.CopyFraction = r.KernelGBs / d.Copy.GBs
					}
				}
				r.ThroughputWall = suite.Rate(w, op.Unit, m.Wall)
				fmt.Fprintf(errw, "bench: %s %s %s on %s: wall %.3f ms, kernel %.3f ms\n", op.Name, bc.Label(), bc.DType, t.rec.Label, r.WallMs, r.KernelMs)
			}
		}
	}
	return rep, nil
}

func hasDType(dts []tensor.DType, dt tensor.DType) bool {
	for _, d := range dts {
		if d == dt {
			return true
		}
	}
	return false
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func printBench(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "# vkstat bench (%s size, median of %d after %d warm-up)\n\n", rep.Size, rep.Repeat, rep.Warmup)
	fmt.Fprintf(w, "vkstat %s, %s, %s\n\n", rep.VkstatVersion, rep.Date, rep.Host.CPU)
	fmt.Fprintln(w, "| device | copy bandwidth | measured with | host→device | device→host |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|")
	for _, d := range rep.Devices {
		h2d, d2h := "–", "–"
		if d.Link != nil {
			h2d, d2h = fmt.Sprintf("%.1f GB/s", d.Link.HostToDevice), fmt.Sprintf("%.1f GB/s", d.Link.DeviceToHost)
		}
		fmt.Fprintf(w, "| %s | %.1f GB/s | %s, %d MiB | %s | %s |\n", d.Device.title(), d.Copy.GBs, d.Copy.Method, d.Copy.Bytes>>20, h2d, d2h)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| operation | case | precision | device | upload ms | kernel ms | download ms | wall ms | throughput (kernel) | throughput (wall) | % of copy BW |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for i := range maxResults(rep) {
		for _, d := range rep.Devices {
			if i >= len(d.Results) {
				continue
			}
			r := d.Results[i]
			if r.Status != "ok" {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s: %s | | | | | | |\n", r.Op, r.Case, r.Precision, d.Device.Label, r.Status, r.Detail)
				continue
			}
			kernel, frac := fmtNum(r.KernelMs), "–"
			if !r.GPUTimed {
				kernel = "n/a"
			}
			if r.CopyFraction > 0 {
				frac = fmt.Sprintf("%.0f%%", 100*r.CopyFraction)
			}
			up, down := fmtNum(r.UploadMs), fmtNum(r.DownloadMs)
			if d.Device.Path == "cpu" {
				up, down = "–", "–"
			}
			prec := r.Precision
			if r.ComputedAs != "" {
				prec += " (computed in " + r.ComputedAs + ")"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s %s | %s %s | %s |\n", r.Op, r.Case, prec, d.Device.Label,
				up, kernel, down, fmtNum(r.WallMs), fmtNum(r.Throughput), r.Unit, fmtNum(r.ThroughputWall), r.Unit, frac)
		}
	}
}

func maxResults(rep *benchReport) int {
	n := 0
	for _, d := range rep.Devices {
		n = max(n, len(d.Results))
	}
	return n
}

// benchChart draws one bar chart per operation: kernel throughput of each
// case (x) on each device (bars), in the operation's unit.
func benchChart(w io.Writer, rep *benchReport) error {
	type panel struct {
		op, unit string
		cases    []string
	}
	var panels []*panel
	byOp := map[string]*panel{}
	for _, d := range rep.Devices {
		for _, r := range d.Results {
			p := byOp[r.Op]
			if p == nil {
				p = &panel{op: r.Op, unit: r.Unit}
				byOp[r.Op] = p
				panels = append(panels, p)
			}
			label := r.Case + " " + r.Precision
			found := false
			for _, c := range p.cases {
				found = found || c == label
			}
			if !found {
				p.cases = append(p.cases, label)
			}
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("--png: no results to plot")
	}
	plots := make([][]*plot.Plot, len(panels))
	nd := len(rep.Devices)
	barWidth := vg.Points(math.Max(6, math.Min(28, 160/float64(nd))))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: throughput from kernel time (%s), %s size, median of %d", pn.op, pn.unit, rep.Size, rep.Repeat)
		p.Y.Label.Text = pn.unit
		devVals := make([]plotter.Values, nd)
		top, low := 0.0, math.Inf(1)
		for j, d := range rep.Devices {
			vals := make(plotter.Values, len(pn.cases))
			for _, r := range d.Results {
				if r.Op != pn.op || r.Status != "ok" {
					continue
				}
				for k, c := range pn.cases {
					if c == r.Case+" "+r.Precision {
						vals[k] = r.Throughput
						if !r.GPUTimed {
							vals[k] = r.ThroughputWall
						}
					}
				}
			}
			for _, v := range vals {
				top = math.Max(top, v)
				if v > 0 {
					low = math.Min(low, v)
				}
			}
			devVals[j] = vals
		}
		// A log axis where the bars span more than a decade (a small case
		// beside a large one, a CPU beside a GPU): on a linear one the
		// small bars vanish. Log bars stand on a hidden floor of round value.
		var floor *plotter.BarChart
		logY := top > 10*low
		if logY {
			base := math.Pow(10, math.Ceil(math.Log10(low))-1) // below the lowest bar
			fv := make(plotter.Values, len(pn.cases))
			for k := range fv {
				fv[k] = base
			}
			var err error
			if floor, err = plotter.NewBarChart(fv, barWidth); err != nil {
				return err
			}
			p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
			p.Y.Min, p.Y.Max = base, top*math.Pow(10, 0.2+0.35*float64(nd)) // room for the legend
		} else {
			p.Y.Min = 0
			// Head-room for the legend above the bars.
			p.Y.Max = math.Max(top, 1e-9) * (1.15 + 0.07*float64(nd))
		}
		for j, d := range rep.Devices {
			vals := devVals[j]
			if logY {
				for k, v := range vals {
					vals[k] = math.Max(0, v-floor.Values[k])
				}
			}
			bars, err := plotter.NewBarChart(vals, barWidth)
			if err != nil {
				return err
			}
			if logY {
				bars.StackOn(floor)
			}
			bars.LineStyle.Width = 0
			bars.Color = plotutil.Color(j)
			bars.Offset = vg.Length(float64(j)-float64(nd-1)/2) * barWidth
			p.Add(bars)
			label := d.Device.Label
			if d.Copy.GBs > 0 {
				label += fmt.Sprintf(" (copy %.0f GB/s)", d.Copy.GBs)
			}
			p.Legend.Add(label, bars)
		}
		p.Legend.Top = true
		p.Legend.Left = true
		p.Legend.XOffs = vg.Millimeter * 4
		p.Legend.Padding = vg.Points(4)
		p.X.Padding = vg.Millimeter * 10
		p.NominalX(pn.cases...)
		plots[i] = []*plot.Plot{p}
	}
	width, height := vg.Points(900), vg.Points(320*float64(len(panels)))
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 6,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}
