package tune

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// WriteText writes d as `vkstat devices --tune` prints it: a heading with
// the device and its tune cache, then every tunable pipeline's parameters,
// sorted, with their values and where each comes from.
func (d DeviceReport) WriteText(w io.Writer) {
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
