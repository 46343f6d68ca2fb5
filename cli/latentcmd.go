package cli

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/partials"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

func latentCommand() *ucli.Command {
	d, params := latent.DefaultOptions(), paramFlags(latent.Params())
	return &ucli.Command{
		Name:      "latent",
		Usage:     "statistics of ML latent tensors (N, C, F, H, W): moments over any axes, channel and lagged frame correlations",
		UsageText: "vkstat [global options] latent --in X.npy|X.safetensors [--tensor NAME] [--stat moments,corr,corr-frames,lagcorr,pca,spectra|all] [--axes 3,4] [--lags 3] [--nan skip|propagate] [--batch N] --out-dir DIR",
		Description: `Reads a latent tensor — (N samples, C channels, F frames, H, W), or (N, C, H, W)
as one frame — from NumPy (.npy: float16, bfloat16 as ml_dtypes' arrays are
saved ('<V2'), float32, float64) or safetensors (.safetensors: F16, BF16,
F32, F64; --tensor names the tensor, needed when the file holds several),
and computes, batched over every sample, channel and frame at once:

  moments      mean, var, std, min, max, skew, kurt (excess) over --axes
               (NumPy numbering, negative from the end: 3,4 or -2,-1 are
               the spatial axes, giving (N, C, F)); var uses --ddof
  corr         the C×C channel correlation matrix of each sample, over its
               frames and pixels: (N, C, C), as np.corrcoef per sample
  corr-frames  the same per sample and frame, over its pixels: (N, F, C, C)
  lagcorr      the F×F frame correlation matrix of each sample and channel
               over its pixels, (N, C, F, F), and the lagged correlation
               mean_f corr(x[n,c,f], x[n,c,f+l]) for l = 1..--lags: (N, C, L)
  pca          PCA of each sample, channels as features over its frames and
               pixels: the C×C covariance (ddof 1), its eigenvalues
               (pca_values, (N, C), descending), explained-variance ratios
               (pca_ratio) and components as columns (pca_vectors, (N, C, C))
  spectra      power spectra (VkFFT on a device; on the CPU our own FFT
               for powers of two, else gonum): each frame's
               |FFT2(x − mean)|²/(H·W)², radially averaged in integer bins
               of min(H,W)·|f| (f: NumPy's fftfreq) and averaged
               over frames, (N, C, K = min(H,W)/2+1); each pixel's one-sided
               temporal spectrum over frames averaged over pixels,
               (N, C, F/2+1); their centroids (cycles per pixel or frame) and
               the energy fraction above half Nyquist; per channel the
               log-log slope of the radial spectrum; spectra.png

--nan propagate (default): a NaN or ±Inf makes the moments of its slice
NaN, and its channel's (or frame's) row and column of a correlation matrix.
--nan skip: moments leave such values out (as np.nanmean, np.nanvar); a
correlation matrix is computed over the pixels at which no variable of its
set is NaN or ±Inf. A constant channel or frame (zero variance) has NaN
correlations, with a note; nothing fails on it.

The samples are read and computed in batches: --batch 0 (the default)
takes as many as fit 80% of the memory budget (the device's, and the
host's for the input and the copies; vkstat devices shows both) by an
estimate of each statistic's footprint per sample; --batch N takes N. The
next batch is read while one computes (two batches of input in memory at
most). Per-sample results are joined along the samples; moments over axes
that include axis 0 are merged exactly across batches, equal to one batch's
within float rounding (docs/latent.md, "Batches").

--precision (a global option, before "latent") says how the tensor is
stored for the work; the arithmetic is float32 with float64 accumulation
on devices that have it (float32, compensated, on those without) except
under f64:

  auto  the input's own type (default): float16 and bfloat16 inputs stay
        16-bit, float32 and float64 stay as they are
  f16   float16 storage: the device holds half the bytes of float32 for
        moments, corr, corr-frames and lagcorr, and widens each value
        exactly as it reads it; float32 or float64 input is rounded to
        float16 first (to nearest, ties to even)
  bf16  the same with bfloat16
  f32   float32 (16-bit inputs are widened exactly on the host)
  f64   float64 end to end (a device with shaderFloat64)

On a device the spectra read 16-bit data as stored too; the CPU path
widens them. The outputs are float64 files whatever the storage. Moments over
one run of consecutive axes (--axes 2, --axes 1,2, --axes 3,4) read the
tensor where it lies; over other sets (--axes 1,3) it is permuted on the
host (in its storage type) before the work reaches the device; corr,
corr-frames, lagcorr and pca read it where it lies (docs/latent.md).

Writes into --out-dir, all or nothing: <stat>.npy (float64) for each result,
summary.json, summary.txt (the table printed) and, with corr, corr.png: a
heat map of the channel correlation averaged over samples; with pca,
pca.png: the mean explained-variance ratio by component and its cumulative
sum; with spectra, spectra.png: each channel's radial spectrum (mean over
samples), log-log, every panel on one scale, with the fitted slope's line
(and the true one's with --truth T.json of vkstat synth latent). The
pictures are PNG, or SVG or PDF with --plot-format. Under --nan propagate a sample holding a NaN or ±Inf has
a NaN PCA.

Shards: --samples LO:HI computes on samples LO … HI−1 of --in only; with
--partial, latent writes instead the shard's mergeable partial (its
per-sample results, the sums of the moments over axes with axis 0 and the
spectra before their slopes, as float64 arrays, and partial.json), and
vkstat merge makes from the partials of all the shards the outputs one run
over every sample writes (docs/scale.md).

Examples:
   vkstat synth latent --dtype bf16 --out lat.npy --truth truth.json
   vkstat latent --in lat.npy --stat all --out-dir stats/
   vkstat latent --in model_out.safetensors --tensor latents --stat moments,corr --axes 3,4 --out-dir stats/
   vkstat --device gpu latent --in lat.npy --stat lagcorr --lags 3 --nan skip --out-dir stats/
   vkstat latent --in big.npy --stat moments,pca --axes 0,3,4 --batch 64 --out-dir stats/
   vkstat --precision bf16 latent --in lat_f32.npy --stat moments,corr --out-dir stats/
   vkstat --precision f32 latent --in lat_bf16.npy --stat moments --out-dir stats/
   vkstat latent --in big.npy --stat all --axes 0,3,4 --samples 0:500 --partial --out-dir parts/1`,
		// latent's parameters (latent.Params: axes, ddof, lags, nan, then
		// batch after --out-dir).
		Flags: slices.Concat([]ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "the latent tensor: .npy or .safetensors"},
			&ucli.StringFlag{Name: "tensor", Usage: "the tensor's name in a safetensors file"},
			&ucli.StringFlag{Name: "stat", Value: strings.Join(d.Stats(), ","), Usage: "what to compute: moments, corr, corr-frames, lagcorr, pca, spectra, or all"},
		}, params[:4], []ucli.Flag{
			&ucli.BoolFlag{Name: "unbiased", Usage: "skew and kurt corrected for bias, as scipy.stats.skew and kurtosis with bias=False"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the outputs (created if missing)"},
			params[4],
			&ucli.StringFlag{Name: "truth", Usage: "with spectra: a truth.json of vkstat synth latent, whose spatial_slope spectra.png draws beside the fitted one"},
			&ucli.StringFlag{Name: "samples", Usage: "LO:HI: compute on samples LO … HI−1 of --in only (a shard)", DefaultText: "every sample"},
			&ucli.BoolFlag{Name: "partial", Usage: "write the samples' mergeable partial (partial.json and float64 arrays) for vkstat merge instead of the statistics"},
			jsonFlag(),
		}),
		Action: runLatent,
	}
}

