package capi

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// latentCall are a latent call's parameters beside latent's own
// (latent.Params: axes, a list, null or absent −2, −1; ddof; lags, 0
// min(3, F−1); nan, propagate or skip; batch, 0 as many samples as fit
// the device's memory budget).
type latentCall struct {
	// Stats are names from latent.StatNames, or "all".
	Stats []string `json:"stats"`
	// Bias false corrects skew and kurt (SciPy's bias=False); null: true.
	Bias *bool `json:"bias"`
	// Precision is the storage type of the work (f16, bf16, f32, f64 or
	// NumPy's names); "" or auto: the input's own.
	Precision string `json:"precision"`
}

// latentTypes are the types latent operations' parameters decode into,
// by the type of the operation's own (latentDecode).
var latentTypes sync.Map

// latentDecode decodes a latent operation's parameters: latent's
// (latent.Params) into what it returns for latentWork, latentCall's, and
// the operation's own into extra (a pointer to a struct of them, or nil).
func latentDecode(c *Call, extra any) (reflect.Value, latentCall, error) {
	var p latentCall
	extras := []any{&p}
	if extra != nil {
		extras = append(extras, extra)
	}
	key := reflect.TypeOf(extra)
	t, ok := latentTypes.Load(key)
	if !ok {
		var zeros []any
		for _, x := range extras {
			zeros = append(zeros, reflect.ValueOf(x).Elem().Interface())
		}
		t, _ = latentTypes.LoadOrStore(key, paramsType(latent.Params(), extraFields(zeros...)...))
	}
	v, err := decodeCall(c, t.(reflect.Type), latent.Params(), extras...)
	return v, p, err
}

// LatentInfo is latent's Info: what vkstat latent prints and writes in
// summary.json besides its arrays, where that is data. The summary's
// vectors (the mean channel correlation, the mean lagged correlation, the
// PCA's mean ratios, the spectra's bin radii) are outputs, since they may
// hold NaN, which JSON cannot.
type LatentInfo struct {
	// Arrays names the outputs that are vkstat latent's files, in its
	// order (latent.Result.Arrays); the other outputs are summaries.
	Arrays []string `json:"arrays"`
	// Shape and DType of the input; ComputedAs is the storage of the work.
	Shape      []int  `json:"shape"`
	DType      string `json:"dtype"`
	ComputedAs string `json:"computed_as"`
	NaNPolicy  string `json:"nan_policy"`
	// NaNs and Infs count the input's NaN and ±Inf values.
	NaNs  int      `json:"nans"`
	Infs  int      `json:"infs"`
	Notes []string `json:"notes"`
	// Axes are the moments' reduced axes, sorted and non-negative; Lags
	// the lagged correlation's lags (0 without them).
	Axes []int `json:"axes,omitempty"`
	DDof int   `json:"ddof"`
	Lags int   `json:"lags"`
	// Batches is how the samples were batched.
	Batches latent.BatchSummary `json:"batches"`
}

// transposeMatrices is t, float64 (..., C, C), with each C×C matrix
// transposed.
func transposeMatrices(t *tensor.Tensor) *tensor.Tensor {
	c := t.Shape[len(t.Shape)-1]
	out := tensor.New(tensor.F64, t.Shape...)
	for m := 0; m+c*c <= len(t.F64); m += c * c {
		for i := range c {
			for j := range c {
				out.F64[m+j*c+i] = t.F64[m+i*c+j]
			}
		}
	}
	return out
}

// runLatent runs latent.Run on array x, (N, C, F, H, W) or (N, C, H, W)
// (any shape for moments alone) of float16, bfloat16, float32 or float64,
// read where it lies. Its outputs are latent.Result.Arrays (float64, but
// the moments float32 unless computed in float64, as NumPy's mean and
// SciPy's skew of float32 are float32; named as vkstat latent's files, but pca_vectors given as
// pca_components, each matrix transposed), then the summary vectors mean_corr
// (C, C), lag_means (L), pca_mean_ratio and pca_mean_cumulative (C) and
// radial_bin_radius (K), those computed.
func runLatent(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	v, p, err := latentDecode(c, nil)
	if err != nil {
		return nil, err
	}
	x, err := c.Tensor("x", Floats16...)
	if err != nil {
		return nil, err
	}
	opt, err := latentWork(v, p, x.Shape, x.DType)
	if err != nil {
		return nil, err
	}
	res := c.Result()
	for _, w := range opt.Warnings(x.Shape) {
		res.Warnings = append(res.Warnings, w.Words(latentSetting))
	}
	r, err := latent.Run(ctx, dev, x, opt)
	if err != nil {
		return nil, latentRunError(err)
	}
	return latentResult(res, r, opt, x.Shape, x.DType).timed(r.Timing), nil
}

// latentWork is latentOptions for an array of shape and type dt, with the storage type of the work
// that p's precision says.
func latentWork(v reflect.Value, p latentCall, shape []int, dt tensor.DType) (latent.Options, error) {
	opt, err := latentOptions(v, p, shape)
	if err != nil {
		return opt, err
	}
	opt.DType = dt
	if p.Precision != "" && p.Precision != "auto" {
		if opt.DType, err = tensor.ParseDType(p.Precision); err != nil {
			return opt, inputf("precision %q: want auto, float16, bfloat16, float32 or float64 (f16, bf16, f32, f64)", p.Precision)
		}
		opt.Convert = opt.DType != dt
	}
	return opt, nil
}

