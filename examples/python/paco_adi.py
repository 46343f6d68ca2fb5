"""PACO on an angular differential imaging (ADI) sequence held in memory, as
a VIP user has it: the cube, the parallactic angles and the off-axis PSF as
NumPy arrays, the FWHM in pixels and the pixel scale in arcseconds.

The sequence is synthetic (``vkstat synth paco``: 40 frames of 48×48 pixels,
90° of field rotation, two companions at known positions), so that what
PACO finds can be compared with what was injected. The script then runs
``vkstat paco`` on the same files and checks that it gives the same maps,
bit for bit, and the same detections.

    make pylib build
    PYTHONPATH=python python3 examples/python/paco_adi.py [--device cpu|lavapipe|gpu]

It takes a second or two on two CPU cores.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import vkstat

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", help="where to run (default: $VKSTAT_DEVICE, else auto)")
    args = ap.parse_args()
    exe = os.environ.get("VKSTAT_CLI") or str(ROOT / "bin" / "vkstat")
    if not Path(exe).is_file():
        exe = shutil.which("vkstat") or sys.exit("no vkstat command: make build, or set VKSTAT_CLI")
    if args.device:
        vkstat.set_default(args.device)

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "adi"
        subprocess.run([exe, "synth", "paco", "--size", "48", "--frames", "40", "--rotation", "90", "--fwhm", "3",
                        "--companion", "sep=12,pa=300,flux=150", "--companion", "sep=18,pa=60,flux=60",
                        "--seed", "3", "--format", "npy", "--out-dir", str(data)], check=True, capture_output=True)

        # What a VIP user has in memory (with VIP: vip_hci.fits.open_fits).
        cube = np.load(data / "cube.npy")      # (T, H, W) float32, centred on the star
        angles = np.load(data / "angles.npy")  # (T,) parallactic angles, degrees
        psf = np.load(data / "psf.npy")        # off-axis PSF stamp, odd and centred; normalised to unit sum
        fwhm = 3.0                             # pixels (e.g. vip_hci.var.fit_2dgaussian on the PSF)
        pxscale = 0.0272                       # arcsec per pixel (VLT/NACO)

        # PACO. The patch radius is the FWHM, as VIP's PACO sizes its
        # patches; unbiased=True adds Algorithm 3's flux, which Algorithm 2's
        # underestimates (the companion is in its own background statistics).
        res = vkstat.paco(cube, angles, psf, radius=int(fwhm), pixel_scale=pxscale, unbiased=True)

        c = res.center
        print(f"{res.shape[0]} frames of {res.shape[1]}×{res.shape[2]}, rotation {angles[0]:.0f}° to {angles[-1]:.0f}°, "
              f"on {res.device} in {res.precision}")
        print(f"centre {tuple(c['used'])}, {c['source']}; maps {res.snr.shape}, {res.invalid_pixels} pixels NaN near the edges")
        print(" #   y   x  sep(px)  sep(\")  PA(E of N)    SNR   flux  flux (Alg. 3)")
        for d in res.detections:
            print(f"{d.rank:2d}  {d.y:2d}  {d.x:2d}  {d.separation_px:7.2f}  {d.separation_arcsec:6.3f}  "
                  f"{d.pa_east_of_north_deg:10.1f}  {d.snr:5.1f}  {d.flux:5.1f}  {d.flux_unbiased:13.1f}")
        truth = json.loads((data / "truth.json").read_text(encoding="utf-8"))
        for t in truth["companions"]:
            k = int(np.argmin(np.hypot(res.detections.y - t["y"], res.detections.x - t["x"])))
            print(f"injected: sep {t['sep']} px, PA {t['pa_east_of_north_deg']}°, flux {t['flux']} -> detection #{k + 1}, "
                  f"Algorithm 3's flux {res.detections.flux_unbiased[k]:.1f}")
        lim = res.contrast[res.contrast.separation_px == 10][0]
        print(f"5-σ flux limit at 10 px: {lim.flux_limit:.1f} (the cube's counts)")

        # The same files through the command line: the same results.
        same_as_the_command(exe, data, Path(tmp) / "out", res, radius=int(fwhm), pxscale=pxscale)
    return 0


def same_as_the_command(exe: str, data: Path, out: Path, res: vkstat.PacoResult, radius: int, pxscale: float) -> None:
    dev = vkstat.default_session().device
    where = "cpu" if dev["path"] == "cpu" else str(dev["index"])
    subprocess.run([exe, "--device", where, "paco", "--cube", str(data / "cube.npy"), "--angles", str(data / "angles.npy"),
                    "--psf", str(data / "psf.npy"), "--radius", str(radius), "--pixel-scale", str(pxscale), "--unbiased",
                    "--format", "npy", "--out-dir", str(out)], check=True, capture_output=True)
    for name, a in res.arrays().items():
        np.testing.assert_array_equal(a, np.load(out / f"{name}.npy"), err_msg=name)
    want = json.loads((out / "detections.json").read_text(encoding="utf-8"))["detections"]
    assert len(want) == len(res.detections)
    for rec, w in zip(res.detections, want):
        assert all(rec[k] == v for k, v in w.items()), (rec, w)
    print("the same maps and detections as vkstat paco on the same files")


if __name__ == "__main__":
    sys.exit(main())
