package paco

import (
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

func TestPrepareRejectsBadInput(t *testing.T) {
	cube, ang := testCube(tensor.F32, 10, 21, 21, 30, 1)
	psf := gaussPSF(9, 2)
	cases := []struct {
		name string
		in   Input
		want string
	}{
		{"angles count", Input{Cube: cube, Angles: ang[:9], PSF: psf, Radius: 4}, "9 angles for 10 frames"},
		{"even PSF", Input{Cube: cube, Angles: ang, PSF: tensor.New(tensor.F64, 8, 8), Radius: 4}, "odd size"},
		{"radius too large", Input{Cube: cube, Angles: ang, PSF: psf, Radius: 11}, "needs at least 23×23"},
		{"cube not 3-D", Input{Cube: tensor.New(tensor.F32, 21, 21), Angles: ang, PSF: psf, Radius: 4}, "must be 3-D"},
		{"one frame", Input{Cube: tensor.New(tensor.F32, 1, 21, 21), Angles: ang[:1], PSF: psf, Radius: 4}, "at least 2"},
		{"centre outside", Input{Cube: cube, Angles: ang, PSF: psf, Radius: 4, Center: &[2]int{30, 2}}, "outside"},
		{"zero PSF", Input{Cube: cube, Angles: ang, PSF: tensor.New(tensor.F64, 9, 9), Radius: 4}, "sums to 0"},
		{"PSF norm", Input{Cube: cube, Angles: ang, PSF: psf, Radius: 4, PSFNorm: "max"}, "unknown PSF normalisation"},
		{"radius 0", Input{Cube: cube, Angles: ang, PSF: psf}, "radius must be at least 1"},
	}
	for _, c := range cases {
		_, err := prepare(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
}

func TestLagsCount(t *testing.T) {
	// PACO.md: 181 displacements for R = 4, 91 up to sign; 1225 pairs.
	for r, want := range map[int][2]int{4: {91, 1225}, 1: {7, 15}} {
		cube, ang := testCube(tensor.F32, 4, 21, 21, 10, 1)
		p, err := prepare(Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: r})
		if err != nil {
			t.Fatal(err)
		}
		d, pairs := p.Lags()
		if len(d) != want[0] || len(pairs) != want[1] {
			t.Errorf("R=%d: %d displacements, %d pairs; want %v", r, len(d), len(pairs), want)
		}
	}
}
