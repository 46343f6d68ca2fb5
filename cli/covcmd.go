package cli

import (
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/paco"
)

func covCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "cov",
		Usage:     "batched mean and covariance, with PACO, Ledoit-Wolf or OAS shrinkage",
		UsageText: "vkstat [global options] cov (--in SAMPLES | --cube CUBE --radius R) [--estimator E] --out-cov C.npy [--out-mean M.npy] [--out-rho RHO.npy]",
		Description: `--in holds N sample sets of T samples of P variables, shape (N, T, P), or
one set, shape (T, P). With --cube (T, H, W) and --radius R the sample sets
are the PACO patches (offsets with dy² + dx² <= R²) at every location whose
patch lies inside the frame, gathered on the device; --out-locations writes
their (y, x).

Outputs: the mean (N, P), the covariance (N, P, P) and the shrinkage weight
ρ (N,) (without the N axis for a single set). The estimators:
   none         the sample covariance S = (1/T) Σ (r−m)(r−m)ᵀ
   paco         (1−ρ) S + ρ diag(S), ρ from Flasseur et al. 2018 (PACO.md)
   ledoit-wolf  (1−ρ) S + ρ (tr S / P) I, ρ as scikit-learn's ledoit_wolf
   oas          (1−ρ) S + ρ (tr S / P) I, ρ as scikit-learn's oas
   shrunk       (1−ρ) S + ρ (tr S / P) I, ρ = --shrinkage (0.1), as
                scikit-learn's ShrunkCovariance
--assume-centered takes the samples as centred, as scikit-learn's
assume_centered: S = (1/T) Σ r rᵀ, means of 0, ρ from that S.
--ddof 1 rescales the covariance by T/(T−1). Sums are accumulated in
float64 (float32 data too, on devices with shaderFloat64). A NaN sample
makes its set's outputs NaN; the summary counts them.

Examples:
   vkstat cov --in samples.npy --estimator paco --out-cov C.npy --out-mean m.npy --out-rho rho.npy
   vkstat --device cpu cov --in x.npy --estimator oas --out-cov C.npy
   vkstat cov --cube cube.fits --radius 4 --estimator paco --out-cov C.npy --out-locations yx.npy`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "sample sets (N, T, P) or one set (T, P) (.npy or FITS)"},
			&ucli.StringFlag{Name: "cube", Usage: "a (T, H, W) cube to gather PACO patches from (.npy or FITS), instead of --in"},
			&ucli.IntFlag{Name: "radius", Value: paco.DefaultRadius, Usage: "patch radius in pixels, with --cube (PACO's patches)"},
			&ucli.Float64Flag{Name: "shrinkage", Usage: "with --estimator shrunk: ρ in [0, 1] (default 0.1, scikit-learn's)"},
			&ucli.StringFlag{Name: "out-cov", Usage: "covariance output (.npy, or FITS for .fits)"},
			&ucli.StringFlag{Name: "out-mean", Usage: "mean output (.npy, or FITS for .fits)"},
			&ucli.StringFlag{Name: "out-rho", Usage: "shrinkage weight output (.npy, or FITS for .fits)"},
			&ucli.StringFlag{Name: "out-locations", Usage: "with --cube: the (y, x) of each location (.npy, float64)"},
			jsonFlag(),
		}, paramFlags(cov.Params())...),
		Action: runCov,
	}
}

// covOutputs are cov's output flags, in the order of the summary's files.
var covOutputs = []string{"out-cov", "out-mean", "out-rho", "out-locations"}

func runCov(c *ucli.Context) error {
	start := time.Now()
	if c.IsSet("in") == c.IsSet("cube") {
		return usagef("cov: give exactly one of --in and --cube")
	}
	if !c.IsSet("out-cov") && !c.IsSet("out-mean") && !c.IsSet("out-rho") {
		return usagef("cov: nothing to write: give --out-cov, --out-mean and/or --out-rho")
	}
	if c.IsSet("out-locations") && !c.IsSet("cube") {
		return usagef("cov: --out-locations goes with --cube")
	}
	encoders, err := outputEncoders(c, covOutputs...)
	if err != nil {
		return err
	}
	var opt cov.Options
	if err := setParams(c, cov.Params(), &opt); err != nil {
		return err
	}
	est := opt.Estimator
	if c.IsSet("shrinkage") {
		r := c.Float64("shrinkage")
		opt.Shrinkage = &r
	}
	if err := opt.Check(); err != nil {
		return fieldError(err)
	}
	if c.IsSet("radius") && !c.IsSet("cube") {
		return usagef("cov: --radius goes with --cube")
	}
	if err := cov.CheckRadius(c.Int("radius")); err != nil {
		return fieldError(err)
	}
	flag := "in"
	if c.IsSet("cube") {
		flag = "cube"
	}
	path := c.String(flag)
	tr := time.Now()
	in, err := readInputAs(c, flag)
	if err != nil {
		return err
	}
	dt := in.DType

	var g cov.Gather
	single := false
	if flag == "cube" {
		g, err = cov.CubePatches(in.Shape, c.Int("radius"), opt.DDof)
	} else {
		in, single, err = cov.Sets(in, opt.DDof)
	}
	if err != nil {
		return fmt.Errorf("--%s: %s has %w", flag, path, err)
	}

	t := in.Shape[1]
	if flag == "cube" {
		t = in.Shape[0]
		opt.Gather = &g
	}
	res, s, err := runOn(c, priced(cov.Spec)(cov.Work(in.Shape, dt, opt)), time.Since(tr),
		func(dev *engine.Device) (*cov.Result, error) { return cov.Run(c.Context, dev, in, opt) })
	if err != nil {
		return err
	}
	n, p := res.Rho.Len(), res.Mean.Shape[1]
	if single {
		res.Squeeze()
	}
	tw := time.Now()
	files := flagArrays(c, encoders, covOutputs, res.Cov, res.Mean, res.Rho, g.LocationArray())
	sum := newSummary(c)
	if err := writeOutputs(c, "", "", files, sum); err != nil {
		return err
	}
	sp := res.Spread(n, p)
	sum.line("%s", sp.Words(n, t, p, est))
	sum.set("input", path)
	sum.set("device", s.name())
	sum.set("sets", n)
	sum.set("samples", t)
	sum.set("variables", p)
	sum.set("estimator", est.String())
	sum.set("nan_sets", sp.NaNSets)
	if est != cov.None && sp.Finite > 0 {
		sum.set("rho", map[string]any{"mean": formats.JSONNumber(sp.RhoMean), "min": formats.JSONNumber(sp.RhoMin), "max": formats.JSONNumber(sp.RhoMax)})
	}
	return s.finish(c, sum, res.Timing, tw, start)
}
