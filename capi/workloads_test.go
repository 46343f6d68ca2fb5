package capi

import (
	"testing"

	"github.com/vkstat/vkstat/workloads"
)

// Every workload with a front end of its own (workloads.Fronted) is an
// operation of the C ABI, with its defaults listed for Python; one run by
// another (eig, spectra) is neither.
func TestEveryWorkloadIsAnOp(t *testing.T) {
	d := Defaults()
	for _, spec := range workloads.All {
		_, op := ops[spec.Name]
		_, listed := d[spec.Name]
		if own := spec.RunBy == ""; op != own || listed != own {
			t.Errorf("%s (run by %q): an operation %v, its defaults listed %v", spec.Name, spec.RunBy, op, listed)
		}
	}
	if len(d) != len(workloads.Fronted()) {
		t.Errorf("defaults of %d operations, %d workloads with a front end", len(d), len(workloads.Fronted()))
	}
}
