package reduce

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"

	"github.com/vkstat/vkstat/tensor"
)

// TestMergeAxes: one axis keeps the shape, adjacent axes (in any order,
// negative or not) merge into one, none flattens; axes with a gap are
// moved last by a permutation and merged; repeats and axes out of range
// are errors. TestPermuted checks the permuted copy element by element.
func TestMergeAxes(t *testing.T) {
	shape := []int{2, 3, 4, 5}
	for _, c := range []struct {
		axes []int
		want string
	}{
		{[]int{0}, "[2 3 4 5] 0"},
		{[]int{-1}, "[2 3 4 5] 3"},
		{[]int{0, 1}, "[6 4 5] 0"},
		{[]int{-1, 2}, "[2 3 20] 2"},
		{[]int{2, 1, 3}, "[2 60] 1"},
		{nil, "[120] 0"},
		{[]int{0, 2}, "[3 5 8] 2 [1 3 0 2]"},
		{[]int{-1, 1}, "[2 4 15] 2 [0 2 1 3]"},
		{[]int{0, 3}, "[3 4 10] 2 [1 2 0 3]"},
		{[]int{1, 1}, "error"},
		{[]int{4}, "error"},
		{[]int{-5}, "error"},
	} {
		merged, axis, perm, err := MergeAxes(shape, c.axes)
		got := fmt.Sprint(merged, " ", axis)
		if perm != nil {
			got += fmt.Sprint(" ", perm)
		}
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("MergeAxes(%v, %v) = %s (%v), want %s", shape, c.axes, got, err, c.want)
		}
	}
}

// TestPermuted: each element of a (2, 3, 4) array whose value encodes its
// index lands where the permutation (2, 0, 1) puts it, for every dtype's
// storage.
func TestPermuted(t *testing.T) {
	x := tensor.New(tensor.F64, 2, 3, 4)
	for i := range x.F64 {
		x.F64[i] = float64(i)
	}
	for _, dt := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16} {
		p := Permuted(x.As(dt), []int{2, 0, 1})
		if tensor.ShapeString(p.Shape) != tensor.ShapeString([]int{4, 2, 3}) {
			t.Fatalf("%s: shape %v, want (4, 2, 3)", dt, p.Shape)
		}
		got := p.Float64s()
		for k := range 4 {
			for i := range 2 {
				for j := range 3 {
					if want := float64((i*3+j)*4 + k); got[(k*2+i)*3+j] != want {
						t.Errorf("%s: [%d %d %d] = %g, want %g", dt, k, i, j, got[(k*2+i)*3+j], want)
					}
				}
			}
		}
	}
}

