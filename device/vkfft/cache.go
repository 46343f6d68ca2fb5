package vkfft

// Plans are made once: a device keeps the plans it made (engine.Device.
// Value) for its life, and the SPIR-V VkFFT compiled for a plan is saved
// on disk beside the engine's pipeline cache, so that another process
// loads it rather than generating and compiling GLSL again (VkFFT's
// saveApplicationToString and loadApplicationFromString). VkFFT checks
// nothing in what it loads (it does not even know its length), so the
// file names the VkFFT version, the device (vendor and device ID, driver,
// pipelineCacheUUID, the limits VkFFT plans by) and the configuration in
// full, with a SHA-256 of all of it; a file that is not exactly what this
// plan on this device would save is left alone and the plan compiled.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/smallfile"
)

// Stats count how plans were had, and the host time it took.
type Stats struct {
	// Built plans were generated and compiled (glslang), Loaded ones made
	// from SPIR-V saved on disk, Reused ones the device already had.
	Built, Loaded, Reused int
	// Time is the time spent making plans (Built and Loaded).
	Time time.Duration
}

// Add adds o to s.
func (s *Stats) Add(o Stats) {
	s.Built += o.Built
	s.Loaded += o.Loaded
	s.Reused += o.Reused
	s.Time += o.Time
}

// String is "2 built, 1 loaded from disk, 3 reused, 312.0 ms".
func (s Stats) String() string {
	return fmt.Sprintf("%d built, %d loaded from disk, %d reused, %.1f ms", s.Built, s.Loaded, s.Reused, float64(s.Time.Microseconds())/1e3)
}

var total struct{ built, loaded, reused atomic.Int64 }

// Totals is what every Get of the process has counted (Time left out).
func Totals() Stats {
	return Stats{Built: int(total.built.Load()), Loaded: int(total.loaded.Load()), Reused: int(total.reused.Load())}
}

// maxIdle bounds the plans a device keeps that no one has lent (CuPy keeps
// 16 per device): a plan holds VkFFT's pipelines and tables, a few
// hundred KiB at most.
const maxIdle = 16

// devicePlans are a device's plans not lent.
type devicePlans struct {
	mu   sync.Mutex
	idle []*Plan
}

type plansKey struct{}

