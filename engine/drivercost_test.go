package engine

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/vkstat/vkstat/internal/par"
)

// BenchmarkDriverCosts times apart what a call's host time is made of on
// the discrete data path (docs/benchmarks/datapath.md): vkAllocateMemory +
// vkFreeMemory of device memory, vkMapMemory + vkUnmapMemory of staging
// memory, the host copy into staging memory freshly allocated (its pages
// faulted in by the copy) and into staging memory already touched, and
// one empty submission with its fence wait. On lavapipe by default:
//
//	go test -run '^$' -bench DriverCosts ./engine
func BenchmarkDriverCosts(b *testing.B) {
	in, err := NewInstance(Options{})
	if err != nil {
		b.Skipf("no Vulkan: %v", err)
	}
	defer in.Close()
	idx := 0
	for _, info := range in.Devices() {
		if info.IsLavapipe() {
			idx = info.Index
		}
	}
	d, err := in.OpenWith(idx, DeviceOptions{Discrete: true, NoCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for _, size := range []int64{16 << 20, 256 << 20} {
		src := make([]byte, size)
		for i := range src {
			src[i] = byte(i)
		}
		name := fmt.Sprintf("%dMiB", size>>20)
		alloc := func(typ uint32) vk.DeviceMemory {
			mem, r := d.allocMemory(size, typ, 0)
			if err := check(r, "vkAllocateMemory"); err != nil {
				b.Fatal(err)
			}
			return mem
		}
		b.Run("allocate+free/"+name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				vk.FreeMemory(d.handle, alloc(d.local.typ), nil)
			}
		})
		mapped := func(mem vk.DeviceMemory) []byte {
			var p unsafe.Pointer
			if err := check(vk.MapMemory(d.handle, mem, 0, vk.DeviceSize(size), 0, &p), "vkMapMemory"); err != nil {
				b.Fatal(err)
			}
			return unsafe.Slice((*byte)(p), size)
		}
		b.Run("map+unmap/"+name, func(b *testing.B) {
			mem := alloc(d.staging.typ)
			defer vk.FreeMemory(d.handle, mem, nil)
			for i := 0; i < b.N; i++ {
				mapped(mem)
				vk.UnmapMemory(d.handle, mem)
			}
		})
		b.Run("copy-fresh/"+name, func(b *testing.B) {
			var copied time.Duration
			for i := 0; i < b.N; i++ {
				mem := alloc(d.staging.typ)
				p := mapped(mem)
				t0 := time.Now()
				par.Copy(p, src)
				copied += time.Since(t0)
				vk.FreeMemory(d.handle, mem, nil)
			}
			b.ReportMetric(float64(copied.Nanoseconds())/float64(b.N)/1e6, "copy-ms/op")
		})
		b.Run("copy-warm/"+name, func(b *testing.B) {
			mem := alloc(d.staging.typ)
			defer vk.FreeMemory(d.handle, mem, nil)
			p := mapped(mem)
			par.Copy(p, src)
			b.SetBytes(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				par.Copy(p, src)
			}
		})
	}
	b.Run("submit+wait", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := d.NewSequence()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Run(b.Context()); err != nil {
				b.Fatal(err)
			}
			s.Release()
		}
	})
}
