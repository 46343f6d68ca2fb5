package engine

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the listing as `vkstat devices` prints it: one row per
// Vulkan device (its index is what --device takes) and one for the CPU
// path, then one line for the memory budgets (what latent sizes its
// batches by), cpu the CPU path's (HostBudget), so that the table keeps
// its columns.
func (l Listing) WriteTable(w io.Writer, cpu MemoryBudget) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tNAME\tTYPE\tVENDOR\tDRIVER\tVULKAN\tMEMORY\tFP64\tSUBGROUP\tTIMESTAMPS")
	for _, d := range l.Devices {
		driver := d.Driver
		if driver == "" {
			driver = d.DriverVersion
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%.1f GiB\t%s\t%d\t%s\n", d.Index, d.Name, d.Type, d.Vendor, driver,
			d.APIVersion, float64(d.DeviceMemory())/(1<<30), yesNo(d.Float64), d.SubgroupSize, yesNo(d.Timestamps))
	}
	fmt.Fprintf(tw, "cpu\tnative Go CPU path\tcpu\t-\t-\t-\t-\tyes\t-\t-\n")
	tw.Flush()
	var parts []string
	for i, b := range l.Budgets {
		parts = append(parts, fmt.Sprintf("%d: %s", l.Devices[i].Index, b))
	}
	parts = append(parts, "cpu: "+cpu.String())
	fmt.Fprintf(w, "memory budget: %s\n", strings.Join(parts, "; "))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
