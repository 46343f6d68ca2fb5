package engine

import "fmt"

// Copy records a device-side copy of n bytes from src at byte offset srcOff
// to dst at dstOff (vkCmdCopyBuffer), followed by the sequence's barrier, so
// later steps see the copied bytes. It is timed as a kernel step: `vkstat
// bench` measures the device's copy bandwidth with it. The two ranges must
// not overlap when src and dst are the same buffer.
func (s *Sequence) Copy(dst, src *Buffer, dstOff, srcOff, n int64) error {
	if s.err != nil {
		return s.err
	}
	if dst == nil || src == nil {
		return s.fail(fmt.Errorf("copy: nil buffer"))
	}
	if n < 0 || srcOff < 0 || srcOff+n > src.size {
		return s.fail(fmt.Errorf("copy of %d bytes at %d overflows a source buffer of %d", n, srcOff, src.size))
	}
	if dstOff < 0 || dstOff+n > dst.size {
		return s.fail(fmt.Errorf("copy of %d bytes at %d overflows a destination buffer of %d", n, dstOff, dst.size))
	}
	if dst == src && srcOff < dstOff+n && dstOff < srcOff+n {
		return s.fail(fmt.Errorf("copy of %d bytes from %d to %d within one buffer: the ranges overlap", n, srcOff, dstOff))
	}
	if n == 0 {
		return nil
	}
	if err := s.touch(src); err != nil {
		return err
	}
	if err := s.touch(dst); err != nil {
		return err
	}
	s.addCopy(PhaseKernel, "copy", src, dst, srcOff, dstOff, n)
	return nil
}
