package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/shaders"
)

// mapPush is map.comp's push-constant block: T a, b, c; uint n.
type mapPush struct {
	A, B, C float64
	N       int
}

// The push constants are written member by member at the offsets the
// shader's reflection gives, as the variant's types: map_f32's block is
// 4 floats (16 bytes), map_f64's 3 doubles and a uint (28 bytes).
func TestPushByName(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		variant string
		want    []byte
	}{
		{"map_f32", le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil,
			math.Float32bits(1.5)), math.Float32bits(-2)), math.Float32bits(0.25)), 7)},
		{"map_f64", le.AppendUint32(le.AppendUint64(le.AppendUint64(le.AppendUint64(nil,
			math.Float64bits(1.5)), math.Float64bits(-2)), math.Float64bits(0.25)), 7)},
	} {
		code, err := shaders.Code(c.variant)
		if err != nil {
			t.Fatal(err)
		}
		l, err := reflectLayout(code, mapPush{})
		if err != nil {
			t.Fatalf("%s: %v", c.variant, err)
		}
		if l.bindings != 3 || l.pushSize != len(c.want) {
			t.Errorf("%s: %d bindings, %d bytes of push constants; want 3 and %d", c.variant, l.bindings, l.pushSize, len(c.want))
		}
		got, err := l.pack(c.variant, mapPush{A: 1.5, B: -2, C: 0.25, N: 7})
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: packed % x, %v; want % x", c.variant, got, err, c.want)
		}
		if _, err := l.pack(c.variant, mapPush{N: -1}); err == nil || !strings.Contains(err.Error(), "n = -1") {
			t.Errorf("%s: n = -1 into a uint: %v; want a range error", c.variant, err)
		}
		if _, err := l.pack(c.variant, struct{ A, B, C, N float64 }{}); err == nil {
			t.Errorf("%s: a struct of another type was packed", c.variant)
		}
		if _, err := l.pack(c.variant, c.want); err != nil {
			t.Errorf("%s: raw bytes of the right size: %v", c.variant, err)
		}
	}
}

// A mismatch between the Go struct and the shader's block fails when the
// kernel is built, naming what is wrong.
func TestPushMismatch(t *testing.T) {
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		push any
		want string
	}{
		{struct{ A, B, C float64 }{}, "push constant n has no field"},
		{struct {
			A, B, C float64
			N, M    int
		}{}, "M is no member"},
		{struct {
			A, B float64
			C    int
			N    int
		}{}, "C is a int, push constant c a float32"},
		{struct {
			A, B, C float64
			N       float32
		}{}, "N is a float32, push constant n a uint32"},
		{struct {
			A, B, C float64
			N, N_   int
		}{}, "two fields for push constant n"},
		{3, "not a struct"},
	} {
		if _, err := reflectLayout(code, c.push); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: %v; want an error saying %q", c.push, err, c.want)
		}
	}
	copyCode, err := shaders.Code("copy_u32x4")
	if err != nil {
		t.Fatal(err)
	}
	if l, err := reflectLayout(copyCode, struct{ N uint32 }{}); err != nil || l.bindings != 2 || l.pushSize != 4 {
		t.Errorf("copy_u32x4: %+v, %v", l, err)
	}
}
