"""vkstat on Dask arrays: each chunk's partial statistics computed by vkstat
inside the worker that holds the chunk (the worker process's own default
session, opened on its first chunk), merged exactly with a tree reduction
(Chan, Golub and LeVeque's and Pébay's pairwise updates in vkstat's
library, as ``dask.array``'s own ``mean`` and ``var`` merge
``moment_chunk`` results), the statistics computed from the merge only.

The functions build a lazy graph and return Dask arrays; ``.compute()``
runs it on the current scheduler (a ``dask.distributed`` client's
cluster, or Dask's local threads). Chunks may split the reduced axis
anyhow (uneven chunks, chunks of one element) and the kept axes too: the
results equal :func:`vkstat.reduce` and :func:`vkstat.cov` on the whole
array to float64 rounding. An xarray DataArray backed by a Dask array is
taken for its data.

Errors raised by vkstat in a worker (:class:`vkstat.InputError`, ...) reach
the caller as they are.

Needs dask (Debian: python3-dask, and python3-distributed for a cluster).

Examples
--------
>>> import dask.array as da, vkstat.dask                      # doctest: +SKIP
>>> x = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(4, 1))  # doctest: +SKIP
>>> vkstat.dask.reduce(x, ["mean", "max"], axis=0)["max"].compute()  # doctest: +SKIP
array([10., 11.])
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ._arrays import lend, lend_date
from ._params import _ddof, _names, _precision
from ._results import CovResult, LatentResult, StackResult, fill
from ._session import default_session

try:
    import dask
    import dask.array as da
except ImportError:  # pragma: no cover (the tests skip without dask)
    dask = None
    da = None

__all__ = ["reduce", "cov", "latent", "stack"]

#: Partials merged per task of the tree reduction (Dask's split_every).
SPLIT_EVERY = 8


def _need_dask() -> None:
    if da is None:
        raise ImportError("vkstat.dask needs dask: install python3-dask (and python3-distributed for a cluster), "
                          "or pip install dask distributed")


def _dask_array(x: Any) -> Any:
    """x as a Dask array: an xarray DataArray's data, a NumPy array wrapped."""
    data = getattr(x, "data", None)
    if da is not None and isinstance(data, da.Array) and not isinstance(x, da.Array):
        return data
    return x if isinstance(x, da.Array) else da.asarray(x)


# A partial is (arrays by name, facts): what <op>_partial returns and
# <op>_merge takes, picklable, so that it travels between workers.
Partial = tuple  # (dict[str, np.ndarray], dict[str, Any])


def _call(op: str, params: Mapping[str, Any], arrays: Mapping[str, np.ndarray], *,
          lender: Callable[..., Any] = lend) -> tuple[dict[str, np.ndarray], Any]:
    """Runs op on this process's default session, its arrays lent by lender."""
    lent = {k: lender(v, k) for k, v in arrays.items()}
    got, info, _ = default_session()._run(op, params, lent)
    return got, info


def _merge(op: str, parts: Sequence[Partial], finish: Mapping[str, Any] | None, params: Mapping[str, Any] = {}) -> Any:
    """op's merge of parts (with the operation's params): a Partial, or
    with finish (its parameters) the statistics and the Info."""
    arrays = {f"{i}.{k}": v for i, (a, _) in enumerate(parts) for k, v in a.items()}
    req: dict[str, Any] = dict(params)
    req.update({"parts": [info for _, info in parts], "finish": finish is not None})
    req.update(finish or {})
    got, info = _call(op, req, arrays)
    if finish is None:
        return got, info
    return (got, info) if params else got


def _tree(op: str, parts: list, finish: Mapping[str, Any], split_every: int, params: Mapping[str, Any] = {}) -> Any:
    """The delayed tree reduction of parts (delayed Partials, consecutive
    ones merged together): split_every at a time, the last merge
    finishing."""
    k = max(2, int(split_every))
    while len(parts) > k:
        parts = [dask.delayed(_merge)(op, parts[i:i + k], None, params) for i in range(0, len(parts), k)]
    return dask.delayed(_merge)(op, parts, finish, params)


def _reduce_partial(block: np.ndarray, axis: int | None, skipnan: bool) -> Partial:
    return _call("reduce_partial", {"axis": axis, "skipnan": skipnan}, {"a": block})


def _out_dtype(dt: np.dtype) -> np.dtype:
    """The dtype vkstat's results have for inputs of dtype dt."""
    return np.dtype(np.float32) if dt in (np.float32, np.float16) or dt.name == "bfloat16" else np.dtype(np.float64)


