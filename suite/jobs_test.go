package suite

import (
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// AutoJob counts what bench counts, checked against values worked out by
// hand: a map does 5 flops an element and moves 3 values; the PACO
// covariance n·T·(2P + P(P+1)) flops; PACO with radius 4 (49-pixel
// patches, 99 displacements) 2·n·99·T + n·(49³/3 + 2·49²) + 2·n·T·49 over
// n = H·W locations.
func TestAutoJob(t *testing.T) {
	for _, c := range []struct {
		op           string
		shape        []int
		dt           tensor.DType
		arg          int
		flops, bytes float64
	}{
		{"map", []int{1000}, tensor.F64, 0, 5000, 24000},
		{"cov", []int{16384, 64, 49}, tensor.F32, 0, 16384 * 64 * (98 + 2450), (16384*64*49 + 16384*(49+2401+1)) * 4},
		{"paco", []int{252, 100, 100}, tensor.F32, 4, 2*1e4*99*252 + 1e4*(39216+4802) + 2*1e4*252*49, (252 + 3) * 1e4 * 4},
	} {
		j, err := AutoJob(c.op, c.shape, c.dt, c.arg)
		if err != nil {
			t.Fatal(err)
		}
		if j.Op != c.op || j.Flops != c.flops || j.Bytes != c.bytes {
			t.Errorf("%s %v: %+v, want %g flops and %g bytes", c.op, c.shape, j, c.flops, c.bytes)
		}
	}
	for _, op := range []string{"reduce", "chol", "stack"} {
		if j, err := AutoJob(op, []int{8, 16, 16}, tensor.F32, 0); err != nil || j.Flops <= 0 || j.Bytes <= 0 {
			t.Errorf("%s: %+v, %v", op, j, err)
		}
	}
	if _, err := AutoJob("cov", []int{5}, tensor.F32, 0); err == nil {
		t.Error("cov of a 1-d shape sized")
	}
}

// Issue 41, defect 3: sizing a PACO job whose patch is larger than the
// frames is refused from the shape alone (on 68d6905 it built the patch's
// offsets first: --radius 10⁹ never returned, 2000 took 3 GB).
func TestAutoJobPacoRadiusLargerThanFrames(t *testing.T) {
	for _, r := range []int{12, 100, 1_000_000_000} {
		if j, err := AutoJob("paco", []int{8, 24, 24}, tensor.F32, r); err == nil || !strings.Contains(err.Error(), "radius") {
			t.Errorf("radius %d on 24×24 frames: job %+v, err %v; want an error naming the radius", r, j, err)
		}
	}
	if _, err := AutoJob("paco", []int{8, 24, 24}, tensor.F32, 11); err != nil {
		t.Errorf("radius 11 on 24×24 frames (23×23 patches): %v", err)
	}
}
