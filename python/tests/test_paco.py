"""vkstat.paco against ``vkstat paco --format npy`` on the same files (maps
bit for bit, detections, centre and contrast curve to the last bit), the
detections against the companions synth injected, lavapipe's float32 maps
against the CPU path's float64, what is lent and what copied, bad input,
Ctrl-C, and the worked example (examples/python/paco_adi.py)."""

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import vkstat

ROOT = Path(__file__).resolve().parents[2]

# Two companions on a 48×48×40 sequence with 90° of rotation: bright enough
# to be found at radius 3, far enough apart to be two detections.
SYNTH = ["--size", "48", "--frames", "40", "--rotation", "90", "--fwhm", "3", "--seed", "3",
         "--companion", "sep=12,pa=300,flux=150", "--companion", "sep=18,pa=60,flux=60"]


@pytest.fixture(scope="module")
def adi(cli, cpu, tmp_path_factory):
    """The synthetic sequence's files (cube.npy float32, angles.npy,
    psf.npy, truth.json) and arrays."""
    d = tmp_path_factory.mktemp("adi")
    cli(cpu, "synth", "paco", *SYNTH, "--format", "npy", "--out-dir", d)
    truth = json.loads((d / "truth.json").read_text(encoding="utf-8"))
    return d, np.load(d / "cube.npy"), np.load(d / "angles.npy"), np.load(d / "psf.npy"), truth


# The same analysis as keyword arguments and as flags: the PSF stamp, or
# synth's Gaussian of the FWHM with every option that changes the tables.
CASES = {
    "psf": ({"radius": 3}, ["--radius", "3"]),
    "fwhm-unbiased": ({"fwhm": 3, "radius": 3, "unbiased": True, "threshold": 6, "min_sep": 5, "center": "auto",
                       "pixel_scale": 0.0272, "north_offset": -1.75, "star_flux": 2000, "contrast_check": True},
                      ["--fwhm", "3", "--radius", "3", "--unbiased", "--threshold", "6", "--min-sep", "5", "--center", "auto",
                       "--pixel-scale", "0.0272", "--north-offset", "-1.75", "--star-flux", "2000", "--contrast-check"]),
}


def nums(v):
    """JSON numbers, null for NaN."""
    return np.array([np.nan if x is None else x for x in v], dtype=np.float64)


