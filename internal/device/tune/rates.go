package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// Rates files hold what --device auto weighs (engine.Rates), measured by
// `vkstat bench --tune`, beside the tune cache: Dir()/<DeviceKey>.rates.json
// for a Vulkan device, Dir()/cpu-<threads>.rates.json for the CPU path on
// that many threads.
const ratesExt = ".rates.json"

// RatesPath is the rates file of a Vulkan device (info), or of the CPU path
// on threads threads (info nil); ok is false when the tune cache is off.
func RatesPath(info *engine.DeviceInfo, threads int) (string, bool) {
	d, ok := Dir()
	if !ok {
		return "", false
	}
	key := fmt.Sprintf("cpu-%d", threads)
	if info != nil {
		key = DeviceKey(*info)
	}
	return filepath.Join(d, key+ratesExt), true
}

// ReadRates reads a rates file; a missing file's error wraps
// os.ErrNotExist, a malformed one's names the file.
func ReadRates(path string) (engine.Rates, error) {
	var r engine.Rates
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("rates %s: %w: %w (delete it, or run vkstat bench --tune again)", path, ErrBad, err)
	}
	bad := r.StartupMs < 0 || r.LinkGBs < 0
	for _, o := range r.Ops {
		bad = bad || o.Flops <= 0 || o.GBs < 0 || o.FixedMs < 0 || o.FirstMs < 0
	}
	if bad || len(r.Ops) == 0 {
		return r, fmt.Errorf("rates %s: %w: a rate missing, zero or negative (delete it, or run vkstat bench --tune again)", path, ErrBad)
	}
	return r, nil
}

// WriteRates stores r at path, replacing it atomically.
func WriteRates(path string, r engine.Rates) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("rates: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".rates-*.json")
	if err != nil {
		return fmt.Errorf("rates: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("rates %s: %w", path, err)
	}
	return nil
}

// RatesFor is what --device auto knows of a path: its rates file when
// there is a good one, else engine.BuiltinRates. A malformed file is
// reported in the source and left aside.
func RatesFor(info *engine.DeviceInfo, threads int) engine.Rates {
	path, ok := RatesPath(info, threads)
	if ok {
		r, err := ReadRates(path)
		if err == nil {
			return r
		}
		if !errors.Is(err, os.ErrNotExist) {
			b := engine.BuiltinRates(info, threads)
			b.Source += fmt.Sprintf(" (%v)", err)
			return b
		}
	}
	return engine.BuiltinRates(info, threads)
}

// StartupFloor is the least start-up of any Vulkan device whose rates were
// measured here (a GPU's, not lavapipe's), else engine.MinGPUStartup: a job
// the CPU path does in less runs there without looking for Vulkan.
func StartupFloor() time.Duration {
	floor := engine.MinGPUStartup
	d, ok := Dir()
	if !ok {
		return floor
	}
	names, _ := filepath.Glob(filepath.Join(d, "*"+ratesExt))
	least := time.Duration(0)
	for _, n := range names {
		if strings.HasPrefix(filepath.Base(n), "cpu-") {
			continue
		}
		r, err := ReadRates(n)
		if err != nil || !r.GPU {
			continue
		}
		s := time.Duration(r.StartupMs * float64(time.Millisecond))
		if least == 0 || s < least {
			least = s
		}
	}
	return max(least, floor)
}
