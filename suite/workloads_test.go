package suite

import (
	"testing"

	"github.com/vkstat/vkstat/workloads"
)

// Every workload of the registry (workloads.All) is a bench suite with at
// least one operation registered, which verify checks and bench times; and
// every operation --device auto prices is one MeasureRates can time.
func TestEveryWorkloadHasOps(t *testing.T) {
	n := map[string]int{}
	byName := map[string]bool{}
	for _, op := range Ops() {
		n[op.Suite]++
		byName[op.Name] = len(op.Verify) > 0 && len(op.Bench[Small]) > 0
	}
	for _, name := range workloads.Names() {
		if n[name] == 0 {
			t.Errorf("workload %s: no operation in its suite", name)
		}
	}
	for _, name := range RateOps {
		if !byName[name] {
			t.Errorf("auto prices %s, but no operation of that name has verify and small bench cases to measure its rates on", name)
		}
	}
}
