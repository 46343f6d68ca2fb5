package survey

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
)

// TestReportHandValues: a hand-made run of 10 frames of 4×5 with 3 NaN
// map pixels, one detection and a NaN star flux. The summary gives the
// counts as they are, the phases' share of a 20 ms wall (5 + 10 ms: 75 %),
// the quick-contrast option by its manifest column; the JSON has the
// star flux as null (JSON has no NaN) and the files with the maps' dtype
// and shape.
func TestReportHandValues(t *testing.T) {
	res := &paco.Result{T: 10, H: 4, W: 5, P: 13, Radius: 2, StarFlux: math.NaN(),
		Maps:       &paco.Maps{Precision: "float64", InvalidPixels: 3, InvalidLocations: 2, Passes: 1},
		Detections: []paco.Detection{{Y: 1, X: 3, Sep: 1.5, SNR: 7.25, Flux: 12, SigmaFlux: 1.5}},
		Contrast:   []paco.ContrastPoint{{Sep: 2, Flux: math.NaN(), Mag: math.NaN(), Throughput: math.NaN()}}}
	tg := &Target{Cube: "c.fits", Options: paco.Options{Threshold: 5, QuickContrast: true, PSFNorm: "sum"}}
	r := &Report{Target: tg, Dir: "out", Files: []string{"snr.fits", "detections.csv"}, Inputs: &Inputs{Angles: []float64{-10, 30}},
		Result: res, Device: "cpu", Wall: 20 * time.Millisecond,
		Phases: []engine.PhaseTime{{Name: "read", Time: 5 * time.Millisecond}, {Name: "maps", Time: 10 * time.Millisecond}},
		Notes:  map[string]string{"maps": " (a note)"}}
	var text bytes.Buffer
	r.Text(&text)
	for _, want := range []string{
		"cube:       c.fits, 10 frames of 4×5, rotation -10.0° to 30.0°\n",
		"time:       20.0 ms wall, in these phases (75.0 % of it):\n",
		"  maps                   10.000 ms (a note)\n",
		"invalid:    3 of 20 map pixels NaN, 2 of 20 locations without statistics\n",
		"detections: 1 above SNR 5\n",
		"nowhere finite (contrast.csv)",
		"not calibrated (quick-contrast): ",
		"outputs:    out\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		StarFlux *float64 `json:"star_flux"`
		Rotation float64  `json:"rotation_deg"`
		Files    []struct {
			Path  string `json:"path"`
			DType string `json:"dtype"`
			Shape []int  `json:"shape"`
		} `json:"files"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.StarFlux != nil || doc.Rotation != 40 {
		t.Errorf("star_flux %v, rotation %g: want null and 40", doc.StarFlux, doc.Rotation)
	}
	if len(doc.Files) != 2 || doc.Files[0].DType != "float64" || len(doc.Files[0].Shape) != 2 || doc.Files[0].Shape[1] != 5 || doc.Files[1].DType != "" {
		t.Errorf("files %+v: want snr.fits float64 (4, 5), detections.csv bare", doc.Files)
	}
}

// TestContrastCheckSummaryHandValues: four fakes, two found; the
// throughputs 0.2, 0.4, 0.6 and NaN sort to a median (the upper middle of
// three) of 40 %, from 20 to 60 %.
func TestContrastCheckSummaryHandValues(t *testing.T) {
	var rows []paco.CheckRow
	for i, tp := range []float64{0.6, math.NaN(), 0.2, 0.4} {
		rows = append(rows, paco.CheckRow{Recovery: paco.Recovery{Throughput: tp, Detected: i%2 == 0}})
	}
	want := "check: 4 fakes at the limit, 2 found at SNR ≥ 5, flux kept 40 % (median; 20–60 %) (contrast_check.csv)"
	if got := contrastCheckSummary(rows, 5); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestTableSummary: shard 2 of 3 of a 5-target manifest ran 2 targets,
// one failed: the counts, the failed one by name, position and reason,
// and the table; the device and the times only for a run (a device).
func TestTableSummary(t *testing.T) {
	s := &Table{Manifest: "m.csv", Targets: 5, Shard: 2, Shards: 3,
		Rows: []Row{{Index: 2, Name: "a", Status: "ok"}, {Index: 5, Name: "b", Status: "failed", Reason: "no file"}}}
	var b bytes.Buffer
	if failed := s.Summary(&b, "", 0, []string{"survey.csv"}); failed != 1 {
		t.Errorf("%d failed, want 1", failed)
	}
	if want := "survey:     m.csv, 5 targets, shard 2/3: 2 of them: 1 ok, 1 failed\nfailed:\n  b (#5): no file\ntables:     survey.csv\n"; b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
