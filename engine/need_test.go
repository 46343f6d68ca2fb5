package engine

import "testing"

// TestNeed: Device.Need is the allocator's own arithmetic, by hand on a
// device whose small blocks are blockSize (8 MiB): one small block for
// the carving, small buffers rounded up to 256 bytes, dedicated ones
// (2 MiB and up) to 64 KiB. And a fresh device (no memory kept from call
// to call) allocates no more than Need for those buffers.
func TestNeed(t *testing.T) {
	in, err := NewInstance(Options{})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	defer in.Close()
	if len(in.Devices()) == 0 {
		t.Skip("no Vulkan device")
	}
	d, err := in.OpenWith(in.Devices()[0].Index, DeviceOptions{Discrete: true, NoCache: true, Budget: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sizes := []int64{1, 100, 3<<20 + 1, 5000}
	want := int64(8<<20) + 256 + 256 + (3<<20 + 64<<10) + 5120
	if got := d.Need(sizes...); got != want {
		t.Errorf("Need(%v) = %d, want %d", sizes, got, want)
	}
	before := d.Counts()
	var bufs []*Buffer
	defer func() { ReleaseAll(bufs) }()
	for _, s := range sizes {
		b, err := d.NewBuffer(s)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	if got, need := d.Counts().Sub(before).AllocBytes, d.Need(sizes...); got > need {
		t.Errorf("buffers of %v took %d bytes of device memory, more than Need's %d", sizes, got, need)
	}
}
