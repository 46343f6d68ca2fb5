"""Elementwise map and reductions along axes: :meth:`Session.map` and
:meth:`Session.reduce`."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._arrays import as_numpy, float_result, lend, num_key, plain
from ._params import _ddof, _names

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:  # annotations only: numpy.typing costs a first import 4-6 ms
    from typing import Any, Sequence, Union

    import numpy.typing as npt

    from ._params import DTypeLike
    from ._session import Session

    Axis = Union[int, Sequence[int], None]


def map(self: Session, x: npt.ArrayLike, y: npt.ArrayLike, a: float = 1.0, b: float = 1.0, c: float = 0.0, *,
        out: np.ndarray | None = None, dtype: DTypeLike = None) -> np.ndarray:
    """Evaluate ``z = a·x² + b·y + c`` elementwise.

    Parameters
    ----------
    x, y : array_like
        Arrays of the same shape. float32 is computed in float32 (with
        a, b and c rounded to float32), float64 in float64; other dtypes
        are converted (integers to float64, float16 to float32), and
        mixed float32/float64 to float64.
    a, b, c : float, optional
        The coefficients (1, 1 and 0 by default).
    out : ndarray, optional
        Where to write z: an array of x's shape. Written in place when it
        is C-contiguous and of the computed dtype (x itself, or y, is
        fine); otherwise, as NumPy does, through a temporary cast into it
        (``same_kind``), as also when it overlaps x or y partially.
    dtype : {None, "float32", "float64"}, optional
        The precision to compute in, instead of the inputs'.

    Returns
    -------
    ndarray
        z, of x's shape (``out`` when given). On the CPU path it is
        written in place by the library: no copy in or out.

    Raises
    ------
    ValueError
        When the shapes differ or ``out`` does not fit.
    DeviceError
        When the device fails (float64 on a device without it, ...).

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> vkstat.map(np.array([1.0, 2.0]), np.array([0.5, 1.0]), a=2, b=4, c=1)
    array([ 5., 13.])
    """
    fast = None
    if (type(x) is np.ndarray and type(y) is np.ndarray and out is None and dtype is None and x.dtype is y.dtype
            and type(a) in _COEF and type(b) in _COEF and type(c) in _COEF and plain(x) and plain(y)):
        fast = ("map", num_key(a), num_key(b), num_key(c), x.dtype, x.shape, y.shape)
        got = self._fast_call(fast, (x, y), np.ndarray)
        if got is not None:
            return got
    for k, v, d in (("a", a, 1), ("b", b, 1), ("c", c, 0)):
        if v is None:  # the library would take None as its default
            raise TypeError(f"map: {k}=None; give a number ({k}={d} is the default)")
    xs, ys = as_numpy(x, "x"), as_numpy(y, "y")
    if dtype is None:
        dtype = float_result(x=xs, y=ys)
    arrays = {"x": lend(xs, "x", dtype=dtype), "y": lend(ys, "y", dtype=dtype)}
    got, _, _ = self._run("map", {"a": a, "b": b, "c": c}, arrays, {"z": out}, elementwise=True, label="out",
                          repeat=True, fast=fast)
    return got["z"]


_COEF = (int, float)


def reduce(self: Session, a: npt.ArrayLike, stat: str | Sequence[str] | Axis = "mean", axis: Axis = None, *,
           ddof: int = 0, skipnan: bool = False, keepdims: bool = False,
           out: np.ndarray | Mapping[str, np.ndarray] | None = None,
           dtype: DTypeLike = None) -> Any:
    """Statistics of an array along an axis: sum, mean, var, std, min,
    max, accumulated in float64 (pairwise, two-pass within blocks).

    Parameters
    ----------
    a : array_like
        The array; float32 and float64 are read as they are, float16 and
        bfloat16 too (16-bit storage, widened exactly as it is read).
    stat : str or sequence of str, optional
        One of ``"sum"``, ``"mean"``, ``"var"``, ``"std"``, ``"min"``,
        ``"max"``, or several (a list or a comma string, ``"all"`` for
        every one). Default ``"mean"``. An int or a tuple of ints here is
        the axis, as NumPy's second argument: ``reduce(a, 0)`` is
        ``np.mean(a, 0)``.
    axis : None or int or tuple of ints, optional
        The axis to reduce, negative from the end, as NumPy's. None (the
        default) reduces the flattened array; a tuple reduces several
        (adjacent axes are merged without a copy; others, such as
        ``(0, 2)``, are reduced from a transposed copy).
    ddof : int, optional
        Delta degrees of freedom of var and std (divisor n − ddof), as
        in :func:`numpy.var`.
    skipnan : bool, optional
        Ignore NaNs as :func:`numpy.nanmean`, :func:`numpy.nanvar`, ...
        do. By default a NaN makes every statistic of its slice NaN.
    keepdims : bool, optional
        Keep the reduced axes, of length 1, as NumPy's ``keepdims``.
    out : ndarray or dict of str to ndarray, optional
        Where to write the statistic (a dict by name for several), as
        NumPy's ``out``: of the result's shape, written in place when it is
        C-contiguous and of the result's dtype, else through a temporary
        cast into it (``same_kind``).
    dtype : {None, "float32", "float64"}, optional
        Convert the input first (one copy).

    Returns
    -------
    ndarray, NumPy scalar or dict of str to ndarray
        The statistic, of a's shape without the reduced axes, in a's
        dtype (float32 for 16-bit inputs): a NumPy scalar where NumPy
        gives one (every axis reduced, without ``keepdims`` or ``out``);
        a dict by name when ``stat`` names several or ``"all"``.

    Warns
    -----
    RuntimeWarning
        When ``ddof`` is at least the axis length: var and std are NaN;
        when the axis has length 0: mean, var and std are NaN and the sum
        0, as NumPy's (min and max raise ``ValueError``, as NumPy's).

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> vkstat.reduce(x, "mean", axis=1)
    array([1., 4.])
    >>> vkstat.reduce(x, ["min", "max"], axis=0)
    {'min': array([0., 1., 2.]), 'max': array([3., 4., 5.])}
    >>> vkstat.reduce(x, 1)
    array([1., 4.])
    >>> float(vkstat.reduce(x))  # every axis: a NumPy scalar, as np.mean(x)
    2.5
    """
    fast = None
    if (type(a) is np.ndarray and type(stat) is str and out is None and dtype is None and type(ddof) is int
            and (axis is None or type(axis) is int) and "," not in stat and plain(a)):
        fast = ("reduce", stat, axis, ddof, bool(skipnan), bool(keepdims), a.dtype, a.shape)
        got = self._fast_call(fast, (a,), np.ndarray)
        if got is not None:
            if type(got) is dict:  # "all"
                return got
            return got[()] if got.ndim == 0 else got
    if _is_axis(stat):  # reduce(a, 0): NumPy's positional axis
        if axis is not None:
            raise TypeError("reduce() got the axis twice: as its second argument and as axis=")
        stat, axis = "mean", stat  # type: ignore[assignment]
    stats = _names(stat)  # type: ignore[arg-type]
    one = len(stats) == 1 and stats[0].lower() != "all"
    if out is not None and not isinstance(out, Mapping):
        if not one:
            raise TypeError(f"out: give a dict by statistic for several statistics ({', '.join(stats)})")
        out = {stats[0].lower(): out}
    pa = as_numpy(a, "a")
    la = lend(pa, "a", dtype=dtype, half=True)
    params = {"stats": stats, "axis": axis, "ddof": _ddof(ddof), "skipnan": bool(skipnan), "keepdims": bool(keepdims)}
    got, _, _ = self._run("reduce", params, {"a": la}, out, label="out" if one else None, repeat=True, fast=fast)
    if dtype is None and out is None and pa.array.dtype.kind in "iu":
        got = _integer_results(got, pa.array.dtype)
    if not one:
        return got
    r = next(iter(got.values()))
    return r[()] if r.ndim == 0 and out is None else r


def _integer_results(got: dict[str, np.ndarray], dt: np.dtype) -> dict[str, np.ndarray]:
    """Integer inputs' sum, min and max in NumPy's integer types (the sum
    in int64, or uint64 for unsigned; min and max in the input's), from
    the float64 results (the sum rounded to the nearest integer), which
    hold them exactly while every value and partial sum is well below 2⁵³
    in magnitude; a result at 2⁵³ or beyond may not be exact, and is
    refused."""
    limit = 2.0 ** 53
    for name in ("sum", "min", "max"):
        r = got.get(name)
        if r is None:
            continue
        if r.size and not np.all(np.abs(r) < limit):
            raise ValueError(f"{name} of a {dt} array reaches 2**53 or more, beyond what vkstat's float64 accumulation "
                             f"holds exactly: use np.{name} for integers this large")
        want = (np.uint64 if dt.kind == "u" else np.int64) if name == "sum" else dt
        got[name] = np.rint(r).astype(want)  # the float64 sum is within rounding of the integer
    return got


def _is_axis(v: Any) -> bool:
    """Whether v is an axis (an int, or a tuple of ints), not a statistic."""
    if isinstance(v, tuple):
        return len(v) > 0 and all(isinstance(a, (int, np.integer)) for a in v)
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
