package vkfft

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// dropIdle destroys the plans dev keeps, as a new process would start.
func dropIdle(t *testing.T, dev *engine.Device) {
	t.Helper()
	dp, err := plansOf(dev)
	if err != nil {
		t.Fatal(err)
	}
	dp.mu.Lock()
	idle := dp.idle
	dp.idle = nil
	dp.mu.Unlock()
	for _, p := range idle {
		p.destroy()
	}
}

// transform runs cfg's plan from Get on data (cfg.Bytes of it) in fresh
// buffers and returns the bytes it leaves, and how the plan was had.
func transform(t *testing.T, dev *engine.Device, cfg Config, data []byte) ([]byte, Stats) {
	t.Helper()
	bufs, err := dev.Buffers(cfg.Bytes(), cfg.ScratchBytes())
	if err != nil {
		t.Fatal(err)
	}
	defer engine.ReleaseAll(bufs)
	p, st, err := Get(dev, cfg, bufs[0], bufs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	out := make([]byte, len(data))
	var recErr error
	if _, err := dev.Run(context.Background(), func(s *engine.Sequence) {
		s.Upload(bufs[0], 0, data)
		recErr = p.Record(s, bufs[0], bufs[1])
		s.Download(bufs[0], 0, out)
	}); err != nil || recErr != nil {
		t.Fatal(err, recErr)
	}
	return out, st
}

func randomBytes(cfg Config, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 5))
	b := make([]byte, cfg.Bytes())
	if cfg.Double {
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], math.Float64bits(rng.NormFloat64()))
		}
	} else {
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(rng.NormFloat64())))
		}
	}
	return b
}

// TestPlanCache: on every device, a plan is compiled once (Built), then
// reused from the device (Reused, the same transform on other buffers),
// then, with the device's plans dropped as in a new process, made from
// the SPIR-V saved on disk (Loaded); each gives the compiled plan's
// output to the bit. A corrupt, torn or foreign file is not handed to
// VkFFT: the plan is compiled again and the file saved anew. Real and
// complex, 1-D and 2-D, Bluestein's (17) and float64.
func TestPlanCache(t *testing.T) {
	t.Setenv("VKSTAT_FFT_CACHE", t.TempDir())
	for _, dev := range testdev.Devices(t) {
		for _, cfg := range []Config{
			{N0: 64, N1: 64, Batch: 3, Real: true},
			{N0: 16, N1: 17, Batch: 2},
			{N0: 16, Batch: 5, Real: true},
			{N0: 12, N1: 15, Batch: 2, Real: true, Double: true},
		} {
			if cfg.Double && !dev.Info.Float64 {
				continue
			}
			t.Run(dev.Info.Name+"/"+cfg.String(), func(t *testing.T) {
				dropIdle(t, dev)
				key := cacheKey(dev, cfg)
				path := cachePath(key)
				os.Remove(path)
				data := randomBytes(cfg, uint64(cfg.N0*cfg.N1+cfg.Batch))
				want, st := transform(t, dev, cfg, data)
				if st.Built != 1 || st.Loaded+st.Reused != 0 {
					t.Fatalf("first plan: %v, want it built", st)
				}
				if _, err := readCache(path, key); err != nil {
					t.Fatalf("no plan saved: %v", err)
				}
				check := func(what string, wantStats Stats) {
					t.Helper()
					got, st := transform(t, dev, cfg, data)
					st.Time = 0
					if st != wantStats {
						t.Errorf("%s: %v, want %v", what, st, wantStats)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s: the transform differs from the compiled plan's", what)
					}
				}
				check("again", Stats{Reused: 1})
				dropIdle(t, dev)
				check("from disk", Stats{Loaded: 1})
				file, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range []struct {
					what string
					file []byte
				}{
					{"corrupt", func() []byte { b := bytes.Clone(file); b[len(b)-9] ^= 0x40; return b }()},
					{"torn", file[:len(file)-4]},
					{"foreign", func() []byte {
						other := cacheKey(dev, Config{N0: cfg.N0 + 2, N1: cfg.N1, Batch: cfg.Batch, Real: cfg.Real, Double: cfg.Double})
						dir := t.TempDir()
						p := dir + "/x.bin"
						bin, _ := readCache(path, key)
						if err := writeCache(p, other, bin); err != nil {
							t.Fatal(err)
						}
						b, _ := os.ReadFile(p)
						return b
					}()},
					{"not SPIR-V", func() []byte {
						dir := t.TempDir()
						p := dir + "/x.bin"
						if err := writeCache(p, key, []byte{8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
							t.Fatal(err)
						}
						b, _ := os.ReadFile(p)
						return b
					}()},
				} {
					if err := os.WriteFile(path, bad.file, 0o644); err != nil {
						t.Fatal(err)
					}
					if _, err := readCache(path, key); err == nil {
						t.Errorf("%s file read as good", bad.what)
					}
					dropIdle(t, dev)
					check(bad.what+" file", Stats{Built: 1})
					if _, err := readCache(path, key); err != nil {
						t.Errorf("after a %s file: not saved anew: %v", bad.what, err)
					}
				}
			})
		}
	}
}

// TestPlanCacheOff: VKSTAT_FFT_CACHE=off saves and reads nothing.
func TestPlanCacheOff(t *testing.T) {
	t.Setenv("VKSTAT_FFT_CACHE", "off")
	if d := CacheDir(); d != "" {
		t.Fatalf("CacheDir() = %q under VKSTAT_FFT_CACHE=off", d)
	}
	dev := testdev.Devices(t)[0]
	cfg := Config{N0: 8, N1: 8, Batch: 1, Real: true}
	dropIdle(t, dev)
	for i := range 2 {
		dropIdle(t, dev)
		if _, st := transform(t, dev, cfg, randomBytes(cfg, 1)); st.Built != 1 {
			t.Errorf("run %d: %v, want the plan built", i, st)
		}
	}
}
