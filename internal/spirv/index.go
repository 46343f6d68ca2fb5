package spirv

// What the code says about the elements of a binding's runtime array that a
// dispatch reaches: a simple pass that recognises the commonest kernel
// shape, y[i] with i = gl_GlobalInvocationID.x (directly, or through a
// local variable only ever set to it), guarded or not by comparisons of i
// with constants and push constants (if (i < p.n), if (i >= n) return).
// Anything else (other indices, helper functions, comparisons with values
// known only at run time) is left unknown: nothing is claimed.

// GIDIndex is what Reflect found of gl_GlobalInvocationID.x as an index.
type GIDIndex struct {
	// Bindings are the binding numbers (set 0) whose block's runtime
	// array is indexed by gl_GlobalInvocationID.x itself.
	Bindings []uint32
	// Bounds are the values gl_GlobalInvocationID.x is compared with (<,
	// <=, >, >=, signed or not). The invocations at or past the smallest
	// reach none of those elements if the comparison guards the accesses;
	// the invocations before it reach them in any case.
	Bounds []Bound
	// Unknown says gl_GlobalInvocationID.x is compared with a value known
	// only at run time (an array's length, a loaded value, a
	// specialization constant): the reach cannot be told.
	Unknown bool
}

// Bound is one value gl_GlobalInvocationID.x is compared with: a constant,
// or the push-constant member at Offset (Size bytes) of the values given.
type Bound struct {
	Const        uint64
	Push         bool
	Offset, Size int
	Signed       bool
}

// Reach is how many elements from 0 the invocations 0..invocations-1 of a
// dispatch index by gl_GlobalInvocationID.x at least, with push the
// push-constant bytes given; ok is false when it cannot be told.
func (g *GIDIndex) Reach(invocations uint64, push []byte) (n uint64, ok bool) {
	if g == nil || g.Unknown || len(g.Bindings) == 0 {
		return 0, false
	}
	n = invocations
	for _, b := range g.Bounds {
		v := b.Const
		if b.Push {
			if b.Offset+b.Size > len(push) || b.Size > 8 {
				return 0, false
			}
			v = 0
			for i := b.Size - 1; i >= 0; i-- {
				v = v<<8 | uint64(push[b.Offset+i])
			}
			if b.Signed && b.Size < 8 && v>>(8*b.Size-1)&1 == 1 {
				v = 0 // negative: no invocation passes a guard against it
			}
		} else if b.Signed && int64(v) < 0 {
			v = 0
		}
		n = min(n, v)
	}
	return n, true
}

const (
	opLoad                = 61
	opStore               = 62
	opAccessChain         = 65
	opInBoundsAccessChain = 66
	opCompositeExtract    = 81
	opCopyObject          = 83
	opBitcast             = 124
	opUGreaterThan        = 172
	opSGreaterThan        = 173
	opUGreaterThanEqual   = 174
	opSGreaterThanEqual   = 175
	opULessThan           = 176
	opSLessThan           = 177
	opULessThanEqual      = 178
	opSLessThanEqual      = 179

	builtInGlobalInvocation = 28
	scFunction              = 7
)

