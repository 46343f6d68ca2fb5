package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/internal/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestTimePhasesAddUp (issue 31): the phases --time-json reports (start-up,
// read, the library call's allocation, copies, submits, waits ..., write,
// close) name at least 95 % of the command's wall time, for map, reduce
// along the first and the last axis, cov, chol and latent, on the CPU path and on
// every Vulkan device; and they add up with other_ms to total_ms exactly.
// Inputs of a few MiB make the library call a good part of the wall. A
// loaded machine can stall the process where no phase is being timed, so
// the best of three runs is held: a cost the phases miss shows in all three.
func TestTimePhasesAddUp(t *testing.T) {
	dir := t.TempDir()
	f32 := func(shape []int, f func(i int) float32) *tensor.Tensor {
		x := tensor.New(tensor.F32, shape...)
		for i := range x.F32 {
			x.F32[i] = f(i)
		}
		return x
	}
	wave := func(i int) float32 { return float32(math.Sin(float64(i) * 0.37)) }
	x := writeNPY(t, dir, "x.npy", f32([]int{1 << 20}, wave))
	cube := writeNPY(t, dir, "cube.npy", f32([]int{32, 256, 256}, wave))
	sets := writeNPY(t, dir, "sets.npy", f32([]int{512, 64, 49}, wave))
	const n, p = 2048, 16
	// Diagonally dominant, so positive definite: p on the diagonal,
	// symmetric entries under 1/2p off it.
	spd := f32([]int{n, p, p}, func(i int) float32 {
		k, r, c := i/(p*p), i/p%p, i%p
		if r == c {
			return p
		}
		return float32(0.5 / p * math.Cos(float64(k+r+c)))
	})
	a := writeNPY(t, dir, "spd.npy", spd)
	b := writeNPY(t, dir, "rhs.npy", f32([]int{n, p}, wave))
	lat := writeNPY(t, dir, "lat.npy", f32([]int{2, 4, 4, 32, 32}, wave))
	out := func(name string) string { return filepath.Join(dir, name) }
	cases := []struct {
		name string
		args []string
	}{
		{"map", []string{"map", "--x", x, "--y", x, "--out", out("z.npy")}},
		{"reduce-axis0", []string{"reduce", "--in", cube, "--axis", "0", "--stat", "mean,std", "--out-dir", out("r0")}},
		{"reduce-axis-1", []string{"reduce", "--in", cube, "--axis", "-1", "--stat", "mean,std", "--out-dir", out("r1")}},
		{"cov", []string{"cov", "--in", sets, "--estimator", "paco", "--out-cov", out("cov.npy")}},
		{"chol", []string{"chol", "--in", a, "--solve", b, "--out", out("x.npy"), "--inverse", out("inv.npy"), "--logdet", out("ld.npy")}},
		// VkFFT's planning is its own phase (fft-plan), and closing the
		// device is timed before --time reports.
		{"latent", []string{"latent", "--in", lat, "--stat", "moments,corr,spectra", "--out-dir", out("lat")}},
	}
	devs := []string{"cpu"}
	if _, err := os.Stat("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"); err == nil || os.Getenv("CI") == "true" {
		for _, d := range testdev.Devices(t) {
			if d.Info.Disabled == "" { // the devices themselves, by index
				devs = append(devs, strconv.Itoa(d.Info.Index))
			}
		}
	}
	js := out("time.json")
	for _, dev := range devs {
		for _, c := range cases {
			t.Run(dev+"/"+c.name, func(t *testing.T) {
				best, runs := 1.0, []string{}
				for try := 0; try < 3 && best > 0.05; try++ {
					code, _, stderr := run(t, append([]string{"--device", dev, "--time-json", js}, c.args...)...)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					var r timeReport
					raw, err := os.ReadFile(js)
					if err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(raw, &r); err != nil {
						t.Fatalf("%v in %s", err, raw)
					}
					sum := r.OtherMs
					var names []string
					for _, ph := range r.Phases {
						sum += ph.Ms
						names = append(names, ph.Name)
					}
					if math.Abs(sum-r.TotalMs) > 1e-6*r.TotalMs+1e-6 {
						t.Errorf("phases and other add up to %.6f ms, total %.6f ms", sum, r.TotalMs)
					}
					if r.TotalMs <= 0 || len(r.Phases) < 3 || !strings.Contains(strings.Join(names, ","), "start-up") {
						t.Fatalf("report %s", raw)
					}
					frac := r.OtherMs / r.TotalMs
					best = min(best, frac)
					runs = append(runs, strconv.FormatFloat(100*frac, 'f', 1, 64)+"%")
					t.Logf("%s: total %.1f ms, other %.1f ms, phases %v", dev, r.TotalMs, r.OtherMs, r.Phases)
				}
				if best > 0.05 {
					t.Errorf("no phase names %s of the wall time (runs: %s); want at most 5%%", runs[len(runs)-1], strings.Join(runs, ", "))
				}
			})
		}
	}
}
