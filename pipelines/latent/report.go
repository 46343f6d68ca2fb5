package latent

// The report of a run: the statistics' names, the spread of every result
// (the rows of vkstat latent's summary table) and summary.json's content,
// built here so that every caller reports a run alike.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vkstat/vkstat/internal/vec"
	"github.com/vkstat/vkstat/tensor"
)

// StatNames are the statistics Options.Select takes, in order.
var StatNames = []string{"moments", "corr", "corr-frames", "lagcorr", "pca", "spectra"}

// Select sets the statistics of o to those named (StatNames; "all" for
// every one) and clears the others.
func (o *Options) Select(names []string) error {
	if len(names) == 1 && names[0] == "all" {
		names = StatNames
	}
	for _, n := range names {
		if !slices.Contains(StatNames, n) {
			return fmt.Errorf("unknown %q; want %s, or all", n, strings.Join(StatNames, ", "))
		}
	}
	o.Moments, o.Corr, o.CorrFrames = slices.Contains(names, "moments"), slices.Contains(names, "corr"), slices.Contains(names, "corr-frames")
	o.LagCorr, o.PCA, o.Spectra = slices.Contains(names, "lagcorr"), slices.Contains(names, "pca"), slices.Contains(names, "spectra")
	return nil
}

// Stats names the statistics o selects, in StatNames' order.
func (o Options) Stats() []string {
	var out []string
	for i, on := range []bool{o.Moments, o.Corr, o.CorrFrames, o.LagCorr, o.PCA, o.Spectra} {
		if on {
			out = append(out, StatNames[i])
		}
	}
	return out
}

// MomentCount is how many values each moment of a tensor of shape reduces
// over axes (negative from the end; axes out of range count 1): var and
// std are NaN when it is not more than the ddof.
func MomentCount(shape, axes []int) int {
	n := 1
	for _, a := range axes {
		if a < 0 {
			a += len(shape)
		}
		if a >= 0 && a < len(shape) {
			n *= shape[a]
		}
	}
	return n
}

// Spread is the minimum, median and maximum of an array's non-NaN values,
// and how many of its N values are NaN.
type Spread struct {
	Min, Median, Max float64
	NaN, N           int
}

// SpreadOf is v's Spread (v is left as it is).
func SpreadOf(v []float64) Spread {
	fin := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			fin = append(fin, x)
		}
	}
	s := Spread{NaN: len(v) - len(fin), N: len(v), Min: math.NaN(), Median: math.NaN(), Max: math.NaN()}
	if len(fin) == 0 {
		return s
	}
	s.Min, s.Max = slices.Min(fin), slices.Max(fin)
	// Selection rather than a sort: the table summarises arrays of
	// millions of values (moments over the frames: one per pixel).
	h := len(fin) / 2
	s.Median = vec.SelectNth(fin, h)
	if len(fin)%2 == 0 {
		s.Median = (slices.Max(fin[:h]) + s.Median) / 2 // fin[:h] holds the h smallest
	}
	return s
}

// offDiagonal returns the off-diagonal entries of (…, c, c) matrices.
func offDiagonal(t *tensor.Tensor, c int) []float64 {
	var out []float64
	for i, v := range t.F64 {
		if r, q := i/c%c, i%c; r != q {
			out = append(out, v)
		}
	}
	return out
}

// column returns the values v[k], v[k+c], v[k+2c], … (column k of rows
// of c values).
func column(v []float64, c, k int) []float64 {
	out := make([]float64, 0, len(v)/c)
	for i := k; i < len(v); i += c {
		out = append(out, v[i])
	}
	return out
}

// Row is one line of the summary table: what a result holds, its shape
// and the spread of its values.
type Row struct {
	Label  string
	Shape  []int
	Spread Spread
}

// Rows are the summary table's rows for a run on a tensor of shape: each
// array of Arrays with its spread, correlation matrices by their
// off-diagonal entries, the lagged correlation lag by lag, and the PCA's
// first eigenvalue and its ratios and cumulative ratios (all components
// when C <= 8, else 1..4 and C) over the samples.
func (r *Result) Rows(shape []int) []Row {
	var rows []Row
	row := func(label string, shape []int, v []float64) { rows = append(rows, Row{label, shape, SpreadOf(v)}) }
	d, _ := DimsOf(shape)
	for _, a := range r.Arrays() {
		switch a.Name {
		case "corr", "corr_frames":
			row(a.Name+" (off-diagonal)", a.T.Shape, offDiagonal(a.T, d.C))
		case "frame_corr":
			row(a.Name+" (off-diagonal)", a.T.Shape, offDiagonal(a.T, d.F))
		case "pca_values":
			r.PCA.rows(row, d.N, d.C)
		case "pca_ratio", "pca_vectors":
		case "lagcorr":
			lags := a.T.Shape[2]
			for l := 1; l <= lags; l++ {
				row(fmt.Sprintf("lagcorr lag %d", l), []int{d.N, d.C}, column(a.T.F64, lags, l-1))
			}
		default:
			label := a.Name
			if a.Name == "mean" {
				label = fmt.Sprintf("mean over axes %v", r.Moments.Axes)
			}
			row(label, a.T.Shape, a.T.F64)
		}
	}
	return rows
}

