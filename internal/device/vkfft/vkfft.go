// Package vkfft runs VkFFT (Debian's libvkfft-dev 1.2.26, a header-only
// Vulkan FFT library that generates GLSL at plan time and compiles it with
// glslang) on a device that package engine opened: its physical device,
// device, compute queue, command pool and fence, and its buffers. A plan
// records into an engine.Sequence (Sequence.Record), so a transform is one
// more step of a submission. See vkfft.cpp for how VkFFT's Vulkan calls
// reach the run-time-loaded loader and how glslang is linked.
package vkfft

/*
#cgo CXXFLAGS: -O2 -std=c++17
#cgo LDFLAGS: -Wl,--start-group -lglslang -lMachineIndependent -lGenericCodeGen -lOSDependent -lOGLCompiler -lHLSL -lSPIRV -lglslang-default-resource-limits -lSPIRV-Tools-opt -lSPIRV-Tools -Wl,--end-group -lstdc++ -lm -lpthread
#include <stdlib.h>
#include "vkfft.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
)

// Plan is a batched forward FFT, complex-to-complex or real-to-complex,
// in place in one buffer.
type Plan struct {
	p    *C.vks_fft_plan
	dev  *engine.Device
	buf  *engine.Buffer
	temp *engine.Buffer
	name string
}

// ErrR2CUnsupported is returned (wrapped) by NewReal for a length VkFFT
// 1.2.26 cannot transform real-to-complex: an odd fastest axis too long
// for one upload (thousands of values). New's complex transform takes any
// length.
var ErrR2CUnsupported = errors.New("vkfft: VkFFT has no real-to-complex transform of this odd length")

// MaxBatch2D is the most 2-D transforms one plan takes: VkFFT 1.2.26
// dispatches a larger batch (past 65,535, the least maxComputeWorkGroupCount
// in y and z a device may have) in pieces with no barrier between its axes,
// a read-after-write hazard the validation layer reports.
const MaxBatch2D = 65535

// Bytes is the size of batch transforms of n1×n0 values in a plan's
// layout: n0 complex values per row, or n0/2+1 for a real-to-complex plan
// (whose real input fills 2·(n0/2+1) values of each row), of 8 bytes
// (float32 pairs) or 16 (double).
func Bytes(n0, n1, batch int, double, real bool) int64 {
	row := int64(n0)
	if real {
		row = int64(n0/2 + 1)
	}
	esize := int64(8)
	if double {
		esize = 16
	}
	return row * int64(max(n1, 1)) * int64(batch) * esize
}

// ScratchBytes is the size of the scratch buffer a plan of Bytes(n0, n1,
// batch, double, real) allocates beside it: as large as the transforms,
// except for a long Bluestein axis. VkFFT 1.2.26 transforms a length with
// a prime factor above 13 by Bluestein's algorithm, a convolution of
// length at least 2n − 1 padded to small factors (by the next power of two
// or a vendor's table, which for the lengths here stays within twice
// that), and an axis too long for one workgroup's shared memory (more than
// one upload) uses the scratch at the padded length: VkFFT binds that much
// of it, so too small a buffer is a validation error (VUID-
// VkDescriptorBufferInfo-range-00342) and a transform that writes past it.
// Such an axis (n > 512: 2n − 1 past 1,024 complex values, less than any
// device's shared memory holds) counts as complex values of twice the next
// power of two of 2n − 1, plus one. Shorter Bluestein axes run in one
// upload and need no more scratch than the data.
func ScratchBytes(n0, n1, batch int, double, real bool) int64 {
	b := Bytes(n0, n1, batch, double, real)
	long := func(n int) bool { return n > 512 && bluestein(n) }
	if !long(n0) && !long(n1) {
		return b
	}
	pad := func(n int) int {
		if !long(n) {
			return max(n, 1)
		}
		p := 1
		for p < 2*n-1 {
			p *= 2
		}
		return 2*p + 1
	}
	return max(b, Bytes(pad(n0), pad(n1), batch, double, false))
}

// bluestein reports whether VkFFT 1.2.26 transforms an axis of n by
// Bluestein's algorithm: n has a prime factor above 13, its largest radix.
func bluestein(n int) bool {
	if n < 2 {
		return false
	}
	for f := 2; f <= 13; f++ {
		for n%f == 0 {
			n /= f
		}
	}
	return n != 1
}

// New plans Batch forward C2C transforms of one or two axes, in place in buf:
// n0 is the fastest axis (W), n1 the next (H; 0 or 1 for a 1-D transform).
// Values are interleaved (re, im) float32 pairs, or float64 when double
// (the device must have shaderFloat64). VkFFT compiles its shaders here
// (tens of milliseconds to seconds), and may submit to the queue to upload
// its tables; the device's locks are held meanwhile.
func New(dev *engine.Device, n0, n1, batch int, double bool, buf *engine.Buffer) (*Plan, error) {
	return newPlan(dev, n0, n1, batch, double, false, buf)
}

// NewReal plans Batch forward real-to-complex transforms (VkFFT's
// performR2C), in place in buf, with New's axes and precision. Each
// transform is n1 rows of n0/2+1 (re, im) pairs (Bytes): the input's n0
// real values of a row are its first n0 values (the rest is padding that
// the transform overwrites), and the output is X[ky, kx] for kx = 0 …
// n0/2 and every ky (the others are X[−ky, −kx]*). Half the memory,
// traffic and work of New's transform of the same real data. An odd n0
// that VkFFT cannot do this way is ErrR2CUnsupported.
func NewReal(dev *engine.Device, n0, n1, batch int, double bool, buf *engine.Buffer) (*Plan, error) {
	return newPlan(dev, n0, n1, batch, double, true, buf)
}

func newPlan(dev *engine.Device, n0, n1, batch int, double, real bool, buf *engine.Buffer) (*Plan, error) {
	dims := 2
	if n1 <= 1 {
		dims, n1 = 1, 1
	}
	if n0 < 1 || batch < 1 {
		return nil, fmt.Errorf("vkfft: bad sizes %d×%d, batch %d", n1, n0, batch)
	}
	if n1 > 1 && batch > MaxBatch2D {
		return nil, fmt.Errorf("vkfft: a batch of %d 2-D transforms, more than the %d one plan may take", batch, MaxBatch2D)
	}
	if double && !dev.Info.Float64 {
		return nil, fmt.Errorf("vkfft: %s has no shaderFloat64 for a float64 FFT", dev.Info.Name)
	}
	bytes := Bytes(n0, n1, batch, double, real)
	if bytes > buf.Size() {
		return nil, fmt.Errorf("vkfft: buffer of %d bytes for %d bytes of transforms", buf.Size(), bytes)
	}
	tempBytes := ScratchBytes(n0, n1, batch, double, real)
	temp, err := dev.NewBuffer(tempBytes)
	if err != nil {
		return nil, fmt.Errorf("vkfft: scratch buffer: %w", err)
	}
	kind := "c2c"
	if real {
		kind = "r2c"
	}
	pl := &Plan{dev: dev, buf: buf, temp: temp, name: fmt.Sprintf("vkfft %s %d×%d ×%d", kind, n1, n0, batch)}
	if dims == 1 {
		pl.name = fmt.Sprintf("vkfft %s %d ×%d", kind, n0, batch)
	}
	err = dev.WithHandles(func(h engine.Handles) error {
		ch := C.vks_fft_handles{
			gipa: h.GetInstanceProcAddr, instance: h.Instance, physical: h.PhysicalDevice,
			device: h.Device, queue: h.Queue, pool: h.CommandPool, fence: h.Fence,
		}
		dbl, r2c := C.int(0), C.int(0)
		if double {
			dbl = 1
		}
		if real {
			r2c = 1
		}
		var code C.int
		var need C.uint64_t
		pl.p = C.vks_fft_plan_new(&ch, C.int(dims), C.uint64_t(n0), C.uint64_t(n1), C.uint64_t(batch), dbl, r2c,
			buf.Handle(), C.uint64_t(bytes), temp.Handle(), C.uint64_t(tempBytes), &code, &need)
		if code == C.VKS_FFT_SCRATCH {
			return fmt.Errorf("vkfft: planning %s on %s: VkFFT needs %d bytes of scratch, more than ScratchBytes' %d", pl.name, dev.Info.Name, uint64(need), tempBytes)
		}
		if pl.p == nil {
			err := fmt.Errorf("vkfft: planning %s on %s: %s (VkFFTResult %d)", pl.name, dev.Info.Name, C.GoString(C.vks_fft_error(code)), int(code))
			if code == C.VKS_FFT_R2C_UNSUPPORTED {
				err = fmt.Errorf("%w: %w", ErrR2CUnsupported, err)
			}
			return err
		}
		return nil
	})
	if err != nil {
		temp.Release()
		return nil, err
	}
	if err := dev.Validation(); err != nil {
		pl.Close()
		return nil, fmt.Errorf("vkfft: planning %s: %w", pl.name, err)
	}
	return pl, nil
}

// Record appends the transform to s as one kernel step.
func (p *Plan) Record(s *engine.Sequence) error {
	return s.Record(p.name, func(cmd unsafe.Pointer) error {
		if r := C.vks_fft_record(p.p, cmd); r != 0 {
			return fmt.Errorf("vkfft: recording %s: %s (VkFFTResult %d)", p.name, C.GoString(C.vks_fft_error(r)), int(r))
		}
		return nil
	}, p.buf, p.temp)
}

// Close destroys the plan's pipelines, descriptor sets and tables. The
// sequences it recorded into must have run.
func (p *Plan) Close() {
	if p == nil || p.p == nil {
		return
	}
	_ = p.dev.WithHandles(func(engine.Handles) error {
		C.vks_fft_plan_free(p.p)
		return nil
	})
	p.p = nil
	p.temp.Release()
}
