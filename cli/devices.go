package cli

import (
	"errors"
	"fmt"
	"runtime"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
)

func devicesCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "devices",
		Usage: "list the Vulkan devices and the CPU path, with what each supports",
		Description: `Prints one row per Vulkan device the loader sees (their index is what
--device takes) and one for the native Go CPU path. --json prints the full
report: driver, API version, memory heaps, limits, subgroup size and
fp16/fp64/int64 and timestamp support, and each device's tuning (below).
The last line gives each device's memory budget, what vkstat latent sizes
its batches by: the driver's heapBudget − heapUsage where it has
VK_EXT_memory_budget, else 90% of the device-local heaps; for the CPU path,
half of MemAvailable.

--tune adds, per device, every tunable pipeline's parameters (workgroup
sizes, kernel variants; see docs/tune.md) and where each value comes from:
the built-in default, a built-in rule matched against the device report, or
the device's tune cache file that vkstat bench --tune wrote.

Examples:
   vkstat devices
   vkstat devices --tune
   vkstat devices --json > devices.json`,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print the full report as JSON (tuning included)"},
			&ucli.BoolFlag{Name: "tune", Usage: "print each device's tuned parameters and where they come from"},
		},
		Action: func(c *ucli.Context) error {
			opt, err := deviceOptions(c)
			if err != nil {
				return err
			}
			l, vkErr := engine.List(c.Bool("validate"), opt.Disable)
			if vkErr == nil {
				tune.WriteCensus(l.Raw) // what --device auto decides from later
			}
			infos, budgets := l.Devices, l.Budgets
			cpuB := engine.HostBudget(availableMemory())
			cpu := map[string]any{"name": "cpu", "type": "native Go", "threads": runtime.GOMAXPROCS(0), "float64": true, "memory_budget": cpuB}
			if c.Bool("json") {
				rep := map[string]any{"vulkan": infos, "cpu": cpu, "vkstat_version": Version, "tune": tuneReports(c, infos), "memory_budget": budgets}
				if vkErr != nil {
					rep["vulkan_error"] = vkErr.Error()
				}
				return formats.JSON(rep)(c.App.Writer)
			}
			l.WriteTable(c.App.Writer, cpuB)
			if c.Bool("tune") {
				for _, r := range tuneReports(c, infos) {
					r.WriteText(c.App.Writer)
				}
			}
			if vkErr != nil {
				fmt.Fprintf(c.App.ErrWriter, "no Vulkan devices: %v\n", vkErr)
				if !errors.Is(vkErr, engine.ErrNoLoader) && !errors.Is(vkErr, engine.ErrNoDriver) {
					return vkErr
				}
			}
			return nil
		},
	}
}

func tuneReports(c *ucli.Context, infos []engine.DeviceInfo) []tune.DeviceReport {
	var out []tune.DeviceReport
	for _, d := range infos {
		out = append(out, tune.Report(c.Context, d))
	}
	return out
}
