"""Exoplanet detection in ADI sequences: :meth:`Session.paco`, what ``vkstat
paco`` does."""

from __future__ import annotations

import numpy as np

from ._arrays import lend
from ._params import _precision

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Mapping, Sequence

    import numpy.typing as npt

    from ._params import DTypeLike
    from ._results import PacoResult

    from ._session import Session


def paco(self: Session, cube: npt.ArrayLike, angles: npt.ArrayLike, psf: npt.ArrayLike | None = None,
         fwhm: float | None = None, *, radius: int | None = None, threshold: float | None = None,
         min_sep: float | None = None,
         center: str | Sequence[float] | None = None, unbiased: bool = False, contrast_check: bool = False,
         quick_contrast: bool = False,
         star_flux: float | str | None = None, star_flux_scale: float | None = None, pixel_scale: float | None = None, north_offset: float = 0.0,
         psf_norm: str | None = None, placement: str | None = None, compat: str | None = None,
         precision: DTypeLike = None, out: Mapping[str, np.ndarray] | None = None) -> PacoResult:
    """PACO (Flasseur et al. 2018): faint companions in an angular
    differential imaging sequence, what ``vkstat paco`` does, on arrays
    in memory.

    A Gaussian model of every patch's background is learnt from all
    frames (its mean, and its covariance shrunk towards the diagonal);
    then every sky pixel gets the SNR and flux of a PSF-shaped source
    following the field rotation (Algorithm 2). Local maxima above
    ``threshold`` are detections; the contrast curve is threshold × the
    median σ_flux in 1-px annuli, divided by the throughput measured by
    injection and recovery (unless ``quick_contrast``).

    Parameters
    ----------
    cube : array_like
        The ADI cube (T, H, W), centred on the star. float32 and float64
        are read where they lie when C-contiguous; other dtypes are
        converted once (integers to float64, float16 to float32).
    angles : array_like
        T parallactic angles in degrees: shape (T,), or (T, 1) or (1, T)
        as FITS tables give them.
    psf : array_like, optional
        The off-axis PSF stamp: odd-sized, square, centred on its middle
        pixel; normalised by ``psf_norm``.
    fwhm : float, optional
        Instead of ``psf``: a Gaussian PSF of this FWHM in pixels (the
        one ``vkstat synth paco`` injects). Give one of psf and fwhm.
    radius : int, optional
        The patch radius in pixels. None, here and for threshold,
        psf_norm, placement and compat: the library's default, PACO.md's,
        which :func:`vkstat.defaults` lists.
    threshold : float, optional
        The SNR above which local maxima are detections.
    min_sep : float, optional
        The least distance between two detections, pixels; default
        2 × radius.
    center : (float, float) or "auto", optional
        The star's (y, x), pixels, 0-based (rounded for the maps).
        ``"auto"``: measured on the data, and used when it rules out
        (H/2, W/2), else (H/2, W/2), with a warning saying which. By
        default the same, warning only when the centre is moved.
    unbiased : bool, optional
        Add Algorithm 3's flux, σ, SNR and sub-pixel position to every
        detection (the statistics re-learnt without the source, which
        Algorithm 2's flux underestimates). Their ``snr_unbiased`` takes
        the re-learnt statistics as known: it is not a detection
        significance (often several times ``snr``); quote ``snr``.
    quick_contrast : bool, optional
        Keep the contrast curve threshold × σ_flux, without its
        calibration: by default fake companions are injected at the
        limit in 8 more runs of the maps (2 passes of 4), and the SNR
        they keep, smoothed over separation, divides the limit
        (``calibration`` says how; the ``contrast`` columns
        ``flux_limit_uncalibrated``, ``throughput`` and ``throughput_err``
        keep the rest). The quick curve is optimistic by the inverse of
        that throughput.
    contrast_check : bool, optional
        Check the contrast curve by injecting other fake companions at
        its limit and finding them again (three more runs of the maps).
    star_flux : float or "psf", optional
        The star's flux for the contrast curve's contrast and delta_mag,
        in the flux map's units, which are the cube's counts whatever
        the stamp's scale: the total of the star's unsaturated image in
        the cube's counts. ``"psf"``: the stamp's total (its peak with
        psf_norm "peak"), when the stamp is that image. A delta_mag below
        0 (a limit brighter than the star) warns.
    star_flux_scale : float, optional
        Multiplies star_flux: the exposure-time or neutral-density ratio
        of the cube's frames to the stamp's (default 1).
    pixel_scale : float, optional
        Arcseconds per pixel (VIP's pxscale): detections get
        separation_arcsec.
    north_offset : float, optional
        True-north correction in degrees, added to the position angles.
    psf_norm : {"sum", "peak", "none"}, optional
        How the stamp is normalised: fluxes are in its units.
    placement : {"nearest", "subpixel"}, optional
        Where the PSF model sits in each frame's patch: on the pixel the
        trajectory rounds to, or interpolated at the exact position.
    compat : {"none", "vip"}, optional
        ``vip`` reproduces VIP/PynPoint's numerics.
    precision : {None, "float32", "float64"}, optional
        What the maps are computed in on a device; by default the
        cube's type. The CPU path computes in float64 only.
    out : dict of str to ndarray, optional
        Where to write the maps (``snr``, ``flux``, ``sigma``) or the stamp
        (``psf``), by name, each as NumPy's ``out``.

    Returns
    -------
    PacoResult
        ``snr``, ``flux``, ``sigma`` (float64 (H, W)), ``detections``
        and ``contrast`` (record arrays with the columns of
        detections.csv and contrast.csv), ``center`` (the pixel used
        and why), ``warnings``, ... The maps and detections are ``vkstat
        paco``'s on the same arrays and device, bit for bit.

    Raises
    ------
    ValueError
        When the cube is not (T, H, W) with T ≥ 2, the angles are not T,
        the stamp is not odd and square, the patch does not fit the
        frames, both or neither of psf and fwhm are given, or a
        parameter is out of range.

    Warns
    -----
    RuntimeWarning
        For a NaN or constant cube, a field that does not rotate, a
        centre more than half a pixel from (H/2, W/2).

    Notes
    -----
    The call runs on the session's thread, where Ctrl-C cancels it
    between the stages of the maps, Algorithm 3's detections and the
    contrast check's runs.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> rng = np.random.default_rng(0)
    >>> cube = rng.standard_normal((20, 32, 32)).astype(np.float32)
    >>> r = vkstat.paco(cube, np.linspace(0, 90, 20), fwhm=3, radius=3, center=(16, 16))
    >>> r.snr.shape, r.center["source"], list(r.detections.dtype.names[:3])
    ((32, 32), 'option', ['rank', 'y', 'x'])
    """
    params = {"fwhm": fwhm, "psf_norm": psf_norm, "radius": radius, "threshold": threshold, "min_sep": min_sep,
              "compat": compat, "placement": placement, "precision": _precision(precision), "unbiased": bool(unbiased),
              "contrast_check": bool(contrast_check), "quick_contrast": bool(quick_contrast), "star_flux": star_flux, "star_flux_scale": star_flux_scale, "pixel_scale": pixel_scale,
              "north_offset": north_offset, "center": center}
    arrays = {"cube": lend(cube, "cube"), "angles": lend(angles, "angles", dtype=np.float64)}
    if psf is not None:
        arrays["psf"] = lend(psf, "psf")
    got, info, warns = self._run("paco", params, arrays, out)
    from ._results import PacoResult, fill, table  # at the first call: its dataclasses cost an import 8 ms
    return fill(PacoResult, got, info, detections=table(got, "detections"), contrast=table(got, "contrast"),
                contrast_check=table(got, "contrast_check"), warnings=warns)
