package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
)

var (
	gpu = engine.DeviceInfo{Name: "NVIDIA H100", Type: "discrete", VendorID: 0x10de, DeviceID: 0x2330, DriverVersion: "550.54.15",
		SubgroupSize: 32, SubgroupOps: []string{"basic", "arithmetic"}, MaxWorkgroupInvocation: 1024}
	lavapipe = engine.DeviceInfo{Name: "llvmpipe", Type: "cpu", VendorID: 0x10005, DriverVersion: "0.0.1", SubgroupSize: 8}
)

func TestDefaults(t *testing.T) {
	t.Setenv("VKSTAT_TUNE_DIR", "off")
	if got := strings.Join(Pipelines(), ","); got != "chol,cov,mapx,reduce,spectra" {
		t.Errorf("pipelines: got %s", got)
	}
	// spectra_pack: a workgroup per transform on GPUs, an invocation per
	// transform of up to 8,192 values on CPU devices.
	for d, want := range map[*engine.DeviceInfo]int{&gpu: 0, &lavapipe: 8192} {
		p, err := Resolve(context.Background(), "spectra", *d)
		if err != nil || p.Int("pack_alone") != want {
			t.Errorf("spectra on %s: pack_alone %v (%s), want %d, %v", d.Name, p.Int("pack_alone"), p.Source("pack_alone"), want, err)
		}
	}
	// cov: the tiled kernel with double sums on NVIDIA's discrete GPUs,
	// where the H100 measured it (rule 1); the blocks kernel elsewhere.
	p, err := Resolve(context.Background(), "cov", gpu)
	if err != nil || p.Str("kernel") != "tiled" || p.Str("accumulate") != "double" || p.Int("tiled_r") != 4 || p.Int("tiled_tt") != 16 ||
		p.Int("tiled_wg") != 128 || !strings.HasPrefix(p.Source("kernel"), "rule 1 ") || p.Source("accumulate") != "default" {
		t.Errorf("cov on %s: got kernel %v accumulate %v (%s), %v", gpu.Name, p.Str("kernel"), p.Str("accumulate"), p.Source("kernel"), err)
	}
	amd := gpu
	amd.Name, amd.VendorID = "AMD Radeon", 0x1002
	for _, d := range []engine.DeviceInfo{amd, lavapipe} {
		p, err := Resolve(context.Background(), "cov", d)
		if err != nil || p.Str("kernel") != "blocks" || p.Str("accumulate") != "double" || p.Source("kernel") != "default" {
			t.Errorf("cov on %s: got kernel %v accumulate %v (%s), %v", d.Name, p.Str("kernel"), p.Str("accumulate"), p.Source("kernel"), err)
		}
	}
	// chol's built-in kernel is chol.comp everywhere until a GPU measures.
	for _, d := range []engine.DeviceInfo{gpu, lavapipe} {
		p, err := Resolve(context.Background(), "chol", d)
		if err != nil || p.Str("kernel") != "workgroup" || p.Int("wg_invocations") != 64 || p.Source("kernel") != "default" {
			t.Errorf("chol on %s: got %v %v (%s), %v", d.Name, p.Str("kernel"), p.Int("wg_invocations"), p.Source("kernel"), err)
		}
	}
	p, err = Resolve(context.Background(), "reduce", gpu)
	if err != nil || p.Str("rows_kernel") != "workgroup" || p.Int("workgroup") != 256 || p.Source("rows_kernel") != "default" ||
		p.Int("rows_min") != 2048 || !strings.HasPrefix(p.Source("rows_min"), "rule 2 ") {
		t.Errorf("reduce on a GPU: got %v %v rows_min %v (%s), %v", p.Str("rows_kernel"), p.Int("workgroup"), p.Int("rows_min"), p.Source("rows_min"), err)
	}
	p, err = Resolve(context.Background(), "reduce", lavapipe)
	if err != nil || p.Str("rows_kernel") != "none" || !strings.HasPrefix(p.Source("rows_kernel"), "rule 1 ") {
		t.Errorf("reduce on lavapipe: got %v (%s), %v", p.Str("rows_kernel"), p.Source("rows_kernel"), err)
	}
	if _, err := Resolve(context.Background(), "nosuch", gpu); err == nil {
		t.Errorf("an unknown pipeline resolved")
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("VKSTAT_TUNE_DIR", dir)
	path, ok := CachePath(gpu)
	if !ok || path != filepath.Join(dir, "10de-2330-550.54.15.json") {
		t.Fatalf("cache path: got %q %v", path, ok)
	}
	c := &Cache{Device: gpu.Name, Key: DeviceKey(gpu), Pipelines: map[string]map[string]any{"reduce": {"rows_kernel": "subgroup", "rows_min": 64}}}
	if err := WriteCache(path, c); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := Resolve(ctx, "reduce", gpu)
	if err != nil || p.Str("rows_kernel") != "subgroup" || p.Int("rows_min") != 64 || p.Source("rows_kernel") != "cache "+path || p.Source("workgroup") != "default" {
		t.Errorf("from the cache: got %v %v (%s), %v", p.Str("rows_kernel"), p.Int("rows_min"), p.Source("rows_kernel"), err)
	}
	// Another device (another driver) does not read it.
	other := gpu
	other.DriverVersion = "560.1"
	if p, err := Resolve(ctx, "reduce", other); err != nil || p.Str("rows_kernel") != "workgroup" {
		t.Errorf("another driver: got %v, %v", p.Str("rows_kernel"), err)
	}
	// An override wins over the cache.
	p, err = Resolve(WithOverride(ctx, "reduce", map[string]any{"rows_kernel": "none"}), "reduce", gpu)
	if err != nil || p.Str("rows_kernel") != "none" || p.Source("rows_kernel") != "override" {
		t.Errorf("override: got %v (%s), %v", p.Str("rows_kernel"), p.Source("rows_kernel"), err)
	}
}

// TestBadFiles: a malformed cache file, an unknown parameter or pipeline, a
// value out of range are errors that name the file and what is wrong.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("VKSTAT_TUNE_DIR", dir)
	path, _ := CachePath(gpu)
	for _, c := range []struct{ body, want string }{
		{`{"pipelines": {"reduce": {"rows_kernel": "subgroup"}}`, "unexpected EOF"},
		{`{"pipelines": {"reduce": {"rows_kernal": "subgroup"}}}`, `no parameter "rows_kernal"`},
		{`{"pipelines": {"reduce": {"rows_kernel": "warp"}}}`, `"warp": want one of none, workgroup, subgroup`},
		{`{"pipelines": {"reduce": {"workgroup": 100}}}`, "100: want a power of two"},
		{`{"pipelines": {"reduce": {"workgroup": 4096}}}`, "4096: want 1 to 1024"},
		{`{"pipelines": {"reduce": {"workgroup": "big"}}}`, `"big": want an integer`},
		{`{"pipelines": {"sort": {"workgroup": 64}}}`, `no tune file for pipeline "sort"`},
		{`{"pipeline": {}}`, `unknown field "pipeline"`},
	} {
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Resolve(context.Background(), "reduce", gpu)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBad) {
			t.Errorf("%s: got %v; want an error naming %s and saying %s", c.body, err, path, c.want)
		}
	}
	for _, c := range []struct{ body, want string }{
		{`{"pipeline": "x", "params": {"wg": {"default": 3, "pow2": true}}}`, "wg default 3: want a power of two"},
		{`{"pipeline": "x", "params": {"k": {"default": "a", "choices": ["a"]}}, "rules": [{"set": {"k": "b"}}]}`, `rule 1: bad tuning: x.k = "b"`},
		{`{"params": {}}`, `no "pipeline"`},
	} {
		_, err := parseFile("defaults/x.json", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), "defaults/x.json") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v; want %s", c.body, err, c.want)
		}
	}
}