def _blocks(x: Any, axis: int, each: Callable[[list, tuple], Any]) -> Any:
    """each(delayed blocks along axis, their index on the other axes) for
    every index of x's block grid without axis, as a nested list shaped as
    that grid (for da.block)."""
    grid = x.to_delayed()
    kept = [n for i, n in enumerate(grid.shape) if i != axis]

    def build(prefix: tuple) -> Any:
        if len(prefix) == len(kept):
            sel = list(prefix)
            sel.insert(axis, slice(None))
            return each(list(grid[tuple(sel)]), prefix)
        return [build(prefix + (i,)) for i in range(kept[len(prefix)])]
    return build(())


def reduce(x: Any, stat: str | Sequence[str] = "mean", axis: int | None = None, *, ddof: int = 0,
           skipnan: bool = False, split_every: int = SPLIT_EVERY) -> Any:
    """:func:`vkstat.reduce` on a Dask array: sum, mean, var, std, min, max
    along one axis (None: every axis), lazily.

    Each chunk's partial (count, sum, M2, min, max in float64; NaNs
    skipped under ``skipnan``) is computed by vkstat in the worker that
    holds the chunk; the partials along the axis merge in a tree of
    ``split_every`` at a time, the statistics (var and std with ``ddof``)
    from the last merge.

    Returns
    -------
    dask.array.Array or dict of str to dask.array.Array
        The statistic, of x's shape without the axis (0-d for every
        axis), float32 for float32 and 16-bit inputs and float64 otherwise;
        a dict by name for several statistics or ``"all"``.
    """
    _need_dask()
    x = _dask_array(x)
    stats = _names(stat)
    if len(stats) == 1 and stats[0].lower() == "all":
        stats = ["sum", "mean", "var", "std", "min", "max"]
    one = len(stats) == 1
    finish = {"stats": [s.lower() for s in stats], "ddof": _ddof(ddof)}
    dt = _out_dtype(x.dtype)
    if axis is None:
        parts = [dask.delayed(_reduce_partial)(b, None, bool(skipnan)) for b in x.to_delayed().ravel()]
        res = _tree("reduce_merge", parts, finish, split_every)
        out = {s: da.from_delayed(dask.delayed(_pick)(res, s, ()), (), dt) for s in finish["stats"]}
        return out[finish["stats"][0]] if one else out
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"axis: {axis!r}: vkstat.dask.reduce takes one axis (an int) or None")
    nd = x.ndim
    a = int(axis) + nd if axis < 0 else int(axis)
    if not 0 <= a < nd:
        raise ValueError(f"axis {axis} is out of range for an array of {nd} dimension(s)")
    kept_chunks = [c for i, c in enumerate(x.chunks) if i != a]

    def group(blocks: list, index: tuple) -> dict:
        parts = [dask.delayed(_reduce_partial)(b, a, bool(skipnan)) for b in blocks]
        res = _tree("reduce_merge", parts, finish, split_every)
        shape = tuple(kept_chunks[i][j] for i, j in enumerate(index))
        return {s: da.from_delayed(dask.delayed(_pick)(res, s, shape), shape, dt) for s in finish["stats"]}

    groups = _blocks(x, a, group)
    out = {s: da.block(_map_nested(groups, lambda g, s=s: g[s])) if nd > 1 else groups[s] for s in finish["stats"]}
    return out[finish["stats"][0]] if one else out


def _pick(res: Mapping[str, np.ndarray], name: str, shape: tuple) -> np.ndarray:
    """Output name of res, of shape (a 0-d array for ())."""
    return np.asarray(res[name]).reshape(shape)