@pytest.mark.parametrize("case", CASES)
def test_paco_matches_the_command(dev, cpu, cli, adi, tmp_path, case):
    d, cube, angles, psf, truth = adi
    kw, flags = CASES[case]
    out = tmp_path / "out"
    if "fwhm" in kw:
        cli(dev, "paco", "--cube", d / "cube.npy", "--angles", d / "angles.npy", *flags, "--format", "npy", "--out-dir", out)
        with pytest.warns(RuntimeWarning, match=r"center='auto': the star measured at .* does not rule out the geometric centre"):
            r = dev.paco(cube, angles, **kw)
    else:
        cli(dev, "paco", "--cube", d / "cube.npy", "--angles", d / "angles.npy", "--psf", d / "psf.npy", *flags,
            "--format", "npy", "--out-dir", out)
        r = dev.paco(cube, angles, psf, **kw)
    assert dev._last_copied == ()  # the float32 cube, the angles and the stamp are read where they lie
    # the maps, bit for bit
    for name, a in r.arrays().items():
        want = np.load(out / f"{name}.npy")
        assert a.dtype == want.dtype == np.float64 and a.shape == (48, 48) and a.flags.owndata
        np.testing.assert_array_equal(a, want, err_msg=name)
    # the detections: detections.csv's columns, detections.json's values
    det = r.detections
    with open(out / "detections.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert list(det.dtype.names) == rows[0] and len(det) == len(rows) - 1
    doc = json.loads((out / "detections.json").read_text(encoding="utf-8"))
    assert len(doc["detections"]) == len(det) >= 2
    np.testing.assert_array_equal(det.rank, np.arange(1, len(det) + 1))
    for rec, want in zip(det, doc["detections"]):
        if "pixel_scale" not in kw:
            assert np.isnan(rec.separation_arcsec) and "separation_arcsec" not in want
        for k, v in want.items():
            assert rec[k] == v, (k, rec[k], v)
    assert r.center == doc["center_info"] and r.center["used"] == doc["center"] == [24, 24]
    assert (r.threshold, r.north_offset, r.pa_convention) == (doc["threshold"], doc["north_offset_deg"], doc["pa_convention"])
    assert r.pixel_scale == doc.get("pixel_scale_arcsec")
    # the contrast curve
    curve = json.loads((out / "contrast.json").read_text(encoding="utf-8"))["curve"]
    assert len(r.contrast) == len(curve) > 10
    for col in r.contrast.dtype.names:
        if col == "separation_arcsec" and "pixel_scale" not in kw:  # contrast.json leaves it out
            assert np.isnan(r.contrast[col]).all() and all(col not in p for p in curve)
            continue
        np.testing.assert_array_equal(r.contrast[col], nums([p[col] for p in curve]), err_msg=col)
    # against the truth: each injected companion is a detection within 1.5
    # px, and Algorithm 3 gets its flux back within 10 %
    for c in truth["companions"]:
        dist = np.hypot(det.y - c["y"], det.x - c["x"])
        k = int(np.argmin(dist))
        assert dist[k] < 1.5, (c, det)
        if kw.get("unbiased"):
            assert abs(det.flux_unbiased[k] / c["flux"] - 1) < 0.1, (c["flux"], det.flux_unbiased[k])
            assert det.converged[k] and det.iterations[k] >= 1
    # the contrast check's fakes: contrast_check.csv (its 8 digits)
    if kw.get("contrast_check"):
        with open(out / "contrast_check.csv", newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        chk = r.contrast_check
        assert list(chk.dtype.names) == rows[0] and len(chk) == len(rows) - 1 > 0
        assert any(n.startswith("contrast check: run ") for n in r.notes), r.notes
        for rec, row in zip(chk, rows[1:]):
            for col, v in zip(rows[0], row):
                if col == "detected":
                    assert rec[col] == (v == "true")
                else:
                    np.testing.assert_allclose(rec[col], float(v), rtol=1e-7, err_msg=col)
    else:
        assert r.contrast_check is None
    if kw.get("star_flux"):
        np.testing.assert_allclose(r.contrast.contrast, r.contrast.flux_limit / 2000, rtol=1e-15)
    # lavapipe computes the float32 cube in float32 (float64 accumulators):
    # its maps are the CPU path's float64 ones to float32's precision
    if dev.device["path"] != "cpu":
        assert r.precision == "f32"
        ref = cpu.paco(cube, angles, psf, **kw) if "fwhm" not in kw else None
        if ref is not None:
            for name, a in r.arrays().items():
                b = getattr(ref, name)
                np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * np.nanmax(np.abs(b)), err_msg=name)


def test_paco_lends_and_copies(cpu, adi):
    """A C-contiguous float32 or float64 cube and float64 angles are read
    where they lie; anything else is converted once, to the same maps."""
    _, cube, angles, _, _ = adi
    cube, angles = cube[:20], angles[:20]
    args = {"fwhm": 3, "radius": 3, "center": (24, 24)}
    r = cpu.paco(cube, angles, **args)
    assert cpu._last_copied == () and r.center["source"] == "option"
    for c, a, copied in ((cube.astype(np.float64), angles, ()), (np.asfortranarray(cube), angles, ("cube",)),
                         (cube, angles.tolist(), ("angles",))):
        got = cpu.paco(c, a, **args)
        assert cpu._last_copied == copied
        np.testing.assert_array_equal(got.snr, r.snr)  # the CPU path widens float32 exactly
    assert r.psf.shape == (19, 19) and abs(r.psf.sum() - 1) < 1e-12  # synth's Gaussian stamp, unit sum
    # a FITS table's column of angles, (T, 1), or a row, (1, T): as the command line reads an angles file
    for a in (angles[:, None], angles[None, :]):
        np.testing.assert_array_equal(cpu.paco(cube, a, **args).snr, r.snr)
    with pytest.raises(ValueError, match=r"angles has shape \(2, 10\); want \(T,\)"):
        cpu.paco(cube, angles.reshape(2, 10), **args)


def test_paco_star_flux_and_calibration(cpu, adi):
    """Issue 40, items 1 and 2: the star's flux from the stamp ("psf": its
    total, 5 for synth's unit stamp ×5) times star_flux_scale; a limit
    brighter than the star warns; the contrast curve is calibrated unless
    quick_contrast, keeping the uncalibrated limit beside."""
    _, _, angles, psf, _ = adi
    cube = np.random.default_rng(5).standard_normal((40, 48, 48))  # no companion: room for the calibration's fakes
    args = {"radius": 3, "center": (24, 24)}
    r = cpu.paco(cube, angles, psf * 5, star_flux="psf", star_flux_scale=100, **args)
    assert abs(r.star_flux - 500) < 1e-9
    np.testing.assert_allclose(r.contrast.contrast, r.contrast.flux_limit / r.star_flux, rtol=1e-15)
    cal = r.calibration
    assert cal["passes"] * cal["runs_per_pass"] == 8 and len(cal["fakes"]) > 0
    assert 0 < cal["median_relative_uncertainty"] < 0.3
    c = r.contrast
    assert np.all((c.throughput > 0) & (c.throughput < 1) & (c.throughput_err > 0))
    np.testing.assert_allclose(c.flux_limit, c.flux_limit_uncalibrated / c.throughput, rtol=1e-12)
    q = cpu.paco(cube, angles, psf, quick_contrast=True, **args)
    assert q.calibration is None and np.all(np.isnan(q.contrast.throughput))
    np.testing.assert_allclose(q.contrast.flux_limit, c.flux_limit_uncalibrated, rtol=1e-12)  # the stamp ×5 normalised: equal to rounding
    with pytest.warns(RuntimeWarning, match="brighter than the star.*star_flux"):
        cpu.paco(cube, angles, psf, star_flux=1, quick_contrast=True, **args)
    with pytest.raises(ValueError, match="star_flux"):
        cpu.paco(cube, angles, fwhm=3, star_flux="psf", **args)
    with pytest.raises(ValueError, match="star_flux"):
        cpu.paco(cube, angles, psf, star_flux="stamp", **args)


def test_paco_bad_input(dev, adi):
    _, cube, angles, psf, _ = adi
    with pytest.raises(ValueError, match="give psf or fwhm, not both"):
        dev.paco(cube, angles, psf, fwhm=3)
    with pytest.raises(ValueError, match="give psf .* or fwhm"):
        dev.paco(cube, angles)
    with pytest.raises(ValueError, match="40 angles for 39 frames"):
        dev.paco(cube[1:], angles, psf)
    with pytest.raises(ValueError, match=r"cube must be 3-D \(T, H, W\); got shape \(48, 48\)"):
        dev.paco(cube[0], angles[:1], psf)
    with pytest.raises(ValueError, match="square with an odd size"):
        dev.paco(cube, angles, psf[1:, 1:])
    with pytest.raises(ValueError, match="radius 30 needs at least 61×61 pixels"):
        dev.paco(cube, angles, psf, radius=30)
    with pytest.raises(ValueError, match=r"center: want \(y, x\) in pixels, 0-based, or auto; got \"header\""):
        dev.paco(cube, angles, psf, center="header")
    with pytest.raises(ValueError, match=r"center \(60, 2\) is outside the 48×48 frame"):
        dev.paco(cube, angles, psf, center=(60, 2))
    with pytest.raises(ValueError, match="pixel_scale: want arcseconds per pixel"):
        dev.paco(cube, angles, psf, pixel_scale=0)
    with pytest.raises(ValueError, match="unknown PSF placement"):
        dev.paco(cube, angles, psf, placement="exact")
    if dev.device["path"] == "cpu":
        with pytest.raises(ValueError, match="the PACO CPU path computes in float64 only"):
            dev.paco(cube, angles, psf, precision="float32")


def test_paco_runs_on_the_worker(adi):
    """PACO may run long whatever its arrays' size: it runs on the
    session's thread, where Ctrl-C cancels it."""
    _, cube, angles, psf, _ = adi
    with vkstat.open("cpu") as s:
        r = s.paco(cube[:10], angles[:10], psf, radius=2)
        assert s._q is not None and r.shape == (10, 48, 48)


CHILD = textwrap.dedent("""
    import sys
    import signal
    # Python leaves SIGINT ignored when it starts with it ignored (a job
    # that a shell started in the background): Ctrl-C is then no
    # KeyboardInterrupt anywhere, and this test is about ours.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    import vkstat
    from vkstat import _lib
    outcome = []
    call = _lib.call
    def recorded(*args):  # what the library said of each call
        try:
            r = call(*args)
        except _lib.Cancelled:
            outcome.append("cancelled")
            raise
        outcome.append("finished")
        return r
    _lib.call = recorded
    dev = vkstat.open("cpu")
    # Every local maximum a detection, Algorithm 3 for each: ~30 s on 2 cores
    cube = np.random.default_rng(1).standard_normal((100, 128, 128)).astype(np.float32)
    print("ready", flush=True)
    try:
        dev.paco(cube, np.linspace(0, 90, 100), fwhm=3, radius=3, threshold=0, unbiased=True, center=(64, 64))
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    z = dev.map(np.ones(3), np.ones(3))  # waits for the abandoned call
    print("after", z.tolist(), *outcome, flush=True)
    dev.close()
    print("live", *_lib.live(), flush=True)
""")


def test_paco_ctrl_c_cancels_it():
    """SIGINT during vkstat.paco raises KeyboardInterrupt and cancels the
    analysis in the library (it reports the call cancelled, not finished),
    and the session serves the next call."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         encoding="utf-8", env=env)
    try:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        p.kill()
    assert out.splitlines() == ["interrupted", "after [2.0, 2.0, 2.0] cancelled finished", "live 0 0"], (out, err)
    assert p.returncode == 0, err


def test_example_paco_adi(cli_exe, dev):
    """examples/python/paco_adi.py runs (it checks itself against vkstat
    paco on the same files) on the CPU path and lavapipe."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), VKSTAT_CLI=cli_exe)
    where = "cpu" if dev.device["path"] == "cpu" else "lavapipe"
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "paco_adi.py"), "--device", where],
                       capture_output=True, text=True, encoding="utf-8", env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "the same maps and detections as vkstat paco" in p.stdout, p.stdout
