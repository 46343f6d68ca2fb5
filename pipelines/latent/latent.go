// Package latent computes statistics of ML latent tensors shaped
// (N samples, C channels, F frames, H, W) — or (N, C, H, W), read as one
// frame — batched over every sample, channel and frame at once. It holds
// the whole analysis behind vkstat latent, on arrays in memory:
//
//   - moments over any set of axes: mean, variance, standard deviation,
//     minimum, maximum, skewness and excess kurtosis;
//   - the channel×channel correlation matrix of every sample (over its
//     frames and pixels), and of every sample and frame (over its pixels);
//   - the frame×frame correlation matrix of every sample and channel (over
//     pixels), and from it the lagged temporal correlation at lags 1..L:
//     the mean over f of corr(x[n, c, f], x[n, c, f+l]);
//   - the PCA of every sample, channels as features (PCA);
//   - spatial and temporal power spectra, their centroids, high-frequency
//     fractions and each channel's spectral slope (Spectra, on package
//     spectra).
//
// Run takes a tensor in memory and Options saying what to compute, on a
// Vulkan device or on the CPU (dev nil), and returns a Result of float64
// tensors (Result.Arrays lists them by name). The samples go through in
// batches sized by the memory budgets (PlanBatches); RunSource takes a
// Source instead, a function that reads samples [lo, hi), and reads the
// next batch while one computes, so that a tensor larger than memory can
// stream from a file. Per-sample results are joined along the samples and
// moments over axes that include the sample axis are merged exactly
// (MergeMoments). RunPartial and Merge do the same for shards of samples
// run apart, RunBlock and MergeBlocks for chunks that cut the samples
// (Block: the moments' and co-moments' float64 state). The context's Progress (engine.WithProgress) hears of
// each batch; the context cancels the run.
//
// Moments reuse package reduce and correlations package cov (the batched
// covariance kernels): moments over one run of consecutive axes read the
// tensor where it lies, as (outer, n, inner); over other axis sets it is
// permuted on the host so that the reduced axes are contiguous;
// the correlations hand it to package cov as it lies, as strided sample
// sets (cov.Strided), copying only the sets that hold a NaN or ±Inf. Reference computes
// the moments and correlations again in plain float64 loops over the
// original layout, sharing no code with either path (PCAReference and
// spectra.Reference the rest); the tests hold both paths to them.
//
// See docs/latent.md for the formulas, the NaN and zero-variance rules, the
// batches and the error bounds.
package latent

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// NaNPolicy says what a NaN in the input does; ±Inf is treated as NaN
// everywhere (a moment or correlation over an infinite value is not
// meaningful, and the device's merged partial sums cannot keep an Inf
// mean apart from a NaN one).
type NaNPolicy int

const (
	// Propagate makes every statistic a NaN touches NaN: all the moments of
	// its slice (min and max too, as package reduce does), the correlations
	// of its variable (row and column) in its set.
	Propagate NaNPolicy = iota
	// Skip leaves NaNs out: moments over the remaining values (NumPy's
	// nanmean, nanvar), correlations over the samples (pixels) at which no
	// variable of the set is NaN (listwise deletion, so every pair of a
	// matrix uses the same samples).
	Skip
)

// ParseNaNPolicy accepts skip and propagate.
func ParseNaNPolicy(s string) (NaNPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "propagate", "":
		return Propagate, nil
	case "skip":
		return Skip, nil
	}
	return 0, fmt.Errorf("unknown NaN policy %q (want skip or propagate)", s)
}

func (p NaNPolicy) String() string {
	if p == Skip {
		return "skip"
	}
	return "propagate"
}

// Options says what Run computes and how. The zero value computes
// nothing: start from DefaultOptions, what the front ends compute unless
// told, or ask for at least one statistic. Check refuses what no run can
// use, as an *engine.FieldError naming the parameter (the `param` tags).
type Options struct {
	// Moments over Axes (negative counts from the end, as in NumPy), with
	// variance M2/(n−DDof).
	Moments bool
	Axes    []int `param:"axes" kind:"text" help:"axes the moments reduce, comma-separated (NumPy numbering)"`
	DDof    int   `param:"ddof" help:"delta degrees of freedom of var and std"`
	// Corr: the channel×channel correlation of every sample (N, C, C).
	Corr bool
	// CorrFrames: the channel×channel correlation of every sample and frame
	// (N, F, C, C).
	CorrFrames bool
	// LagCorr: the frame×frame correlation of every sample and channel
	// (N, C, F, F) and the lagged correlation (N, C, Lags). Lags 0: min(3,
	// F−1), at least 1.
	LagCorr bool
	Lags    int `param:"lags" default:"min(3, F−1)" help:"lags of lagcorr: 1..L"`
	// PCA: the principal components of every sample, channels as features
	// (runPCA).
	PCA bool
	// Spectra: the spatial and temporal power spectra of every sample and
	// channel and their summaries (Spectra).
	Spectra bool
	// NaN says what a NaN or ±Inf does: Propagate (the zero value) or
	// Skip.
	NaN NaNPolicy `param:"nan" choices:"propagate,skip" help:"NaN and ±Inf: propagate or skip"`
	// Unbiased corrects the skewness and kurtosis for bias, as
	// scipy.stats.skew and kurtosis with bias=False (skewKurt).
	Unbiased bool

	// Convert, when set, stores each batch as DType (tensor.F16, BF16, F32
	// or F64) for the work, rounding or widening it on the host; unset, the
	// work is done in the input's own type.
	Convert bool
	DType   tensor.DType
	// Batch is the number of samples read and computed at once; 0 takes
	// as many as fit BatchMargin of the memory budgets (PlanBatches).
	Batch int `param:"batch" help:"samples per batch; 0: as many as fit the memory budget (see vkstat devices)"`
	// HostBudget is the host memory the batches may plan on (the input
	// batches, their copies and the results); Bytes 0: no bound.
	HostBudget engine.MemoryBudget
	// Plan, when set, is the batches to run (PlanBatches, made before the
	// run to word its warnings); nil: RunSource makes it.
	Plan *Plan
}