func plansOf(dev *engine.Device) (*devicePlans, error) {
	v, err := dev.Value(plansKey{}, func() (any, func(), error) {
		dp := &devicePlans{}
		return dp, func() {
			dp.mu.Lock()
			defer dp.mu.Unlock()
			for _, p := range dp.idle {
				p.destroy()
			}
			dp.idle = nil
		}, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*devicePlans), nil
}

// Get lends a plan of cfg on dev until Release: one the device already
// has, else one made from the SPIR-V saved on disk for cfg and this device
// (CacheDir), else one compiled, whose SPIR-V it saves. buf and temp are
// the buffers of the first launch (at least cfg.Bytes and ScratchBytes):
// VkFFT uploads its tables, and runs Bluestein's preparation, with them.
// An odd N0 that VkFFT cannot transform real-to-complex is
// ErrR2CUnsupported.
func Get(dev *engine.Device, cfg Config, buf, temp *engine.Buffer) (*Plan, Stats, error) {
	cfg = cfg.canonical()
	var st Stats
	dp, err := plansOf(dev)
	if err != nil {
		return nil, st, err
	}
	dp.mu.Lock()
	for i, p := range dp.idle {
		if p.cfg == cfg {
			dp.idle = append(dp.idle[:i], dp.idle[i+1:]...)
			dp.mu.Unlock()
			st.Reused++
			total.reused.Add(1)
			return p, st, nil
		}
	}
	dp.mu.Unlock()
	t0 := time.Now()
	key := cacheKey(dev, cfg)
	path := cachePath(key)
	if path != "" {
		if bin, err := readCache(path, key); err == nil {
			p, _, err := build(dev, cfg, buf, temp, bin, false)
			if err == nil {
				st.Loaded++
				st.Time = time.Since(t0)
				total.loaded.Add(1)
				return p, st, nil
			}
			slog.Debug("vkfft: a saved plan failed to load; compiling it", "path", path, "err", err)
		} else if !errors.Is(err, os.ErrNotExist) {
			slog.Debug("vkfft: ignoring a saved plan", "path", path, "err", err)
		}
	}
	p, bin, err := build(dev, cfg, buf, temp, nil, path != "")
	if err != nil {
		return nil, st, err
	}
	st.Built++
	st.Time = time.Since(t0)
	total.built.Add(1)
	if path != "" && len(bin) > 0 {
		if err := writeCache(path, key, bin); err != nil {
			slog.Debug("vkfft: saving a plan", "path", path, "err", err)
		}
	}
	return p, st, nil
}

// Release gives p back to its device, which keeps it for the next Get of
// its configuration (the least recently used of more than maxIdle idle
// plans is destroyed). The sequences it recorded into must have run.
func (p *Plan) Release() {
	if p == nil || p.p == nil {
		return
	}
	dp, err := plansOf(p.dev)
	if err != nil {
		p.destroy()
		return
	}
	dp.mu.Lock()
	dp.idle = append(dp.idle, p)
	var drop *Plan
	if len(dp.idle) > maxIdle {
		drop = dp.idle[0]
		dp.idle = dp.idle[1:]
	}
	dp.mu.Unlock()
	drop.destroy()
}

// CacheDir is where plans are saved: $VKSTAT_FFT_CACHE, or vkstat/vkfft
// under the user cache directory (~/.cache/vkstat/vkfft on Linux) beside
// the engine's pipeline cache; "" (nothing saved or read) when
// VKSTAT_FFT_CACHE is "off" or there is no cache directory.
func CacheDir() string { return smallfile.CacheDir("VKSTAT_FFT_CACHE", "vkfft") }

// cacheKey is everything the SPIR-V of cfg's plan depends on: VkFFT's
// version, the device (VkFFT plans by its vendor, limits, subgroup size
// and shared memory; the driver and pipelineCacheUUID stand for the rest)
// and the configuration, with every field vks_fft_plan_new sets.
func cacheKey(dev *engine.Device, cfg Config) string {
	cfg = cfg.canonical()
	i := dev.Info
	return fmt.Sprintf("VkFFT %d\ndevice %#04x:%#04x driver %q %q uuid %s\nlimits shared %d wg %v inv %d count %v subgroup %d float64 %v\n"+
		"plan dims %d n0 %d n1 %d batch %d double %v r2c %v lut 1 forward-only 1 user-temp 1 in-place 1\n",
		version(), i.VendorID, i.DeviceID, i.Driver, i.DriverVersion, i.PipelineCacheUUID,
		i.MaxSharedMemory, i.MaxWorkgroupSize, i.MaxWorkgroupInvocation, i.MaxWorkgroupCount, i.SubgroupSize, i.Float64,
		cfg.dims(), cfg.N0, cfg.N1, cfg.Batch, cfg.Double, cfg.Real)
}

func cachePath(key string) string {
	dir := CacheDir()
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".bin")
}

// A saved plan is the SPIR-V sealed (smallfile.Seal) with its key.
const (
	fileMagic   = "vkstatft"
	fileVersion = 1
	// maxFile bounds a saved plan read: VkFFT's SPIR-V for one plan is a
	// few hundred KiB at most.
	maxFile = 64 << 20
)

// writeCache saves bin for key at path, atomically (smallfile.Write).
func writeCache(path, key string, bin []byte) error {
	return smallfile.Write(path, smallfile.Seal(fileMagic, fileVersion, key, bin))
}

// readCache returns the SPIR-V saved at path for key, or why it must not
// be handed to VkFFT: not ours, torn, corrupt, saved for another key
// (smallfile.Unseal), or not a sequence of SPIR-V modules each behind its
// length (VkFFT's layout, which it walks without bounds).
func readCache(path, key string) ([]byte, error) {
	file, err := smallfile.Read(path, maxFile)
	if err != nil {
		return nil, err
	}
	bin, err := smallfile.Unseal(file, fileMagic, fileVersion, key)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	for at := 0; at < len(bin); {
		if at+4 > len(bin) {
			return nil, errors.New("a module's length is cut off")
		}
		n := int(le.Uint32(bin[at:]))
		at += 4
		if n < 4 || n%4 != 0 || at+n > len(bin) || le.Uint32(bin[at:]) != 0x07230203 {
			return nil, fmt.Errorf("no SPIR-V module of %d bytes at byte %d", n, at)
		}
		at += n
	}
	return bin, nil
}