// latentPrecision is the storage type of the latent work for an input of
// type dt under --precision p: auto keeps dt (float16 and bfloat16
// included); f16, bf16, f32 and f64 convert to that type.
func latentPrecision(p string, dt tensor.DType) (tensor.DType, error) {
	if p == "" || p == "auto" {
		return dt, nil
	}
	d, err := tensor.ParseDType(p)
	if err != nil {
		return 0, usagef("--precision %q: want auto, f16, bf16, f32 or f64", p)
	}
	return d, nil
}

func runLatent(c *ucli.Context) error {
	start := time.Now()
	if err := requireFlag(c, "in", "out-dir"); err != nil {
		return err
	}
	stats, err := parseList("stat", c.String("stat"), latent.StatNames)
	if err != nil {
		return err
	}
	if len(stats) == 0 {
		return usagef("--stat: nothing named")
	}
	opt := latent.DefaultOptions()
	if err := setParams(c, latent.Params(), &opt); err != nil {
		return err
	}
	opt.Unbiased = c.Bool("unbiased")
	if err := opt.Select(stats); err != nil {
		return err
	}
	if !opt.Moments {
		opt.Axes = nil
	}
	if err := opt.Check(); err != nil {
		return fieldError(err)
	}
	plot, _ := plotFormat(c) // hardenCommand has refused a bad one
	var truthSlope *float64
	if t := c.String("truth"); t != "" {
		if !opt.Spectra {
			return usagef("--truth draws the true slope on spectra.png: it goes with --stat spectra")
		}
		if truthSlope, err = readTruthSlope(t); err != nil {
			return err
		}
	}
	in := c.String("in")
	if c.String("tensor") != "" && !formats.IsSafetensorsName(in) {
		return usagef("--tensor is for safetensors files (.safetensors); %s is not one", in)
	}

	s, err := openSession(c)
	if err != nil {
		return err
	}
	defer s.Close()
	r, err := formats.OpenSamples16(in, c.String("tensor"))
	if err != nil {
		return err
	}
	defer r.Close()
	info := r.Info
	if info.Format == "raster" {
		return fmt.Errorf("%s: a raster; latent tensors are read from .npy, .safetensors or FITS", in)
	}
	if opt.DType, err = latentPrecision(c.String("precision"), r.DType); err != nil {
		return err
	}
	opt.Convert = true
	// x stands for the whole tensor in the summary: its shape and the
	// type it is computed as (the data are read batch by batch).
	x := &tensor.Tensor{Shape: r.Shape, DType: opt.DType}
	for _, w := range opt.Warnings(x.Shape) {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: warning: %s\n", w.Words(latentSetting))
	}
	lo, hi, err := latent.ParseSamples(c.String("samples"), r.Shape)
	if err != nil {
		return fieldError(err)
	}
	x.Shape = append([]int{hi - lo}, r.Shape[1:]...)
	opt.HostBudget = engine.HostBudget(availableMemory())
	src := latent.Source{Shape: x.Shape, DType: r.DType, StoredSampleBytes: r.StoredSampleBytes(), First: lo,
		Read: func(a, b int, buf *tensor.Tensor) (*tensor.Tensor, error) { return r.Read(lo+a, lo+b, buf) }}
	plan, err := latent.PlanBatches(s.dev, src, opt)
	if err != nil {
		err, _ = engine.InWords(err, latentSetting) // a *latent.MemoryError
		return fmt.Errorf("%s: shape %s: %w", in, tensor.ShapeString(x.Shape), err)
	}
	worded := plan
	worded.Budget = plan.Budget.In(latentSetting)
	for _, w := range worded.Warnings() {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", w.Words(latentSetting))
	}
	bar := newProgress(c.App.ErrWriter)
	opt.Plan = &plan
	lw := outputs.Latent{Dir: c.String("out-dir"), Plot: plot, Truth: truthSlope, Device: s.name(), Batches: worded.Words(),
		In: latent.Input{Path: in, Format: info.Format, DType: info.DType, Tensor: info.Name, Shape: x.Shape, ComputedAs: x.DType}}
	if c.Bool("partial") {
		p, err := latent.RunPartial(engine.WithProgress(c.Context, bar.update), s.dev, src, opt)
		bar.done()
		if err != nil {
			return fmt.Errorf("%s: shape %s: %w", in, tensor.ShapeString(x.Shape), err)
		}
		return latentPartial(c, &lw, r.Shape, p)
	}
	res, err := latent.RunSource(engine.WithProgress(c.Context, bar.update), s.dev, src, opt)
	bar.done()
	if err != nil {
		return fmt.Errorf("%s: shape %s: %w", in, tensor.ShapeString(x.Shape), err)
	}
	s.Read, s.ReadBeside = res.Read, true
	res.Plan.Budget = res.Plan.Budget.In(latentSetting)

	tw := time.Now()
	if err := writeLatent(c, &lw, opt, res); err != nil {
		return err
	}
	s.Write = time.Since(tw) // the files and the summary
	// Closed before --time, which reports closing.
	if err := s.Close(); err != nil {
		return err
	}
	reportTime(c, s, res.Timing, time.Since(start))
	if c.Bool("time") && s.dev != nil && res.Spectra != nil {
		fmt.Fprintf(c.App.ErrWriter, "fft plans: %s (VkFFT: plans are kept by the device and saved in %s)\n",
			res.Spectra.Plans, cmp.Or(spectra.PlanCacheDir(), "nothing (off)"))
	}
	return nil
}

