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
// libstdc++ links statically: no process loads the C++ runtime as a
// shared library (vkstat --version 1 ms, the Python library's load 2-4 ms).
#cgo LDFLAGS: -Wl,--start-group -lglslang -lMachineIndependent -lGenericCodeGen -lOSDependent -lOGLCompiler -lHLSL -lSPIRV -lglslang-default-resource-limits -lSPIRV-Tools-opt -lSPIRV-Tools -Wl,--end-group -static-libstdc++ -static-libgcc -lm -lpthread
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

// Config is one plan's configuration: Batch forward transforms of one or
// two axes, in place, N0 the fastest axis (W) and N1 the next (H; 0 or 1
// for a 1-D transform), complex-to-complex or, with Real, real-to-complex
// (VkFFT's performR2C: each transform is N1 rows of N0/2+1 (re, im) pairs,
// Bytes; the input's N0 real values of a row are its first N0 values, the
// rest padding the transform overwrites, and the output is X[ky, kx] for
// kx = 0 … N0/2 and every ky, the others being X[−ky, −kx]*), in float32
// or, with Double, float64 (the device must have shaderFloat64).
type Config struct {
	N0, N1, Batch int
	Double, Real  bool
}

// canonical is c with a 1-D transform's N1 as 1.
func (c Config) canonical() Config {
	if c.N1 <= 1 {
		c.N1 = 1
	}
	return c
}

func (c Config) dims() int {
	if c.N1 <= 1 {
		return 1
	}
	return 2
}

// String names the plan in timings and messages.
func (c Config) String() string {
	kind := "c2c"
	if c.Real {
		kind = "r2c"
	}
	if c.Double {
		kind += " f64"
	}
	if c.dims() == 1 {
		return fmt.Sprintf("vkfft %s %d ×%d", kind, c.N0, c.Batch)
	}
	return fmt.Sprintf("vkfft %s %d×%d ×%d", kind, c.N1, c.N0, c.Batch)
}

// Bytes is the size of the plan's transforms (Bytes above).
func (c Config) Bytes() int64 { return Bytes(c.N0, c.N1, c.Batch, c.Double, c.Real) }

// ScratchBytes is the size of the scratch buffer the plan's launches
// take (ScratchBytes above).
func (c Config) ScratchBytes() int64 { return ScratchBytes(c.N0, c.N1, c.Batch, c.Double, c.Real) }

// Plan is a VkFFT plan on a device: its pipelines, descriptor sets and
// tables. A plan is lent by Get and given back by Release.
type Plan struct {
	p    *C.vks_fft_plan
	dev  *engine.Device
	cfg  Config
	name string
}

// build makes a plan of cfg on dev, its first launch on buf and temp
// (VkFFT uploads its tables, and runs Bluestein's preparation, with them).
// With load it takes that SPIR-V (vks_fft_binary of a plan of cfg on such a
// device, checked by the caller) instead of compiling; otherwise, with
// save, it returns the SPIR-V it compiled too.
func build(dev *engine.Device, cfg Config, buf, temp *engine.Buffer, load []byte, save bool) (*Plan, []byte, error) {
	cfg = cfg.canonical()
	if cfg.N0 < 1 || cfg.Batch < 1 {
		return nil, nil, fmt.Errorf("vkfft: bad sizes %d×%d, batch %d", cfg.N1, cfg.N0, cfg.Batch)
	}
	if cfg.N1 > 1 && cfg.Batch > MaxBatch2D {
		return nil, nil, fmt.Errorf("vkfft: a batch of %d 2-D transforms, more than the %d one plan may take", cfg.Batch, MaxBatch2D)
	}
	if cfg.Double && !dev.Info.Float64 {
		return nil, nil, fmt.Errorf("vkfft: %s has no shaderFloat64 for a float64 FFT", dev.Info.Name)
	}
	bytes, tempBytes := cfg.Bytes(), cfg.ScratchBytes()
	if bytes > buf.Size() || tempBytes > temp.Size() {
		return nil, nil, fmt.Errorf("vkfft: buffers of %d and %d bytes for %d bytes of transforms and %d of scratch", buf.Size(), temp.Size(), bytes, tempBytes)
	}
	pl := &Plan{dev: dev, cfg: cfg, name: cfg.String()}
	var bin []byte
	err := dev.WithHandles(func(h engine.Handles) error {
		ch := C.vks_fft_handles{
			gipa: h.GetInstanceProcAddr, instance: h.Instance, physical: h.PhysicalDevice,
			device: h.Device, queue: h.Queue, pool: h.CommandPool, fence: h.Fence,
		}
		var cload unsafe.Pointer
		if len(load) > 0 {
			cload = C.CBytes(load)
			defer C.free(cload)
		}
		dbl, r2c, csave := C.int(0), C.int(0), C.int(0)
		if cfg.Double {
			dbl = 1
		}
		if cfg.Real {
			r2c = 1
		}
		if save && cload == nil {
			csave = 1
		}
		var code C.int
		var need C.uint64_t
		pl.p = C.vks_fft_plan_new(&ch, C.int(cfg.dims()), C.uint64_t(cfg.N0), C.uint64_t(cfg.N1), C.uint64_t(cfg.Batch), dbl, r2c,
			buf.Handle(), C.uint64_t(bytes), temp.Handle(), C.uint64_t(tempBytes), cload, csave, &code, &need)
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
		if csave != 0 {
			var n C.uint64_t
			if b := C.vks_fft_binary(pl.p, &n); b != nil && n > 0 {
				bin = C.GoBytes(b, C.int(n))
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := dev.Validation(); err != nil {
		pl.destroy()
		return nil, nil, fmt.Errorf("vkfft: planning %s: %w", pl.name, err)
	}
	return pl, bin, nil
}

// Config is the plan's configuration.
func (p *Plan) Config() Config { return p.cfg }

// Record appends the transform of buf, with temp as its scratch (buffers
// of at least Config's Bytes and ScratchBytes), to s as one kernel step.
// A plan records for one submission at a time: the sequence must have
// run before the plan records again (other buffers rewrite its
// descriptor sets).
func (p *Plan) Record(s *engine.Sequence, buf, temp *engine.Buffer) error {
	if buf.Size() < p.cfg.Bytes() || temp.Size() < p.cfg.ScratchBytes() {
		return fmt.Errorf("vkfft: %s: buffers of %d and %d bytes for %d and %d", p.name, buf.Size(), temp.Size(), p.cfg.Bytes(), p.cfg.ScratchBytes())
	}
	return s.Record(p.name, func(cmd unsafe.Pointer) error {
		if r := C.vks_fft_record(p.p, cmd, buf.Handle(), temp.Handle()); r != 0 {
			return fmt.Errorf("vkfft: recording %s: %s (VkFFTResult %d)", p.name, C.GoString(C.vks_fft_error(r)), int(r))
		}
		return nil
	}, buf, temp)
}

// destroy frees the plan's pipelines, descriptor sets and tables. The
// sequences it recorded into must have run.
func (p *Plan) destroy() {
	if p == nil || p.p == nil {
		return
	}
	_ = p.dev.WithHandles(func(engine.Handles) error {
		C.vks_fft_plan_free(p.p)
		return nil
	})
	p.p = nil
}

// version is VkFFTGetVersion(): 10226 for VkFFT 1.2.26.
func version() int { return int(C.vks_fft_version()) }
