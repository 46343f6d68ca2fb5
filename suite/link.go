package suite

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// Link is the measured host↔device bandwidth of a device: arrays in
// ordinary (pageable) host memory moved to device buffers and back the way
// every operation moves them (the staging ring on discrete GPUs).
type Link struct {
	// HostToDevice and DeviceToHost are bytes moved per second, in 10⁹.
	HostToDevice float64 `json:"host_to_device_gb_per_s"`
	DeviceToHost float64 `json:"device_to_host_gb_per_s"`
	Bytes        int64   `json:"bytes"`
	Method       string  `json:"method"`
}

// LinkBandwidth times the upload and the download of size bytes from and
// to Go memory, wall time from the first host copy to the last byte in
// place, the best of repeat runs after a warm-up; the bytes are checked.
func LinkBandwidth(ctx context.Context, dev *engine.Device, size int64, repeat int) (Link, error) {
	size = max(min(size, dev.MaxBuffer()/2)&^4095, 4096)
	l := Link{Bytes: size, Method: "Sequence.Upload/Download of Go memory, wall time"}
	if dev.UMA() {
		l.Method = "host-visible device memory: plain copies, wall time"
	}
	buf, err := dev.NewBuffer(size)
	if err != nil {
		return l, err
	}
	defer buf.Release()
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i*13 + i>>16)
	}
	var up, down []time.Duration
	for i := 0; i < repeat+1; i++ {
		t0 := time.Now()
		if _, err := dev.Run(ctx, func(s *engine.Sequence) { s.Upload(buf, 0, src) }); err != nil {
			return l, err
		}
		t1 := time.Now()
		if _, err := dev.Run(ctx, func(s *engine.Sequence) { s.Download(buf, 0, dst) }); err != nil {
			return l, err
		}
		t2 := time.Now()
		if i == 0 {
			if !bytes.Equal(src, dst) {
				return l, fmt.Errorf("link bandwidth on %s: the round trip changed the bytes", dev.Info.Name)
			}
			continue
		}
		up, down = append(up, t1.Sub(t0)), append(down, t2.Sub(t1))
	}
	l.HostToDevice = float64(size) / slices.Min(up).Seconds() / 1e9
	l.DeviceToHost = float64(size) / slices.Min(down).Seconds() / 1e9
	return l, nil
}

// ShaderCopyBandwidth measures how fast a compute shader copies size bytes
// between two device buffers (16 bytes an invocation), timed by GPU
// timestamps, read plus written bytes, the best of repeat runs: the device
// memory bandwidth kernels can reach, which the copy engine
// (vkCmdCopyBuffer) may not show.
func ShaderCopyBandwidth(ctx context.Context, dev *engine.Device, size int64, repeat int) (Bandwidth, error) {
	size = max(min(size, dev.MaxBinding(), dev.MaxBuffer()/4)&^4095, 4096)
	bw := Bandwidth{Bytes: size, Method: "copy shader (uvec4), GPU timestamps"}
	if !dev.Info.Timestamps {
		return bw, fmt.Errorf("%s has no timestamps", dev.Info.Name)
	}
	const wg = 256
	k, err := dev.Kernel(engine.KernelSpec{Name: "copy_u32x4", Push: copyPush{}, Spec: []uint32{wg}})
	if err != nil {
		return bw, err
	}
	bufs, err := dev.Buffers(size, size)
	if err != nil {
		return bw, err
	}
	defer engine.ReleaseAll(bufs)
	n := size / 16
	pattern := make([]byte, size)
	for i := range pattern {
		pattern[i] = byte(i*7 + i>>12)
	}
	var times []time.Duration
	for i := 0; i < repeat+1; i++ {
		got := make([]byte, 4096)
		tm, err := dev.Run(ctx, func(seq *engine.Sequence) {
			if i == 0 {
				seq.Upload(bufs[0], 0, pattern)
			}
			seq.Dispatch(k, dev.Groups(int((n+wg-1)/wg)), copyPush{n: n}, engine.Bind(bufs[0]), engine.Bind(bufs[1]))
			if i == 0 {
				seq.Download(bufs[1], size-4096, got)
			}
		})
		if err != nil {
			return bw, err
		}
		if i == 0 {
			if !bytes.Equal(got, pattern[size-4096:]) {
				return bw, fmt.Errorf("shader copy on %s copied the wrong bytes", dev.Info.Name)
			}
			continue
		}
		times = append(times, tm.Kernel)
	}
	if t := slices.Min(times).Seconds(); t > 0 {
		bw.GBs = 2 * float64(size) / t / 1e9
	}
	return bw, nil
}

// copyPush is copy.comp's push constants: n uvec4 elements.
type copyPush struct{ n int64 }