// writeLatent writes res's files (all or none) and prints the summary.
func writeLatent(c *ucli.Context, o *outputs.Latent, opt latent.Options, res *latent.Result) error {
	files, table, summary := o.Files(opt, res)
	if err := writeOutputs(c, o.Dir, "latent", files, nil); err != nil {
		return err
	}
	sum := newSummary(c)
	sum.text.WriteString(table)
	maps.Copy(sum.doc, summary) // summary.json's content
	return sum.print(c)
}

// latentPartial is latent --partial: p with the flags that were set as
// settings every shard must share, written to --out-dir.
func latentPartial(c *ucli.Context, o *outputs.Latent, whole []int, p *latent.Partial) error {
	h, arrays, err := partials.Latent(p, o.In, whole)
	if err != nil {
		return err
	}
	setFlags(c, h.Settings, latentNotSettings, "plot-format", "precision")
	return writePartial(c, o.Dir, "latent", h, arrays, map[string]any{"samples": []int{p.First, p.First + p.Shape[0]}, "device": o.Device},
		fmt.Sprintf("partial of samples %d … %d of %s", p.First, p.First+p.Shape[0]-1, o.In.Path))
}

// latentNotSettings are latent's flags that do not change its results, or
// that differ from shard to shard.
var latentNotSettings = map[string]bool{"out-dir": true, "json": true, "partial": true, "samples": true, "batch": true, "in": true}

