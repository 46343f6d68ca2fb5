// Package spirv reflects a SPIR-V compute module: its local size (and which
// dimensions are specialization constants), its descriptor bindings with
// their block layouts, its push-constant block, its specialization
// constants, and the capabilities and extensions it needs. It reads the
// binary itself (no module of the proxy does this) and knows only what a
// compute shader of the shader development loop uses.
package spirv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Magic is the first word of every SPIR-V module.
const Magic = 0x07230203

// ErrNotSPIRV reports bytes that are not a SPIR-V module.
var ErrNotSPIRV = errors.New("not a SPIR-V module")

// Module is what a compute module exposes to the host.
type Module struct {
	Version    string `json:"spirv_version"`
	EntryPoint string `json:"entry_point"`
	// LocalSize is the workgroup size with every specialization constant
	// at its default; LocalSizeSpec[i] is the constant_id that sets
	// dimension i, or -1 when the dimension is fixed.
	LocalSize     [3]uint32      `json:"local_size"`
	LocalSizeSpec [3]int         `json:"local_size_spec_id"`
	Bindings      []Binding      `json:"bindings"`
	Push          *Block         `json:"push_constants,omitempty"`
	SpecConstants []SpecConstant `json:"spec_constants"`
	Capabilities  []string       `json:"capabilities"`
	Extensions    []string       `json:"extensions"`
	// SharedBytes is the size of the workgroup (shared) variables with
	// every specialization constant at its default.
	SharedBytes int `json:"shared_bytes"`
	// GID is what the code says of gl_GlobalInvocationID.x as an index
	// into the bindings' runtime arrays (see GIDIndex).
	GID *GIDIndex `json:"-"`

	r      *reflector
	shared []uint32 // the types of the workgroup variables
}

// Binding is one descriptor binding.
type Binding struct {
	Set     uint32 `json:"set"`
	Binding uint32 `json:"binding"`
	// Kind is "storage" (storage buffer), "uniform" (uniform buffer) or
	// "other" (images, samplers: not supported by vkstat shader run).
	Kind string `json:"kind"`
	// Name is the instance name when there is one, else the block name;
	// Instance is the instance name, "" for an anonymous block.
	Name      string `json:"name"`
	Instance  string `json:"instance,omitempty"`
	ReadOnly  bool   `json:"readonly"`
	WriteOnly bool   `json:"writeonly"`
	Block     *Block `json:"block,omitempty"`
}

// Block is the layout of a buffer or push-constant block.
type Block struct {
	Name    string   `json:"name"`
	Members []Member `json:"members"`
	// Size is the size of the block in bytes, not counting a trailing
	// runtime array.
	Size int `json:"size"`
}

// Member is one member of a block.
type Member struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	// Size in bytes; 0 for a runtime array.
	Size int `json:"size"`
	// Elem is the scalar type of the member (of its elements for arrays,
	// vectors and matrices): float32, float64, int32, uint32, ...
	Elem string `json:"elem"`
	// Stride is the array stride, 0 for a non-array.
	Stride  int  `json:"array_stride,omitempty"`
	Runtime bool `json:"runtime_array,omitempty"`
}

// SpecConstant is one specialization constant.
type SpecConstant struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
	// Aliases are the names of constants that redeclare it (const uint
	// strideC = N;), which name the same value.
	Aliases []string `json:"aliases,omitempty"`
	Type    string   `json:"type"` // bool, int32, uint32, float32, float64, ...
	// Default is the default value's bits (VkBool32 0/1 for bools).
	Default uint64 `json:"default_bits"`
	Value   string `json:"default"`
}

// Size is the constant's size in the specialization data, in bytes.
func (s SpecConstant) Size() int {
	if strings.HasSuffix(s.Type, "64") {
		return 8
	}
	return 4
}

// Binding returns the binding at (set, binding), or nil.
func (m *Module) Binding(set, binding uint32) *Binding {
	for i := range m.Bindings {
		if m.Bindings[i].Set == set && m.Bindings[i].Binding == binding {
			return &m.Bindings[i]
		}
	}
	return nil
}

