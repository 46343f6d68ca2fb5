package survey

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// TestHeaderAnglesHandValues: START 170°, END −170° is a 20° turn through
// 180° (not −340°), and four frames sit at the middles of their quarters.
func TestHeaderAnglesHandValues(t *testing.T) {
	cards := []formats.FITSCard{{Key: "ESO TEL PARANG START", Value: 170.0}, {Key: "ESO TEL PARANG END", Value: -170.0}}
	got, err := HeaderAngles(cards, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{172.5, 177.5, 182.5, 187.5} {
		if math.Abs(got[i]-want) > 1e-12 {
			t.Errorf("frame %d: %g, want %g", i, got[i], want)
		}
	}
	if _, err := HeaderAngles(cards[:1], 4); err == nil || !strings.Contains(err.Error(), "ESO TEL PARANG END") {
		t.Errorf("without END: %v, want an error naming the keyword", err)
	}
}

// TestTargetTitle: pictures name a survey target by its manifest name, a
// single run by its cube's file name.
func TestTargetTitle(t *testing.T) {
	if got := (&Target{Name: "HD 95086", Cube: "data/hd95086/cube.fits"}).Title(); got != "HD 95086" {
		t.Errorf("named target: %q", got)
	}
	if got := (&Target{Cube: "data/hd95086/cube.fits"}).Title(); got != "cube.fits" {
		t.Errorf("single run: %q", got)
	}
}

// TestSNRFigure (issue 33, item 12): the SNR picture marks the star at the
// maps' centre beside the numbered detections, names the target, and with
// a pixel scale puts the star's pixel centre at 0 arcsec on both axes
// (an edge at p has Origin + Step·p; the centre of pixel c is at c + ½),
// 0.0272″ a pixel; without one, the axes are pixel numbers.
func TestSNRFigure(t *testing.T) {
	res := &paco.Result{Radius: 4, T: 256, Center: paco.CenterInfo{Used: [2]int{30, 41}},
		Detections: []paco.Detection{{Y: 50, X: 20}}}
	snr := tensor.New(tensor.F64, 64, 80)
	tg := &Target{Name: "HD 95086", Options: paco.Options{PixelScale: 0.0272, NorthOffset: -1.75}}
	m := snrFigure(tg, res, snr)
	if len(m.Marks) != 2 || m.Marks[0] != (figure.Mark{Y: 50, X: 20, Label: "1"}) || m.Marks[1] != (figure.Mark{Y: 30, X: 41, Star: true}) {
		t.Errorf("marks %+v: want detection 1 at (50, 20) and the star at (30, 41)", m.Marks)
	}
	if !strings.Contains(m.Title, "HD 95086") || m.Compass == nil || m.Compass.NorthOffset != -1.75 {
		t.Errorf("title %q, compass %+v", m.Title, m.Compass)
	}
	for _, a := range []struct {
		axis figure.Axis
		c    float64
	}{{m.X, 41}, {m.Y, 30}} {
		if at := a.axis.Origin + a.axis.Step*(a.c+0.5); math.Abs(at) > 1e-12 || a.axis.Step != 0.0272 || !strings.Contains(a.axis.Label, "arcsec") {
			t.Errorf("axis %+v puts the star at %g", a.axis, at)
		}
	}
	tg.Options.PixelScale = 0
	if m := snrFigure(tg, res, snr); m.X != (figure.Axis{}) || m.Y != (figure.Axis{}) {
		t.Errorf("without a pixel scale: axes %+v, %+v", m.X, m.Y)
	}
}

// TestWriteTables: a shard's table is its shard file alone; a whole
// survey's is survey.csv, survey.json and the timings, and the paths
// returned are the files written.
func TestWriteTables(t *testing.T) {
	for _, c := range []struct {
		table *Table
		want  []string
	}{
		{&Table{Manifest: "m.csv", Targets: 3, Shard: 2, Shards: 2}, []string{"survey-shard-2-of-2.json"}},
		{&Table{Manifest: "m.csv", Targets: 3}, []string{"survey.csv", "survey.json", "survey-timings.csv"}},
	} {
		dir := t.TempDir()
		got, err := c.table.WriteTables(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		for i := range c.want {
			c.want[i] = filepath.Join(dir, c.want[i])
		}
		if !slices.Equal(got, c.want) || len(names) != len(c.want) {
			t.Errorf("shards %d: wrote %q, returned %q; want %q", c.table.Shards, names, got, c.want)
		}
	}
}

// TestOptionErrHeaderCenter: a centre asked of a header that has none is
// a *ValueError in the target's words, the manifest's column or the
// command line's flag.
func TestOptionErrHeaderCenter(t *testing.T) {
	const want = "center header: the cube has no CRPIX1 and CRPIX2 header cards (only FITS cubes can have them); give center auto or y,x"
	err := (&Target{}).OptionErr(fmt.Errorf("run: %w", paco.ErrNoHeaderCenter))
	if ve := (*ValueError)(nil); !errors.As(err, &ve) || err.Error() != want {
		t.Errorf("got %v, want a *ValueError %q", err, want)
	}
	flag := &Target{Word: func(f string) string { return "--" + ColumnName(f) }}
	if err := flag.OptionErr(paco.ErrNoHeaderCenter); err.Error() != strings.ReplaceAll(want, "center", "--center") {
		t.Errorf("in flags: %v", err)
	}
}
