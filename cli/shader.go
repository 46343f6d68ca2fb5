package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/glsl"
	"github.com/vkstat/vkstat/internal/spirv"
	"github.com/vkstat/vkstat/tensor"
)

// compiledShader is a shader ready to reflect and run.
type compiledShader struct {
	path     string
	code     []byte
	mod      *spirv.Module
	warnings []glsl.Diagnostic
}

// compileOptions reads the compile flags.
func compileOptions(c *ucli.Context) glsl.Options {
	return glsl.Options{
		Includes:  c.StringSlice("include"),
		Defines:   c.StringSlice("define"),
		TargetEnv: c.String("target-env"),
		Optimize:  c.Bool("optimize"),
	}
}

// maxShaderBytes is the most read of a shader file: GLSL sources and
// SPIR-V modules are kilobytes.
const maxShaderBytes = 16 << 20

// loadShader reads a SPIR-V file (by its magic number) or compiles a GLSL
// one, and reflects it.
func loadShader(path string, opt glsl.Options) (*compiledShader, error) {
	src, err := formats.ReadFileLimit(path, maxShaderBytes, "a shader (GLSL or SPIR-V)")
	if err != nil {
		return nil, err
	}
	s := &compiledShader{path: path, code: src}
	isSPIRV := len(src) >= 4 && (binary.LittleEndian.Uint32(src) == spirv.Magic || binary.BigEndian.Uint32(src) == spirv.Magic)
	if !isSPIRV && strings.EqualFold(filepath.Ext(path), ".spv") {
		return nil, fmt.Errorf("%s: not a SPIR-V module: it starts with % x, not the magic number %#08x", path, src[:min(len(src), 4)], spirv.Magic)
	}
	if i := bytes.IndexByte(src, 0); !isSPIRV && i >= 0 {
		return nil, fmt.Errorf("%s: neither GLSL (it holds binary data: a NUL byte at byte %d) nor SPIR-V (no magic number %#08x)", path, i, spirv.Magic)
	}
	if !isSPIRV {
		r, err := glsl.Compile(src, path, opt)
		if err != nil {
			return nil, err
		}
		s.code, s.warnings = r.SPIRV, r.Warnings
	}
	s.mod, err = spirv.Reflect(s.code)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// shaderArg returns the one positional argument: the shader file.
func shaderArg(c *ucli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("%s: want one shader file (.comp GLSL or .spv SPIR-V), got %d arguments", c.Command.FullName(), c.NArg())
	}
	path := c.Args().First()
	if err := fileExists("shader", path); err != nil {
		return "", fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	return path, nil
}

// capability support -------------------------------------------------------

// The subgroup operation (engine.DeviceInfo.SubgroupOps) each SPIR-V
// capability needs.
var subgroupOps = map[string]string{
	"GroupNonUniform": "basic", "GroupNonUniformVote": "vote", "GroupNonUniformArithmetic": "arithmetic",
	"GroupNonUniformBallot": "ballot", "GroupNonUniformShuffle": "shuffle", "GroupNonUniformShuffleRelative": "shuffle_relative",
	"GroupNonUniformClustered": "clustered", "GroupNonUniformQuad": "quad",
}

// supports says whether a device, as vkstat opens it, runs shaders needing
// capability: "yes" or "no (why)". vkstat enables shaderFloat64 and
// shaderInt64 where the device has them and the subgroup operations
// Vulkan 1.1 gives, and no other feature or extension: every other
// capability (buffer_reference's PhysicalStorageBufferAddresses, variable
// pointers, 8- and 16-bit types, atomics on floats, the memory model, ...)
// needs something the device was not created with, and a pipeline using it
// is undefined behaviour (a crash on lavapipe), so it is refused.
func supports(info engine.DeviceInfo, capability string) string {
	switch capability {
	case "Shader", "Matrix", "StorageImageExtendedFormats":
		return "yes"
	case "Float64":
		if info.Float64 {
			return "yes"
		}
		return "no (shaderFloat64)"
	case "Int64":
		if info.Int64 {
			return "yes"
		}
		return "no (shaderInt64)"
	case "Float16", "Int8", "Int16", "StorageBuffer16BitAccess", "UniformAndStorageBuffer16BitAccess",
		"StoragePushConstant16", "StorageBuffer8BitAccess", "UniformAndStorageBuffer8BitAccess", "StoragePushConstant8":
		has := ""
		if capability == "Float16" && info.Float16 {
			has = "the device has shaderFloat16, but "
		}
		return "no (" + has + "vkstat does not enable this feature yet)"
	case "PhysicalStorageBufferAddresses":
		return "no (buffer_reference needs bufferDeviceAddress, which vkstat does not enable)"
	case "VariablePointers", "VariablePointersStorageBuffer":
		return "no (variable pointers, which vkstat does not enable)"
	}
	if op, ok := subgroupOps[capability]; ok {
		if slices.Contains(info.SubgroupOps, op) {
			return "yes"
		}
		return "no (" + op + " subgroup operations in compute shaders)"
	}
	return "no (vkstat does not enable the feature or extension it needs)"
}

// checkFeatures refuses a shader needing what the device lacks, naming it;
// shared is the shared memory it uses with the constants it runs with.
func checkFeatures(mod *spirv.Module, info engine.DeviceInfo, shared int) error {
	var missing []string
	for _, capability := range mod.Capabilities {
		if s := supports(info, capability); strings.HasPrefix(s, "no") {
			missing = append(missing, capability+" "+strings.TrimPrefix(s, "no "))
		}
	}
	if shared > int(info.MaxSharedMemory) && info.MaxSharedMemory > 0 {
		missing = append(missing, fmt.Sprintf("%d bytes of shared memory (the device has %d)", shared, info.MaxSharedMemory))
	}
	if len(missing) > 0 {
		return fmt.Errorf("the shader needs what %s lacks: %s", info.Name, strings.Join(missing, "; "))
	}
	return nil
}

// the run plan ---------------------------------------------------------------

// boundBuffer is the data of one binding.
type boundBuffer struct {
	b      spirv.Binding
	arr    *rawArray
	source string // the file, or "zeros"
	out    string // where to write it after the run, or ""
}

// shaderPlan is everything a dispatch needs, checked before any device work.
type shaderPlan struct {
	sh      *compiledShader
	buffers []*boundBuffer
	push    []byte
	spec    []uint32
	local   [3]uint32
	groups  [3]uint32
	timeout time.Duration
	shared  int // bytes of shared memory with these specialization constants
}

// bindingName is how messages name binding b.
func bindingName(b spirv.Binding) string {
	if n := bindName(b); n != strconv.Itoa(int(b.Binding)) {
		return fmt.Sprintf("binding %d (%s)", b.Binding, n)
	}
	return fmt.Sprintf("binding %d", b.Binding)
}

// findBinding resolves a binding by number, instance name or block name.
func findBinding(mod *spirv.Module, key string) (*spirv.Binding, error) {
	if n, err := strconv.Atoi(key); err == nil {
		if b := mod.Binding(0, uint32(n)); b != nil {
			return b, nil
		}
	}
	for i := range mod.Bindings {
		b := &mod.Bindings[i]
		if b.Name == key || bindName(*b) == key || (b.Block != nil && b.Block.Name == key) {
			return b, nil
		}
	}
	var names []string
	for _, b := range mod.Bindings {
		names = append(names, bindingName(b))
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no binding %q: the shader has no bindings", key)
	}
	return nil, fmt.Errorf("no binding %q; the shader has %s", key, strings.Join(names, ", "))
}

var zerosSpec = regexp.MustCompile(`^([a-z]+[0-9]+):([0-9]+(?:x[0-9]+)*)$`)

// splitAssign splits NAME=VALUE.
func splitAssign(flag, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return "", "", usagef("--%s %q: want NAME=VALUE", flag, s)
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), nil
}

