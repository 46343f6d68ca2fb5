package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
)

// addContrastOutputs declares contrast.csv, contrast.json and contrast.png
// (PACO.md's contrast curve) in outs.
func addContrastOutputs(outs *formats.Outputs, dir string, curve []paco.ContrastPoint, threshold, starFlux float64, psfNorm string, center paco.CenterInfo) {
	num := func(v float64) any { // JSON has no NaN
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	outs.Add(filepath.Join(dir, "contrast.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"separation_px", "pixels", "sigma_flux", "flux_limit", "contrast", "delta_mag"})
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
		for _, p := range curve {
			cw.Write([]string{f(p.Sep), strconv.Itoa(p.Pixels), f(p.Sigma), f(p.Flux), f(p.Contrast), f(p.Mag)})
		}
		cw.Flush()
		return cw.Error()
	})
	outs.Add(filepath.Join(dir, "contrast.json"), func(w io.Writer) error {
		rows := make([]map[string]any, len(curve))
		for i, p := range curve {
			rows[i] = map[string]any{"separation_px": p.Sep, "pixels": p.Pixels, "sigma_flux": num(p.Sigma),
				"flux_limit": num(p.Flux), "contrast": num(p.Contrast), "delta_mag": num(p.Mag)}
		}
		doc := map[string]any{
			"definition": "flux_limit = threshold × median of σ_flux over the 1-px annulus separation ± 0.5 px around the centre; contrast = flux_limit / star_flux; delta_mag = −2.5 log10(contrast)",
			"threshold":  threshold,
			"star_flux":  num(starFlux),
			"flux_units": fluxUnits(psfNorm),
			"center":     center,
			"curve":      rows,
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
	outs.Add(filepath.Join(dir, "contrast.png"), func(w io.Writer) error {
		p := formats.LinePlot{Title: fmt.Sprintf("PACO %g-sigma detection limit, centre (%d, %d)", threshold, center.Used[0], center.Used[1]),
			XLabel: "separation (px)", LogY: true, YLabel: "flux limit (PSF units)"}
		useMag := false
		for _, c := range curve {
			if !math.IsNaN(c.Mag) {
				useMag = true
			}
		}
		if useMag {
			p.YLabel, p.LogY, p.InvertY = "contrast (delta mag)", false, true
		}
		for _, c := range curve {
			p.X = append(p.X, c.Sep)
			if useMag {
				p.Y = append(p.Y, c.Mag)
			} else {
				p.Y = append(p.Y, c.Flux)
			}
		}
		img, err := formats.RenderLinePlot(p)
		if err != nil {
			return err
		}
		return formats.EncodePNG(w, img)
	})
}

func fluxUnits(psfNorm string) string {
	switch psfNorm {
	case "peak":
		return "PSF stamp peak"
	case "none":
		return "PSF stamp as given"
	}
	return "PSF stamp total flux"
}

// contrastSummary is the contrast curve's line in the summary: the flux
// limit (in the units the PSF's normalisation gives) at a few separations.
func contrastSummary(curve []paco.ContrastPoint, threshold float64, psfNorm string) string {
	s := fmt.Sprintf("%g-σ flux limit (units: %s)", threshold, fluxUnits(psfNorm))
	n := 0
	for _, sep := range []int{2, 5, 10, 20, 40} {
		if sep > len(curve) || math.IsNaN(curve[sep-1].Flux) {
			continue
		}
		p := curve[sep-1]
		if n > 0 {
			s += ","
		}
		n++
		s += fmt.Sprintf(" %.3g at %d px", p.Flux, sep)
		if !math.IsNaN(p.Mag) {
			s += fmt.Sprintf(" (Δmag %.2f)", p.Mag)
		}
	}
	if n == 0 {
		s += " nowhere finite"
	}
	return s + " (contrast.csv)"
}
