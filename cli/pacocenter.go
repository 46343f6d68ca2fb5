package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// pacoCenterInfo is how `vkstat paco` chose the star centre, as printed and
// written in contrast.json and detections.json.
type pacoCenterInfo struct {
	// Source is "option" (--center y,x), "header" (CRPIX1/CRPIX2),
	// "estimated" (measured on the data) or "geometric" ((H/2, W/2): no
	// header, and no measurement that rules it out).
	Source string `json:"source"`
	// Y and X are the centre as given or measured, sub-pixel, 0-based.
	Y float64 `json:"y"`
	X float64 `json:"x"`
	// Used is the pixel the maps use: (Y, X) rounded.
	Used [2]int `json:"used"`
	// Geometric is (H/2, W/2), the default before the centre was measured.
	Geometric [2]int `json:"geometric"`
	// Estimate is the measurement on the data, when one was made.
	Estimate *pacoCenterEstimate `json:"estimate,omitempty"`
}

type pacoCenterEstimate struct {
	Y      float64 `json:"y"`
	X      float64 `json:"x"`
	Method string  `json:"method"`
	// Uncertainty is the 95 % radius of the measurement, pixels.
	Uncertainty float64 `json:"uncertainty_px"`
	Frames      int     `json:"frames"`
	// RulesOutGeometric: (H/2, W/2) lies beyond the uncertainty, so the
	// measurement is the better centre.
	RulesOutGeometric bool   `json:"rules_out_geometric"`
	Error             string `json:"error,omitempty"`
	est               paco.CenterEstimate
}

// pacoCenter decides the star centre from --center (y,x, auto, header or
// not given), the cube's FITS header and the data, PACO.md's "Star
// centre": not given means the header's CRPIX2−1, CRPIX1−1 when the cube
// is FITS and has both, else the better of the measured centre and (H/2,
// W/2): the measurement when it rules the geometric centre out (it lies
// beyond the measurement's 95 % uncertainty), else the geometric centre,
// which the data cannot tell from the measurement and where cubes are
// usually centred (a faint star's measurement, 0.7 px off with ±0.9 px,
// had moved the maps to the wrong pixel). It warns when the centre it
// takes is more than half a pixel from (H/2, W/2), and when the
// measurement rules out a header's centre by more than that.
func pacoCenter(spec string, cube *tensor.Tensor, cards []FITSCard, psf *tensor.Tensor, warn func(string, ...any)) (*[2]int, pacoCenterInfo, error) {
	H, W := cube.Shape[1], cube.Shape[2]
	info := pacoCenterInfo{Geometric: [2]int{H / 2, W / 2}}
	spec = strings.ToLower(strings.TrimSpace(spec))
	estimate := func() *pacoCenterEstimate {
		est, err := paco.EstimateCenter(cube, paco.FWHMOfStamp(psf))
		if err != nil {
			return &pacoCenterEstimate{Error: err.Error()}
		}
		return &pacoCenterEstimate{Y: est.Y, X: est.X, Method: est.Method, Uncertainty: est.Uncertainty, Frames: est.Frames,
			RulesOutGeometric: est.RulesOut(float64(H/2), float64(W/2)), est: est}
	}
	// The header's centre: FITS pixels are 1-based and NAXIS1 is x.
	cx1, okx := formats.CardFloat(cards, "CRPIX1")
	cy1, oky := formats.CardFloat(cards, "CRPIX2")
	hasHeader := okx && oky
	switch spec {
	case "":
		if hasHeader {
			info.Source, info.Y, info.X = "header", cy1-1, cx1-1
			if e := estimate(); e.Error == "" {
				info.Estimate = e
				if d := math.Hypot(e.Y-info.Y, e.X-info.X); d > 0.5 && e.est.RulesOut(info.Y, info.X) {
					warn("the star measured at (%.2f, %.2f) ± %.2f px (95 %%) is %.2f px from the header's centre (CRPIX2−1, CRPIX1−1) = (%.2f, %.2f), which is used; give --center auto to use the measurement", e.Y, e.X, e.Uncertainty, d, info.Y, info.X)
				}
			}
			break
		}
		fallthrough
	case "auto":
		info.Estimate = estimate()
		if e := info.Estimate; e.RulesOutGeometric {
			info.Source, info.Y, info.X = "estimated", e.Y, e.X
		} else {
			info.Source, info.Y, info.X = "geometric", float64(H/2), float64(W/2)
			if spec == "auto" {
				if e.Error != "" {
					warn("--center auto: could not measure the star centre (%s); using the geometric centre (%d, %d); give --center y,x", e.Error, H/2, W/2)
				} else {
					warn("--center auto: the star measured at (%.2f, %.2f) ± %.2f px (95 %%) does not rule out the geometric centre (%d, %d), which is used; give --center y,x to choose", e.Y, e.X, e.Uncertainty, H/2, W/2)
				}
			}
		}
	case "header":
		if !hasHeader {
			return nil, info, usagef("--center header: the cube has no CRPIX1 and CRPIX2 header cards (only FITS cubes can have them); give --center auto or y,x")
		}
		info.Source, info.Y, info.X = "header", cy1-1, cx1-1
	default:
		y, x, ok := parseYX(spec)
		if !ok {
			return nil, info, usagef("--center: want y,x (pixels, 0-based), auto or header, got %q", spec)
		}
		info.Source, info.Y, info.X = "option", y, x
	}
	info.Used = [2]int{int(math.Round(info.Y)), int(math.Round(info.X))}
	if info.Source == "estimated" || info.Source == "header" {
		if d := math.Hypot(info.Y-float64(H/2), info.X-float64(W/2)); d > 0.5 {
			warn("the star centre (%.2f, %.2f, %s) is %.2f px from the geometric centre (%d, %d) that PACO assumed by default before: the maps use (%d, %d)",
				info.Y, info.X, info.Source, d, H/2, W/2, info.Used[0], info.Used[1])
		}
	}
	return &info.Used, info, nil
}

// describe is the centre's line in the summary.
func (i pacoCenterInfo) describe() string {
	s := fmt.Sprintf("(%d, %d), %s", i.Used[0], i.Used[1], i.Source)
	switch i.Source {
	case "estimated":
		s += fmt.Sprintf(" %s centre (%.3f, %.3f) ± %.2f px (95 %%) over %d frames, which rules out (H/2, W/2)", i.Estimate.Method, i.Y, i.X, i.Estimate.Uncertainty, i.Estimate.Frames)
	case "header":
		s += fmt.Sprintf(" CRPIX (%.3f, %.3f) 0-based", i.Y, i.X)
	case "geometric":
		if e := i.Estimate; e != nil && e.Error == "" {
			s += fmt.Sprintf(" (H/2, W/2); the star measured at (%.2f, %.2f) ± %.2f px (95 %%), which does not rule it out", e.Y, e.X, e.Uncertainty)
		} else {
			s += " (H/2, W/2); no star to measure"
		}
	}
	return s
}