// Has reports whether the module declares capability name.
func (m *Module) Has(capability string) bool {
	for _, c := range m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

// Opcodes, decorations and enumerants used here (SPIR-V 1.6 spec).
const (
	opName                  = 5
	opMemberName            = 6
	opExtension             = 10
	opEntryPoint            = 15
	opExecutionMode         = 16
	opCapability            = 17
	opTypeBool              = 20
	opTypeInt               = 21
	opTypeFloat             = 22
	opTypeVector            = 23
	opTypeMatrix            = 24
	opTypeArray             = 28
	opTypeRuntimeArray      = 29
	opTypeStruct            = 30
	opTypePointer           = 32
	opConstantTrue          = 41
	opConstantFalse         = 42
	opConstant              = 43
	opConstantComposite     = 44
	opSpecConstantTrue      = 48
	opSpecConstantFalse     = 49
	opSpecConstant          = 50
	opSpecConstantComposite = 51
	opSpecConstantOp        = 52
	opVariable              = 59
	opDecorate              = 71
	opMemberDecorate        = 72
	opExecutionModeID       = 331

	decSpecID       = 1
	decBlock        = 2
	decBufferBlock  = 3
	decArrayStride  = 6
	decMatrixStride = 7
	decBuiltIn      = 11
	decNonWritable  = 24
	decNonReadable  = 25
	decBinding      = 33
	decDescSet      = 34
	decOffset       = 35

	builtInWorkgroupSize = 25

	scUniformConstant = 0
	scUniform         = 2
	scWorkgroup       = 4
	scPushConstant    = 9
	scStorageBuffer   = 12

	emLocalSize   = 17
	emLocalSizeID = 38
)

var capabilityNames = map[uint32]string{
	0: "Matrix", 1: "Shader", 2: "Geometry", 3: "Tessellation", 4: "Addresses", 5: "Linkage", 6: "Kernel",
	9: "Float16", 10: "Float64", 11: "Int64", 12: "Int64Atomics", 22: "Int16", 39: "Int8",
	44: "StorageImageExtendedFormats", 50: "StorageImageWriteWithoutFormat", 56: "StorageImageReadWithoutFormat",
	61: "GroupNonUniform", 62: "GroupNonUniformVote", 63: "GroupNonUniformArithmetic", 64: "GroupNonUniformBallot",
	65: "GroupNonUniformShuffle", 66: "GroupNonUniformShuffleRelative", 67: "GroupNonUniformClustered",
	68: "GroupNonUniformQuad", 4423: "SubgroupBallotKHR", 4431: "SubgroupVoteKHR",
	4433: "StorageBuffer16BitAccess", 4434: "UniformAndStorageBuffer16BitAccess", 4435: "StoragePushConstant16",
	4441: "VariablePointersStorageBuffer", 4442: "VariablePointers",
	4448: "StorageBuffer8BitAccess", 4449: "UniformAndStorageBuffer8BitAccess", 4450: "StoragePushConstant8",
	4464: "DenormPreserve", 4465: "DenormFlushToZero", 4466: "SignedZeroInfNanPreserve", 4467: "RoundingModeRTE", 4468: "RoundingModeRTZ",
	5345: "VulkanMemoryModel", 5346: "VulkanMemoryModelDeviceScope", 5347: "PhysicalStorageBufferAddresses",
	6033: "AtomicFloat32AddEXT", 6034: "AtomicFloat64AddEXT", 6095: "AtomicFloat16AddEXT",
	5568: "IntegerFunctions2INTEL", 6022: "ShaderClockKHR", 5055: "Int64ImageEXT",
	4427: "DrawParameters", 5015: "AtomicStorageOps", 5008: "Float16ImageAMD", 5297: "ComputeDerivativeGroupQuadsNV",
	5288: "ComputeDerivativeGroupLinearNV", 5301: "ShaderNonUniform", 5302: "RuntimeDescriptorArray",
	5306: "UniformBufferArrayNonUniformIndexing", 5307: "SampledImageArrayNonUniformIndexing",
	5308: "StorageBufferArrayNonUniformIndexing", 6400: "CooperativeMatrixKHR", 5357: "CooperativeMatrixNV",
	6016: "DotProductInputAll", 6017: "DotProductInput4x8Bit", 6018: "DotProductInput4x8BitPacked", 6019: "DotProduct",
}

type typ struct {
	op      uint32
	width   uint32 // int/float
	signed  bool
	elem    uint32 // vector/matrix/array element, pointer pointee
	count   uint32 // vector/matrix count; array length constant id
	members []uint32
	storage uint32 // pointer storage class
}

type constant struct {
	typ   uint32
	words []uint32
	spec  bool
	parts []uint32 // composite constituents
	op    uint32   // OpSpecConstantOp: the operation, on parts
}

type memberKey struct{ id, member uint32 }

// Reflect parses a SPIR-V module.
func Reflect(code []byte) (*Module, error) {
	if len(code) < 20 || len(code)%4 != 0 {
		return nil, fmt.Errorf("%w (%d bytes)", ErrNotSPIRV, len(code))
	}
	words := make([]uint32, len(code)/4)
	order := binary.ByteOrder(binary.LittleEndian)
	if binary.LittleEndian.Uint32(code) != Magic {
		if binary.BigEndian.Uint32(code) != Magic {
			return nil, fmt.Errorf("%w: magic number %#x", ErrNotSPIRV, binary.LittleEndian.Uint32(code))
		}
		order = binary.BigEndian
	}
	for i := range words {
		words[i] = order.Uint32(code[4*i:])
	}
	m := &Module{Version: fmt.Sprintf("%d.%d", words[1]>>16&0xff, words[1]>>8&0xff), LocalSizeSpec: [3]int{-1, -1, -1}}
	names := map[uint32]string{}
	aliases := map[uint32][]string{}
	memberNames := map[memberKey]string{}
	decos := map[uint32]map[uint32]uint32{} // id → decoration → first operand
	memberDecos := map[memberKey]map[uint32]uint32{}
	types := map[uint32]*typ{}
	consts := map[uint32]*constant{}
	type variable struct{ id, ptr, storage uint32 }
	var vars []variable
	var entry uint32
	var localSizeIDs []uint32
	deco := func(id, d, v uint32) {
		if decos[id] == nil {
			decos[id] = map[uint32]uint32{}
		}
		decos[id][d] = v
	}
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		op := words[i] & 0xffff
		if n == 0 || i+n > len(words) {
			return nil, fmt.Errorf("%w: truncated instruction at word %d", ErrNotSPIRV, i)
		}
		a := words[i+1 : i+n]
		i += n
		switch op {
		case opCapability:
			name, ok := capabilityNames[a[0]]
			if !ok {
				name = fmt.Sprintf("Capability%d", a[0])
			}
			m.Capabilities = append(m.Capabilities, name)
		case opExtension:
			m.Extensions = append(m.Extensions, str(a))
		case opEntryPoint:
			if len(a) >= 3 && a[0] == 5 && m.EntryPoint == "" { // GLCompute
				entry = a[1]
				m.EntryPoint = str(a[2:])
			}
		case opExecutionMode, opExecutionModeID:
			if len(a) >= 5 && a[0] == entry && (a[1] == emLocalSize && op == opExecutionMode) {
				m.LocalSize = [3]uint32{a[2], a[3], a[4]}
			}
			if len(a) >= 5 && a[0] == entry && a[1] == emLocalSizeID {
				localSizeIDs = a[2:5]
			}
		case opName:
			// A constant redeclared (const uint strideC = N;) is the same
			// id named again: the first name is its own, the rest aliases.
			if _, named := names[a[0]]; named {
				aliases[a[0]] = append(aliases[a[0]], str(a[1:]))
			} else {
				names[a[0]] = str(a[1:])
			}
		case opMemberName:
			memberNames[memberKey{a[0], a[1]}] = str(a[2:])
		case opDecorate:
			v := uint32(0)
			if len(a) > 2 {
				v = a[2]
			}
			deco(a[0], a[1], v)
		case opMemberDecorate:
			k := memberKey{a[0], a[1]}
			if memberDecos[k] == nil {
				memberDecos[k] = map[uint32]uint32{}
			}
			v := uint32(0)
			if len(a) > 3 {
				v = a[3]
			}
			memberDecos[k][a[2]] = v
		case opTypeBool:
			types[a[0]] = &typ{op: op}
		case opTypeInt:
			types[a[0]] = &typ{op: op, width: a[1], signed: a[2] == 1}
		case opTypeFloat:
			types[a[0]] = &typ{op: op, width: a[1]}
		case opTypeVector, opTypeMatrix:
			types[a[0]] = &typ{op: op, elem: a[1], count: a[2]}
		case opTypeArray:
			types[a[0]] = &typ{op: op, elem: a[1], count: a[2]}
		case opTypeRuntimeArray:
			types[a[0]] = &typ{op: op, elem: a[1]}
		case opTypeStruct:
			types[a[0]] = &typ{op: op, members: append([]uint32(nil), a[1:]...)}
		case opTypePointer:
			types[a[0]] = &typ{op: op, storage: a[1], elem: a[2]}
		case opConstant, opSpecConstant:
			consts[a[1]] = &constant{typ: a[0], words: append([]uint32(nil), a[2:]...), spec: op == opSpecConstant}
		case opConstantTrue, opConstantFalse, opSpecConstantTrue, opSpecConstantFalse:
			v := uint32(0)
			if op == opConstantTrue || op == opSpecConstantTrue {
				v = 1
			}
			consts[a[1]] = &constant{typ: a[0], words: []uint32{v}, spec: op == opSpecConstantTrue || op == opSpecConstantFalse}
		case opConstantComposite, opSpecConstantComposite:
			consts[a[1]] = &constant{typ: a[0], parts: append([]uint32(nil), a[2:]...), spec: op == opSpecConstantComposite}
		case opSpecConstantOp:
			consts[a[1]] = &constant{typ: a[0], op: a[2], parts: append([]uint32(nil), a[3:]...), spec: true}
		case opVariable:
			vars = append(vars, variable{id: a[1], ptr: a[0], storage: a[2]})
		}
	}
	if m.EntryPoint == "" {
		return nil, fmt.Errorf("the module has no GLCompute entry point: not a compute shader")
	}
	r := &reflector{types: types, consts: consts, names: names, memberNames: memberNames, memberDecos: memberDecos, decos: decos}
	m.r = r

	// Local size: LocalSizeId, then a WorkgroupSize built-in (which
	// overrides LocalSize), whose constituents may be spec constants.
	setDims := func(ids []uint32) {
		for d, id := range ids {
			if c := consts[id]; c != nil && len(c.words) > 0 {
				m.LocalSize[d] = c.words[0]
				if sid, ok := decos[id][decSpecID]; ok && c.spec {
					m.LocalSizeSpec[d] = int(sid)
				}
			}
		}
	}
	setDims(localSizeIDs)
	for id, c := range consts {
		if b, ok := decos[id][decBuiltIn]; ok && b == builtInWorkgroupSize && len(c.parts) == 3 {
			setDims(c.parts)
		}
	}

	wgPart := map[uint32]bool{}
	for id, c := range consts {
		if b, ok := decos[id][decBuiltIn]; ok && b == builtInWorkgroupSize {
			for _, p := range c.parts {
				wgPart[p] = true
			}
		}
	}
	rank := map[uint32]int{} // constant_id → rank of the constant listed
	for id, c := range consts {
		sid, ok := decos[id][decSpecID]
		if !ok || !c.spec {
			continue
		}
		sc := SpecConstant{ID: sid, Name: names[id], Aliases: aliases[id], Type: r.typeName(c.typ)}
		// Prefer the GLSL constant (named, not a gl_WorkGroupSize part)
		// when one constant_id decorates several: its default is the one
		// declared with constant_id.
		rk := 0
		if sc.Name != "" {
			rk += 2
		}
		if !wgPart[id] {
			rk++
		}
		if prev, seen := rank[sid]; seen && prev >= rk {
			continue
		} else if seen {
			for i := range m.SpecConstants {
				if m.SpecConstants[i].ID == sid {
					m.SpecConstants = append(m.SpecConstants[:i], m.SpecConstants[i+1:]...)
					break
				}
			}
		}
		rank[sid] = rk
		if len(c.words) > 0 {
			sc.Default = uint64(c.words[0])
			if len(c.words) > 1 {
				sc.Default |= uint64(c.words[1]) << 32
			}
		}
		sc.Value = FormatValue(sc.Type, sc.Default)
		m.SpecConstants = append(m.SpecConstants, sc)
	}
	sort.Slice(m.SpecConstants, func(i, j int) bool { return m.SpecConstants[i].ID < m.SpecConstants[j].ID })
	// A dimension set by a constant_id takes the default declared with
	// it: that is what vkstat passes when no value is given.
	for d, sid := range m.LocalSizeSpec {
		for _, sc := range m.SpecConstants {
			if sid >= 0 && sc.ID == uint32(sid) {
				m.LocalSize[d] = uint32(sc.Default)
			}
		}
	}

	for _, v := range vars {
		pt := types[v.ptr]
		if pt == nil || pt.op != opTypePointer {
			continue
		}
		switch v.storage {
		case scWorkgroup:
			m.SharedBytes += r.size(pt.elem)
			m.shared = append(m.shared, pt.elem)
		case scPushConstant:
			m.Push = r.block(pt.elem)
		case scStorageBuffer, scUniform, scUniformConstant:
			bnd, hasB := decos[v.id][decBinding]
			set := decos[v.id][decDescSet]
			if !hasB {
				continue
			}
			b := Binding{Set: set, Binding: bnd, Name: names[v.id], Instance: names[v.id]}
			inner := pt.elem
			if t := types[inner]; t != nil && (t.op == opTypeArray || t.op == opTypeRuntimeArray) {
				inner = t.elem // arrays of blocks: describe the block
			}
			_, bufferBlock := decos[inner][decBufferBlock]
			switch {
			case v.storage == scStorageBuffer || (v.storage == scUniform && bufferBlock):
				b.Kind = "storage"
			case v.storage == scUniform:
				b.Kind = "uniform"
			default:
				b.Kind = "other"
			}
			if t := types[inner]; t != nil && t.op == opTypeStruct {
				b.Block = r.block(inner)
				if b.Name == "" {
					b.Name = b.Block.Name
				}
				b.ReadOnly, b.WriteOnly = true, true
				for k := range t.members {
					md := memberDecos[memberKey{inner, uint32(k)}]
					_, nw := md[decNonWritable]
					_, nr := md[decNonReadable]
					b.ReadOnly = b.ReadOnly && nw
					b.WriteOnly = b.WriteOnly && nr
				}
				if len(t.members) == 0 {
					b.ReadOnly, b.WriteOnly = false, false
				}
			}
			if _, nw := decos[v.id][decNonWritable]; nw {
				b.ReadOnly = true
			}
			if _, nr := decos[v.id][decNonReadable]; nr {
				b.WriteOnly = true
			}
			if b.Kind == "uniform" {
				b.ReadOnly = true
			}
			m.Bindings = append(m.Bindings, b)
		}
	}
	sort.Slice(m.Bindings, func(i, j int) bool {
		if m.Bindings[i].Set != m.Bindings[j].Set {
			return m.Bindings[i].Set < m.Bindings[j].Set
		}
		return m.Bindings[i].Binding < m.Bindings[j].Binding
	})
	if m.Capabilities == nil {
		m.Capabilities = []string{}
	}
	if m.Extensions == nil {
		m.Extensions = []string{}
	}
	if m.Bindings == nil {
		m.Bindings = []Binding{}
	}
	if m.SpecConstants == nil {
		m.SpecConstants = []SpecConstant{}
	}
	vm := make(map[uint32][2]uint32, len(vars))
	for _, v := range vars {
		vm[v.id] = [2]uint32{v.storage, v.ptr}
	}
	m.GID = gidIndexing(words, r, vm)
	return m, nil
}

