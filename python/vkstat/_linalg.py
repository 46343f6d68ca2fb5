"""Covariance estimation and Cholesky-based linear algebra on batches of
small matrices: :meth:`Session.cov`, :meth:`Session.chol` and
:meth:`Session.cho_solve`."""

from __future__ import annotations

import warnings

import numpy as np

from ._arrays import as_numpy, float_result, lend, out_names, plain
from ._params import _ddof

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence, Union

    import numpy.typing as npt

    from ._params import DTypeLike
    from ._results import CholResult, CovResult
    from ._session import Session

    Out = Union[Mapping[str, np.ndarray], Sequence[Union[np.ndarray, None]], None]

_classes = None  # the module of CovResult and CholResult, imported at the first cov or chol (its dataclasses: 8 ms)


def _result_classes() -> Any:
    global _classes
    if _classes is None:
        from . import _results
        _classes = _results
    return _classes


def cov(self: Session, x: npt.ArrayLike, estimator: str = "none", *, ddof: int = 0, radius: int | None = None,
        shrinkage: float | None = None, assume_centered: bool = False, out: Out = None,
        dtype: DTypeLike = None) -> CovResult:
    """Means and covariance matrices of batches of sample sets, with
    shrinkage.

    Parameters
    ----------
    x : array_like
        N sample sets of T samples of P variables, shape (N, T, P), or
        one set (T, P), as ``numpy.cov(x, rowvar=False)`` reads it. With
        ``radius``: a (T, H, W) cube whose sample sets are the PACO
        patches (offsets with dy² + dx² ≤ radius²) at every location
        whose patch lies inside the frame. float16 and bfloat16 are
        read as 16-bit storage (not with ``radius``).
    estimator : {"none", "paco", "ledoit-wolf", "oas", "shrunk"}, optional
        ``none``: the sample covariance S = (1/T) Σ (r−m)(r−m)ᵀ;
        ``paco``: (1−ρ) S + ρ diag(S) (Flasseur et al. 2018);
        ``ledoit-wolf`` and ``oas``: (1−ρ) S + ρ (tr S / P) I with
        scikit-learn's ρ; ``shrunk``: the same with ρ = ``shrinkage``
        (scikit-learn's ``ShrunkCovariance``).
    ddof : {0, 1}, optional
        1 rescales the covariance by T/(T−1) (``numpy.cov``'s default
        for the estimator none); ρ is always from the 1/T statistics.
    radius : int, optional
        Makes x a cube and the sample sets its patches.
    shrinkage : float, optional
        ``shrunk``'s ρ, in [0, 1]; 0.1 by default, as scikit-learn's
        ``shrunk_covariance``. Refused with the other estimators, which
        estimate theirs.
    assume_centered : bool, optional
        Take the samples as centred, as scikit-learn's: S = (1/T) Σ r rᵀ,
        the means 0, and ρ from that S (and, for Ledoit-Wolf, from the
        samples as given; not with ``radius``).
    out : dict or tuple of ndarray, optional
        Where to write the outputs: a dict by name (``cov``, ``mean``,
        ``rho``, ``locations``) or a tuple in CovResult's order, None for
        a new array; each as NumPy's ``out`` (in place when C-contiguous
        and of the output's dtype, else through a temporary).
    dtype : {None, "float32", "float64"}, optional
        Convert the input first (one copy).

    Returns
    -------
    CovResult
        ``(cov, mean, rho, locations)``: cov (N, P, P), mean (N, P), rho
        (N,), without the N axis for one set; locations (N, 2) int64 with
        ``radius``, else None. float32 for 16-bit input.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> x = np.random.default_rng(0).standard_normal((100, 3))
    >>> r = vkstat.cov(x, ddof=1)
    >>> np.allclose(r.cov, np.cov(x, rowvar=False))
    True
    """
    fast = None
    if (type(x) is np.ndarray and radius is None and out is None and dtype is None and type(estimator) is str
            and type(ddof) is int and shrinkage is None and not assume_centered and plain(x)):
        fast = ("cov", estimator, ddof, x.dtype, x.shape)
        if _classes is not None:  # a call is kept only after a first one, which imported them
            got = self._fast_call(fast, (x,), _classes.CovResult)
            if got is not None:
                return got
    if shrinkage is not None and (isinstance(shrinkage, bool) or not isinstance(shrinkage, (int, float, np.number))):
        raise TypeError(f"shrinkage: a number in [0, 1], got {type(shrinkage).__name__}")
    params: dict[str, Any] = {"estimator": estimator, "ddof": _ddof(ddof), "radius": radius,
                              "shrinkage": None if shrinkage is None else float(shrinkage),
                              "assume_centered": bool(assume_centered)}
    lx = lend(x, "x", dtype=dtype, half=radius is None)
    cls = _result_classes().CovResult
    got, _, _ = self._run("cov", params, {"x": lx}, out_names(out, cls._fields), repeat=True, fast=fast)
    return cls(got["cov"], got["mean"], got["rho"], got.get("locations"))