// latentRunError is err, a MemoryError being the input's.
func latentRunError(err error) error {
	var me *latent.MemoryError
	if errors.As(err, &me) {
		return InputError{err} // the input's size, not the device's fault
	}
	return err
}

// latentResult puts r, latent's results for an input of shape and dtype
// under opt, in res: its arrays and summary vectors, and the Info.
func latentResult(res *Result, r *latent.Result, opt latent.Options, shape []int, dtype tensor.DType) *Result {
	info := &LatentInfo{Shape: nonNil(shape), DType: dtype.String(), ComputedAs: opt.DType.String(), NaNPolicy: opt.NaN.String(),
		NaNs: r.NaNs, Infs: r.Infs, Notes: append([]string{}, r.Notes...), DDof: opt.DDof}
	for _, a := range r.Arrays() {
		if a.Name == "pca_vectors" { // components as rows for Python, as scikit-learn's
			a.Name, a.T = "pca_components", transposeMatrices(a.T)
		}
		if opt.DType != tensor.F64 && slices.Contains(momentNames, a.Name) {
			a.T = a.T.As(tensor.F32)
		}
		res.add(a.Name, a.T)
		info.Arrays = append(info.Arrays, a.Name)
	}
	if m := r.Moments; m != nil {
		info.Axes = m.Axes
	}
	if r.Corr != nil {
		res.add("mean_corr", r.MeanCorr())
	}
	if r.LagCorr != nil {
		lm := r.LagMeans()
		info.Lags = len(lm)
		res.add("lag_means", tensor.FromF64(lm, len(lm)))
	}
	if r.PCA != nil {
		ratio, cum := r.PCA.MeanRatio()
		res.add("pca_mean_ratio", tensor.FromF64(ratio, len(ratio)))
		res.add("pca_mean_cumulative", tensor.FromF64(cum, len(cum)))
	}
	if s := r.Spectra; s != nil {
		res.add("radial_bin_radius", tensor.FromF64(s.Radius, len(s.Radius)))
	}
	info.Batches = r.Plan.Summary()
	res.Info = info
	return res
}

// momentNames are latent's moments, given in the computed precision's
// float type (float32 for float32 and 16-bit work).
var momentNames = []string{"mean", "var", "std", "min", "max", "skew", "kurt"}

// latentSetting names a latent option set to value in a warning, as
// Python's message has it: "ddof 2", the axes as a list ("axes [3 4]").
func latentSetting(field, value string) string {
	if field == "axes" {
		return "axes [" + strings.ReplaceAll(value, ",", " ") + "]"
	}
	return pyName(field) + " " + value
}

// axesError words latent.NormAxes's refusal in Python's terms.
func axesError(err error) error {
	var ae *latent.AxisError
	switch {
	case !errors.As(err, &ae):
		return InputError{err}
	case ae.Twice:
		return inputf("axis %d is given twice", ae.Axis)
	}
	return AxisError{InputError{reduce.AxisError{Axis: ae.Axis, ND: ae.ND}}}
}

// latentOptions turns v and p, a latent call's parameters (latentDecode),
// into latent.Options for a tensor of shape, checking what the library
// would refuse, so that the refusal is the input's (ValueError) on a
// device too.
func latentOptions(v reflect.Value, p latentCall, shape []int) (latent.Options, error) {
	var opt latent.Options
	if err := setParams(v, latent.Params(), &opt); err != nil {
		return opt, err
	}
	if len(p.Stats) == 0 {
		return opt, inputf("stat: nothing named; want %s, or all", strings.Join(latent.StatNames, ", "))
	}
	if err := opt.Select(p.Stats); err != nil {
		return opt, inputf("stat: %v", err)
	}
	opt.Unbiased = p.Bias != nil && !*p.Bias
	if err := opt.Check(); err != nil {
		return opt, inputError(err)
	}
	nd := len(shape)
	if opt.Moments {
		if len(opt.Axes) == 0 {
			opt.Axes = latent.DefaultOptions().Axes
		}
		if _, err := latent.NormAxes(opt.Axes, nd); err != nil {
			return opt, axesError(err)
		}
	}
	if opt.Corr || opt.CorrFrames || opt.LagCorr || opt.PCA || opt.Spectra {
		d, err := latent.DimsOf(shape)
		if err != nil {
			return opt, InputError{err}
		}
		if d.N*d.C*d.F*d.H*d.W == 0 {
			return opt, inputf("x has shape %s: empty", tensor.ShapeString(shape))
		}
		if opt.LagCorr {
			if nd != 5 {
				return opt, inputf("lagcorr needs frames: a 5-d (N, C, F, H, W) array, got shape %s", tensor.ShapeString(shape))
			}
			if d.F < 2 {
				return opt, inputf("lagcorr needs at least 2 frames, got shape %s", tensor.ShapeString(shape))
			}
			if opt.Lags < 0 || opt.Lags >= d.F {
				return opt, inputf("lags must be 1..F−1 = %d, got %d", d.F-1, opt.Lags)
			}
		}
		if opt.Spectra && (d.H < 2 || d.W < 2) {
			return opt, inputf("spectra: frames of %d×%d pixels have no spatial spectrum (want H, W ≥ 2)", d.H, d.W)
		}
	}
	return opt, nil
}
