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

// TestOptionsWarnings: a ddof of at least the values along the axis warns
// once, with its figures, when var or std is asked for, and names its
// options for the front end (the command line's flags, Python's words in
// capi).
func TestOptionsWarnings(t *testing.T) {
	o := Options{DDof: 2, Stats: []Stat{Mean, Std}}
	w := o.Warnings(2, "1,2")
	if len(w) != 1 || w[0].Code != WarnDDof || w[0].Data["ddof"] != 2 || w[0].Data["n"] != 2 {
		t.Fatalf("ddof 2 over 2 values: %+v", w)
	}
	flags := func(field, value string) string { return "--" + field + " " + value }
	if got, want := w[0].Words(flags), "--ddof 2 with 2 value(s) along --axis 1,2: var and std are NaN (they divide by n − ddof)"; got != want {
		t.Errorf("worded %q, want %q", got, want)
	}
	for _, quiet := range []struct {
		o Options
		n int
	}{{o, 3}, {Options{DDof: 5, Stats: []Stat{Sum, Mean, Min, Max}}, 1}} {
		if w := quiet.o.Warnings(quiet.n, "0"); w != nil {
			t.Errorf("%+v over %d values: %+v, want none", quiet.o, quiet.n, w)
		}
	}
}