def _map_nested(tree: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(tree, list):
        return [_map_nested(t, fn) for t in tree]
    return fn(tree)


def _cov_partial(block: np.ndarray) -> Partial:
    return _call("cov_partial", {}, {"x": block})


def cov(x: Any, estimator: str = "none", *, ddof: int = 0, split_every: int = SPLIT_EVERY) -> CovResult:
    """:func:`vkstat.cov` on a Dask array of sample sets, (N, T, P) or one
    set (T, P), lazily.

    Each chunk's partial (per set the count, mean, co-moment matrix and the
    sums Ledoit-Wolf needs) is computed by vkstat in the worker; the
    partials along T merge in a tree, and the estimate (with the
    shrinkage weight, computed only from the merge) comes from the last
    merge. Chunks may split N and T; P is made one chunk.

    Returns
    -------
    CovResult
        cov (N, P, P), mean (N, P) and rho (N,) as Dask arrays (without
        the N axis for one set), float32 for float32 and 16-bit inputs.
    """
    _need_dask()
    x = _dask_array(x)
    single = x.ndim == 2
    if single:
        x = x[None]
    if x.ndim != 3:
        raise ValueError(f"x has shape {x.shape}; want (N, T, P) sample sets or one set (T, P)")
    x = x.rechunk({2: -1})
    finish = {"estimator": str(estimator), "ddof": _ddof(ddof)}
    dt = _out_dtype(x.dtype)
    p = x.shape[2]

    def group(blocks: list, index: tuple) -> dict:
        parts = [dask.delayed(_cov_partial)(b) for b in blocks]
        res = _tree("cov_merge", parts, finish, split_every)
        n = x.chunks[0][index[0]]
        return {"mean": da.from_delayed(dask.delayed(_pick)(res, "mean", (n, p)), (n, p), dt),
                "cov": da.from_delayed(dask.delayed(_pick)(res, "cov", (n, p, p)), (n, p, p), dt),
                "rho": da.from_delayed(dask.delayed(_pick)(res, "rho", (n,)), (n,), dt)}

    groups = _blocks(x, 1, group)  # [N blocks][P: one block]
    cat = {k: da.concatenate([g[0][k] for g in groups], axis=0) for k in ("mean", "cov", "rho")}
    if single:
        cat = {k: v[0] for k, v in cat.items()}
    return CovResult(cov=cat["cov"], mean=cat["mean"], rho=cat["rho"])


def _whole_but(x: Any, axis: int) -> Any:
    """x rechunked to one chunk along every axis but axis."""
    return x.rechunk({i: -1 for i in range(x.ndim) if i != axis})


def _latent_partial(block: np.ndarray, first: int, params: Mapping[str, Any]) -> Partial:
    got, info = _call("latent_partial", dict(params, first=first), {"x": block},
                      lender=lambda v, k: lend(v, k, half=True))
    return got, info


def _latent_block(block: np.ndarray, origin: tuple, full: tuple, params: Mapping[str, Any]) -> Partial:
    return _call("latent_block", dict(params, origin=list(origin), full=list(full)), {"x": block},
                 lender=lambda v, k: lend(v, k, half=True))


def _latent_whole_axes(stats: Sequence[str], ndim: int) -> list[int] | None:
    """The axes a chunk must hold whole for stats: None for the spectra
    (every axis but the samples), the channels for corr, corr-frames and
    pca, the frames for lagcorr."""
    names = {s.lower() for s in stats}
    if "all" in names or "spectra" in names:
        return None
    whole = []
    if names & {"corr", "corr-frames", "pca"}:
        whole.append(1)
    if "lagcorr" in names and ndim == 5:
        whole.append(2)
    return whole


def latent(x: Any, stat: str | Sequence[str] = ("moments", "corr"), *, axes: Sequence[int] | int = (-2, -1),
           lags: int | None = None, nan: str = "propagate", ddof: int = 0, precision: Any = None,
           split_every: int = SPLIT_EVERY, compute: bool = True) -> Any:
    """:func:`vkstat.latent` on a Dask array of samples (N, C, F, H, W) or
    (N, C, H, W) (any shape for moments alone).

    Chunks may cut any axis the statistics allow, and the rest are made
    one chunk: the moments allow every axis; corr, corr-frames and pca need
    every channel in a chunk, lagcorr every frame; the spectra need whole
    samples, so with them only the samples may be cut.

    Where chunks cut the samples (without the spectra), each chunk's state
    is computed by vkstat in the worker, on the CPU in float64: per output
    of the moments the count, mean, central sums to order 4, least and
    greatest value; per set of variables of the correlations and the PCA
    the count, means and co-moment matrix. The states merge in a tree
    (Pébay's pairwise updates), and the moments, correlations, lag means
    and the PCA come from the last merge only.

    With the spectra, or where every chunk holds whole samples, each
    chunk's partial is computed on the worker's session (its device or
    the CPU path) instead: its per-sample results (correlations, PCA,
    spectra, moments over axes without axis 0) and, for moments over axes
    with axis 0, their count, mean and central sums; what needs every
    sample (those moments, the spectra's slopes) comes from the last
    merge.

    Returns
    -------
    LatentResult or xarray.Dataset
        As :func:`vkstat.latent`'s, computed on the current scheduler; with
        ``compute=False`` a ``dask.delayed`` object of it. For an xarray
        DataArray, an ``xarray.Dataset`` of the arrays over its dimension
        names (moments over the dimensions kept; corr over (samples,
        channels, channels_2); ...) with its coordinates along them.
    """
    _need_dask()
    latents, x = x, _dask_array(x)
    params = {"stats": _names(stat), "axes": [axes] if isinstance(axes, (int, np.integer)) else list(axes),
              "ddof": _ddof(ddof), "lags": lags, "nan": nan, "precision": _precision(precision)}
    whole = _latent_whole_axes(params["stats"], x.ndim)
    if whole is not None:
        x = x.rechunk({a: -1 for a in whole}) if whole else x
    if whole is None or all(len(c) == 1 for c in x.chunks[1:]):  # whole samples: their partials, on the device
        op, x = "latent_merge", _whole_but(x, 0)
        firsts = np.cumsum((0,) + x.chunks[0][:-1])
        parts = [dask.delayed(_latent_partial)(b, int(f), params) for b, f in zip(x.to_delayed().ravel(), firsts)]
    else:
        op = "latent_block_merge"
        starts = [np.cumsum((0,) + c[:-1]) for c in x.chunks]
        grid = x.to_delayed()
        parts = [dask.delayed(_latent_block)(grid[i], tuple(int(starts[a][k]) for a, k in enumerate(i)), x.shape, params)
                 for i in np.ndindex(*grid.shape)]
    if not _is_xarray(latents):
        return _result(op, parts, params, split_every, _latent_result, compute)
    dims, coords = tuple(latents.dims), {k: v for k, v in latents.coords.items() if v.dims and v.dims[0] in latents.dims}
    return _result(op, parts, params, split_every,
                   lambda got, info: _latent_dataset(_latent_result(got, info), info, dims, coords), compute)


def _latent_result(got: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> LatentResult:
    return fill(LatentResult, got, info, names=info["arrays"])


def _result(op: str, parts: list, params: Mapping[str, Any], split_every: int,
            make: Callable[[Any, Any], Any], compute: bool) -> Any:
    """The tree reduction of parts by op with params, made into the
    operation's result by make(outputs, Info): computed, or delayed."""
    res = _tree(op, parts, {}, split_every, params)
    out = dask.delayed(lambda r: make(*r))(res)
    return out.compute() if compute else out


def _stack_partial(block: np.ndarray, params: Mapping[str, Any]) -> Partial:
    return _call("stack_partial", params, {"dates": block}, lender=lend_date)


def stack(dates: Any, *, looks: int | str | Sequence[int] = 1, crop: Sequence[int] | None = None,
          filter: str | None = None, filter_size: int | None = None, enl: float | None = None,  # noqa: A002
          stat: str | Sequence[str] = "all", quantity: str = "intensity", ddof: int = 0, nodata: float | None = None,
          split_every: int = SPLIT_EVERY, compute: bool = True) -> Any:
    """:func:`vkstat.stack` on a Dask array of dates (T, H, W), complex64
    SLC or float32 intensity, chunked along the dates (the dates' rows and
    columns are made one chunk: the multilook and the filters read across
    them).

    Each chunk's per-pixel state (count, mean, M2, min, max) is computed by
    vkstat in the worker; the states merge in a tree, and the statistics
    (std, cv with ``ddof``) come from the last merge.

    Returns
    -------
    StackResult or xarray.Dataset
        As :func:`vkstat.stack`'s, computed on the current scheduler; with
        ``compute=False`` a ``dask.delayed`` object of it. For an xarray
        DataArray (time, y, x) of dates, an ``xarray.Dataset`` of (y, x)
        statistics (:meth:`StackResult.to_xarray`) on the grid its
        transform attribute (rasterio's affine order, as rioxarray and
        stackstac keep it) or its evenly spaced y and x coordinates place,
        shifted to the crop and scaled by the looks, with its CRS and the
        first and last date as attributes.
    """
    _need_dask()
    x = _whole_but(_dask_array(dates), 0)
    if x.ndim != 3:
        raise ValueError(f"dates has shape {x.shape}; want (T, H, W)")
    if isinstance(nodata, (float, np.floating)) and np.isnan(nodata):
        nodata = None
    params: dict[str, Any] = {"looks": looks, "crop": crop, "quantity": quantity, "filter": filter,
                              "filter_size": filter_size, "enl": enl, "ddof": _ddof(ddof), "stats": _names(stat),
                              "nodata": nodata}
    parts = [dask.delayed(_stack_partial)(b, params) for b in x.to_delayed().ravel()]
    if not _is_xarray(dates):
        return _result("stack_merge", parts, params, split_every, lambda got, info: fill(StackResult, got, info), compute)
    gt, crs = _grid_of(dates)
    finish = dict(params, geotransform=gt, projection=crs or "")
    time = dates.coords.get(dates.dims[0])
    span = {} if time is None or time.size == 0 else {"first_date": str(time.values[0]), "last_date": str(time.values[-1])}

    def dataset(got: Any, info: Any) -> Any:
        ds = fill(StackResult, got, info).to_xarray()
        ds.attrs.update(span)
        if not gt:  # no map grid: the input's own (y, x) labels of each output row and column
            ds.attrs["window"] = tuple(info["window"])
        return ds
    return _result("stack_merge", parts, finish, split_every, dataset, compute)


def _is_xarray(v: Any) -> bool:
    return type(v).__name__ == "DataArray" and hasattr(v, "dims") and hasattr(v, "coords")


def _grid_of(a: Any) -> tuple[list[float] | None, str | None]:
    """The geotransform (GDAL's order) and CRS of an xarray DataArray of
    dates (T, y, x): its attrs' transform (rasterio's affine order, as
    rioxarray and stackstac keep it) or its evenly spaced y and x
    coordinates (pixel centres), and its crs, crs_wkt or spatial_ref."""
    attrs = a.attrs
    crs = attrs.get("crs_wkt") or attrs.get("crs")
    ref = a.coords.get("spatial_ref")
    if crs is None and ref is not None:
        crs = ref.attrs.get("crs_wkt") or ref.attrs.get("spatial_ref")
    t = attrs.get("transform")
    if t is not None and len(tuple(t)) >= 6:
        c = [float(v) for v in tuple(t)[:6]]
        return [c[2], c[0], c[1], c[5], c[3], c[4]], None if crs is None else str(crs)
    ydim, xdim = a.dims[1], a.dims[2]
    y, x = a.coords.get(ydim), a.coords.get(xdim)
    if y is None or x is None or y.size < 2 or x.size < 2:
        return None, None if crs is None else str(crs)
    yv, xv = np.asarray(y.values, dtype=np.float64), np.asarray(x.values, dtype=np.float64)
    dy, dx = yv[1] - yv[0], xv[1] - xv[0]
    if not (np.allclose(np.diff(yv), dy) and np.allclose(np.diff(xv), dx)):
        return None, None if crs is None else str(crs)
    return [xv[0] - dx / 2, dx, 0.0, yv[0] - dy / 2, 0.0, dy], None if crs is None else str(crs)


def _latent_dataset(r: LatentResult, info: Mapping[str, Any], dims: tuple, coords: Mapping[str, Any]) -> Any:
    """r as an xarray.Dataset over the input's dimension names (samples,
    channels[, frames], y, x) and the coordinates it had along them."""
    import xarray as xr
    n, c = dims[0], dims[1]
    f = dims[2] if len(dims) == 5 else "frame"
    c2, f2 = c + "_2", f + "_2"
    kept = tuple(d for i, d in enumerate(dims) if i not in set(info.get("axes") or ()))
    table = {"corr": (n, c, c2), "corr_frames": (n, f, c, c2), "frame_corr": (n, c, f, f2), "lagcorr": (n, c, "lag"),
             "pca_values": (n, "component"), "pca_ratio": (n, "component"), "pca_components": (n, "component", c),
             "spatial_spectrum": (n, c, "radial_bin"), "spatial_centroid": (n, c), "spatial_highfrac": (n, c),
             "spatial_slope": (n, c), "temporal_spectrum": (n, c, "frequency"), "temporal_centroid": (n, c),
             "temporal_highfrac": (n, c), "mean_corr": (c, c2), "lag_means": ("lag",),
             "pca_mean_ratio": ("component",), "pca_mean_cumulative": ("component",)}
    variables = {}
    for name in list(info["arrays"]) + ["mean_corr", "lag_means", "pca_mean_ratio", "pca_mean_cumulative"]:
        a = getattr(r, name, None)
        if a is None or name == "radial_bin_radius":
            continue
        variables[name] = (table.get(name, kept), a)
    ds = xr.Dataset(variables)
    for k, v in coords.items():
        if v.dims[0] in ds.dims and ds.sizes[v.dims[0]] == v.shape[0]:
            ds = ds.assign_coords({k: v})
    if r.radial_bin_radius is not None:
        ds = ds.assign_coords(radial_bin_radius=("radial_bin", r.radial_bin_radius))
    if "lag" in ds.dims:
        ds = ds.assign_coords(lag=np.arange(1, ds.sizes["lag"] + 1))
    ds.attrs.update({"nan_policy": info.get("nan_policy"), "computed_as": info.get("computed_as"),
                     "ddof": info.get("ddof"), "notes": "\n".join(info.get("notes") or [])})
    return ds