// TestSearch: a wrong candidate never wins however fast; another must beat
// the built-in choice (candidate 0) by the margin.
func TestSearch(t *testing.T) {
	run := func(times map[int][]time.Duration, wrong int) Result {
		tu := Tuner{Pipeline: "p", Cases: []string{"a", "b"}}
		for i := 0; i < len(times); i++ {
			tu.Candidates = append(tu.Candidates, map[string]any{"k": i})
		}
		tu.Run = func(ctx context.Context, c int, check bool) (time.Duration, error) {
			k := ctx.Value(overrideKey{"p"}).(map[string]any)["k"].(int)
			if k == wrong && check {
				return 0, fmt.Errorf("wrong result")
			}
			return times[k][c], nil
		}
		r, err := Search(context.Background(), tu, 3)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ms := time.Millisecond
	r := run(map[int][]time.Duration{0: {10 * ms, 10 * ms}, 1: {1 * ms, 1 * ms}, 2: {5 * ms, 6 * ms}}, 1)
	if r.Winner != 2 || r.Rows[1].Err == nil {
		t.Errorf("a wrong fast candidate: winner %d, table %q", r.Winner, r.Table())
	}
	r = run(map[int][]time.Duration{0: {10 * ms, 10 * ms}, 1: {9800 * time.Microsecond, 9700 * time.Microsecond}}, -1)
	if r.Winner != 0 {
		t.Errorf("within the margin: winner %d, table %q", r.Winner, r.Table())
	}
	r = run(map[int][]time.Duration{0: {10 * ms, 10 * ms}, 1: {20 * ms, 20 * ms}}, 0)
	if r.Winner != 1 {
		t.Errorf("the built-in choice wrong: winner %d, table %q", r.Winner, r.Table())
	}
}

// TestSearchHard: a candidate right on every timed case but wrong on a hard
// one is out, and never timed; the others are checked on every hard case.
func TestSearchHard(t *testing.T) {
	tu := Tuner{Pipeline: "p", Cases: []string{"a"}, Hard: []string{"long", "big mean"}}
	for k := 0; k < 3; k++ {
		tu.Candidates = append(tu.Candidates, map[string]any{"k": k})
	}
	k := func(ctx context.Context) int { return ctx.Value(overrideKey{"p"}).(map[string]any)["k"].(int) }
	timed, checked := map[int]int{}, map[[2]int]bool{}
	tu.Run = func(ctx context.Context, c int, check bool) (time.Duration, error) {
		timed[k(ctx)]++
		return time.Duration(10-k(ctx)) * time.Millisecond, nil // 2 fastest, then 1
	}
	tu.Check = func(ctx context.Context, h int) error {
		checked[[2]int{k(ctx), h}] = true
		if k(ctx) == 2 && h == 1 {
			return fmt.Errorf("relative error 1e-2")
		}
		return nil
	}
	r, err := Search(context.Background(), tu, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Winner != 1 || r.Rows[2].Err == nil || !strings.Contains(r.Rows[2].Err.Error(), "big mean") {
		t.Errorf("winner %d, table %q", r.Winner, r.Table())
	}
	if timed[2] != 0 {
		t.Errorf("the candidate that failed a hard case was timed %d times", timed[2])
	}
	for c := 0; c < 2; c++ {
		for h := 0; h < 2; h++ {
			if !checked[[2]int{c, h}] {
				t.Errorf("candidate %d not checked on hard case %d", c, h)
			}
		}
	}
}