// gidIndexing runs the pass over the module's words (the header skipped).
// vars maps every OpVariable to its storage class and pointer type.
func gidIndexing(words []uint32, r *reflector, vars map[uint32][2]uint32) *GIDIndex {
	type inst struct {
		op uint32
		a  []uint32
	}
	var body []inst
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			break
		}
		op := words[i] & 0xffff
		switch op {
		case opLoad, opStore, opAccessChain, opInBoundsAccessChain, opCompositeExtract, opCopyObject, opBitcast,
			opUGreaterThan, opSGreaterThan, opUGreaterThanEqual, opSGreaterThanEqual,
			opULessThan, opSLessThan, opULessThanEqual, opSLessThanEqual:
			body = append(body, inst{op, words[i+1 : i+n]})
		}
		i += n
	}
	isGIDVar := func(id uint32) bool {
		b, ok := r.decos[id][decBuiltIn]
		return ok && b == builtInGlobalInvocation
	}
	constU := func(id uint32) (uint64, bool) {
		c := r.consts[id]
		if c == nil || c.spec || len(c.words) == 0 || len(c.parts) > 0 {
			return 0, false
		}
		v := uint64(c.words[0])
		if len(c.words) > 1 {
			v |= uint64(c.words[1]) << 32
		}
		return v, true
	}

	// gid: the ids that hold gl_GlobalInvocationID.x. gidPtr: pointers to
	// it: access chains to the built-in's x, and function variables every
	// store to which stores it (added as they are found, until none is).
	// vecs: loads of the whole built-in. pushPtr: pointers to push-constant
	// members.
	gid := map[uint32]bool{}
	gidPtr := map[uint32]bool{}
	vecs := map[uint32]bool{}
	pushPtr := map[uint32]Bound{}
	for _, in := range body {
		a := in.a
		switch in.op {
		case opAccessChain, opInBoundsAccessChain:
			if len(a) != 4 {
				continue
			}
			if v, ok := constU(a[3]); ok && v == 0 && isGIDVar(a[2]) {
				gidPtr[a[1]] = true
			}
			if sv, ok := vars[a[2]]; ok && sv[0] == scPushConstant {
				if k, ok := constU(a[3]); ok {
					if pb := r.pushMember(sv[1], int(k)); pb != nil {
						pushPtr[a[1]] = *pb
					}
				}
			}
		case opLoad:
			if isGIDVar(a[2]) {
				vecs[a[1]] = true
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for changed := true; changed; {
			changed = false
			for _, in := range body {
				a := in.a
				ok := false
				switch in.op {
				case opLoad:
					ok = gidPtr[a[2]]
				case opCompositeExtract:
					ok = len(a) == 4 && vecs[a[2]] && a[3] == 0
				case opCopyObject, opBitcast:
					ok = gid[a[2]]
				}
				if ok && !gid[a[1]] {
					gid[a[1]] = true
					changed = true
				}
			}
		}
		all := map[uint32]bool{} // function variables: whether every store stores gid
		for _, in := range body {
			if in.op != opStore {
				continue
			}
			if sv, ok := vars[in.a[0]]; ok && sv[0] == scFunction {
				prev, seen := all[in.a[0]]
				all[in.a[0]] = gid[in.a[1]] && (prev || !seen)
			}
		}
		for v, ok := range all {
			if ok && !gidPtr[v] {
				gidPtr[v] = true
				grew = true
			}
		}
	}
	pushVal := map[uint32]Bound{}
	for _, in := range body {
		if in.op == opLoad {
			if b, ok := pushPtr[in.a[2]]; ok {
				pushVal[in.a[1]] = b
			}
		}
	}

	g := &GIDIndex{}
	seen := map[uint32]bool{}
	for _, in := range body {
		a := in.a
		switch in.op {
		case opAccessChain, opInBoundsAccessChain:
			// base, then the block's member, then the element index.
			if len(a) < 5 || !gid[a[4]] {
				continue
			}
			sv, ok := vars[a[2]]
			if !ok || (sv[0] != scStorageBuffer && sv[0] != scUniform) {
				continue
			}
			bnd, hasB := r.decos[a[2]][decBinding]
			if !hasB || r.decos[a[2]][decDescSet] != 0 {
				continue
			}
			k, ok := constU(a[3])
			if !ok || !r.runtimeMember(sv[1], int(k)) || seen[bnd] {
				continue
			}
			seen[bnd] = true
			g.Bindings = append(g.Bindings, bnd)
		case opUGreaterThan, opSGreaterThan, opUGreaterThanEqual, opSGreaterThanEqual,
			opULessThan, opSLessThan, opULessThanEqual, opSLessThanEqual:
			x, y := a[2], a[3]
			if !gid[x] && !gid[y] {
				continue
			}
			if gid[x] && gid[y] {
				continue // i < i
			}
			other := y
			if gid[y] {
				other = x
			}
			signed := in.op == opSGreaterThan || in.op == opSGreaterThanEqual || in.op == opSLessThan || in.op == opSLessThanEqual
			if v, ok := constU(other); ok {
				g.Bounds = append(g.Bounds, Bound{Const: v, Signed: signed})
			} else if b, ok := pushVal[other]; ok {
				b.Signed = signed
				g.Bounds = append(g.Bounds, b)
			} else {
				g.Unknown = true
			}
		}
	}
	return g
}

// pushMember is the push-constant member k of the block that pointer type
// ptr points to, as a Bound, if it is a scalar integer.
func (r *reflector) pushMember(ptr uint32, k int) *Bound {
	pt := r.types[ptr]
	if pt == nil || pt.op != opTypePointer {
		return nil
	}
	st := r.types[pt.elem]
	if st == nil || st.op != opTypeStruct || k < 0 || k >= len(st.members) {
		return nil
	}
	mt := r.types[st.members[k]]
	if mt == nil || mt.op != opTypeInt {
		return nil
	}
	off := r.memberDecos[memberKey{pt.elem, uint32(k)}][decOffset]
	return &Bound{Push: true, Offset: int(off), Size: int(mt.width / 8)}
}

// runtimeMember reports whether member k of the block that pointer type ptr
// points to is a runtime array.
func (r *reflector) runtimeMember(ptr uint32, k int) bool {
	pt := r.types[ptr]
	if pt == nil || pt.op != opTypePointer {
		return false
	}
	st := r.types[pt.elem]
	if st == nil || st.op != opTypeStruct || k < 0 || k >= len(st.members) {
		return false
	}
	at := r.types[st.members[k]]
	return at != nil && at.op == opTypeRuntimeArray
}
