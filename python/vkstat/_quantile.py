"""Quantiles along an axis: :meth:`Session.quantile`."""

from __future__ import annotations

import operator

import numpy as np

from ._arrays import as_numpy, lend

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:  # annotations only: numpy.typing costs a first import 4-6 ms
    from typing import Any, Sequence

    import numpy.typing as npt

    from ._params import DTypeLike
    from ._session import Session


def quantile(self: Session, a: npt.ArrayLike, q: float | Sequence[float] = 0.5, axis: int | None = 0, *,
             skip_nan: bool = False, out: np.ndarray | None = None, dtype: DTypeLike = None) -> Any:
    """Quantiles of an array along an axis, as :func:`numpy.quantile` with
    its default method (``"linear"``), or :func:`numpy.nanquantile` with
    ``skip_nan``. The median is ``q=0.5``.

    Parameters
    ----------
    a : array_like
        The array, of one or more dimensions; float32 and float64 are read
        as they are, float16 and bfloat16 as float32, integers as float64.
    q : float or sequence of float, optional
        The quantiles, each in [0, 1]. Default 0.5, the median.
    axis : int or None, optional
        The axis to take them along, negative from the end (0 by default);
        None takes them of the flattened array (NumPy's default).
    skip_nan : bool, optional
        Leave NaNs out, as :func:`numpy.nanquantile` (a slice of NaNs only
        gives NaN). By default a NaN makes its slice's quantiles NaN.
    out : ndarray, optional
        Where to write the result, as NumPy's ``out``: of the result's
        shape, written in place when it is C-contiguous and of the
        result's dtype, else through a temporary cast into it.
    dtype : {None, "float32", "float64"}, optional
        Convert the input first (one copy).

    Returns
    -------
    ndarray or NumPy scalar
        Of shape ``q``'s + a's shape without the axis (NumPy's), in a's
        dtype (float32 or float64): ``(len(q),) + rest`` for a sequence,
        ``rest`` for one quantile, a NumPy scalar for one quantile of a
        1-d array (``out`` when given).

    Raises
    ------
    ValueError
        When a ``q`` is outside [0, 1] or NaN, or the axis has length 0.
    AxisError
        When the axis is out of range.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> x = np.array([[1.0, 4.0, 2.0], [3.0, 5.0, 9.0]])
    >>> vkstat.quantile(x, 0.5, axis=1)
    array([2., 5.])
    >>> vkstat.quantile(x, [0.0, 1.0], axis=0)
    array([[1., 4., 2.],
           [3., 5., 9.]])
    """
    one = np.ndim(q) == 0
    qs = [float(v) for v in np.ravel(q)]
    pa = as_numpy(a, "a")
    if axis is None:
        pa, axis = as_numpy(np.ravel(pa.array), "a"), 0
    given = out
    if one and out is not None:
        out = out[np.newaxis]  # a view: the library writes (1,) + rest
    la = lend(pa, "a", dtype=dtype)
    got, _, _ = self._run("quantile", {"q": qs, "axis": operator.index(axis), "skip_nan": bool(skip_nan)}, {"a": la},
                          None if out is None else {"q": out}, label="out")
    r = got["q"]
    if given is not None:
        return given
    if one:
        r = r[0]
        return r[()] if r.ndim == 0 else r
    return r
