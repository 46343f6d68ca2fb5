"""The result objects: cov's and chol's named tuples, verify's report, and
the workloads' (latent, stack, paco): NumPy arrays named as the command
line's output files, and the numbers it prints where they are data. Each
workload's is filled from a call's outputs and Info by
:func:`fill`; tables (PACO's detections) come as one output per column,
``table.column``, gathered by :func:`table`."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, Optional, TypeVar

import numpy as np

T = TypeVar("T")


def fill(cls: type[T], got: Mapping[str, np.ndarray], info: Mapping[str, Any] | None, **extra: Any) -> T:
    """An instance of the dataclass cls whose fields are the outputs of that
    name, else the Info's values of that name, else extra's, else their
    defaults."""
    info = info or {}
    kw: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in got:
            kw[f.name] = got[f.name]
        elif f.name in info:
            kw[f.name] = info[f.name]
        elif f.name in extra:
            kw[f.name] = extra[f.name]
    return cls(**kw)


def table(got: Mapping[str, np.ndarray], name: str) -> np.recarray | None:
    """The outputs ``name.column`` as one record array, the columns in the
    library's order (each of its own dtype); None when there are none."""
    cols = [(k[len(name) + 1:], v) for k, v in got.items() if k.startswith(name + ".")]
    if not cols:
        return None
    return np.rec.fromarrays([v for _, v in cols], names=[c for c, _ in cols])


def _describe(obj: Any, names: tuple[str, ...]) -> str:
    """``Class(name=shape dtype, ...)`` for the arrays present."""
    parts = []
    for n in names:
        a = getattr(obj, n)
        if a is not None:
            parts.append(f"{n}={'×'.join(map(str, a.shape)) or '()'} {a.dtype}")
    return f"{type(obj).__name__}({', '.join(parts)})"


class CovResult(NamedTuple):
    """What :func:`cov` returns."""
    cov: np.ndarray
    """(N, P, P) covariance matrices, or (P, P) for one sample set."""
    mean: np.ndarray
    """(N, P) means, or (P,)."""
    rho: np.ndarray
    """(N,) shrinkage weights ρ, or a 0-d array; 0 for the estimator none."""
    locations: np.ndarray | None = None
    """With ``radius``: the (y, x) of each patch centre, int64 (N, 2)."""


class CholResult(NamedTuple):
    """What :func:`chol` returns; what was not asked for is None."""
    l: np.ndarray | None  # noqa: E741 (L, as LAPACK names it)
    """Lower-triangular factors L, A = L·Lᵀ, zero above the diagonal."""
    x: np.ndarray | None
    """Solutions X of A·X = B, B's shape."""
    inverse: np.ndarray | None
    """A⁻¹."""
    logdet: np.ndarray | None
    """log det A, (N,) or 0-d."""
    quad: np.ndarray | None
    """bᵀA⁻¹b per right-hand side b."""
    info: np.ndarray
    """int32 potrf info per matrix: 0, or the 1-based index of the first
    pivot that is not positive (that matrix's outputs are NaN)."""


