package engine

import (
	"errors"
	"fmt"
)

// ErrNoFloat64 reports a float64 operation on a device without
// shaderFloat64.
var ErrNoFloat64 = errors.New("no float64 support (shaderFloat64)")

// ErrDeviceLimit reports work whose shape exceeds a fixed limit of the
// device (shared memory or invocations per workgroup), whatever its memory.
var ErrDeviceLimit = errors.New("beyond a limit of the device")

// ErrNoFit reports that not even one unit of an operation's work fits the
// device: one binding, one allocation, or the memory budget.
var ErrNoFit = errors.New("one unit of work does not fit the device")

// RequireFloat64 returns an error wrapping ErrNoFloat64 when the device
// lacks shaderFloat64.
func (d *Device) RequireFloat64() error {
	if !d.Info.Float64 {
		return fmt.Errorf("%s: %w", d.Info.Name, ErrNoFloat64)
	}
	return nil
}

// ChunkItems plans a pass over n items that each need per[i] bytes in
// buffer i: it returns how many items one pass takes so that every buffer
// fits one binding and one allocation, and all of them together, plus
// reserve bytes the caller allocates besides, fit the memory still
// available under the budget. Counts above align are rounded down to a
// multiple of it. It returns an error wrapping ErrNoFit when not one item
// fits.
func (d *Device) ChunkItems(n int, per []int64, reserve int64, align int) (int, error) {
	c := int64(n)
	var sum int64
	limit := min(d.MaxBinding(), d.MaxBuffer())
	for _, b := range per {
		if b > 0 {
			c = min(c, limit/b)
			sum += b
		}
	}
	// One block of small buffers may be carved besides.
	avail := d.Available() - reserve - d.smallBlock()
	if sum > 0 {
		c = min(c, avail/sum)
	}
	if c < 1 || avail < 0 {
		return 0, fmt.Errorf("%w: one item takes %d bytes in buffers of at most %d, with %d bytes of the %s budget left (%s)",
			ErrNoFit, sum, limit, max(avail, 0), SizeText(d.budget), d.Info.Name)
	}
	if c < int64(n) && align > 1 && c > int64(align) {
		c = c / int64(align) * int64(align)
	}
	return int(c), nil
}

// SizeText writes a byte count for people: 1.5 GiB, 12.0 MiB, 3.2 KiB,
// 100 bytes.
func SizeText(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", b)
}