type reflector struct {
	types       map[uint32]*typ
	consts      map[uint32]*constant
	names       map[uint32]string
	memberNames map[memberKey]string
	memberDecos map[memberKey]map[uint32]uint32
	decos       map[uint32]map[uint32]uint32
	spec        map[uint32]uint64 // values given for specialization constants
}

func (r *reflector) block(id uint32) *Block {
	t := r.types[id]
	b := &Block{Name: r.names[id]}
	if t == nil || t.op != opTypeStruct {
		return b
	}
	for k, mt := range t.members {
		key := memberKey{id, uint32(k)}
		md := r.memberDecos[key]
		mem := Member{Name: r.memberNames[key], Type: r.typeName(mt), Offset: int(md[decOffset]), Elem: r.scalar(mt)}
		if at := r.types[mt]; at != nil && (at.op == opTypeArray || at.op == opTypeRuntimeArray) {
			mem.Stride = int(r.decos[mt][decArrayStride])
			mem.Runtime = at.op == opTypeRuntimeArray
		}
		if !mem.Runtime {
			mem.Size = r.size(mt)
			b.Size = max(b.Size, mem.Offset+mem.Size)
		}
		b.Members = append(b.Members, mem)
	}
	return b
}

// scalar is the scalar type at the bottom of id.
func (r *reflector) scalar(id uint32) string {
	t := r.types[id]
	for t != nil && (t.op == opTypeArray || t.op == opTypeRuntimeArray || t.op == opTypeVector || t.op == opTypeMatrix) {
		t = r.types[t.elem]
	}
	if t == nil {
		return "?"
	}
	switch t.op {
	case opTypeBool:
		return "bool"
	case opTypeInt:
		if t.signed {
			return fmt.Sprintf("int%d", t.width)
		}
		return fmt.Sprintf("uint%d", t.width)
	case opTypeFloat:
		return fmt.Sprintf("float%d", t.width)
	case opTypeStruct:
		return "struct"
	}
	return "?"
}