// DefaultOptions are what the front ends compute unless told: the moments
// over the last two axes (H, W) and the channel correlation, NaNs
// propagated, batches sized by memory.
func DefaultOptions() Options { return Options{Moments: true, Corr: true, Axes: []int{-2, -1}} }

// Params describe the options every front end takes (engine.Describe),
// with DefaultOptions' defaults: the statistics (Select) and Unbiased
// (Python's bias) are the front ends' own.
func Params() []engine.Param { return engine.Describe(DefaultOptions()) }

// SetText reads the axes (ParseAxes; engine.TextSetter).
func (o *Options) SetText(param, text string) (bool, error) {
	if param != "axes" {
		return false, nil
	}
	axes, err := ParseAxes(text)
	if err == nil {
		o.Axes = axes
	}
	return true, err
}

// ParseAxes reads axes, integers comma-separated (NumPy numbering), as
// the front ends take them: "3,4"; anything else, or none, is an
// *engine.FieldError naming axes.
func ParseAxes(text string) ([]int, error) {
	var axes []int
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		if f == "" && strings.TrimSpace(text) != "" {
			return nil, engine.Fieldf("axes", " %q: an empty axis between commas", text)
		}
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, engine.Fieldf("axes", " %q: %q is not an integer", text, f)
		}
		axes = append(axes, n)
	}
	if len(axes) == 0 {
		return nil, engine.Fieldf("axes", ": no axis given")
	}
	return axes, nil
}

// UnmarshalText reads a NaN policy's name (ParseNaNPolicy).
func (p *NaNPolicy) UnmarshalText(b []byte) error {
	v, err := ParseNaNPolicy(string(b))
	if err == nil {
		*p = v
	}
	return err
}

// Defaults are DefaultOptions by parameter name (engine.Defaults), "stat"
// the statistics' names (Stats).
func Defaults() map[string]any {
	d := DefaultOptions()
	m := engine.Defaults(d)
	m["stat"] = d.Stats()
	return m
}

// Check refuses a negative ddof, lags or batch.
func (o Options) Check() error {
	if err := engine.AtLeast("ddof", o.DDof, 0); err != nil {
		return err
	}
	if o.Lags < 0 {
		return engine.Fieldf("lags", " must be 1 or more (0: min(3, F−1)), got %d", o.Lags)
	}
	if o.Batch < 0 {
		return engine.Fieldf("batch", " must be 0 (sized by memory) or a number of samples, got %d", o.Batch)
	}
	return nil
}

// Moments are the moments over the requested axes, each of shape Shape
// (the input's shape without those axes), in float64.
type Moments struct {
	Axes                                 []int // the reduced axes, sorted, non-negative
	Shape                                []int
	Mean, Var, Std, Min, Max, Skew, Kurt *tensor.Tensor
}

// Run computes what opt asks for x, a latent tensor (N, C, F, H, W) or
// (N, C, H, W) in memory (any shape for moments alone), on dev, or on the
// CPU when dev is nil: its samples in batches as PlanBatches sizes them
// (RunSource).
func Run(ctx context.Context, dev *engine.Device, x *tensor.Tensor, opt Options) (*Result, error) {
	if x == nil {
		return nil, fmt.Errorf("latent: nil tensor")
	}
	if !x.HasData() {
		return nil, fmt.Errorf("latent: tensor of shape %s has the wrong number of values", tensor.ShapeString(x.Shape))
	}
	return RunSource(ctx, dev, TensorSource(x), opt)
}