// rows adds the PCA's rows of the summary table (Result.Rows).
func (p *PCA) rows(row func(string, []int, []float64), n, c int) {
	shown := []int{}
	if c < 2 {
		shown = append(shown, 1) // no cumulative rows
	}
	for k := 1; k <= c; k++ {
		if c <= 8 || k <= 4 || k == c {
			shown = append(shown, k)
		}
	}
	row("pca λ1", []int{n}, column(p.Values.F64, c, 0))
	for _, k := range shown {
		row(fmt.Sprintf("pca ratio PC%d", k), []int{n}, column(p.Ratio.F64, c, k-1))
	}
	for _, k := range shown[1:] {
		cum := make([]float64, n)
		for s := range n {
			for i := range k {
				cum[s] += p.Ratio.F64[s*c+i]
			}
		}
		row(fmt.Sprintf("pca cumulative PC1..%d", k), []int{n}, cum)
	}
}

// BatchSummary is how the samples were batched (Plan), as summary.json's
// "batches" says it.
type BatchSummary struct {
	Auto              bool    `json:"auto"`
	Batch             int     `json:"batch"`
	Batches           int     `json:"batches"`
	BudgetBytes       int64   `json:"budget_bytes"`
	BudgetSource      string  `json:"budget_source"`
	Fit               int     `json:"fit"`
	Margin            float64 `json:"margin"`
	SampleBytesDevice int64   `json:"sample_bytes_device"`
	SampleBytesHost   int64   `json:"sample_bytes_host"`
}

// Summary is p's BatchSummary.
func (p Plan) Summary() BatchSummary {
	return BatchSummary{Batch: p.Batch, Batches: p.Batches, Auto: p.Auto, Fit: p.Fit, BudgetBytes: p.Budget.Bytes,
		BudgetSource: p.Budget.Source, SampleBytesDevice: p.Footprint.Device, SampleBytesHost: p.Footprint.Host, Margin: p.Margin}
}

// jsonNum is a float64 for JSON, null for NaN and ±Inf.
func jsonNum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func jsonNums(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = jsonNum(x)
	}
	return out
}

func jsonSpread(v []float64) map[string]any {
	s := SpreadOf(v)
	return map[string]any{"min": jsonNum(s.Min), "median": jsonNum(s.Median), "max": jsonNum(s.Max), "nan": s.NaN, "count": s.N}
}

// Summary is the run's part of vkstat latent's summary.json, for a tensor
// of shape under opt: the NaN policy and counts, the notes, the batches,
// each result's shape and spread, the mean channel correlation matrix and
// the mean lagged correlation by lag, the PCA's and the spectra's
// summaries. NaN and ±Inf are nil (JSON null). The caller adds what it
// knows of the input, the device and the files.
func (r *Result) Summary(shape []int, opt Options) map[string]any {
	d, _ := DimsOf(shape)
	out := map[string]any{
		"nan_policy": opt.NaN.String(),
		"nans":       r.NaNs,
		"infs":       r.Infs,
		"notes":      append([]string{}, r.Notes...),
		"batches":    r.Plan.Summary(),
	}
	if m := r.Moments; m != nil {
		ms := map[string]any{"axes": m.Axes, "shape": m.Shape, "ddof": opt.DDof}
		for _, a := range (&Result{Moments: m}).Arrays() {
			ms[a.Name] = jsonSpread(a.T.F64)
		}
		out["moments"] = ms
	}
	if r.Corr != nil {
		out["corr"] = map[string]any{"shape": r.Corr.Shape, "off_diagonal": jsonSpread(offDiagonal(r.Corr, d.C)),
			"mean_over_samples": jsonNums(r.MeanCorr().F64)}
	}
	if r.CorrFrames != nil {
		out["corr_frames"] = map[string]any{"shape": r.CorrFrames.Shape, "off_diagonal": jsonSpread(offDiagonal(r.CorrFrames, d.C))}
	}
	if r.LagCorr != nil {
		out["lagcorr"] = map[string]any{"shape": r.LagCorr.Shape, "lags": r.LagCorr.Shape[2], "mean_by_lag": jsonNums(r.LagMeans()),
			"frame_corr_shape": r.FrameCorr.Shape}
	}
	if p := r.PCA; p != nil {
		ratio, cum := p.MeanRatio()
		out["pca"] = map[string]any{"shape": p.Values.Shape, "features": "channels", "observations": "frames × pixels", "ddof": 1,
			"mean_ratio": jsonNums(ratio), "mean_cumulative": jsonNums(cum)}
	}
	if sp := r.Spectra; sp != nil {
		sum := map[string]any{
			"conventions": "P = |FFT2(x - mean)|^2/(H*W)^2 per frame; radial bin k = round(min(H,W)*|f|), f in cycles per pixel (numpy fftfreq); " +
				"temporal one-sided, summing to the variance; centroid in cycles per sample; highfrac = energy above 1/4 cycle per sample",
			"spatial_slope_by_channel": jsonNums(channelSlopes(sp)),
			"radial_bins":              sp.Spatial.Shape[2],
			"radial_bin_mean_radius":   jsonNums(sp.Radius),
		}
		for _, a := range (&Result{Spectra: sp}).Arrays() {
			sum[a.Name] = map[string]any{"shape": a.T.Shape, "spread": jsonSpread(a.T.F64)}
		}
		out["spectra"] = sum
	}
	return out
}

// channelSlopes are each channel's slope of its radial spectrum averaged
// over the samples (Spectra.ChannelSlope).
func channelSlopes(s *Spectra) []float64 {
	out := make([]float64, s.Spatial.Shape[1])
	for c := range out {
		out[c] = s.ChannelSlope(c)
	}
	return out
}