func (r *reflector) arrayLen(t *typ) uint32 {
	v, _ := r.eval(t.count, 0)
	return uint32(v)
}

// eval is the value of an integer constant, with specialization constants
// at r.spec's values or their defaults, and the integer operations glslang
// emits for sizes (TILE + 1, WG_SIZE / 2, ...) evaluated.
func (r *reflector) eval(id uint32, depth int) (uint64, bool) {
	c := r.consts[id]
	if c == nil || depth > 32 {
		return 0, false
	}
	if c.op == 0 {
		if sid, ok := r.decos[id][decSpecID]; ok && c.spec {
			if v, ok := r.spec[sid]; ok {
				return v, true
			}
		}
		if len(c.words) == 0 {
			return 0, false
		}
		return uint64(c.words[0]), true
	}
	var v [2]uint64
	for i := 0; i < 2 && i < len(c.parts); i++ {
		var ok bool
		if v[i], ok = r.eval(c.parts[i], depth+1); !ok {
			return 0, false
		}
	}
	a, b := uint32(v[0]), uint32(v[1])
	switch c.op {
	case 128: // IAdd
		return uint64(a + b), true
	case 130: // ISub
		return uint64(a - b), true
	case 132: // IMul
		return uint64(a * b), true
	case 134, 135: // UDiv, SDiv
		if b == 0 {
			return 0, false
		}
		return uint64(a / b), true
	case 137, 139: // UMod, SMod
		if b == 0 {
			return 0, false
		}
		return uint64(a % b), true
	case 194: // ShiftRightLogical
		return uint64(a >> (b & 31)), true
	case 196: // ShiftLeftLogical
		return uint64(a << (b & 31)), true
	case 197: // BitwiseOr
		return uint64(a | b), true
	case 199: // BitwiseAnd
		return uint64(a & b), true
	case 113: // UConvert
		return uint64(a), true
	}
	return 0, false
}

