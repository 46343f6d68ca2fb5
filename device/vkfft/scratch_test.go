package vkfft

import (
	"strings"
	"testing"
)

// TestScratchBytes: hand-worked sizes. No Bluestein axis, or a short one
// (n ≤ 512): the data's size. A long one: complex values of twice the next
// power of two of 2n − 1, plus one, per row of the other axis.
func TestScratchBytes(t *testing.T) {
	for _, c := range []struct {
		n0, n1, batch  int
		double, real   bool
		want, wantData int64
	}{
		{64, 64, 3, false, true, 33 * 64 * 3 * 8, 33 * 64 * 3 * 8},
		{257, 1, 2, false, false, 257 * 2 * 8, 257 * 2 * 8},        // 257 is prime, one upload
		{8191, 1, 2, false, false, 32769 * 2 * 8, 8191 * 2 * 8},    // 2n − 1 = 16,381 → 16,384
		{8193, 1, 1, true, false, 65537 * 16, 8193 * 16},           // 8,193 = 3·2,731; 16,385 → 32,768
		{4099, 17, 1, false, false, 32769 * 17 * 8, 4099 * 17 * 8}, // 17: Bluestein, short
		{8190, 1, 1, false, true, 4096 * 8, 4096 * 8},              // 2·3²·5·7·13: no Bluestein
	} {
		if got := Bytes(c.n0, c.n1, c.batch, c.double, c.real); got != c.wantData {
			t.Errorf("Bytes(%d, %d, %d) = %d, want %d", c.n0, c.n1, c.batch, got, c.wantData)
		}
		if got := ScratchBytes(c.n0, c.n1, c.batch, c.double, c.real); got != c.want {
			t.Errorf("ScratchBytes(%d, %d, %d) = %d, want %d", c.n0, c.n1, c.batch, got, c.want)
		}
	}
}

// TestMaxBatch2D: a plan of more 2-D transforms than MaxBatch2D is refused
// before anything is allocated or planned (VkFFT would record a hazard).
func TestMaxBatch2D(t *testing.T) {
	if _, _, err := build(nil, Config{N0: 4, N1: 4, Batch: MaxBatch2D + 1, Real: true}, nil, nil, nil, false); err == nil || !strings.Contains(err.Error(), "65535") {
		t.Errorf("a batch of %d 4×4 transforms: %v", MaxBatch2D+1, err)
	}
}
