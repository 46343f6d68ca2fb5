package cli

import (
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/suite"
	"github.com/vkstat/vkstat/suite/benchchart"
)

// maxBenchRuns bounds --warmup and --repeat: runs per measurement, of
// every case of every operation (10⁹ ran for days).
const maxBenchRuns = 10000

func benchCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "bench",
		Usage:     "time every operation on every device: upload, kernel, download, wall; throughput and fraction of copy bandwidth",
		UsageText: "vkstat bench [--suite " + strings.Join(suite.Suites, "|") + "|all] [--device all|...] [--size small|paper] [--repeat N] [--json out.json] [--png out.png]\n   vkstat bench --tune [--suite map|reduce|cov|chol|all] [--device ...] [--repeat N] [--no-save] [--json tune.json]",
		Description: `For each operation of the suite and each size, on each device: the upload,
kernel (GPU timestamps), download and total wall time, host arrays in to
host arrays out, each the median of --repeat runs after untimed warm-up
runs: for a time by default (until a second of kernel time has run, or the
medians of two successive batches of 3 runs agree within 5%, at most 1 s or
30 runs; an idle GPU raises its clocks under load), or --warmup N runs; the
report says what each case got; the throughput (GB/s, GFLOP/s or matrices/s) from the kernel time and
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
(vkstat devices --tune says where each value comes from). It then measures
what --device auto weighs on each GPU and the CPU path, for the --suite's
operations: start-up, each operation's first call, fixed cost per call and
rate, stored beside the tune cache as <key>.rates.json
(cpu-<threads>.rates.json for the CPU path).
With --device cpu it measures the CPU path's rates only. --no-save prints
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
			&ucli.IntFlag{Name: "warmup", Usage: "untimed runs before the timed ones", DefaultText: "warm up for a time, see the description"},
			&ucli.StringFlag{Name: "json", Usage: "write every figure to this file"},
			&ucli.StringFlag{Name: "png", Usage: "write a bar chart of kernel throughput to this file (SVG or PDF for a name ending .svg or .pdf)"},
			&ucli.BoolFlag{Name: "tune", Usage: "search the tunable pipelines' parameters on each Vulkan device and store the winners in its tune cache (see the description)"},
			&ucli.BoolFlag{Name: "no-save", Usage: "with --tune: print the tables, leave the tune cache alone"},
		},
		Action: func(c *ucli.Context) error {
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
			if !c.IsSet("warmup") {
				warmup = suite.WarmupByTime
			} else if warmup < 0 || warmup > maxBenchRuns {
				return usagef("--warmup must be from 0 to %d (got %d); leave it out to warm up for a time", maxBenchRuns, warmup)
			}
			if repeat < 1 || repeat > maxBenchRuns {
				return usagef("--repeat must be from 1 to %d (got %d)", maxBenchRuns, repeat)
			}
			dts, err := suite.ParsePrecisions(c.String("precision")) // auto: every bench case; f32 or f64: those of that precision
			if err != nil {
				return usageError{err}
			}
			errw := c.App.ErrWriter
			var rep *suite.BenchReport
			if err := onDevices(c, "all", false, func(devs []*engine.Device) (err error) {
				opt := suite.BenchOptions{Size: size, Precisions: dts, Repeat: repeat, Warmup: warmup, Version: Version, Validation: c.Bool("validate"),
					Log: func(line string) { fmt.Fprintf(errw, "bench: %s\n", line) }}
				opt.Command = opt.CommandLine(c.String("suite"), c.String("device"), c.String("precision"))
				rep, err = suite.Bench(c.Context, devs, ops, opt)
				return err
			}); err != nil {
				return err
			}
			rep.WriteMarkdown(c.App.Writer)
			outs := formats.Outputs{Ctx: c.Context}
			defer outs.Abort()
			if path := c.String("json"); path != "" {
				outs.Add(path, formats.JSON(rep))
			}
			if path := c.String("png"); path != "" {
				outs.Add(path, func(w io.Writer) error {
					if err := benchchart.Write(w, rep, path); err != nil {
						return fmt.Errorf("--png: %w", err)
					}
					return nil
				})
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