// SharedBytesWith is the size of the workgroup (shared) variables with the
// given specialization constant values (constant_id → bits), the others at
// their defaults.
func (m *Module) SharedBytesWith(spec map[uint32]uint64) int {
	if m.r == nil {
		return m.SharedBytes
	}
	r := *m.r
	r.spec = spec
	n := 0
	for _, t := range m.shared {
		n += r.size(t)
	}
	return n
}

func (r *reflector) typeName(id uint32) string {
	t := r.types[id]
	if t == nil {
		return "?"
	}
	switch t.op {
	case opTypeVector:
		return fmt.Sprintf("%s×%d", r.typeName(t.elem), t.count)
	case opTypeMatrix:
		return fmt.Sprintf("%s×%d", r.typeName(t.elem), t.count)
	case opTypeArray:
		return fmt.Sprintf("%s[%d]", r.typeName(t.elem), r.arrayLen(t))
	case opTypeRuntimeArray:
		return r.typeName(t.elem) + "[]"
	case opTypeStruct:
		if n := r.names[id]; n != "" {
			return "struct " + n
		}
		return "struct"
	}
	return r.scalar(id)
}

// size is the byte size of a type as laid out in a block (std430 strides
// and offsets come from the decorations), with spec-constant array lengths
// at their defaults.
func (r *reflector) size(id uint32) int {
	t := r.types[id]
	if t == nil {
		return 0
	}
	switch t.op {
	case opTypeBool:
		return 4
	case opTypeInt, opTypeFloat:
		return int(t.width / 8)
	case opTypeVector:
		return int(t.count) * r.size(t.elem)
	case opTypeMatrix:
		if s, ok := r.decos[id][decMatrixStride]; ok {
			return int(t.count * s)
		}
		return int(t.count) * r.size(t.elem)
	case opTypeArray:
		stride := int(r.decos[id][decArrayStride])
		if stride == 0 {
			stride = r.size(t.elem)
		}
		return int(r.arrayLen(t)) * stride
	case opTypeStruct:
		n := 0
		for k, mt := range t.members {
			off := int(r.memberDecos[memberKey{id, uint32(k)}][decOffset])
			if off == 0 && k > 0 {
				off = n // no layout decorations (workgroup structs)
			}
			n = max(n, off+r.size(mt))
		}
		return n
	}
	return 0
}

