package engine

import "testing"

func TestSelect(t *testing.T) {
	lvp := DeviceInfo{Index: 0, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: "cpu", Driver: "llvmpipe"}
	igpu := DeviceInfo{Index: 1, Name: "Intel(R) UHD Graphics 620", Type: "integrated"}
	dgpu := DeviceInfo{Index: 2, Name: "NVIDIA H100 80GB HBM3", Type: "discrete"}
	all := []DeviceInfo{lvp, igpu, dgpu}
	cases := []struct {
		infos []DeviceInfo
		spec  string
		want  int
		err   bool
	}{
		{all, "auto", 2, false},
		{all, "", 2, false},
		{[]DeviceInfo{lvp, igpu}, "gpu", 1, false},
		{[]DeviceInfo{lvp}, "auto", CPUPath, false},
		{[]DeviceInfo{lvp}, "gpu", 0, true},
		{nil, "auto", CPUPath, false},
		{all, "cpu", CPUPath, false},
		{all, "lavapipe", 0, false},
		{[]DeviceInfo{dgpu}, "lavapipe", 0, true},
		{all, "1", 1, false},
		{all, "3", 0, true},
		{all, "h100", 2, false},
		{all, "radeon", 0, true},
	}
	for _, c := range cases {
		got, err := Select(c.infos, c.spec)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("Select(%d devices, %q) = %d, %v; want %d, error %v", len(c.infos), c.spec, got, err, c.want, c.err)
		}
	}
}
