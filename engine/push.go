package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/vkstat/vkstat/internal/spirv"
)

// layout is what the engine takes from a kernel's SPIR-V: its bindings
// and its push-constant block, and how the Go struct of KernelSpec.Push
// fills the block.
type layout struct {
	bindings int // storage buffers 0 … bindings−1 in set 0
	pushSize int
	typ      reflect.Type // KernelSpec.Push's type; nil: raw bytes only
	fields   []pushField
}

// pushField writes struct field index into the block at offset as elem.
type pushField struct {
	index  int
	name   string // the member's name
	offset int
	elem   string // float32, float64, int32, uint32
}

// reflectLayout reads the bindings and the push-constant block of code
// and matches push's fields to the block's members.
func reflectLayout(code []byte, push any) (*layout, error) {
	m, err := spirv.Reflect(code)
	if err != nil {
		return nil, err
	}
	l := &layout{}
	for _, b := range m.Bindings {
		if b.Set != 0 || b.Kind != "storage" {
			return nil, fmt.Errorf("binding %d of set %d is a %s buffer: kernels bind storage buffers in set 0", b.Binding, b.Set, b.Kind)
		}
		l.bindings = max(l.bindings, int(b.Binding)+1)
	}
	if m.Push != nil {
		l.pushSize = m.Push.Size
	}
	if push == nil {
		return l, nil
	}
	l.typ = reflect.TypeOf(push)
	if l.typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("push constants are given as %s, not a struct", l.typ)
	}
	if m.Push == nil {
		return nil, fmt.Errorf("the shader has no push constants, but they are given as %s", l.typ)
	}
	members := map[string]spirv.Member{}
	for _, mem := range m.Push.Members {
		if mem.Name == "" {
			return nil, fmt.Errorf("push constant at offset %d has no name in the SPIR-V (compiled without names?)", mem.Offset)
		}
		members[pushKey(mem.Name)] = mem
	}
	used := map[string]bool{}
	for i := range l.typ.NumField() {
		f := l.typ.Field(i)
		mem, ok := members[pushKey(f.Name)]
		if !ok {
			return nil, fmt.Errorf("%s.%s is no member of the push constants (%s)", l.typ, f.Name, memberNames(m.Push))
		}
		if used[mem.Name] {
			return nil, fmt.Errorf("%s has two fields for push constant %s", l.typ, mem.Name)
		}
		used[mem.Name] = true
		if !fits(f.Type.Kind(), mem.Type) {
			return nil, fmt.Errorf("%s.%s is a %s, push constant %s a %s", l.typ, f.Name, f.Type, mem.Name, mem.Type)
		}
		l.fields = append(l.fields, pushField{index: i, name: mem.Name, offset: mem.Offset, elem: mem.Type})
	}
	for _, mem := range m.Push.Members {
		if !used[mem.Name] {
			return nil, fmt.Errorf("push constant %s has no field in %s", mem.Name, l.typ)
		}
	}
	return l, nil
}

// pushKey is the name a field and a member are matched by: case and
// underscores do not count, so Go's maxSweeps is GLSL's max_sweeps.
func pushKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

func memberNames(b *spirv.Block) string {
	var s []string
	for _, m := range b.Members {
		s = append(s, m.Name)
	}
	return strings.Join(s, ", ")
}

// fits reports whether a Go field of kind k can be written as a push
// constant of SPIR-V type typ: integers and bools as int32 or uint32
// (bools as 0 and 1, integers checked against the range), floats as
// float32 or float64.
func fits(k reflect.Kind, typ string) bool {
	switch typ {
	case "uint32", "int32":
		return k == reflect.Bool || k >= reflect.Int && k <= reflect.Uintptr
	case "float32", "float64":
		return k == reflect.Float32 || k == reflect.Float64
	}
	return false
}

// pack writes push into the block: raw bytes as they are, a struct of
// the kernel's Push type member by member, nil for a kernel without push
// constants.
func (l *layout) pack(name string, push any) ([]byte, error) {
	switch p := push.(type) {
	case nil:
		if l.pushSize != 0 {
			return nil, fmt.Errorf("kernel %s takes %d bytes of push constants, got none", name, l.pushSize)
		}
		return nil, nil
	case []byte:
		if len(p) != l.pushSize {
			return nil, fmt.Errorf("kernel %s takes %d bytes of push constants, got %d", name, l.pushSize, len(p))
		}
		return p, nil
	}
	v := reflect.ValueOf(push)
	if v.Type() != l.typ {
		return nil, fmt.Errorf("kernel %s takes push constants as %v, got %s", name, l.typ, v.Type())
	}
	b := make([]byte, l.pushSize)
	le := binary.LittleEndian
	for _, f := range l.fields {
		fv := v.Field(f.index)
		switch f.elem {
		case "float32":
			le.PutUint32(b[f.offset:], math.Float32bits(float32(fv.Float())))
		case "float64":
			le.PutUint64(b[f.offset:], math.Float64bits(fv.Float()))
		default:
			x, ok := intValue(fv)
			lo, hi := int64(0), int64(math.MaxUint32)
			if f.elem == "int32" {
				lo, hi = math.MinInt32, math.MaxInt32
			}
			if !ok || x < lo || x > hi {
				return nil, fmt.Errorf("kernel %s: push constant %s = %v is out of the range of %s", name, f.name, fv, f.elem)
			}
			le.PutUint32(b[f.offset:], uint32(x))
		}
	}
	return b, nil
}

// intValue is an integer or bool field's value; ok is false for an
// unsigned value past the range of int64.
func intValue(v reflect.Value) (int64, bool) {
	switch {
	case v.Kind() == reflect.Bool:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	case v.CanInt():
		return v.Int(), true
	}
	u := v.Uint()
	return int64(u), u <= math.MaxInt64
}
