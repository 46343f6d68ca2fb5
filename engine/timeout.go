package engine

import (
	"errors"
	"fmt"
	"time"

	vk "github.com/vulkan-go/vulkan"
)

// ErrTimeout reports a submission that did not finish within the device's
// timeout (SetTimeout): a runaway kernel. The GPU cannot be interrupted;
// the device keeps the submission's resources until it finishes, and is
// usable again once it has.
var ErrTimeout = errors.New("the GPU did not finish in time")

// settleWait bounds how long releasing the resources of a timed-out
// submission waits for it; past that they are left allocated (a leak that
// the end of the process clears) rather than freed under a running kernel.
const settleWait = 5 * time.Second

// SetTimeout bounds how long Sequence.Run waits for the GPU; 0 (the
// default) waits for ever. Past it, Run returns an error wrapping
// ErrTimeout.
func (d *Device) SetTimeout(t time.Duration) {
	d.mu.Lock()
	d.timeout = t
	d.mu.Unlock()
}

// waitRun waits for s's fence, up to the device's timeout. On a timeout
// the fence stays unsignalled and s is marked stuck: its release, and
// every later use of the device, first settles it.
func (d *Device) waitRun(s *Sequence) error {
	d.count(cFenceWaits, 1)
	d.mu.Lock()
	timeout := d.timeout
	d.mu.Unlock()
	if timeout <= 0 {
		err := waitFence(d.handle, s.fence)
		vk.ResetFences(d.handle, 1, []vk.Fence{s.fence})
		return err
	}
	switch r := vk.WaitForFences(d.handle, 1, []vk.Fence{s.fence}, vk.True, uint64(timeout)); r {
	case vk.Success:
		vk.ResetFences(d.handle, 1, []vk.Fence{s.fence})
		return nil
	case vk.Timeout:
		d.mu.Lock()
		d.stuck = s
		d.mu.Unlock()
		s.stuck = true
		return fmt.Errorf("%w: the kernel was still running after %v (a runaway loop, or a dispatch too large for the timeout)", ErrTimeout, timeout)
	default:
		return check(r, "vkWaitForFences")
	}
}

// settle waits (up to settleWait) for a timed-out submission and releases
// it; it reports whether the device is free of one. d.mu is not held.
func (d *Device) settle() bool {
	d.mu.Lock()
	s, gaveUp := d.stuck, d.gaveUp
	d.mu.Unlock()
	if s == nil {
		return true
	}
	wait := settleWait
	if gaveUp {
		wait = 0
	}
	if vk.WaitForFences(d.handle, 1, []vk.Fence{s.fence}, vk.True, uint64(wait)) != vk.Success {
		d.mu.Lock()
		d.gaveUp = true
		d.mu.Unlock()
		return false
	}
	d.mu.Lock()
	if d.stuck != s { // another caller settled it meanwhile
		d.mu.Unlock()
		return true
	}
	d.gaveUp = false
	vk.ResetFences(d.handle, 1, []vk.Fence{s.fence})
	d.stuck = nil
	d.mu.Unlock()
	s.stuck = false
	s.pending = false
	s.Release()
	return true
}

// busy is the error of using a device whose timed-out submission is still
// running.
func (d *Device) busy() error {
	return fmt.Errorf("%s: %w: a timed-out kernel is still running, %v after its timeout", d.Info.Name, ErrTimeout, settleWait)
}
