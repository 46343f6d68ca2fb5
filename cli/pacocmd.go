package cli

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/heap"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

func pacoCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "paco",
		Usage:     "detect faint companions in an angular differential imaging cube (PACO)",
		UsageText: "vkstat [global options] paco --cube CUBE --angles ANGLES (--psf PSF | --fwhm PX) [options] --out-dir DIR",
		Description: `Fast PACO (Flasseur et al. 2018, Algorithm 2): a Gaussian model of the
background of every patch learnt from all frames (mean, covariance shrunk
towards its diagonal), then for every sky pixel the SNR of a PSF-shaped
source following the field rotation. Inputs are FITS or NPY: the cube is
(T, H, W) (FITS NAXIS3 = T), the angles T parallactic angles in degrees (FITS,
NPY or a text file), the PSF an odd square stamp (normalised to unit sum by
default, so fluxes are in units of the stamp's total flux).

The star centre: --center y,x, or auto (measured: a Gaussian-windowed
centroid of the star, or of a coronagraph's dark centre, per frame, median,
with a 95 % uncertainty; used when H/2,W/2 lies outside that, else H/2,W/2,
which the data cannot tell from it), or header (CRPIX2-1, CRPIX1-1 of the
FITS cube); not given, the header's if any, else auto. A warning says when
the centre is more than 0.5 px from H/2,W/2.

Writes to DIR: snr, flux and sigma maps (FITS with the run's parameters in
the header, and/or NPY with --format), detections.csv, detections.json,
snr.png, and the contrast curve (threshold × the median σ_flux in 1-px
annuli from the inner working angle, max(FWHM, patch radius), out,
divided by the SNR throughput measured by injection–recovery, and its
contrast in magnitudes against --star-flux) as contrast.csv,
contrast.json and contrast.png. The fast estimate keeps only part of a
source's flux and SNR, so the uncalibrated limit is optimistic: fake
companions (the PSF interpolated on their exact trajectories) are
injected at the limit in 2 passes of 4 more runs of the maps, found
again, and the SNR they keep, smoothed over separation, divides it
(contrast.json says how, with its uncertainty, and keeps the uncalibrated
column); --quick-contrast skips that. With --contrast-check, other fakes
at the calibrated limit are injected in 3 more runs and
contrast_check.csv says how much of their flux and SNR came back (a
source at the limit is found about half the time). Each detection has its
separation (px, and arcsec with --pixel-scale) and its astronomical
position angle, east of north, assuming north up (+y) and east left (−x) in
the derotated frame (--north-offset adds an instrument's correction),
beside its angle from +x towards +y; snr.png shows N and E arrows.
With --unbiased, each detection also gets PACO's Algorithm 3 (the
companion contaminates its own background statistics, so Algorithm 2's flux
is low, by 20-80 % on short sequences): statistics re-learnt with the source
removed, iterated to |Δflux| ≤ 1e-4·flux (50 iterations at most), and the
position refined on a ±0.5 px grid in 0.1 px steps; the columns
flux_unbiased, sigma_unbiased, snr_unbiased, y_refined, x_refined,
iterations and converged are added beside Algorithm 2's.
Prints the device, the time of every phase (wall clock, adding up to the
command's), the centre, the invalid pixels and the detections, or with
--json all of that as one JSON object. Warnings (too little field
rotation, angles that look like radians, a FWHM implausible for a pixel,
the stamp or the patch, the centre) go to stderr. Nothing is written
unless the whole run succeeds.

Examples:
   vkstat synth paco --size 100 --frames 252 --companion sep=20,pa=45,flux=60 --out-dir data
   vkstat paco --cube data/cube.fits --angles data/angles.fits --psf data/psf.fits --out-dir results
   vkstat --device cpu paco --cube cube.npy --angles angles.txt --fwhm 4 --radius 3 --threshold 6 --out-dir results
   vkstat paco --cube cube.fits --angles angles.fits --psf psf.fits --compat vip --format both --out-dir vip`,
		Flags: append(append([]ucli.Flag{
			&ucli.StringFlag{Name: "cube", Usage: "the ADI cube (T, H, W): .fits or .npy"},
			&ucli.StringFlag{Name: "angles", Usage: "T parallactic angles in degrees: .fits, .npy or text; or header: from the cube's HIERARCH ESO TEL PARANG START and END (one exposure), linear in time at each frame's middle"},
			&ucli.StringFlag{Name: "psf", Usage: "off-axis PSF stamp, odd-sized and centred: .fits or .npy"},
		}, paramFlags(paco.Params())...),
			&ucli.StringFlag{Name: "center", DefaultText: "header, else auto", Usage: "star centre: y,x in pixels (0-based, rounded for the maps), auto (measured on the data, headers ignored) or header (the cube's CRPIX2-1,CRPIX1-1); not given: the header's if the FITS cube has one, else auto, else H/2,W/2"},
			&ucli.StringFlag{Name: "format", Value: "fits", Usage: "map formats, comma-separated: fits, npy (both: fits,npy)"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the outputs (created if missing)"},
			&ucli.StringFlag{Name: "truth", Usage: "truth.json of vkstat synth paco: print each injected companion next to what PACO found"},
			jsonFlag(),
		),
		Action: runPaco,
	}
}