def chol(self: Session, a: npt.ArrayLike, b: npt.ArrayLike | None = None, *, l: bool = True,  # noqa: E741
         inverse: bool = False, logdet: bool = False, quad: bool = False, factored: bool = False,
         out: Out = None, dtype: DTypeLike = None) -> CholResult:
    """Batched Cholesky factorisation A = L·Lᵀ, and what it gives:
    solves, inverses, log-determinants, quadratic forms.

    Parameters
    ----------
    a : array_like
        N symmetric positive-definite matrices (N, P, P), or one (P, P).
        Only the lower triangle is read, as LAPACK's potrf (uplo 'L')
        and :func:`numpy.linalg.cholesky` read it.
    b : array_like, optional
        Right-hand sides: (N, P, K) or (N, P), or (P, K) or (P,) for one
        matrix. Gives X = A⁻¹B.
    l : bool, optional
        Return the factors L (default True).
    inverse : bool, optional
        Return A⁻¹.
    logdet : bool, optional
        Return log det A.
    quad : bool, optional
        Return bᵀA⁻¹b for each right-hand side (needs b).
    factored : bool, optional
        ``a`` holds factors L (``chol``'s or :func:`numpy.linalg.cholesky`'s),
        used as they are, not factored again (as :func:`cho_solve`).
    out : dict or tuple of ndarray, optional
        Where to write the outputs: a dict by name (``l``, ``x``,
        ``inverse``, ``logdet``, ``quad``, ``info``) or a tuple in
        CholResult's order, None for a new array; each as NumPy's ``out``.
    dtype : {None, "float32", "float64"}, optional
        The precision to compute in; by default a's and b's, float64
        when either is float64.

    Returns
    -------
    CholResult
        ``(l, x, inverse, logdet, quad, info)``, None for what was not
        asked. A matrix that is not positive definite gets NaN in every
        output and its potrf code in info; the others are unaffected.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> a = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> r = vkstat.chol(a, np.array([1.0, 2.0]), logdet=True)
    >>> np.allclose(r.x, np.linalg.solve(a, [1.0, 2.0])), np.isclose(r.logdet, np.log(8.0))
    (True, True)
    """
    fast = None
    if type(a) is np.ndarray and b is None and out is None and dtype is None and plain(a):
        fast = ("chol", bool(l), bool(inverse), bool(logdet), bool(quad), bool(factored), a.dtype, a.shape)
        if _classes is not None:  # a call is kept only after a first one, which imported them
            got = self._fast_call(fast, (a,), _classes.CholResult)
            if got is not None:
                return got
    peeked = {"a": as_numpy(a, "a")}
    if b is not None:
        peeked["b"] = as_numpy(b, "b")
    if dtype is None:
        dtype = float_result(**peeked)
    arrays = {name: lend(p, name, dtype=dtype) for name, p in peeked.items()}
    params = {"l": bool(l), "inverse": bool(inverse), "logdet": bool(logdet), "quad": bool(quad), "factored": bool(factored)}
    cls = _result_classes().CholResult
    got, _, _ = self._run("chol", params, arrays, out_names(out, cls._fields), repeat=True, fast=fast)
    return cls(got.get("l"), got.get("x"), got.get("inverse"), got.get("logdet"), got.get("quad"), got["info"])


def cho_solve(self: Session, c_and_lower: Any, b: npt.ArrayLike, *, out: np.ndarray | None = None,
              dtype: DTypeLike = None) -> np.ndarray:
    """Solve A·x = b from A's Cholesky factor, without factoring again, as
    :func:`scipy.linalg.cho_solve`.

    Parameters
    ----------
    c_and_lower : array_like or tuple (c, lower)
        The factors: L, lower triangular, (N, P, P) or (P, P), as
        :meth:`chol` and :func:`numpy.linalg.cholesky` return them; or
        SciPy's ``(c, lower)`` from :func:`scipy.linalg.cho_factor`, whose
        upper factor (``lower=False``) is read as Lᵀ. Only the factor's
        triangle is read.
    b : array_like
        Right-hand sides, as :meth:`chol`'s ``b``.
    out : ndarray, optional
        Where to write x, as NumPy's ``out``.
    dtype : {None, "float32", "float64"}, optional
        The precision to compute in; by default the inputs', float64 when
        either is float64.

    Returns
    -------
    ndarray
        x = A⁻¹b, b's shape. A factor with a diagonal entry that is not
        positive (no SPD matrix has one) gets NaN, and a RuntimeWarning;
        the others are unaffected.

    Notes
    -----
    Two triangular solves per right-hand side: the work is small and
    memory-bound, and runs on the host (the CPU path) whatever the
    session's device.

    Examples
    --------
    >>> import numpy as np, vkstat
    >>> a = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> l = vkstat.chol(a).l
    >>> np.allclose(vkstat.cho_solve(l, [1.0, 2.0]), np.linalg.solve(a, [1.0, 2.0]))
    True
    """
    c = c_and_lower
    if isinstance(c, tuple):
        if len(c) != 2:
            raise TypeError(f"c_and_lower: a factor, or SciPy's (c, lower) pair; got a tuple of {len(c)}")
        c, lower = c
        if not lower:
            u = as_numpy(c, "c")  # U = Lᵀ: its transpose's lower triangle is L
            c = u._replace(array=np.swapaxes(u.array, -1, -2))
    peeked = {"a": as_numpy(c, "c"), "b": as_numpy(b, "b")}
    if dtype is None:
        dtype = float_result(**peeked)
    arrays = {name: lend(p, name, dtype=dtype) for name, p in peeked.items()}
    params = {"l": False, "inverse": False, "logdet": False, "quad": False, "factored": True}
    got, _, _ = self._run("chol", params, arrays, {"x": out}, label="out")
    info = np.asarray(got["info"])
    if info.any():
        warnings.warn(f"cho_solve: {int(np.count_nonzero(info))} factor(s) with a diagonal entry that is not positive: "
                      "their solutions are NaN", RuntimeWarning, stacklevel=3)
    return got["x"]