@dataclass
class VerifyReport:
    """What :func:`verify` returns: one row per operation, case and
    precision on the session's device."""
    device: dict[str, Any]
    results: list[dict[str, Any]]
    passed: int
    failed: int
    skipped: int
    seconds: float
    version: str = ""
    info: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """True when no row failed."""
        return self.failed == 0

    def __str__(self) -> str:
        lines = [f"== {self.device.get('name')}"]
        for r in self.results:
            detail = "" if r["status"] == "pass" else r.get("detail", "")
            lines.append(f"{r['op']:<14} {r['case']:<28} {r['precision']:<8} max err {r['max_err']:.2e} "
                         f"nmse {r['nmse']:.2e}  {r['status'].upper() if r['status'] == 'fail' else r['status']} {detail}".rstrip())
        lines.append(f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped in {self.seconds:.2f} s")
        return "\n".join(lines)


Array = Optional[np.ndarray]


@dataclass(repr=False)
class LatentResult:
    """What :func:`vkstat.latent` returns: float64 arrays named as ``vkstat
    latent``'s files (None for what was not asked), and its summary.

    ``arrays()`` lists the arrays that are files, in the command's order
    (``pca_components`` standing for pca_vectors.npy, transposed).
    """

    # -- moments over `axes`: the input's shape without them
    mean: Array = None
    var: Array = None
    std: Array = None
    min: Array = None
    max: Array = None
    skew: Array = None
    """Skewness, m3 / m2^1.5 (population moments)."""
    kurt: Array = None
    """Excess kurtosis, m4 / m2² − 3."""
    # -- correlations
    corr: Array = None
    """(N, C, C): the channel correlation of each sample, over its frames and pixels."""
    corr_frames: Array = None
    """(N, F, C, C): the channel correlation of each sample and frame, over its pixels."""
    frame_corr: Array = None
    """(N, C, F, F): the frame correlation of each sample and channel, over its pixels."""
    lagcorr: Array = None
    """(N, C, L): mean over f of corr(x[n, c, f], x[n, c, f + l]), l = 1..L."""
    # -- PCA of each sample, channels as features
    pca_values: Array = None
    """(N, C): the eigenvalues of each sample's channel covariance (ddof 1), descending."""
    pca_ratio: Array = None
    """(N, C): the explained-variance ratios."""
    pca_components: Array = None
    """(N, C, C): the components as rows, as scikit-learn's ``components_``:
    pca_components[n, k] for pca_values[n, k] (the command's
    pca_vectors.npy, which holds them as columns, transposed)."""
    # -- spectra
    spatial_spectrum: Array = None
    """(N, C, K): each frame's radially averaged power spectrum, averaged over frames."""
    spatial_centroid: Array = None
    spatial_highfrac: Array = None
    spatial_slope: Array = None
    """(N, C): the log-log slope of each (sample, channel)'s radial spectrum
    (it was (C,): of each channel's spectrum averaged over samples)."""
    temporal_spectrum: Array = None
    """(N, C, F/2+1): each pixel's one-sided temporal spectrum, averaged over pixels."""
    temporal_centroid: Array = None
    temporal_highfrac: Array = None
    # -- the summary (summary.json)
    mean_corr: Array = None
    """(C, C): corr averaged over the samples, NaNs left out (corr.png)."""
    lag_means: Array = None
    """(L,): lagcorr averaged over samples and channels, NaNs left out."""
    pca_mean_ratio: Array = None
    """(C,): pca_ratio averaged over the samples that have one."""
    pca_mean_cumulative: Array = None
    """(C,): its cumulative sum, averaged likewise."""
    radial_bin_radius: Array = None
    """(K,): each radial bin's mean radius, in cycles per frame side."""
    nans: int = 0
    """NaN values in the input."""
    infs: int = 0
    """±Inf values in the input."""
    notes: list[str] = field(default_factory=list)
    """Which correlations, PCAs and spectra are NaN and why."""
    axes: Optional[tuple[int, ...]] = None
    """The moments' reduced axes, sorted and non-negative."""
    ddof: int = 0
    lags: int = 0
    nan_policy: str = "propagate"
    computed_as: str = ""
    """The storage type the work was done in (float16, bfloat16, float32, float64)."""
    batches: dict[str, Any] = field(default_factory=dict)
    """How the samples were batched: batch, batches, auto, fit, budget_bytes, ..."""
    names: tuple[str, ...] = ()
    """The arrays that are ``vkstat latent``'s files, in its order."""

    def __post_init__(self) -> None:
        if self.axes is not None:
            self.axes = tuple(self.axes)
        self.names = tuple(self.names)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays ``vkstat latent`` writes as ``<name>.npy``, by name, in
        its order; ``pca_components`` is pca_vectors.npy with each sample's
        matrix transposed."""
        return {n: getattr(self, n) for n in self.names}

    def __repr__(self) -> str:
        return _describe(self, self.names)


@dataclass(repr=False)
class StackResult:
    """What :func:`vkstat.stack` returns: per-pixel statistics over the
    dates, float32 (H, W) arrays named as ``vkstat stack``'s files (None for
    those not asked), and where they lie: ``geotransform`` and
    ``projection``, or as ``affine()`` (rasterio's) and ``to_xarray()``
    (xarray, and rioxarray's CRS and transform) where those packages are
    installed.

    Pixels with no valid sample have count 0 and NaN elsewhere; std and cv
    are NaN where count ≤ ddof.
    """

    mean: Array = None
    std: Array = None
    cv: Array = None
    """std / mean."""
    min: Array = None
    max: Array = None
    count: Array = None
    """Valid dates per pixel (int32): the dates whose look box had a valid
    sample."""
    samples: Array = None
    """Valid input samples of each pixel's look box, over every date
    (int32; up to looks × dates): how many values the mean is of."""
    dates: int = 0
    """Dates in the stack."""
    geotransform: Optional[tuple[float, ...]] = None
    """GDAL's six coefficients of the outputs' grid (the first date's,
    shifted to the crop and scaled by the looks); None for arrays in memory
    or rasters without one."""
    projection: Optional[str] = None
    """The first date's coordinate system as WKT; None for arrays in memory
    ("" for rasters without one)."""
    input_shape: tuple[int, ...] = ()
    """(H, W) of one date."""
    complex: bool = False
    """Whether the dates were complex (SLC): |S|² was taken."""
    window: tuple[int, ...] = ()
    """The input window read, as GDAL's -srcwin: xoff, yoff, xsize, ysize
    (whole multilook boxes)."""
    date_names: tuple[str, ...] = ()
    """Each date's file name (``dates[i]`` for arrays), in order."""
    names: tuple[str, ...] = ()
    """The statistics asked for, in the command's order."""

    def __post_init__(self) -> None:
        if self.geotransform is not None:
            self.geotransform = tuple(self.geotransform)
        self.input_shape, self.window, self.names = tuple(self.input_shape), tuple(self.window), tuple(self.names)
        self.date_names = tuple(self.date_names)

    def arrays(self) -> dict[str, np.ndarray]:
        """The statistics asked for, by name, as ``vkstat stack`` writes
        ``<name>.npy``."""
        return {n: getattr(self, n) for n in self.names}

    def affine(self) -> Any:
        """The outputs' grid as an ``affine.Affine`` (rasterio's transform
        type): ``Affine.from_gdal(*geotransform)``. Needs the affine package
        (rasterio brings it); raises ValueError without a geotransform
        (dates in memory, or rasters without one)."""
        if self.geotransform is None:
            raise ValueError("no geotransform: the dates were arrays in memory, or rasters without one")
        try:
            from affine import Affine
        except ImportError:
            raise ImportError("StackResult.affine() needs the affine package (rasterio brings it)") from None
        return Affine.from_gdal(*self.geotransform)

    def to_xarray(self, times: Any = None) -> Any:
        """The statistics as an ``xarray.Dataset`` of (y, x) variables,
        with the pixel centres' map coordinates where the geotransform has
        no rotation, the geotransform (GDAL's order) and the WKT as
        attributes, and a ``time`` coordinate of the dates the statistics
        are over (with ``date``, their names): ``times`` (anything
        ``numpy.datetime64`` takes, one per date) or else the date each
        file name holds (``YYYYMMDD`` or ``YYYY-MM-DD``, as Sentinel-1's
        and most processors' names do; NaT where none). With rioxarray
        installed, also its transform and CRS (``ds.rio``), as
        rioxarray.open_rasterio gives them. Needs xarray."""
        try:
            import xarray as xr
        except ImportError:
            raise ImportError("StackResult.to_xarray() needs xarray") from None
        if times is None:
            t = np.array([_date_in(n) for n in self.date_names], dtype="datetime64[ns]")
        else:
            t = np.asarray(times, dtype="datetime64[ns]")
            if t.shape != (self.dates,):
                raise ValueError(f"times: want one per date ({self.dates}), got shape {t.shape}")
        attrs: dict[str, Any] = {"dates": self.dates, "complex": self.complex}
        coords: dict[str, np.ndarray] = {}
        gt = self.geotransform
        if gt is not None:
            attrs["geotransform"] = gt
            h, w = next(iter(self.arrays().values())).shape if self.names else (0, 0)
            if gt[2] == 0 and gt[4] == 0:
                coords = {"y": gt[3] + gt[5] * (np.arange(h) + 0.5), "x": gt[0] + gt[1] * (np.arange(w) + 0.5)}
        if self.projection:
            attrs["crs_wkt"] = self.projection
        coords["time"] = t
        if self.date_names:
            coords["date"] = ("time", list(self.date_names))  # type: ignore[assignment]
        ds = xr.Dataset({n: (("y", "x"), a) for n, a in self.arrays().items()}, coords=coords, attrs=attrs)
        try:
            import rioxarray  # noqa: F401 (registers the .rio accessor)
        except ImportError:
            return ds
        if gt is not None:
            ds = ds.rio.write_transform(self.affine())
        if self.projection:
            ds = ds.rio.write_crs(self.projection)
        return ds

    def __repr__(self) -> str:
        return _describe(self, self.names)


def _date_in(name: str) -> Any:
    """The first date (YYYYMMDD or YYYY-MM-DD, a plausible one) in a file
    name, as numpy.datetime64; NaT without one."""
    for m in re.finditer(r"(?<!\d)((?:19|20)\d\d)-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])", name):
        try:
            return np.datetime64(f"{m[1]}-{m[2]}-{m[3]}", "ns")
        except ValueError:
            continue
    return np.datetime64("NaT", "ns")


@dataclass(repr=False)
class PacoResult:
    """What :func:`vkstat.paco` returns: PACO's maps, named as ``vkstat
    paco``'s files, its detections and contrast curve as record arrays with
    the columns of its CSV files, the centre it used and why, and its
    warnings.

    The maps are in the derotated sky frame (parallactic angle 0), NaN where
    a location has no statistics (its patch leaves the frame) or no
    trajectory inside it.
    """

    snr: Array = None
    """(H, W) float64: the likelihood-ratio SNR, b/√a."""
    flux: Array = None
    """(H, W) float64: the flux estimate b/a, in units of the normalised PSF
    (the stamp's total flux with psf_norm "sum")."""
    sigma: Array = None
    """(H, W) float64: the flux's standard deviation, 1/√a."""
    detections: Optional[np.recarray] = None
    """One record per local maximum of the SNR above ``threshold``,
    strongest first, with detections.csv's columns, as the library lists
    them (``detections.dtype.names``; docs/paco.md describes each):
    position, separation (in arcsec NaN without a pixel scale), position
    angles, SNR, flux and σ, and with ``unbiased`` Algorithm 3's."""
    contrast: Optional[np.recarray] = None
    """The contrast curve, contrast.csv's columns as the library lists
    them (``contrast.dtype.names``): the annulus' separation, its median
    σ, the flux limit (threshold × that over the throughput, which
    ``flux_limit_uncalibrated``, ``throughput`` and ``throughput_err``
    give; NaN throughput with ``quick_contrast``), and the contrast (NaN
    without star_flux)."""
    contrast_check: Optional[np.recarray] = None
    """With ``contrast_check``: each fake companion injected at the curve's
    limit and what came back, contrast_check.csv's columns."""
    psf: Array = None
    """The PSF stamp used, before normalisation (the one given, or the
    Gaussian of ``fwhm``)."""
    center: dict[str, Any] = field(default_factory=dict)
    """How the star centre was chosen, as detections.json's center_info:
    ``used`` (the pixel the maps use), ``source`` (option, estimated or
    geometric), ``y``, ``x``, ``geometric`` and the ``estimate`` made on
    the data."""
    shape: tuple[int, ...] = ()
    """The cube's (T, H, W)."""
    radius: int = 0
    patch_pixels: int = 0
    """Pixels of a patch of ``radius``."""
    device: str = ""
    precision: str = ""
    """What the maps were computed in: f64 on the CPU path, the cube's type
    (or ``precision``) on a device."""
    passes: int = 1
    invalid_pixels: int = 0
    """Map pixels that are NaN."""
    invalid_locations: int = 0
    """Locations without statistics."""
    nans: int = 0
    """NaN values in the cube."""
    stages: dict[str, float] = field(default_factory=dict)
    """The maps' stages and their times, ms."""
    threshold: float = 0.0
    min_sep: float = 0.0
    north_offset: float = 0.0
    pixel_scale: Optional[float] = None
    star_flux: Optional[float] = None
    pa_convention: str = ""
    """How pa_east_of_north_deg and angle_ccw_from_x_deg are measured."""
    unbiased_on: str = ""
    """Where Algorithm 3 ran ("" without it)."""
    unbiased_ms: float = 0.0
    contrast_check_ms: float = 0.0
    calibration: Optional[dict[str, Any]] = None
    """How the contrast curve was calibrated, as contrast.json's
    ``calibration``: ``method``, ``passes``, ``runs_per_pass``,
    ``bandwidth_px``, ``median_relative_uncertainty`` and the last pass'
    ``fakes``; None with ``quick_contrast``."""
    contrast_calibration_ms: float = 0.0
    warnings: list[str] = field(default_factory=list)
    """The warnings given (also raised as RuntimeWarnings)."""
    notes: list[str] = field(default_factory=list)
    """What the command prints while it runs (Algorithm 3 moving to the
    CPU, the contrast check's runs)."""

    def __post_init__(self) -> None:
        self.shape = tuple(self.shape)
        if isinstance(self.stages, list):
            self.stages = {s["name"]: s["ms"] for s in self.stages}
        self.notes, self.warnings = list(self.notes or []), list(self.warnings or [])

    def arrays(self) -> dict[str, np.ndarray]:
        """The maps, as ``vkstat paco --format npy`` writes ``<name>.npy``."""
        return {"snr": self.snr, "flux": self.flux, "sigma": self.sigma}

    def __repr__(self) -> str:
        n = 0 if self.detections is None else len(self.detections)
        return f"{_describe(self, ('snr', 'flux', 'sigma'))[:-1]}, detections={n}, center={tuple(self.center.get('used', ()))})"
