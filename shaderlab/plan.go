package shaderlab

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vkstat/vkstat/internal/spirv"
)

// Options say how a shader runs: its data, its constants and its dispatch.
type Options struct {
	// Bind gives each binding its data, by binding number, instance or
	// block name (FindBinding); every binding needs some. Outputs start
	// as their data: bind zeros for a binding the shader only writes.
	Bind []Bind
	// Push sets push-constant members by name; those not set are 0.
	Push []Setting
	// Uniform sets members of uniform blocks by name, MEMBER or
	// BINDING.MEMBER (BINDING as FindBinding takes it), as Push does: a
	// uniform binding without Bind data is its block with those members
	// set and the rest 0.
	Uniform []Setting
	// Spec sets specialization constants by name or constant_id; those
	// not set keep their defaults.
	Spec []Setting
	// Groups is the dispatch in workgroups along x, y and z, or Global in
	// invocations, divided by the local size (rounded up): one of the two.
	// A zero y or z counts as 1.
	Groups [3]uint32
	Global [3]uint64
	// Timeout gives up on a dispatch that runs longer (a runaway shader);
	// 0: 10 s.
	Timeout time.Duration
	// Repeat runs the dispatch so many times (0: once), uploading the
	// inputs each time; Result.Median is the middle GPU time.
	Repeat int
	// Warmup runs the dispatch so many times first, untimed (0: none):
	// the first run builds the pipeline (Result.Build, Result.First).
	Warmup int
	// Progress is called after each run with the runs done and Repeat;
	// nil: none.
	Progress func(done, total int)
	// NoBoundsCheck leaves out the static check's warnings (Plan.Warnings)
	// where no guard on the index was recognised; the run still checks
	// the guard bytes around each binding.
	NoBoundsCheck bool
}

// Bind is the data of one binding.
type Bind struct {
	Name string // binding number, instance or block name
	Data *Array
	// Buffer names a buffer of a sequence (NewSequence) instead of Data.
	Buffer string
}

// Setting is a push or specialization constant set by name; Value is
// parsed as the constant's type: 2.5, 1000, 0x10, true.
type Setting struct {
	Name, Value string
}

// SettingError is an entry of Options.Bind, Push or Spec that the shader
// cannot take: it names nothing the shader has, or a value the constant's
// type cannot hold.
type SettingError struct {
	Field string // "Bind", "Push" or "Spec"
	Index int    // the entry of that field
	Err   error
}

func (e *SettingError) Error() string { return fmt.Sprintf("%s[%d]: %v", e.Field, e.Index, e.Err) }
func (e *SettingError) Unwrap() error { return e.Err }

// NoDataError is a binding that Options.Bind gives no data.
type NoDataError struct{ Binding Binding }

func (e *NoDataError) Error() string { return Describe(e.Binding) + " has no data" }

// DispatchError is a plan with no dispatch, or two: Options.Groups and
// Options.Global both set.
type DispatchError struct {
	Both  bool
	Local [3]uint32 // the local size, with the specialization constants given
}

func (e *DispatchError) Error() string {
	if e.Both {
		return "give the dispatch in workgroups or in invocations, not both"
	}
	return fmt.Sprintf("no dispatch: give the workgroups, or the invocations (divided by the local size %d×%d×%d)", e.Local[0], e.Local[1], e.Local[2])
}

// Plan is everything a dispatch needs, checked against the shader before
// any device work.
type Plan struct {
	Shader *Shader
	Inputs []*Array  // per binding number, its data
	Push   []byte    // the push-constant block as the shader reads it
	Spec   []uint32  // specialization constant values by constant_id
	Local  [3]uint32 // workgroup size, with the specialization constants
	Groups [3]uint32 // workgroups dispatched
	Shared int       // bytes of shared memory, with the specialization constants
	// Warnings are what the static bounds check could not prove safe
	// (none with Options.NoBoundsCheck).
	Warnings []string
	// Warmup is Options.Warmup: untimed runs before the timed ones.
	Warmup int
	opt    Options
}

// BindName is how a binding is named in settings and output file names:
// the name the shader's code uses for it (the array of an anonymous
// one-member block, as in buffer X { float x[]; }), else the instance or
// block name, else its number.
func BindName(b Binding) string {
	if b.Instance == "" && b.Block != nil && len(b.Block.Members) == 1 && b.Block.Members[0].Name != "" {
		return b.Block.Members[0].Name
	}
	if b.Name != "" {
		return b.Name
	}
	return strconv.Itoa(int(b.Binding))
}