func runPaco(c *ucli.Context) error {
	start := time.Now()
	var acct engine.Timing // the command's steps, wall-clock, from start
	clock := acct.Clock()
	if err := requireFlag(c, "cube", "angles", "out-dir"); err != nil {
		return err
	}
	opt := paco.DefaultOptions()
	if err := setParams(c, paco.Params(), &opt); err != nil {
		return err
	}
	if err := paco.PSFGiven(c.IsSet("psf"), opt.FWHM); err != nil {
		return fieldError(err)
	}
	var err error
	if opt.Center, opt.CenterYX, err = paco.ParseCenter(c.String("center")); err != nil {
		return usagef("--center: %v", err)
	}
	f, err := mapFormats("format", c.String("format"))
	if err != nil {
		return err
	}
	plot, _ := plotFormat(c) // hardenCommand has refused a bad one
	t := &survey.Target{Cube: c.String("cube"), Angles: c.String("angles"), PSF: c.String("psf"), Truth: c.String("truth"),
		Format: f, Plot: plot, Options: opt, Word: flagName}
	if err := t.Check(); errors.As(err, new(*survey.ValueError)) {
		return usageError{err} // a bad option
	} else if err != nil {
		return err
	}
	if t.Options.Convert, t.Options.DType, err = pacoPrecision(c); err != nil {
		return err
	}
	dir := c.String("out-dir")
	clock.Lap("check inputs")
	// The device opens while the inputs are read: loading Vulkan and
	// creating the device (0.1–0.2 s on a GPU) overlaps reading the cube.
	var s *session
	opened := make(chan error, 1)
	go func() {
		var err error
		s, err = openSessionFor(c, headerJob(t.Cube, func(shape []int, dt tensor.DType) engine.Job {
			return priced(paco.Spec)(paco.Work(shape, dt, opt))
		}))
		opened <- err
	}()
	in, err := t.Read()
	if oerr := <-opened; err != nil || oerr != nil {
		if s != nil {
			s.Close()
		}
		return cmp.Or(err, oerr)
	}
	clock.Include(in.Phases)
	clock.Lap("open device") // what the opening took beyond the reads
	counts := s.dev.Counts() // what the device counted over the run
	res, before, err := t.Analyse(c.Context, s.dev, in, reporter(c.App.ErrWriter))
	counts = s.dev.Counts().Sub(counts)
	if errors.Is(err, paco.ErrCPUFloat64) {
		err = cpuPrecisionError(c.String("precision"))
	}
	if err == nil {
		clock.Include(res.Timing.Phases)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return pacoError(t, err)
	}
	clock.Lap("close device")
	heap.CollectScratch()
	clock.Lap("collect garbage")
	var writes engine.Timing
	files, err := survey.WriteTarget(c.Context, t, dir, res, "vkstat "+Version, &writes)
	if err != nil {
		return err
	}
	clock.Include(writes.Phases)
	notes := survey.PhaseNotes(res)
	notes["open device"] = fmt.Sprintf(" (beyond the reads; %.3f ms in all, alongside them)", float64(s.Startup.Microseconds())/1e3)
	report := survey.Report{Target: t, Dir: dir, Files: files, Inputs: in, Result: res, Before: before, Device: s.name(),
		Phases: acct.Phases, Wall: time.Since(start), Startup: s.Startup, Notes: notes}
	if c.Bool("json") {
		err = report.JSON(c.App.Writer)
	} else {
		if c.Bool("time") {
			report.Phases = nil // with --time, the phases are --time's
		}
		// In one write, not one a line (0.5 ms of system calls on a VM).
		out := bufio.NewWriter(c.App.Writer)
		report.Text(out)
		err = out.Flush()
	}
	if err != nil {
		return err
	}
	clock.Lap("summary")
	// One account of the wall: the phases above, the summary's printing
	// the last of them; --time prints it (the summary then gives only the
	// wall), --time-json writes it.
	wall := time.Since(start)
	acct.SetDevice(res.Maps.Timing, counts, wall)
	s.Account, s.Notes = true, notes
	reportTime(c, s, acct, wall)
	return nil
}