// blockElem is the element type the data of a buffer block holds: that of
// its runtime array, else of its members when they agree, else "".
func blockElem(bl *spirv.Block) string {
	if bl == nil || len(bl.Members) == 0 {
		return ""
	}
	last := bl.Members[len(bl.Members)-1]
	if last.Runtime {
		return last.Elem
	}
	e := bl.Members[0].Elem
	for _, m := range bl.Members {
		if m.Elem != e {
			return ""
		}
	}
	return e
}

// checkBlockData checks that arr fits binding b's block: its element type
// and its size.
func checkBlockData(b spirv.Binding, arr *rawArray, source string) error {
	bl := b.Block
	if bl == nil {
		return nil
	}
	what := fmt.Sprintf("%s: %s is %s", bindingName(b), source, arr.describe())
	if e := blockElem(bl); e != "" && e != arr.elem && e != "struct" {
		return fmt.Errorf("%s, but the block holds %s", what, e)
	}
	n := len(arr.data)
	last := bl.Members[len(bl.Members)-1]
	if last.Runtime {
		if n < last.Offset || (n-last.Offset)%max(last.Stride, 1) != 0 {
			return fmt.Errorf("%s (%d bytes), but the block is %d bytes then %s elements of %d bytes", what, n, last.Offset, last.Name, last.Stride)
		}
		return nil
	}
	if n != bl.Size {
		return fmt.Errorf("%s (%d bytes), but the block is %d bytes", what, n, bl.Size)
	}
	return nil
}