// Describe is how messages name a binding: binding 1 (y).
func Describe(b Binding) string {
	if n := BindName(b); n != strconv.Itoa(int(b.Binding)) {
		return fmt.Sprintf("binding %d (%s)", b.Binding, n)
	}
	return fmt.Sprintf("binding %d", b.Binding)
}

// FindBinding finds a binding of set 0 by number, instance name, block
// name or BindName.
func FindBinding(mod *Module, key string) (*Binding, error) {
	if n, err := strconv.Atoi(key); err == nil {
		if b := mod.Binding(0, uint32(n)); b != nil {
			return b, nil
		}
	}
	for i := range mod.Bindings {
		b := &mod.Bindings[i]
		if b.Name == key || BindName(*b) == key || (b.Block != nil && b.Block.Name == key) {
			return b, nil
		}
	}
	var names []string
	for _, b := range mod.Bindings {
		names = append(names, Describe(b))
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no binding %q: the shader has no bindings", key)
	}
	return nil, fmt.Errorf("no binding %q; the shader has %s", key, strings.Join(names, ", "))
}

// blockElem is the element type the data of a buffer block holds: that of
// its runtime array, else of its members when they agree, else "".
func blockElem(bl *Block) string {
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

// CheckData checks that a fits binding b's block: its element type and
// its size (a whole number of the runtime array's elements, or the
// block's size).
func CheckData(b Binding, a *Array) error {
	bl := b.Block
	if bl == nil {
		return nil
	}
	what := fmt.Sprintf("%s: %s is %s", Describe(b), a.source(), a)
	if e := blockElem(bl); e != "" && e != a.Elem && e != "struct" {
		return fmt.Errorf("%s, but the block holds %s", what, e)
	}
	n := len(a.Data)
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

// NewPlan checks the options against the shader and makes the plan: every
// error here comes before any device work. Errors in an entry of
// opt.Bind, Push or Spec are *SettingError, a binding without data
// *NoDataError, a missing or double dispatch *DispatchError.
func NewPlan(sh *Shader, opt Options) (*Plan, error) {
	mod := sh.Module
	p := &Plan{Shader: sh, opt: opt, Warmup: max(opt.Warmup, 0)}
	for i, b := range mod.Bindings {
		switch {
		case b.Kind != "storage" && b.Kind != "uniform":
			return nil, fmt.Errorf("%s (set %d) is neither a storage nor a uniform buffer (an image or sampler): vkstat shader run binds buffers only", Describe(b), b.Set)
		case b.Set != 0:
			return nil, fmt.Errorf("%s is in descriptor set %d: vkstat shader run binds set 0 only", Describe(b), b.Set)
		case b.Binding != uint32(i):
			return nil, fmt.Errorf("%s: vkstat shader run binds set 0 numbered 0, 1, 2, ... without gaps, and the shader has no binding %d", Describe(b), i)
		}
	}
	p.Inputs = make([]*Array, len(mod.Bindings))
	for i, bd := range opt.Bind {
		b, err := FindBinding(mod, bd.Name)
		if err != nil {
			return nil, &SettingError{"Bind", i, err}
		}
		if p.Inputs[b.Binding] != nil {
			return nil, &SettingError{"Bind", i, fmt.Errorf("%s is bound twice", Describe(*b))}
		}
		if bd.Data == nil {
			return nil, &SettingError{"Bind", i, fmt.Errorf("no data for %s", Describe(*b))}
		}
		if err := CheckData(*b, bd.Data); err != nil {
			return nil, err
		}
		p.Inputs[b.Binding] = bd.Data
	}
	if err := p.setUniforms(); err != nil {
		return nil, err
	}
	for i, a := range p.Inputs {
		if a == nil {
			return nil, &NoDataError{mod.Bindings[i]}
		}
	}
	if err := p.setConstants(); err != nil {
		return nil, err
	}
	if err := p.setDispatch(); err != nil {
		return nil, err
	}
	if err := p.checkReach(); err != nil {
		return nil, err
	}
	return p, nil
}

// setUniforms makes the data of the uniform bindings without any from
// Options.Uniform: each block zeros but for the members set.
func (p *Plan) setUniforms() error {
	mod := p.Shader.Module
	for i, s := range p.opt.Uniform {
		var cands []*Binding
		member := s.Name
		if bname, m, ok := strings.Cut(s.Name, "."); ok {
			b, err := FindBinding(mod, bname)
			if err != nil {
				return &SettingError{"Uniform", i, err}
			}
			cands, member = []*Binding{b}, m
		} else {
			for j := range mod.Bindings {
				if mod.Bindings[j].Kind == "uniform" {
					cands = append(cands, &mod.Bindings[j])
				}
			}
		}
		var b *Binding
		var mem *Member
		var names []string
		for _, c := range cands {
			if c.Kind != "uniform" || c.Block == nil {
				return &SettingError{"Uniform", i, fmt.Errorf("%s is not a uniform block", Describe(*c))}
			}
			for k := range c.Block.Members {
				m := &c.Block.Members[k]
				names = append(names, BindName(*c)+"."+m.Name)
				if m.Name == member {
					if mem != nil {
						return &SettingError{"Uniform", i, fmt.Errorf("%q is a member of %s and %s: name it BINDING.%s", member, Describe(*b), Describe(*c), member)}
					}
					b, mem = c, m
				}
			}
		}
		if len(cands) == 0 {
			return &SettingError{"Uniform", i, fmt.Errorf("the shader has no uniform buffer")}
		}
		if mem == nil {
			return &SettingError{"Uniform", i, fmt.Errorf("no uniform member %q; the shader has %s", member, strings.Join(names, ", "))}
		}
		if opt := p.Inputs[b.Binding]; opt != nil && !strings.HasPrefix(opt.Source, "uniform ") {
			return &SettingError{"Uniform", i, fmt.Errorf("%s has its data from %s already", Describe(*b), opt.source())}
		}
		if mem.Type != mem.Elem {
			return &SettingError{"Uniform", i, fmt.Errorf("%s is a %s; only scalar members can be set by name (bind the block's bytes from an NPY file)", member, mem.Type)}
		}
		bits, err := spirv.ParseValue(mem.Elem, s.Value)
		if err != nil {
			return &SettingError{"Uniform", i, err}
		}
		a := p.Inputs[b.Binding]
		if a == nil {
			a = &Array{Elem: "uint8", Shape: []int{b.Block.Size}, Data: make([]byte, b.Block.Size), Source: "uniform " + BindName(*b)}
			p.Inputs[b.Binding] = a
		}
		putBits(a.Data[mem.Offset:], bits, mem.Size)
	}
	return nil
}

// setConstants sets the push constants, every member by name, 0 unless
// given, and the specialization constants by name or constant_id, and
// what they shape: the local size and the shared memory.
func (p *Plan) setConstants() error {
	mod := p.Shader.Module
	if mod.Push != nil {
		p.Push = make([]byte, (mod.Push.Size+3)/4*4)
	}
	for i, s := range p.opt.Push {
		if mod.Push == nil {
			return &SettingError{"Push", i, fmt.Errorf("the shader has no push constants")}
		}
		var mem *Member
		var names []string
		for j := range mod.Push.Members {
			names = append(names, mod.Push.Members[j].Name)
			if mod.Push.Members[j].Name == s.Name {
				mem = &mod.Push.Members[j]
			}
		}
		if mem == nil {
			return &SettingError{"Push", i, fmt.Errorf("no push constant %q; the block %s has %s", s.Name, mod.Push.Name, strings.Join(names, ", "))}
		}
		if mem.Type != mem.Elem {
			return &SettingError{"Push", i, fmt.Errorf("%s is a %s; only scalar push constants can be set by name", s.Name, mem.Type)}
		}
		bits, err := spirv.ParseValue(mem.Elem, s.Value)
		if err != nil {
			return &SettingError{"Push", i, err}
		}
		putBits(p.Push[mem.Offset:], bits, mem.Size)
	}

	values := map[uint32]uint64{}
	maxID := -1
	for _, sc := range mod.SpecConstants {
		values[sc.ID] = sc.Default
		maxID = max(maxID, int(sc.ID))
		if sc.Size() != 4 {
			return fmt.Errorf("specialization constant %d (%s) is %s: only 32-bit constants are supported", sc.ID, sc.Name, sc.Type)
		}
	}
	if maxID > 255 {
		return fmt.Errorf("specialization constant id %d: vkstat shader supports ids up to 255", maxID)
	}
	for i, s := range p.opt.Spec {
		var sc *SpecConstant
		var names []string
		for j := range mod.SpecConstants {
			x := &mod.SpecConstants[j]
			names = append(names, fmt.Sprintf("%d (%s)", x.ID, strings.Join(append([]string{x.Name}, x.Aliases...), ", ")))
			if x.Name == s.Name || slices.Contains(x.Aliases, s.Name) || strconv.Itoa(int(x.ID)) == s.Name {
				sc = x
			}
		}
		if sc == nil {
			if len(names) == 0 {
				return &SettingError{"Spec", i, fmt.Errorf("the shader has no specialization constants")}
			}
			return &SettingError{"Spec", i, fmt.Errorf("no specialization constant %q; the shader has %s", s.Name, strings.Join(names, ", "))}
		}
		bits, err := spirv.ParseValue(sc.Type, s.Value)
		if err != nil {
			return &SettingError{"Spec", i, err}
		}
		values[sc.ID] = bits
	}
	p.Shared = mod.SharedBytesWith(values)
	p.Spec = make([]uint32, maxID+1)
	for id, v := range values {
		p.Spec[id] = uint32(v)
	}
	p.Local = mod.LocalSize
	for d, sid := range mod.LocalSizeSpec {
		if sid >= 0 {
			p.Local[d] = uint32(values[uint32(sid)])
		}
	}
	if p.Local[0]*p.Local[1]*p.Local[2] == 0 {
		return fmt.Errorf("local size %v has a zero dimension", p.Local)
	}
	return nil
}

// setDispatch sets the workgroups from Options.Groups or Global.
func (p *Plan) setDispatch() error {
	groups, global := p.opt.Groups != [3]uint32{}, p.opt.Global != [3]uint64{}
	switch {
	case groups && global:
		return &DispatchError{Both: true, Local: p.Local}
	case groups:
		p.Groups = p.opt.Groups
	case global:
		for d, g := range p.opt.Global {
			p.Groups[d] = uint32((max(g, 1) + uint64(p.Local[d]) - 1) / uint64(p.Local[d]))
		}
	default:
		return &DispatchError{Local: p.Local}
	}
	for d := 1; d < 3; d++ {
		p.Groups[d] = max(p.Groups[d], 1)
	}
	if p.Groups[0] == 0 {
		return fmt.Errorf("dispatch of %d×%d×%d workgroups: none along x", p.Groups[0], p.Groups[1], p.Groups[2])
	}
	return nil
}

// checkReach refuses a binding too short for the dispatch, where the code
// tells: a runtime array indexed by gl_GlobalInvocationID.x itself is
// reached up to the dispatch's invocations along x, or to the smallest
// constant or push constant (with the values given) that index is compared
// with. Other indexing (offsets, strides, helper functions, comparisons
// with an array's length) is not checked: the device's robust buffer
// access (or undefined behaviour) is all that stands there.
func (p *Plan) checkReach() error {
	g := p.Shader.Module.GID
	invocations := uint64(p.Groups[0]) * uint64(p.Local[0])
	n, ok := g.Reach(invocations, p.Push)
	if !ok || n == 0 {
		return nil
	}
	for _, i := range g.Bindings {
		if int(i) >= len(p.Inputs) {
			continue
		}
		b, a := p.Shader.Module.Bindings[i], p.Inputs[i]
		bl := b.Block
		if bl == nil || len(bl.Members) == 0 {
			continue
		}
		last := bl.Members[len(bl.Members)-1]
		if !last.Runtime || last.Stride <= 0 {
			continue
		}
		elems := uint64(max(len(a.Data)-last.Offset, 0) / last.Stride)
		if elems >= n {
			continue
		}
		if len(g.Bounds) == 0 {
			// No guard on the index recognised: the shader may well
			// have one (if (size <= id + 1) return;), so this is a
			// warning, and the guard bytes catch a real overrun.
			if !p.opt.NoBoundsCheck {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s: the shader indexes %s[] with gl_GlobalInvocationID.x, the dispatch has %d invocations along x and %s gives it %d elements, and no guard on the index was recognised (one the check cannot read is fine: --no-bounds-check)",
					Describe(b), last.Name, invocations, a.source(), elems))
			}
			continue
		}
		why := fmt.Sprintf("%d invocations along x", invocations)
		if n < invocations {
			why += fmt.Sprintf(", %d of them below the values the index is compared with", n)
		}
		return fmt.Errorf("%s: the shader indexes %s[] with gl_GlobalInvocationID.x and the dispatch reaches element %d (%s), but %s gives it %d elements: bind at least %d",
			Describe(b), last.Name, n-1, why, a.source(), elems, n)
	}
	return nil
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

// BytesMoved counts the bytes a dispatch reads and writes, from the
// bindings' access: read-only and write-only buffers once, others twice.
func (p *Plan) BytesMoved() int64 {
	var n int64
	for i, a := range p.Inputs {
		size := int64(len(a.Data))
		if b := p.Shader.Module.Bindings[i]; b.ReadOnly || b.WriteOnly {
			n += size
		} else {
			n += 2 * size
		}
	}
	return n
}