// TestAxesText: the axes as the front ends write them, read and written
// back; "all" is nil (every axis), and anything else is one FieldError
// naming axis, in one wording.
func TestAxesText(t *testing.T) {
	for text, want := range map[string]string{"0": "0", " 1, 2": "1,2", "-1": "-1", "all": "all", " all ": "all", "2,0": "2,0"} {
		var a Axes
		if err := a.UnmarshalText([]byte(text)); err != nil || a.String() != want {
			t.Errorf("%q: read %v (%v), written %q, want %q", text, []int(a), err, a.String(), want)
		}
	}
	for _, bad := range []string{"", "x", "1,,2", "1.5", "0 1", "all,1", "ALL"} {
		a := Axes{7}
		err := a.UnmarshalText([]byte(bad))
		var fe *engine.FieldError
		if !errors.As(err, &fe) || fe.Field != "axis" || err.Error() != fmt.Sprintf("axis %q: want an axis (0, -1), axes (1,2 or 0,2) or all", bad) {
			t.Errorf("%q: %v, want axis's FieldError", bad, err)
		}
		if !slices.Equal(a, Axes{7}) {
			t.Errorf("%q: refused but set %v", bad, []int(a))
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{json.Number("2"), "2"}, {-1, "-1"}, {[]any{json.Number("1"), json.Number("-1")}, "1,-1"}, {nil, "all"},
		{json.Number("1.5"), "1.5"}, {json.Number("1.0"), "1.0"}, {"0", `"0"`}, {"all", `"all"`}, {[]any{}, "[]"},
		{[]any{json.Number("1"), "x"}, `[1,"x"]`}, {true, "true"},
	} {
		a := Axes{7}
		err := a.SetValue(c.v)
		switch {
		case err == nil && a.String() != c.want:
			t.Errorf("%#v: read %s, want %s", c.v, a, c.want)
		case err != nil && err.Error() != "axis "+c.want+": want an axis (0, -1), axes (1,2 or 0,2) or all":
			t.Errorf("%#v: %v", c.v, err)
		case err != nil && !slices.Equal(a, Axes{7}):
			t.Errorf("%#v: refused but set %v", c.v, []int(a))
		}
	}
	a := Axes{1}
	if err := a.SetValue(nil); err != nil || a != nil || Axes(nil).NumPy() != nil || (Axes{3}).NumPy() != 3 || !slices.Equal((Axes{0, 2}).NumPy().([]int), []int{0, 2}) {
		t.Errorf("SetNone %v; NumPy forms %v %v %v", []int(a), Axes(nil).NumPy(), (Axes{3}).NumPy(), (Axes{0, 2}).NumPy())
	}
	if p := engine.FindParam(Params(), "axis"); p == nil || !p.None || p.Default != "0" || p.Flag != "axis" {
		t.Errorf("axis's description: %+v", p)
	}
}

// TestRunAxes: Run reduces over every form of Axes itself, against sums
// of x = 0..23 as (2, 3, 4) worked out by hand (x[i,j,k] = 12i + 4j + k):
// every axis 276; axes (1, 2) 144i + 66; axes (0, 2), not adjacent,
// 60 + 32j; axis -1 48i + 16j + 6. The one-axis paths read adjacent axes
// in place and refuse the others, which need Run's transposed copy;
// RunSource does as Run.
func TestRunAxes(t *testing.T) {
	data := make([]float64, 24)
	for i := range data {
		data[i] = float64(i)
	}
	x := tensor.FromF64(data, 2, 3, 4)
	for _, c := range []struct {
		axes  Axes
		shape []int
		want  []float64
	}{
		{nil, []int{}, []float64{276}},
		{Axes{1, 2}, []int{2}, []float64{66, 210}},
		{Axes{-1, -2}, []int{2}, []float64{66, 210}},
		{Axes{0, 2}, []int{3}, []float64{60, 92, 124}},
		{Axes{2, 0}, []int{3}, []float64{60, 92, 124}},
		{Axes{-1}, []int{2, 3}, []float64{6, 22, 38, 54, 70, 86}},
		{Axes{0, 1, 2}, []int{}, []float64{276}},
	} {
		opt := Options{Axes: c.axes, Stats: []Stat{Sum, Mean}}
		res, err := Run(t.Context(), nil, x, opt)
		if err != nil {
			t.Fatalf("axes %s: %v", c.axes, err)
		}
		if got := res.Stats[Sum]; !slices.Equal(got.Shape, c.shape) || !slices.Equal(got.F64, c.want) {
			t.Errorf("axes %s: sum %v %v, want %v %v", c.axes, got.Shape, got.F64, c.shape, c.want)
		}
		g, err := opt.Geometry(x.Shape)
		if err != nil || g.N*len(c.want) != 24 || (g.Perm != nil) != (len(c.axes) == 2 && c.shape[0] == 3) {
			t.Errorf("axes %s: geometry %+v, %v", c.axes, g, err)
		}
		out, err := CPU(x, opt, opt.Stats)
		if g.Perm != nil {
			if err == nil || !strings.Contains(err.Error(), "not adjacent") {
				t.Errorf("axes %s: CPU took axes that are not adjacent (%v)", c.axes, err)
			}
			continue
		}
		if err != nil || !slices.Equal(out[Sum].F64, c.want) {
			t.Errorf("axes %s: CPU %v, %v", c.axes, out[Sum], err)
		}
	}
	for _, bad := range []Axes{{3}, {-4}, {1, 1}, {0, -3}} {
		if _, err := Run(t.Context(), nil, x, Options{Axes: bad, Stats: []Stat{Sum}}); err == nil {
			t.Errorf("axes %s of a 3-d array: no error", bad)
		}
	}
}
