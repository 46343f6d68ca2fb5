"""Elementwise map and reductions along axes: :meth:`Session.map` and
:meth:`Session.reduce`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._arrays import Lent, as_numpy, float_result, lend, out_array
from ._params import DTypeLike

if TYPE_CHECKING:
    from ._session import Session


STATS = ("sum", "mean", "var", "std", "min", "max")

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
        Where to write z: a writeable C-contiguous array of x's shape
        and the computed dtype. By default a new array.
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
    xs, ys = as_numpy(x, "x"), as_numpy(y, "y")
    if dtype is None:
        dtype = float_result(xs, ys)
    lx, ly = lend(xs, "x", dtype=dtype), lend(ys, "y", dtype=dtype)
    arrays = {"x": lx, "y": ly}
    zo = None
    if lx.array.shape == ly.array.shape:  # else the library words the mismatch
        shape, dt = lx.array.shape, lx.array.dtype
        zo = np.empty(shape, dt) if out is None else out_array(out, shape, dt)
        arrays["out"] = Lent(zo, dt.name, False)
    got, _, _ = self._run("map", {"a": float(a), "b": float(b), "c": float(c)}, arrays, {"z": zo})
    return got["z"]


def reduce(self: Session, a: npt.ArrayLike, stat: str | Sequence[str] = "mean", axis: Axis = None, *,
           ddof: int = 0, skipnan: bool = False, dtype: DTypeLike = None) -> np.ndarray | dict[str, np.ndarray]:
    """Statistics of an array along an axis: sum, mean, var, std, min,
    max, accumulated in float64 (pairwise, two-pass within blocks).

    Parameters
    ----------
    a : array_like
        The array; float32 and float64 are read as they are, float16 and
        bfloat16 too (16-bit storage, widened exactly as it is read).
    stat : str or sequence of str, optional
        One of ``"sum"``, ``"mean"``, ``"var"``, ``"std"``, ``"min"``,
        ``"max"``, or several (``"all"`` for every one). Default
        ``"mean"``.
    axis : None or int or tuple of ints, optional
        The axis to reduce, negative from the end, as NumPy's. None (the
        default) reduces the flattened array; a tuple must name adjacent
        axes (they are merged, which a C-ordered array allows without a
        copy).
    ddof : int, optional
        Delta degrees of freedom of var and std (divisor n − ddof), as
        in :func:`numpy.var`.
    skipnan : bool, optional
        Ignore NaNs as :func:`numpy.nanmean`, :func:`numpy.nanvar`, ...
        do. By default a NaN makes every statistic of its slice NaN.
    dtype : {None, "float32", "float64"}, optional
        Convert the input first (one copy).

    Returns
    -------
    ndarray or dict of str to ndarray
        The statistic, of a's shape without the reduced axes, in a's
        dtype (float32 for 16-bit inputs); a dict by name when ``stat``
        is a sequence or ``"all"``.

    Warns
    -----
    RuntimeWarning
        When ``ddof`` is at least the axis length: var and std are NaN.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> vkstat.reduce(x, "mean", axis=1)
    array([1., 4.])
    >>> vkstat.reduce(x, ["min", "max"], axis=0)
    {'min': array([0., 1., 2.]), 'max': array([3., 4., 5.])}
    """
    one = isinstance(stat, str) and stat != "all"
    stats = list(STATS) if stat == "all" else [stat] if isinstance(stat, str) else list(stat)
    if isinstance(axis, (list, tuple)):
        ax: Any = [int(v) for v in axis]
    elif axis is None:
        ax = None
    else:
        ax = int(axis)
    la = lend(a, "a", dtype=dtype, half=True)
    got, _, _ = self._run("reduce", {"stats": stats, "axis": ax, "ddof": int(ddof), "skipnan": bool(skipnan)}, {"a": la})
    if one:
        return got[stats[0].strip().lower()]
    return got
