package suite

import (
	"testing"

	"github.com/vkstat/vkstat/workloads"
)

// Every workload of the registry (workloads.All) is a bench suite with at
// least one operation registered, which verify checks and bench times; and
// every operation --device auto prices is one MeasureRates can time. The
// operations are those the workloads declare (Spec.Cases), each in its
// own workload's suite.
func TestEveryWorkloadHasOps(t *testing.T) {
	declared := 0
	for _, s := range workloads.All {
		if s.Cases == nil {
			t.Errorf("workload %s declares no verify and bench cases (Spec.Cases)", s.Name)
			continue
		}
		for _, op := range s.Cases() {
			declared++
			if op.Suite != s.Name {
				t.Errorf("workload %s declares operation %s of suite %q", s.Name, op.Name, op.Suite)
			}
		}
	}
	if got := len(Ops()); got != declared {
		t.Errorf("%d operations registered, the workloads declare %d", got, declared)
	}
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
