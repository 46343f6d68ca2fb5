package engine

import (
	"errors"
	"testing"
)

func TestParseFeatures(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Features
	}{{"", 0}, {"none", 0}, {"float64", Float64}, {"FP64, subgroup", Float64 | Subgroup}, {"float16,float64,subgroup", Float64 | Float16 | Subgroup}} {
		got, err := ParseFeatures(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseFeatures(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if _, err := ParseFeatures("float128"); !errors.Is(err, ErrBadOption) {
		t.Errorf("float128: %v, want ErrBadOption", err)
	}
	if s := (Float64 | Subgroup).String(); s != "float64,subgroup" {
		t.Errorf("String = %q", s)
	}
}

func TestWithout(t *testing.T) {
	full := DeviceInfo{Name: "dev", Float64: true, Float16: true, SubgroupOps: []string{"basic", "vote", "arithmetic"}}
	got := full.Without(Float64 | Subgroup)
	if got.Float64 || !got.Float16 || len(got.SubgroupOps) != 1 || got.Disabled != "float64,subgroup" || got.Name != "dev [without float64,subgroup]" {
		t.Errorf("Without: %+v", got)
	}
	if !full.Float64 || len(full.SubgroupOps) != 3 || full.Name != "dev" {
		t.Errorf("Without changed its receiver: %+v", full)
	}
	if same := full.Without(0); same.Name != "dev" || same.Disabled != "" {
		t.Errorf("Without(0): %+v", same)
	}
}