// parseDims reads X[,Y[,Z]].
func parseDims(flag, s string) ([3]uint64, error) {
	d := [3]uint64{1, 1, 1}
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return d, usagef("--%s %q: want X, X,Y or X,Y,Z", flag, s)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
		if err != nil || v == 0 {
			return d, usagef("--%s %q: want positive integers X[,Y[,Z]]", flag, s)
		}
		d[i] = v
	}
	return d, nil
}

// makePlan reads the binding, push-constant, specialization and dispatch
// flags and checks them against the shader: every error here comes before
// any device work.
func makePlan(c *ucli.Context, sh *compiledShader) (*shaderPlan, error) {
	mod := sh.mod
	p := &shaderPlan{sh: sh, timeout: c.Duration("timeout")}
	for i, b := range mod.Bindings {
		if b.Set != 0 || b.Binding != uint32(i) || b.Kind != "storage" {
			return nil, fmt.Errorf("%s (set %d, %s buffer): vkstat shader run binds storage buffers in set 0 numbered 0, 1, 2, ... without gaps", bindingName(b), b.Set, b.Kind)
		}
		p.buffers = append(p.buffers, &boundBuffer{b: b})
	}
	for _, s := range c.StringSlice("bind") {
		k, v, err := splitAssign("bind", s)
		if err != nil {
			return nil, err
		}
		b, err := findBinding(mod, k)
		if err != nil {
			return nil, usagef("--bind %s: %v", s, err)
		}
		bb := p.buffers[b.Binding]
		if bb.arr != nil {
			return nil, usagef("--bind %s: %s is bound twice", s, bindingName(*b))
		}
		if m := zerosSpec.FindStringSubmatch(v); m != nil && !strings.HasSuffix(v, ".npy") {
			if npyDescr(m[1]) == "" {
				return nil, usagef("--bind %s: unknown element type %q (float32, float64, int32, uint32, ...)", s, m[1])
			}
			var shape []int
			for _, d := range strings.Split(m[2], "x") {
				n, _ := strconv.Atoi(d)
				shape = append(shape, n)
			}
			n := tensor.NumElements(shape) * elemSize(m[1])
			if n <= 0 || n > 1<<34 {
				return nil, usagef("--bind %s: %d bytes", s, n)
			}
			bb.arr, bb.source = &rawArray{elem: m[1], shape: shape, data: make([]byte, n)}, "zeros "+v
		} else {
			if err := fileExists("bind", v); err != nil {
				return nil, fmt.Errorf("--bind %s: %w", s, errors.Unwrap(err))
			}
			arr, err := readRawNPY(v)
			if err != nil {
				return nil, fmt.Errorf("--bind %s: %w", s, err)
			}
			bb.arr, bb.source = arr, v
		}
		if err := checkBlockData(*b, bb.arr, bb.source); err != nil {
			return nil, err
		}
	}
	for _, bb := range p.buffers {
		if bb.arr == nil {
			return nil, usagef("%s has no data: give --bind %s=FILE.npy, or --bind %s=float32:N for N zeros", bindingName(bb.b), bindName(bb.b), bindName(bb.b))
		}
	}
	outs := map[string]string{}
	for _, s := range c.StringSlice("out") {
		k, v, err := splitAssign("out", s)
		if err != nil {
			return nil, err
		}
		b, err := findBinding(mod, k)
		if err != nil {
			return nil, usagef("--out %s: %v", s, err)
		}
		p.buffers[b.Binding].out = v
		outs[v] = s
	}
	if dir := c.String("out-dir"); dir != "" {
		for _, bb := range p.buffers {
			if !bb.b.ReadOnly && bb.out == "" {
				bb.out = filepath.Join(dir, bindName(bb.b)+".npy")
			}
		}
	}
	for _, bb := range p.buffers {
		if bb.out != "" && !strings.HasSuffix(bb.out, ".npy") {
			return nil, usagef("--out %s=%s: outputs are .npy files", bindName(bb.b), bb.out)
		}
	}

	// Push constants: every member by name, 0 unless given.
	if mod.Push != nil {
		p.push = make([]byte, (mod.Push.Size+3)/4*4)
	}
	for _, s := range c.StringSlice("push") {
		k, v, err := splitAssign("push", s)
		if err != nil {
			return nil, err
		}
		if mod.Push == nil {
			return nil, usagef("--push %s: the shader has no push constants", s)
		}
		var mem *spirv.Member
		var names []string
		for i := range mod.Push.Members {
			names = append(names, mod.Push.Members[i].Name)
			if mod.Push.Members[i].Name == k {
				mem = &mod.Push.Members[i]
			}
		}
		if mem == nil {
			return nil, usagef("--push %s: no push constant %q; the block %s has %s", s, k, mod.Push.Name, strings.Join(names, ", "))
		}
		if mem.Type != mem.Elem {
			return nil, usagef("--push %s: %s is a %s; only scalar push constants can be set from the command line", s, k, mem.Type)
		}
		bits, err := spirv.ParseValue(mem.Elem, v)
		if err != nil {
			return nil, usagef("--push %s: %v", s, err)
		}
		putBits(p.push[mem.Offset:], bits, mem.Size)
	}

	// Specialization constants, by name or constant_id.
	values := map[uint32]uint64{}
	maxID := -1
	for _, sc := range mod.SpecConstants {
		values[sc.ID] = sc.Default
		maxID = max(maxID, int(sc.ID))
		if sc.Size() != 4 {
			return nil, fmt.Errorf("specialization constant %d (%s) is %s: only 32-bit constants are supported", sc.ID, sc.Name, sc.Type)
		}
	}
	if maxID > 255 {
		return nil, fmt.Errorf("specialization constant id %d: vkstat shader supports ids up to 255", maxID)
	}
	for _, s := range c.StringSlice("spec") {
		k, v, err := splitAssign("spec", s)
		if err != nil {
			return nil, err
		}
		var sc *spirv.SpecConstant
		var names []string
		for i := range mod.SpecConstants {
			x := &mod.SpecConstants[i]
			names = append(names, fmt.Sprintf("%d (%s)", x.ID, x.Name))
			if x.Name == k || strconv.Itoa(int(x.ID)) == k {
				sc = x
			}
		}
		if sc == nil {
			if len(names) == 0 {
				return nil, usagef("--spec %s: the shader has no specialization constants", s)
			}
			return nil, usagef("--spec %s: no specialization constant %q; the shader has %s", s, k, strings.Join(names, ", "))
		}
		bits, err := spirv.ParseValue(sc.Type, v)
		if err != nil {
			return nil, usagef("--spec %s: %v", s, err)
		}
		values[sc.ID] = bits
	}
	p.shared = mod.SharedBytesWith(values)
	p.spec = make([]uint32, maxID+1)
	for id, v := range values {
		p.spec[id] = uint32(v)
	}
	p.local = mod.LocalSize
	for d, sid := range mod.LocalSizeSpec {
		if sid >= 0 {
			p.local[d] = uint32(values[uint32(sid)])
		}
	}
	if p.local[0]*p.local[1]*p.local[2] == 0 {
		return nil, fmt.Errorf("local size %v has a zero dimension", p.local)
	}

	switch {
	case c.IsSet("groups") && c.IsSet("global"):
		return nil, usagef("give --groups or --global, not both")
	case c.IsSet("groups"):
		g, err := parseDims("groups", c.String("groups"))
		if err != nil {
			return nil, err
		}
		p.groups = [3]uint32{uint32(g[0]), uint32(g[1]), uint32(g[2])}
	case c.IsSet("global"):
		g, err := parseDims("global", c.String("global"))
		if err != nil {
			return nil, err
		}
		for d := range g {
			p.groups[d] = uint32((g[d] + uint64(p.local[d]) - 1) / uint64(p.local[d]))
		}
	default:
		return nil, usagef("give the dispatch: --groups X[,Y,Z] workgroups, or --global X[,Y,Z] invocations (divided by the local size %d×%d×%d)", p.local[0], p.local[1], p.local[2])
	}
	if err := p.checkReach(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkReach refuses a binding too short for the dispatch, where the code
// tells: a runtime array indexed by gl_GlobalInvocationID.x itself is
// reached up to the dispatch's invocations along x, or to the smallest
// constant or push constant (with the values given) that index is compared
// with. Other indexing (offsets, strides, helper functions, comparisons
// with an array's length) is not checked: the device's robust buffer
// access (or undefined behaviour) is all that stands there.
func (p *shaderPlan) checkReach() error {
	g := p.sh.mod.GID
	invocations := uint64(p.groups[0]) * uint64(p.local[0])
	n, ok := g.Reach(invocations, p.push)
	if !ok || n == 0 {
		return nil
	}
	for _, b := range g.Bindings {
		if int(b) >= len(p.buffers) {
			continue
		}
		bb := p.buffers[b]
		bl := bb.b.Block
		if bl == nil || len(bl.Members) == 0 || bb.arr == nil {
			continue
		}
		last := bl.Members[len(bl.Members)-1]
		if !last.Runtime || last.Stride <= 0 {
			continue
		}
		elems := uint64(max(len(bb.arr.data)-last.Offset, 0) / last.Stride)
		if elems < n {
			why := fmt.Sprintf("%d invocations along x", invocations)
			if n < invocations {
				why += fmt.Sprintf(", %d of them below the values the index is compared with", n)
			}
			return fmt.Errorf("%s: the shader indexes %s[] with gl_GlobalInvocationID.x and the dispatch reaches element %d (%s), but %s gives it %d elements: bind at least %d",
				bindingName(bb.b), last.Name, n-1, why, bb.source, elems, n)
		}
	}
	return nil
}

// bindName is how a binding is named on the command line and in output
// file names: the name the shader's code uses for it (the array of an
// anonymous one-member block, as in buffer X { float x[]; }), else the
// instance or block name, else its number.
func bindName(b spirv.Binding) string {
	if b.Instance == "" && b.Block != nil && len(b.Block.Members) == 1 && b.Block.Members[0].Name != "" {
		return b.Block.Members[0].Name
	}
	if b.Name != "" {
		return b.Name
	}
	return strconv.Itoa(int(b.Binding))
}

func putBits(dst []byte, bits uint64, size int) {
	switch size {
	case 1:
		dst[0] = byte(bits)
	case 2:
		binary.LittleEndian.PutUint16(dst, uint16(bits))
	case 8:
		binary.LittleEndian.PutUint64(dst, bits)
	default:
		binary.LittleEndian.PutUint32(dst, uint32(bits))
	}
}

// running ----------------------------------------------------------------

// shaderRun is the result of running a plan on one device.
type shaderRun struct {
	device  string
	outputs []*rawArray // per binding, its contents after the run
	kernel  []time.Duration
	timed   bool
	wall    time.Duration
}

// median kernel time.
func (r *shaderRun) median() time.Duration {
	if len(r.kernel) == 0 {
		return 0
	}
	k := append([]time.Duration(nil), r.kernel...)
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return k[len(k)/2]
}

// bytesMoved counts the bytes a dispatch reads and writes, from the
// bindings' access: read-only and write-only buffers once, others twice.
func (p *shaderPlan) bytesMoved() int64 {
	var n int64
	for _, bb := range p.buffers {
		size := int64(len(bb.arr.data))
		switch {
		case bb.b.ReadOnly, bb.b.WriteOnly:
			n += size
		default:
			n += 2 * size
		}
	}
	return n
}

// run executes the plan repeat times on dev (uploading the inputs each
// time) and returns the buffers' contents after the last run.
func (p *shaderPlan) run(ctx context.Context, dev *engine.Device, repeat int) (*shaderRun, error) {
	if err := checkFeatures(p.sh.mod, dev.Info, p.shared); err != nil {
		return nil, err
	}
	for d, g := range p.groups {
		if lim := dev.Info.MaxWorkgroupCount[d]; lim > 0 && g > lim {
			return nil, fmt.Errorf("%d workgroups in dimension %d exceed the device limit of %d", g, d, lim)
		}
		if lim := dev.Info.MaxWorkgroupSize[d]; lim > 0 && p.local[d] > lim {
			return nil, fmt.Errorf("local size %d in dimension %d exceeds the device limit of %d", p.local[d], d, lim)
		}
	}
	if n := p.local[0] * p.local[1] * p.local[2]; dev.Info.MaxWorkgroupInvocation > 0 && n > dev.Info.MaxWorkgroupInvocation {
		return nil, fmt.Errorf("local size %d×%d×%d = %d invocations exceeds the device limit of %d", p.local[0], p.local[1], p.local[2], n, dev.Info.MaxWorkgroupInvocation)
	}
	sum := sha256.Sum256(p.sh.code)
	k, err := dev.Kernel(engine.KernelSpec{
		Name: filepath.Base(p.sh.path) + "@" + hex.EncodeToString(sum[:6]), Code: p.sh.code, Spec: p.spec,
	})
	if err != nil {
		return nil, err
	}
	sizes := make([]int64, len(p.buffers))
	for i, bb := range p.buffers {
		sizes[i] = max((int64(len(bb.arr.data))+3)/4*4, 4)
	}
	bufs, err := dev.Buffers(sizes...)
	if err != nil {
		return nil, err
	}
	defer engine.ReleaseAll(bufs)
	dev.SetTimeout(p.timeout)
	defer dev.SetTimeout(0)
	r := &shaderRun{device: dev.Info.Name}
	t0 := time.Now()
	for it := 0; it < max(repeat, 1); it++ {
		r.outputs = make([]*rawArray, len(p.buffers))
		tm, err := dev.Run(ctx, func(s *engine.Sequence) {
			binds := make([]engine.Binding, len(bufs))
			for i, bb := range p.buffers {
				binds[i] = engine.Bind(bufs[i])
				s.Upload(bufs[i], 0, bb.arr.data) // zeros too: outputs never show stale memory
			}
			s.Dispatch(k, p.groups, p.push, binds...)
			for i, bb := range p.buffers {
				out := &rawArray{elem: bb.arr.elem, shape: bb.arr.shape, data: make([]byte, len(bb.arr.data))}
				r.outputs[i] = out
				s.Download(bufs[i], 0, out.data)
			}
		})
		if err != nil {
			return nil, err
		}
		r.kernel = append(r.kernel, tm.Kernel)
		r.timed = tm.GPUTimed
	}
	r.wall = time.Since(t0)
	return r, nil
}

// comparison --------------------------------------------------------------

// arrayDiff is how far got is from want.
type arrayDiff struct {
	MaxAbs float64 `json:"max_abs_error"`
	MaxRel float64 `json:"max_rel_error"` // MaxAbs over max |want|
	NMSE   float64 `json:"nmse"`          // Σ(got−want)² / Σ want²
	NaNs   int     `json:"nan_mismatches"`
}

func diffArrays(got, want *rawArray) (arrayDiff, error) {
	g, w := got.values(), want.values()
	if len(g) != len(w) {
		return arrayDiff{}, fmt.Errorf("%d elements, expected %d", len(g), len(w))
	}
	var d arrayDiff
	var num, den, wmax float64
	for i := range g {
		if math.IsNaN(g[i]) || math.IsNaN(w[i]) {
			if math.IsNaN(g[i]) != math.IsNaN(w[i]) {
				d.NaNs++
			}
			continue
		}
		e := math.Abs(g[i] - w[i])
		d.MaxAbs = max(d.MaxAbs, e)
		wmax = max(wmax, math.Abs(w[i]))
		num += e * e
		den += w[i] * w[i]
	}
	if wmax > 0 {
		d.MaxRel = d.MaxAbs / wmax
	} else {
		d.MaxRel = d.MaxAbs
	}
	if den > 0 {
		d.NMSE = num / den
	} else {
		d.NMSE = num
	}
	return d, nil
}

func (d arrayDiff) ok(tol float64) bool { return d.NaNs == 0 && d.MaxRel <= tol }

func (d arrayDiff) String() string {
	s := fmt.Sprintf("max error %.3g (%.3g of max |expected|), NMSE %.3g", d.MaxAbs, d.MaxRel, d.NMSE)
	if d.NaNs > 0 {
		s += fmt.Sprintf(", %d NaN mismatches", d.NaNs)
	}
	return s
}

func fmtDur(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
