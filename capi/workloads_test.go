package capi

import (
	"encoding/json"
	"fmt"
	"strings"
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

// TestParamsExport: vks_params' description lists every workload with a
// front end, each parameter with its default as vks_defaults gives it;
// reduce's axis takes null as a value of its own (every axis) and defaults
// to 0, its stat is sent as stats and names its choices.
func TestParamsExport(t *testing.T) {
	b, err := ParamsJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string][]ParamDoc
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	defaults := Defaults()
	for _, spec := range workloads.Fronted() {
		ps := got[spec.Name]
		if len(ps) != len(spec.Params()) {
			t.Errorf("%s: %d parameters exported, %d described", spec.Name, len(ps), len(spec.Params()))
		}
		for _, p := range ps {
			if d, ok := defaults[spec.Name][p.Name]; ok && fmt.Sprint(d) != fmt.Sprint(p.Default) {
				t.Errorf("%s %s: default %v, vks_defaults %v", spec.Name, p.Name, p.Default, d)
			}
			if p.None != (spec.Name == "reduce" && p.Name == "axis") {
				t.Errorf("%s %s: none %v", spec.Name, p.Name, p.None)
			}
		}
	}
	var axis, stat ParamDoc
	for _, p := range got["reduce"] {
		switch p.Name {
		case "axis":
			axis = p
		case "stat":
			stat = p
		}
	}
	if fmt.Sprint(axis.Default) != "0" || axis.Kind != "list" || stat.Key != "stats" || strings.Join(stat.Choices, ",") != "sum,mean,var,std,min,max" {
		t.Errorf("reduce: axis %+v, stat %+v", axis, stat)
	}
}
