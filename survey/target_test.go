package survey

import (
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
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
