package paco

// The contrast curve's calibration by injection and recovery: the fast
// estimate keeps only part of a source's flux and SNR (its own light
// biases its statistics), so the curve threshold × σ_flux is optimistic by
// the inverse of that throughput. Fakes are injected at the curve's flux,
// found again, and the SNR they keep, smoothed over separation, divides
// the limit, as VIP's contrast_curve divides its noise by its algorithms'
// throughput.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/vkstat/vkstat/engine"
)

// CalibrationRuns is how many runs of the maps with fakes each pass of
// the contrast curve's calibration makes; CalibrationPasses how many
// passes (the second injects at the first's calibrated flux, since a
// brighter fake biases its own statistics more).
const (
	CalibrationRuns   = 4
	CalibrationPasses = 2
)

// Calibration is how the contrast curve was calibrated (nil with
// Options.QuickContrast): the fakes of its last pass and what came back.
type Calibration struct {
	// Method says what was done, in words, for contrast.json.
	Method string `json:"method"`
	// Passes and Runs are the passes and the runs of the maps with fakes
	// in each; Fakes the fakes of the last pass, which the throughput is
	// measured from.
	Passes int        `json:"passes"`
	Runs   int        `json:"runs_per_pass"`
	Fakes  []CheckRow `json:"fakes"`
	// Bandwidth is the Gaussian kernel's σ, pixels, that smooths the
	// fakes' throughputs over separation.
	Bandwidth float64 `json:"bandwidth_px"`
	// MedianRelErr is the median over the curve of ThroughputErr /
	// Throughput.
	MedianRelErr float64 `json:"median_relative_uncertainty"`
}

// Doc is c for JSON (contrast.json, the C ABI): its fields, with the
// fakes as contrast_check.csv's rows and NaN as null; nil for no
// calibration (a quick curve).
func (c *Calibration) Doc() map[string]any {
	if c == nil {
		return nil
	}
	rel := any(c.MedianRelErr)
	if !finite(c.MedianRelErr) {
		rel = nil
	}
	return map[string]any{"method": c.Method, "passes": c.Passes, "runs_per_pass": c.Runs, "bandwidth_px": c.Bandwidth,
		"median_relative_uncertainty": rel, "fakes": CheckTable(c.Fakes).JSONRows()}
}

// calibrate corrects curve (threshold × σ_flux, from the inner working
// angle out) for the throughput measured by injection and recovery:
// CalibrationPasses passes of CalibrationRuns runs of the maps on dev,
// each with fakes at the curve's current limit (FakePlan, from minSep out,
// none within a gap of a detection). A fake's throughput is the SNR it
// came back with over the SNR its flux would have at the uncalibrated
// curve's σ (Injected / σ_flux); the curve's throughput at a separation is
// the Gaussian-kernel weighted mean of the last pass' fakes (σ = half the
// gap), its uncertainty the weighted spread over √ the effective number of
// fakes; the limit is divided by it. The uncalibrated limit stays in
// FluxUncalibrated.
func calibrate(ctx context.Context, dev *engine.Device, prep *Prepared, curve []ContrastPoint, dets []Detection,
	minSep, rotation, threshold, starFlux, northOffset float64, note func(string, ...any)) (*Calibration, error) {
	gap, err := fakeGap(prep)
	if err != nil {
		return nil, fmt.Errorf("contrast calibration: %w", err)
	}
	cal := &Calibration{Passes: CalibrationPasses, Runs: CalibrationRuns, Bandwidth: gap / 2}
	cal.Method = fmt.Sprintf("injection-recovery: %d passes of %d runs of the maps with fake companions at the curve's limit (the second pass at the first's calibrated limit); "+
		"a fake's throughput = recovered SNR / (injected flux / sigma_flux); the curve's = their Gaussian-kernel mean over separation (sigma %.3g px), "+
		"throughput_err its standard error; flux_limit = flux_limit_uncalibrated / throughput", CalibrationPasses, CalibrationRuns, cal.Bandwidth)
	for i := range curve {
		curve[i].FluxUncalibrated, curve[i].Throughput, curve[i].ThroughputErr = curve[i].Flux, math.NaN(), math.NaN()
	}
	for pass := 1; pass <= CalibrationPasses; pass++ {
		rows, err := injectFakes(ctx, dev, prep, curve, dets, minSep, gap, rotation, CalibrationRuns, 45, threshold, northOffset,
			fmt.Sprintf("contrast calibration, pass %d of %d", pass, CalibrationPasses), note)
		if err != nil {
			return nil, err
		}
		var s, tau []float64
		for _, r := range rows {
			if t := r.SNR / r.Expected; finite(t) {
				s, tau = append(s, r.Sep), append(tau, t)
			}
		}
		if len(tau) == 0 {
			return nil, fmt.Errorf("contrast calibration: none of the %d fakes came back with a finite SNR (%w)", len(rows), errNoFakes)
		}
		var rel []float64
		for i := range curve {
			p := &curve[i]
			p.Throughput, p.ThroughputErr = smooth(s, tau, p.Sep, cal.Bandwidth)
			f := math.NaN()
			if p.Throughput > 0 {
				f = p.FluxUncalibrated / p.Throughput
				rel = append(rel, p.ThroughputErr/p.Throughput)
			}
			p.setFlux(f, starFlux)
		}
		cal.Fakes = rows
		cal.MedianRelErr = math.NaN()
		if len(rel) > 0 {
			cal.MedianRelErr = sortedMedian(rel)
		}
	}
	return cal, nil
}

