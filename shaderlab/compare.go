package shaderlab

import (
	"fmt"
	"math"
)

// Diff is how far an array is from another, element by element, NaNs
// apart.
type Diff struct {
	MaxAbs float64 // largest |got − want|
	MaxRel float64 // MaxAbs over max |want| (MaxAbs where want is all 0)
	NMSE   float64 // Σ(got − want)² / Σ want² (Σ(got − want)² where want is all 0)
	NaNs   int     // elements NaN in one array and not the other
}

// Compare measures how far got is from want; their element types may
// differ, their element counts may not.
func Compare(got, want *Array) (Diff, error) {
	g, w := got.Values(), want.Values()
	if len(g) != len(w) {
		return Diff{}, fmt.Errorf("%d elements, expected %d", len(g), len(w))
	}
	var d Diff
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

// OK says whether d passes a tolerance on MaxRel, with no NaN mismatch.
func (d Diff) OK(tol float64) bool { return d.NaNs == 0 && d.MaxRel <= tol }

func (d Diff) String() string {
	s := fmt.Sprintf("max error %.3g (%.3g of max |expected|), NMSE %.3g", d.MaxAbs, d.MaxRel, d.NMSE)
	if d.NaNs > 0 {
		s += fmt.Sprintf(", %d NaN mismatches", d.NaNs)
	}
	return s
}

// Verdict is one binding's output compared with what was expected.
type Verdict struct {
	Binding Binding
	Diff    Diff
	Err     error // the arrays do not compare: their element counts differ
	Pass    bool  // no Err, and Diff within the tolerance
}

// Check compares the outputs of r with want, by binding number, in
// binding order; tol bounds each Diff's MaxRel.
func (p *Plan) Check(r *Result, want map[int]*Array, tol float64) []Verdict {
	var out []Verdict
	for i, b := range p.Shader.Module.Bindings {
		exp, ok := want[i]
		if !ok || i >= len(r.Outputs) {
			continue
		}
		d, err := Compare(r.Outputs[i], exp)
		out = append(out, Verdict{Binding: b, Diff: d, Err: err, Pass: err == nil && d.OK(tol)})
	}
	return out
}

// Worst is the verdict's Diff of the largest MaxRel (the zero Diff for
// none).
func Worst(vs []Verdict) Diff {
	var w Diff
	for _, v := range vs {
		if v.Diff.MaxRel > w.MaxRel {
			w = v.Diff
		}
	}
	return w
}

// Written is what r holds of the bindings the shader may write (all but
// the readonly ones), by binding number: the reference to Check another
// run, on another device or of another shader, against.
func (p *Plan) Written(r *Result) map[int]*Array {
	out := map[int]*Array{}
	for i, b := range p.Shader.Module.Bindings {
		if !b.ReadOnly && i < len(r.Outputs) {
			out[i] = r.Outputs[i]
		}
	}
	return out
}