// Result holds what the Options asked for (nil for the rest), in float64.
type Result struct {
	Moments    *Moments
	Corr       *tensor.Tensor // (N, C, C)
	CorrFrames *tensor.Tensor // (N, F, C, C)
	FrameCorr  *tensor.Tensor // (N, C, F, F)
	LagCorr    *tensor.Tensor // (N, C, Lags)
	PCA        *PCA
	Spectra    *Spectra
	// NaNs and Infs count the NaN and ±Inf elements of the input.
	NaNs, Infs int
	// Notes say which correlations are NaN and why: variables that are
	// constant (zero variance), sets left with fewer than 2 samples; and
	// the same for the PCA ("pca: ...") and the spectra ("spectra: ...").
	Notes []string
	// Timing adds up the device runs (or the CPU's time).
	Timing engine.Timing
	// Plan is how the samples were batched (Run, RunSource).
	Plan Plan
	// Read is the time spent reading batches from the Source, overlapped
	// with computing after the first.
	Read time.Duration
}

// Dims is the (N, C, F, H, W) view of a latent tensor's shape.
type Dims struct{ N, C, F, H, W int }

// DimsOf checks shape: (N, C, F, H, W), or (N, C, H, W) with F = 1.
func DimsOf(shape []int) (Dims, error) {
	switch len(shape) {
	case 5:
		return Dims{shape[0], shape[1], shape[2], shape[3], shape[4]}, nil
	case 4:
		return Dims{shape[0], shape[1], 1, shape[2], shape[3]}, nil
	}
	return Dims{}, fmt.Errorf("latent: want a 5-d (N, C, F, H, W) or 4-d (N, C, H, W) tensor, got shape %s", tensor.ShapeString(shape))
}

// check validates the moments and correlations asked for against x.
func (r Options) check(x *tensor.Tensor) (Dims, []int, error) {
	if x == nil {
		return Dims{}, nil, fmt.Errorf("latent: nil tensor")
	}
	if !x.HasData() {
		return Dims{}, nil, fmt.Errorf("latent: tensor of shape %s has the wrong number of values", tensor.ShapeString(x.Shape))
	}
	if !r.Moments && !r.Corr && !r.CorrFrames && !r.LagCorr {
		return Dims{}, nil, fmt.Errorf("latent: nothing to compute")
	}
	var axes []int
	if r.Moments {
		var err error
		if axes, err = NormAxes(r.Axes, len(x.Shape)); err != nil {
			return Dims{}, nil, err
		}
		if r.DDof < 0 {
			return Dims{}, nil, fmt.Errorf("latent: ddof must be 0 or more, got %d", r.DDof)
		}
	}
	var d Dims
	if r.Corr || r.CorrFrames || r.LagCorr {
		var err error
		if d, err = DimsOf(x.Shape); err != nil {
			return d, nil, err
		}
		if d.N*d.C*d.F*d.H*d.W == 0 {
			return d, nil, fmt.Errorf("latent: empty tensor of shape %s", tensor.ShapeString(x.Shape))
		}
	}
	if r.LagCorr {
		if len(x.Shape) != 5 {
			return d, nil, fmt.Errorf("latent: lagged correlation needs frames: a 5-d (N, C, F, H, W) tensor, got shape %s", tensor.ShapeString(x.Shape))
		}
		if r.Lags < 1 || r.Lags >= d.F {
			return d, nil, fmt.Errorf("latent: lags must be 1..F−1 = %d, got %d", d.F-1, r.Lags)
		}
	}
	return d, axes, nil
}

// countNonFinite counts the NaNs and the ±Infs of x, on every core.
func countNonFinite(x *tensor.Tensor) (nans, infs int) {
	var mu sync.Mutex
	count := func(n, i int) {
		mu.Lock()
		nans, infs = nans+n, infs+i
		mu.Unlock()
	}
	const grain = 1 << 20
	switch {
	case x.DType.Is16():
		// All exponent bits set: ±Inf with a zero mantissa, else NaN.
		exp, mant := uint16(0x7c00), uint16(0x03ff)
		if x.DType == tensor.BF16 {
			exp, mant = 0x7f80, 0x007f
		}
		par.Range(len(x.U16), grain, func(lo, hi int) {
			n, i := 0, 0
			for _, h := range x.U16[lo:hi] {
				if h&exp == exp {
					if h&mant != 0 {
						n++
					} else {
						i++
					}
				}
			}
			count(n, i)
		})
	case x.DType == tensor.F64:
		par.Range(len(x.F64), grain, func(lo, hi int) { count(countNF(x.F64[lo:hi])) })
	default:
		par.Range(len(x.F32), grain, func(lo, hi int) { count(countNF(x.F32[lo:hi])) })
	}
	return nans, infs
}

func countNF[T float](v []T) (nans, infs int) {
	for _, x := range v {
		if x-x != 0 {
			if x != x {
				nans++
			} else {
				infs++
			}
		}
	}
	return
}

// maxNotes bounds the notes of one kind that are listed one by one.
const maxNotes = 8

// noteList words a note about many items: the first few, then a count.
func noteList(what string, items []string) string {
	if len(items) <= maxNotes {
		return what + ": " + strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s: %s; ... (%d in all)", what, strings.Join(items[:maxNotes], "; "), len(items))
}
