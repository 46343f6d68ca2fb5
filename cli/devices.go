package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
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
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			w := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "DEVICE\tNAME\tTYPE\tVENDOR\tDRIVER\tVULKAN\tMEMORY\tFP64\tSUBGROUP\tTIMESTAMPS")
			for _, d := range infos {
				driver := d.Driver
				if driver == "" {
					driver = d.DriverVersion
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%.1f GiB\t%s\t%d\t%s\n", d.Index, d.Name, d.Type, d.Vendor, driver,
					d.APIVersion, float64(d.DeviceMemory())/(1<<30), yesNo(d.Float64), d.SubgroupSize, yesNo(d.Timestamps))
			}
			fmt.Fprintf(w, "cpu\tnative Go CPU path\tcpu\t-\t-\t-\t-\tyes\t-\t-\n")
			w.Flush()
			// One line for the memory budgets (what vkstat latent sizes its
			// batches by), so that the table above keeps its columns.
			var parts []string
			for i, b := range budgets {
				parts = append(parts, fmt.Sprintf("%d: %s", infos[i].Index, b))
			}
			parts = append(parts, "cpu: "+cpuB.String())
			fmt.Fprintf(c.App.Writer, "memory budget: %s\n", strings.Join(parts, "; "))
			if c.Bool("tune") {
				printTuning(c.App.Writer, tuneReports(c, infos))
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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func tuneReports(c *ucli.Context, infos []engine.DeviceInfo) []tune.DeviceReport {
	var out []tune.DeviceReport
	for _, d := range infos {
		out = append(out, tune.Report(c.Context, d))
	}
	return out
}

func printTuning(w io.Writer, ts []tune.DeviceReport) {
	for _, d := range ts {
		fmt.Fprintf(w, "\ntuning of device %d, %s (tune cache %s: %s)\n", d.Device, d.Name, d.Cache, d.CacheState)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, name := range slices.Sorted(maps.Keys(d.Pipelines)) {
			ps := d.Pipelines[name]
			for _, k := range slices.Sorted(maps.Keys(ps)) {
				fmt.Fprintf(tw, "  %s\t%s\t%v\t%s\n", name, k, ps[k].Value, ps[k].Source)
			}
		}
		tw.Flush()
	}
}
