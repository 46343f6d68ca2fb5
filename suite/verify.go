package suite

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// Errors measure how far one output is from its reference (checks.Errors).
type Errors = checks.Errors

// Compare measures got against want (checks.Compare). It returns an error
// when the output is missing or the lengths differ.
func Compare(got *tensor.Tensor, want []float64) (Errors, error) {
	switch {
	case got == nil:
		return Errors{Worst: -1}, checks.ErrNoOutput
	case got.Len() != len(want):
		return Errors{Worst: -1}, fmt.Errorf("output has %d values, the reference %d", got.Len(), len(want))
	case len(got.F32)+len(got.F64) != got.Len():
		return Errors{Worst: -1}, fmt.Errorf("output of shape %s holds %d values", tensor.ShapeString(got.Shape), len(got.F32)+len(got.F64))
	case got.DType == tensor.F64:
		return checks.Compare(got.F64, want)
	}
	return checks.Compare(got.F32, want)
}

// Status is the outcome of one verify row.
type Status string

// The outcomes.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one row of a verify report: one operation, case and precision
// on one device.
type Result struct {
	Op        string  `json:"op"`
	Case      string  `json:"case"`
	Shape     []int   `json:"shape"`
	Precision string  `json:"precision"`
	Status    Status  `json:"status"`
	MaxErr    float64 `json:"max_err"`
	NMSE      float64 `json:"nmse"`
	Tol       Tol     `json:"tol"`
	// Output names the output with the largest error, Detail what
	// failed or why the row was skipped.
	Output  string  `json:"output,omitempty"`
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Key identifies a row across reports and devices.
func (r Result) Key() string { return r.Op + " " + r.Case + " " + r.Precision }

// Prepared is a case's inputs in one precision with their reference, built
// once and checked on every device.
type Prepared struct {
	Op    Op
	Case  Case
	DType tensor.DType
	In    []*tensor.Tensor
	Ref   []RefOutput
	Err   error // building the reference failed
}

// Prepare builds the inputs of c in dt and their float64 reference.
func Prepare(op Op, c Case, dt tensor.DType) *Prepared {
	p := &Prepared{Op: op, Case: c, DType: dt, In: op.Build(c, dt)}
	p.Ref, p.Err = op.Reference(c, p.In)
	return p
}

// Verify runs p on dev (nil: the CPU path) and compares every output with
// the reference against the operation's tolerance.
func (p *Prepared) Verify(ctx context.Context, dev *engine.Device) Result {
	return p.verify(ctx, dev, p.Op.Tol[p.DType])
}

// verify is Verify against tol.
func (p *Prepared) verify(ctx context.Context, dev *engine.Device, tol Tol) Result {
	r := Result{Op: p.Op.Name, Case: p.Case.Label(), Shape: p.Case.Shape, Precision: p.DType.String(), Tol: tol}
	if why := p.Op.Skip(dev, p.DType); why != "" {
		r.Status, r.Detail = Skip, why
		return r
	}
	fail := func(format string, args ...any) Result {
		r.Status, r.Detail = Fail, fmt.Sprintf(format, args...)
		return r
	}
	if p.Err != nil {
		return fail("reference: %v", p.Err)
	}
	t0 := time.Now()
	out, _, err := p.Op.Run(ctx, dev, p.Case, p.In)
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return fail("%v", err)
	}
	if len(out) != len(p.Ref) {
		return fail("%d outputs, the reference has %d", len(out), len(p.Ref))
	}
	worst := -1.0
	for i, o := range out {
		want := p.DType
		if want.Is16() { // 16-bit storage computes in float32
			want = tensor.F32
		}
		if o.T != nil && o.T.DType != want {
			return fail("%s is %s, want %s", o.Name, o.T.DType, want)
		}
		e, err := Compare(o.T, p.Ref[i].V)
		if err != nil {
			return fail("%s: %v", o.Name, err)
		}
		// Rank outputs by how far past tolerance they are.
		score := math.Max(e.MaxErr/tolOr1(r.Tol.MaxErr), e.NMSE/tolOr1(r.Tol.NMSE))
		if e.Mismatches > 0 {
			score = math.Inf(1)
		}
		r.MaxErr = math.Max(r.MaxErr, e.MaxErr)
		r.NMSE = math.Max(r.NMSE, e.NMSE)
		if score <= worst {
			continue
		}
		worst = score
		r.Output = o.Name
		switch {
		case e.Mismatches > 0:
			r.Detail = fmt.Sprintf("%d NaN/Inf mismatch(es), first %s[%d]: got %.9g want %.9g", e.Mismatches, o.Name, e.Worst, e.Got, e.Want)
		case e.Worst >= 0:
			r.Detail = fmt.Sprintf("worst %s[%d]: got %.9g want %.9g", o.Name, e.Worst, e.Got, e.Want)
		default:
			r.Detail = ""
		}
	}
	r.Status = Pass
	var why []string
	if r.MaxErr > r.Tol.MaxErr {
		why = append(why, fmt.Sprintf("max err %.2e > %.0e", r.MaxErr, r.Tol.MaxErr))
	}
	if r.NMSE > r.Tol.NMSE {
		why = append(why, fmt.Sprintf("NMSE %.2e > %.0e", r.NMSE, r.Tol.NMSE))
	}
	switch {
	case math.IsInf(worst, 1):
		r.Status = Fail
	case len(why) > 0:
		r.Status = Fail
		r.Detail = strings.Join(why, ", ") + "; " + r.Detail
	default:
		r.Detail = ""
	}
	return r
}

func tolOr1(t float64) float64 {
	if t > 0 {
		return t
	}
	return 1
}
