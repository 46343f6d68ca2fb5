"""Per-pixel statistics of SAR stacks: :meth:`Session.stack`, what ``vkstat
stack`` computes."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np

from ._arrays import Lent, lend_date
from ._params import _ddof, _names

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

    from ._results import StackResult
    from ._session import Session


def stack(self: Session, dates: Any, *, looks: int | str | Sequence[int] = 1, window: Sequence[int] | None = None,
          crop: Sequence[int] | None = None, filter: str | None = None, filter_size: int | None = None, enl: float | None = None,  # noqa: A002
          stat: str | Sequence[str] = "all", quantity: str = "intensity", ddof: int = 0, db: bool = False,
          nodata: float | None = None, band: int = 1, out: Mapping[str, np.ndarray] | None = None) -> StackResult:
    """Per-pixel temporal statistics of a stack of SAR images, one per
    date: what ``vkstat stack`` computes, on arrays in memory or on
    raster files.

    Each date's intensity (|S|² of complex SLC samples; real samples are
    taken as intensity) is cut to a window, averaged over multilook boxes
    from the window's corner, optionally speckle-filtered, and added to the statistics over the
    dates (Welford, as the dates stream through).

    Parameters
    ----------
    dates : sequence of array_like, ndarray or sequence of path
        The dates: 2-d arrays of one shape and kind, complex (SLC) or
        real (intensity), or one (T, H, W) array; or paths of rasters
        (GeoTIFF, ENVI, anything GDAL reads, .npy and FITS 2-d arrays),
        co-registered on one grid. complex64 and float32 arrays that are
        C-contiguous are read where they lie; other dtypes are converted
        once (complex128 to complex64, real to float32). GDAL is loaded
        when a raster is first opened.
    looks : int or (int, int) or str, optional
        The multilook box, rows (azimuth) × columns (range): ``4``,
        ``(2, 8)`` or ``"2x8"``. The last rows and columns that do not
        fill a box are dropped, as ISCE and SNAP do.
    window : (int, int, int, int), optional
        The window of the input read, as GDAL's ``-srcwin``: ``(xoff,
        yoff, xsize, ysize)`` in input pixels, columns first (xsize or
        ysize 0: to the edge); the looks start at its corner.
    crop : (int, int, int, int), optional
        Deprecated: ``(row, column, rows, columns)`` of the multilooked
        image, rows first. It still cuts what it did (the window
        ``(column·r, row·a, columns·r, rows·a)`` for a×r looks), with a
        DeprecationWarning.
    filter : {None, "none", "boxcar", "lee", "refined-lee"}, optional
        A speckle filter of each date's multilooked intensity: the mean
        over a window, Lee's (1980) or Lee's refined (1981) filter.
    filter_size : int, optional
        The filter's window, odd: at least 3 (5 for refined-lee);
        default 5.
    enl : float, optional
        The equivalent number of looks for the Lee filters; default the
        multilook's rows × columns.
    stat : str or sequence of str, optional
        The statistics to return: ``mean``, ``std``, ``cv`` (std/mean),
        ``min``, ``max``, ``count`` (valid dates), ``samples`` (valid
        input samples of the look box over the dates), or ``"all"`` (the
        default).
    quantity : {"intensity", "amplitude"}, optional
        ``amplitude`` takes the square root of the multilooked, filtered
        intensity before the statistics.
    ddof : int, optional
        Delta degrees of freedom of std and cv (0: population, 1:
        sample).
    db : bool, optional
        Give mean, min and max in decibels: 10·log10 of an intensity,
        20·log10 of an amplitude (std and cv stay linear), as ``--db``.
    nodata : float, optional
        For arrays: the value that marks missing samples (a complex
        sample: both parts), left out of the multilook like NaN. NaN
        (GDAL's common nodata) is the same as None: NaN samples are
        always left out. Files say their own.
    band : int, optional
        The raster band read from each file (from 1; a .npy or FITS date
        has one).
    out : dict of str to ndarray, optional
        Where to write statistics, by name, each as NumPy's ``out``.

    Returns
    -------
    StackResult
        The statistics, float32 arrays of the multilooked window (count
        int32; None for those not asked; ``arrays()`` lists those
        asked), the number of dates and their names, and for files the
        outputs' ``geotransform`` (the first date's, moved to the window
        and scaled by the looks) and ``projection`` (WKT).
        ``to_xarray()`` makes an ``xarray.Dataset`` of them.

    Raises
    ------
    FileNotFoundError
        When a path does not exist.
    ValueError
        When the dates differ in shape, type, geotransform or coordinate
        system, or a parameter does not fit them.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> rng = np.random.default_rng(0)
    >>> slc = [(rng.standard_normal((8, 8)) + 1j * rng.standard_normal((8, 8))).astype(np.complex64) for _ in range(5)]
    >>> r = vkstat.stack(slc, looks=2, stat=["mean", "count"])
    >>> r.mean.shape, int(r.count.max())
    ((4, 4), 5)
    """
    if isinstance(nodata, (float, np.floating)) and math.isnan(nodata):
        nodata = None  # NaN samples are left out whatever nodata says
    if crop is not None and window is not None:
        raise ValueError("crop and window are one window: give window=(xoff, yoff, xsize, ysize)")
    if crop is not None:
        warnings.warn("stack(crop=(row, column, rows, columns)) counts multilooked pixels, rows first; give "
                      "window=(xoff, yoff, xsize, ysize) in input pixels, as GDAL's -srcwin: for a×r looks, "
                      "window=(column·r, row·a, columns·r, rows·a) cuts the same", DeprecationWarning, stacklevel=3)
    params: dict[str, Any] = {"looks": looks, "window": window, "crop": crop, "quantity": quantity, "filter": filter,
                              "filter_size": filter_size, "enl": enl, "ddof": _ddof(ddof), "stats": _names(stat), "db": bool(db),
                              "nodata": nodata, "band": band}
    arrays: dict[str, Lent] = {}
    if isinstance(dates, (str, os.PathLike)):
        raise ValueError("dates: give a sequence of paths or arrays, not one path")
    if isinstance(dates, np.ndarray):
        if dates.ndim != 3:
            raise ValueError(f"dates has shape {dates.shape}; want one (T, H, W) array or a sequence of 2-d dates")
        arrays["dates"] = lend_date(dates, "dates")
    else:
        dates = list(dates)
        paths = [isinstance(d, (str, os.PathLike)) for d in dates]
        if dates and all(paths):
            params["paths"] = [os.fspath(d) for d in dates]
            for p in params["paths"]:
                if not os.path.exists(p):
                    raise FileNotFoundError(2, "no such date file", p)
        elif any(paths):
            raise ValueError("dates: give paths or arrays, not both")
        else:
            arrays = {f"date{i}": lend_date(d, f"dates[{i}]") for i, d in enumerate(dates)}
    got, info, _ = self._run("stack", params, arrays, out, reads_files="paths" in params)
    if "paths" in params:
        info["date_names"] = [os.path.basename(p) for p in params["paths"]]
    else:
        info["date_names"] = [f"dates[{i}]" for i in range(info["dates"])]
    from ._results import StackResult, fill  # at the first call: its dataclasses cost an import 8 ms
    return fill(StackResult, got, info)

