package reduce

import (
	"slices"
	"testing"
)

// TestParseStats: names in any case and order, and "all" for every
// statistic in the kernels' order, which the front ends take as they are.
func TestParseStats(t *testing.T) {
	for text, want := range map[string][]Stat{
		"mean,std":  {Mean, Std},
		" MAX, sum": {Max, Sum},
		"all":       {Sum, Mean, Var, Std, Min, Max},
		" All ":     {Sum, Mean, Var, Std, Min, Max},
	} {
		if got, err := ParseStats(text); err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseStats(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "median", "all,mean"} {
		if _, err := ParseStats(bad); err == nil {
			t.Errorf("ParseStats(%q): no error", bad)
		}
	}
}
