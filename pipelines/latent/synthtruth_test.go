package latent

import (
	"encoding/json"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestSynthTruth on values worked by hand: ρ = 0.3 over 3 channels gives
// R = [[1, .3, .09], [.3, 1, .3], [.09, .3, 1]]; a = 0.5 over 3 frames the
// lag correlations 1, .5, .25; β = 2 the spatial slope −2.
func TestSynthTruth(t *testing.T) {
	c := SynthConfig{N: 1, C: 3, F: 3, H: 4, W: 4, Rho: 0.3, TimeRho: 0.5, Slope: 2, Seed: 9}
	js, err := json.Marshal(c.Truth("bf16"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"channel_corr":[1,0.3,0.09,0.3,1,0.3,0.09,0.3,1],"dtype":"bf16","lag_corr":[1,0.5,0.25],"rho":0.3,"seed":9,"shape":[1,3,3,4,4],"spatial_slope":-2,"time_rho":0.5}`
	if string(js) != want {
		t.Errorf("got  %s\nwant %s", js, want)
	}
}

// TestSynthMetadata: the safetensors metadata keeps the shape as given
// and the slope as Run reports it (β = 2.5: −2.5).
func TestSynthMetadata(t *testing.T) {
	for _, tc := range []struct {
		slope float64
		want  string
	}{{2.5, "-2.5"}, {1, "-1"}} {
		c := SynthConfig{N: 1, C: 3, F: 3, H: 4, W: 4, Rho: 0.3, TimeRho: 0.5, Slope: tc.slope, Seed: 9}
		js, err := json.Marshal(c.Metadata(" 1,3,3,4,4"))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"generator":"vkstat synth latent","rho":"0.3","seed":"9","shape":" 1,3,3,4,4","spatial_slope":"` + tc.want + `","time_rho":"0.5"}`
		if string(js) != want {
			t.Errorf("slope %g: got  %s\nwant %s", tc.slope, js, want)
		}
	}
}

// TestSynthSlope: the slope as Run reports it is −β; a positive one gets
// the hint of its negation, one out of reach none.
func TestSynthSlope(t *testing.T) {
	if b, err := SynthSlope(-2.5); b != 2.5 || err != nil {
		t.Errorf("slope -2.5: β %v, %v", b, err)
	}
	flag := func(field, value string) string {
		if value == "" {
			return "--" + field
		}
		return "--" + field + " " + value
	}
	for slope, want := range map[float64]string{
		3:  "--slope 3: want the power spectrum's log-log slope, from −8 to 0 (red to white); for P ∝ |k|^−3 give --slope -3 (--slope is the log-log slope, as vkstat latent reports it)",
		-9: "--slope -9: want the power spectrum's log-log slope, from −8 to 0 (red to white)",
	} {
		_, err := SynthSlope(slope)
		if w, named := engine.InWords(err, flag); !named || w.Error() != want {
			t.Errorf("slope %g: %v", slope, w)
		}
	}
}
