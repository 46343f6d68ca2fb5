package survey

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// WriteDataset writes ds's files to dir, all or none, as vkstat synth paco
// (of version) does: AddDataset's, in each of exts.
func WriteDataset(ctx context.Context, dir string, ds *synth.Dataset, exts []string, version string) error {
	out := formats.Outputs{Ctx: ctx}
	defer out.Abort()
	out.OwnDir(dir, "synth paco")
	if err := AddDataset(&out, dir, ds, exts, "vkstat synth paco", version); err != nil {
		return err
	}
	return out.Commit()
}

// AddDataset stages ds's files in out, in dir: cube, angles and psf in
// each of exts (".fits", ".npy"), the FITS ones with ds.Header's cards,
// and truth.json (ds.TruthFile), made by generator (its name and
// version). It is the layout vkstat synth paco and synth survey
// (WriteSynthetic) write, and a target's files and truth column name.
func AddDataset(out *formats.Outputs, dir string, ds *synth.Dataset, exts []string, generator, version string) error {
	angles := tensor.FromF64(ds.Angles, len(ds.Angles))
	h := ds.Header(generator, version)
	cards := make([]formats.FITSCard, len(h))
	for i, c := range h {
		cards[i] = formats.FITSCard(c)
	}
	files := map[string][]string{}
	for _, ext := range exts {
		for _, a := range []struct {
			name string
			t    *tensor.Tensor
		}{{"cube", ds.Cube}, {"angles", angles}, {"psf", ds.PSF}} {
			path := filepath.Join(dir, a.name+ext)
			t := a.t
			var write func(io.Writer) error
			if ext == ".fits" {
				write = func(wr io.Writer) error { return formats.EncodeFITS(wr, t, cards) }
			} else {
				write = func(wr io.Writer) error { return formats.EncodeNPY(wr, t) }
			}
			if err := out.Add(path, write); err != nil {
				return err
			}
			files[a.name] = append(files[a.name], a.name+ext)
		}
	}
	truth := ds.TruthFile(generator, version, files)
	return out.Add(filepath.Join(dir, "truth.json"), func(wr io.Writer) error {
		enc := json.NewEncoder(wr)
		enc.SetIndent("", "  ")
		return enc.Encode(truth)
	})
}