// mergeLatent merges latent's partials into the outputs one latent run
// over every shard's samples writes.
func mergeLatent(c *ucli.Context, dir string, shards []*partials.Shard) error {
	m, res, first, err := partials.MergeLatent(shards)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	set := shards[0].Header.Settings
	o := outputs.Latent{Dir: dir, Device: "merge", Batches: fmt.Sprintf("merged from %d partials", len(shards)), In: partials.LatentInput(first, m)}
	if o.Plot, err = figure.ParseFormat(set["plot-format"]); err != nil { // unset: PNG
		return fmt.Errorf("merge: %s: plot-format: %w", first.Dir, err)
	}
	if t := set["truth"]; t != "" && m.Opt.Spectra {
		if o.Truth, err = readTruthSlope(t); err != nil {
			return fmt.Errorf("merge: %s: truth: %w", first.Dir, err)
		}
	}
	return writeLatent(c, &o, m.Opt, res)
}

// readTruthSlope reads spatial_slope from synth latent's truth.json.
func readTruthSlope(path string) (*float64, error) {
	raw, err := formats.ReadText(path, 0, "truth file")
	if err != nil {
		return nil, fmt.Errorf("--truth: %w", err)
	}
	slope, err := latent.TruthSlope(raw)
	if err != nil {
		return nil, fmt.Errorf("--truth %s: %w", path, err)
	}
	return slope, nil
}

// latentSetting names a latent option set to value in a warning: the
// flag and its value ("--ddof 2"), the moments' axes as --axes takes them
// ("axes 3,4"), the device memory with its variable.
func latentSetting(field, value string) string {
	switch field {
	case "axes":
		return "axes " + value
	case "device_memory":
		return "--device-memory or VKSTAT_DEVICE_MEMORY"
	}
	return flagSetting(field, value)
}