// errNoFakes is calibrate's error when no fake companion can be placed
// or found again: the frame is too small for the patch and the PSF, or
// every place is near a detection or without statistics.
var errNoFakes = errors.New("no room for fake companions")

// smooth is the Gaussian-kernel (σ h) weighted mean of v at s over the
// samples (x, v), and its standard error: the weighted spread about it
// over √ the effective number of samples, (Σw)²/Σw² (NaN below 2).
func smooth(x, v []float64, s, h float64) (mean, stderr float64) {
	var sw, sw2, swv float64
	for i := range x {
		w := math.Exp(-0.5 * (x[i] - s) * (x[i] - s) / (h * h))
		sw, sw2, swv = sw+w, sw2+w*w, swv+w*v[i]
	}
	if !(sw > 0) {
		return math.NaN(), math.NaN()
	}
	mean = swv / sw
	var ss float64
	for i := range x {
		w := math.Exp(-0.5 * (x[i] - s) * (x[i] - s) / (h * h))
		ss += w * (v[i] - mean) * (v[i] - mean)
	}
	neff := sw * sw / sw2
	if neff < 2 {
		return mean, math.NaN()
	}
	// The weighted variance, corrected as for neff samples.
	return mean, math.Sqrt(ss / sw * neff / (neff - 1) / neff)
}

// fakeGap is how far apart fakes are placed: a patch plus two FWHM of the
// stamp, so that none is in another's statistics.
func fakeGap(prep *Prepared) (float64, error) {
	fwhm := FWHMOfStamp(prep.PSF)
	if !(fwhm > 0) || math.IsInf(fwhm, 0) {
		return 0, fmt.Errorf("the PSF stamp's FWHM cannot be measured (got %g), so fakes cannot be spaced", fwhm)
	}
	return float64(2*prep.Radius+1) + 2*fwhm, nil
}

// injectFakes injects fakes at curve's flux limit into prep.Cube (FakePlan:
// runs sets from minSep out, turned by turn degrees), runs the maps again
// on dev (nil: the CPU path) for each set and reads the fakes back, by
// separation. A fake that would fall within gap of a detection is left
// out: a real source would count towards it. what names the step in notes
// and errors.
func injectFakes(ctx context.Context, dev *engine.Device, prep *Prepared, curve []ContrastPoint, dets []Detection,
	minSep, gap, rotation float64, runs int, turn, threshold, northOffset float64, what string, note func(string, ...any)) ([]CheckRow, error) {
	plan, err := FakePlan(curve, float64(prep.CY), float64(prep.CX), prep.H, prep.W, minSep, gap, rotation, runs, turn, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%w)", what, err, errNoFakes)
	}
	sigma := func(sep float64) float64 { // the curve's σ_flux at sep's annulus
		for _, p := range curve {
			if p.Sep == math.Floor(sep+0.5) {
				return p.Sigma
			}
		}
		return math.NaN()
	}
	var rows []CheckRow
	for r, all := range plan {
		var srcs []Source
		for _, f := range all {
			near := false
			for _, d := range dets {
				near = near || math.Hypot(f.Y-float64(d.Y), f.X-float64(d.X)) < gap
			}
			if !near {
				srcs = append(srcs, f)
			}
		}
		if len(srcs) == 0 {
			continue
		}
		note("%s: run %d of %d, %d fake companions", what, r+1, len(plan), len(srcs))
		cube, err := Inject(prep, srcs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		m, err := runMaps(ctx, dev, prep.withCube(cube.As(prep.Cube.DType)))
		if err != nil {
			return nil, fmt.Errorf("%s, run %d: %w", what, r+1, err)
		}
		for _, rec := range Recover(m, srcs, threshold) {
			rec.Sep = math.Hypot(rec.Y-float64(prep.CY), rec.X-float64(prep.CX))
			pa := PositionAngle(rec.Y-float64(prep.CY), rec.X-float64(prep.CX), northOffset)
			rows = append(rows, CheckRow{Run: r + 1, Recovery: rec, PA: pa, Expected: rec.Injected / sigma(rec.Sep)})
		}
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Sep < rows[b].Sep })
	return rows, nil
}
