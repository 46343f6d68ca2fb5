package cli

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// fitsCubeWithCards writes data (T, H, W) as a float32 FITS cube whose
// header has the given extra cards (HIERARCH ones included), by hand.
func fitsCubeWithCards(t *testing.T, path string, data []float64, T, H, W int, extra ...string) {
	t.Helper()
	card := func(s string) string { return fmt.Sprintf("%-80s", s) }
	var hdr strings.Builder
	for _, c := range []string{"SIMPLE  =                    T", "BITPIX  =                  -32", "NAXIS   =                    3",
		fmt.Sprintf("NAXIS1  = %20d", W), fmt.Sprintf("NAXIS2  = %20d", H), fmt.Sprintf("NAXIS3  = %20d", T)} {
		hdr.WriteString(card(c))
	}
	for _, c := range extra {
		hdr.WriteString(card(c))
	}
	hdr.WriteString(card("END"))
	b := []byte(hdr.String())
	for len(b)%2880 != 0 {
		b = append(b, ' ')
	}
	for _, v := range data {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(float32(v)))
	}
	for len(b)%2880 != 0 {
		b = append(b, 0)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPacoAnglesHeader: --angles header on a cube whose ESO header gives
// the same angles as synthADI's angle file finds the same companion with
// the same SNR; a cube without the keywords is refused with their names.
func TestPacoAnglesHeader(t *testing.T) {
	data := synthADI(t)
	cube, err := formats.ReadArray(filepath.Join(data, "cube.npy"))
	if err != nil {
		t.Fatal(err)
	}
	T, H, W := cube.Shape[0], cube.Shape[1], cube.Shape[2]
	// synthADI's angles are 90°·t/(T−1); at the frames' middles, (t+½)/T of
	// the way from START to END, that is START = −(END−START)/(2T) and
	// END − START = 90°·T/(T−1).
	turn := 90 * float64(T) / float64(T-1)
	start := -turn / float64(2*T)
	dir := t.TempDir()
	withESO := filepath.Join(dir, "eso.fits")
	fitsCubeWithCards(t, withESO, cube.Float64s(), T, H, W,
		"HIERARCH ESO TEL PARANG START = "+strconv.FormatFloat(start, 'g', 17, 64),
		"HIERARCH ESO TEL PARANG END = "+strconv.FormatFloat(start+turn, 'g', 17, 64))
	bare := filepath.Join(dir, "bare.fits")
	fitsCubeWithCards(t, bare, cube.Float64s(), T, H, W)

	args := func(cubePath, angles, out string) []string {
		return []string{"--device", "cpu", "paco", "--cube", cubePath, "--angles", angles, "--psf", filepath.Join(data, "psf.npy"),
			"--radius", "3", "--center", "24,24", "--out-dir", out}
	}
	code, _, stderr := run(t, args(bare, filepath.Join(data, "angles.npy"), filepath.Join(dir, "file"))...)
	if code != 0 {
		t.Fatalf("angles from the file: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, args(withESO, "header", filepath.Join(dir, "header"))...)
	if code != 0 {
		t.Fatalf("--angles header: exit %d: %s", code, stderr)
	}
	a := readCSVRows(t, filepath.Join(dir, "file", "detections.csv"))
	b := readCSVRows(t, filepath.Join(dir, "header", "detections.csv"))
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("detections: %d from the file's angles, %d from the header's; want 1 each", len(a), len(b))
	}
	sa, _ := strconv.ParseFloat(a[0]["snr"], 64)
	sb, _ := strconv.ParseFloat(b[0]["snr"], 64)
	if a[0]["y"] != b[0]["y"] || a[0]["x"] != b[0]["x"] || math.Abs(sa-sb) > 1e-6*sa {
		t.Errorf("file's angles: (%s, %s) SNR %g; header's: (%s, %s) SNR %g", a[0]["y"], a[0]["x"], sa, b[0]["y"], b[0]["x"], sb)
	}
	code, _, stderr = run(t, args(bare, "header", filepath.Join(dir, "none"))...)
	if code == 0 || !strings.Contains(stderr, "ESO TEL PARANG START") {
		t.Errorf("--angles header without the keywords: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("a refused run left its output folder")
	}
}