// FormatValue formats the bits of a constant of type typ.
func FormatValue(typ string, bits uint64) string {
	switch typ {
	case "bool":
		return fmt.Sprint(bits != 0)
	case "float32":
		return fmt.Sprint(math.Float32frombits(uint32(bits)))
	case "float64":
		return fmt.Sprint(math.Float64frombits(bits))
	case "int32":
		return fmt.Sprint(int32(bits))
	case "int64":
		return fmt.Sprint(int64(bits))
	case "int16":
		return fmt.Sprint(int16(bits))
	case "int8":
		return fmt.Sprint(int8(bits))
	}
	return fmt.Sprint(bits)
}

// str decodes a nul-terminated literal string packed in words.
func str(w []uint32) string {
	b := make([]byte, 0, 4*len(w))
	for _, v := range w {
		for k := 0; k < 4; k++ {
			c := byte(v >> (8 * k))
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// ParseValue parses s as a value of scalar type typ and returns its bits
// (VkBool32 0/1 for bools).
func ParseValue(typ, s string) (uint64, error) {
	s = strings.TrimSpace(s)
	switch typ {
	case "bool":
		switch strings.ToLower(s) {
		case "1", "true", "yes":
			return 1, nil
		case "0", "false", "no":
			return 0, nil
		}
		return 0, fmt.Errorf("%q is not a bool (true or false)", s)
	case "float32":
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not a float32", s)
		}
		return uint64(math.Float32bits(float32(v))), nil
	case "float64":
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a float64", s)
		}
		return math.Float64bits(v), nil
	}
	var width int
	var signed bool
	switch {
	case strings.HasPrefix(typ, "uint"):
		width, _ = strconv.Atoi(typ[4:])
	case strings.HasPrefix(typ, "int"):
		width, _ = strconv.Atoi(typ[3:])
		signed = true
	}
	if width == 0 {
		return 0, fmt.Errorf("cannot set a value of type %s", typ)
	}
	if signed {
		v, err := strconv.ParseInt(s, 0, width)
		if err != nil {
			return 0, fmt.Errorf("%q is not an %s", s, typ)
		}
		if width == 64 {
			return uint64(v), nil
		}
		return uint64(v) & (1<<uint(width) - 1), nil
	}
	v, err := strconv.ParseUint(s, 0, width)
	if err != nil {
		return 0, fmt.Errorf("%q is not a %s", s, typ)
	}
	return v, nil
}
