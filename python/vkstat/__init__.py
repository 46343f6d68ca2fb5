"""vkstat: batched statistics and small dense linear algebra on any Vulkan
GPU, or on the CPU, on NumPy arrays.

The computations run in vkstat's Go library (a shared library bundled with
this package; it needs only the Vulkan loader, libvulkan1, at run time, and
not even that on the CPU path). Arrays go in by pointer, without a copy,
when they are C-contiguous and of a dtype the operation reads; results come
back as NumPy arrays that own their memory.

Examples
--------
>>> import numpy as np, vkstat
>>> vkstat.devices()                                  # doctest: +SKIP
>>> x = np.random.default_rng(1).standard_normal(1000, dtype=np.float32)
>>> z = vkstat.map(x, x, a=3.5, b=2.8, c=10)          # the default session
>>> with vkstat.open("lavapipe") as dev:              # doctest: +SKIP
...     m = dev.reduce(x.reshape(10, 100), "mean", axis=1)

The workloads of the command line run on arrays too: :func:`latent`
(statistics of ML latents, named as ``vkstat latent``'s files),
:func:`stack` (per-pixel statistics of SAR stacks, in memory or from
rasters) and :func:`paco` (exoplanet detection in an ADI sequence: maps,
detections, contrast curve).

See docs/python.md.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import sys
import threading
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _lib
from ._arrays import Lent, Peeked, as_numpy, lend, lend_date, out_array
from ._lib import DeviceError, Error, InputError
from ._results import LatentResult, PacoResult, StackResult, fill, table

__all__ = [
    "devices", "open", "Session", "map", "reduce", "cov", "chol", "verify",
    "latent", "stack", "paco", "default_session", "set_default", "CovResult", "CholResult", "VerifyReport",
    "LatentResult", "StackResult", "PacoResult",
    "Error", "DeviceError", "InputError", "__version__",
]

__version__: str = _lib.version()

STATS = ("sum", "mean", "var", "std", "min", "max")

DTypeLike = Union[str, type, np.dtype, None]
Axis = Union[int, Sequence[int], None]


def _options(validate: bool, memory: str | int | None, disable: str | Iterable[str] | None) -> dict[str, Any]:
    if isinstance(disable, (list, tuple, set, frozenset)):
        disable = ",".join(disable)
    return {"validate": bool(validate), "memory": "" if memory is None else str(memory), "disable": disable or ""}


def devices(*, validate: bool = False, disable: str | Iterable[str] | None = None) -> list[dict[str, Any]]:
    """List the Vulkan devices and the CPU path.

    Parameters
    ----------
    validate : bool, optional
        Load the Vulkan validation layer while listing.
    disable : str or iterable of str, optional
        Features to report as absent: ``float64``, ``float16``, ``subgroup``.

    Returns
    -------
    list of dict
        One dict per device: ``path`` (``"vulkan"`` or ``"cpu"``), ``index``
        (what :func:`open` takes; -1 for the CPU path), ``name``, ``type``,
        ``float64``, and for Vulkan devices the full report under
        ``vulkan`` (driver, API version, memory heaps, limits, subgroup
        size, features). The CPU path is last.

    Warns
    -----
    RuntimeWarning
        When Vulkan is unusable (no loader or no driver): the list then holds
        the CPU path only.
    """
    rep = _lib.devices(_options(validate, None, disable))
    if rep.get("vulkan_error"):
        warnings.warn(f"no Vulkan devices: {rep['vulkan_error']}", RuntimeWarning, stacklevel=2)
    return rep["devices"]


# ---- the worker: calls run on a thread of their own ---------------------------

class _Job:
    __slots__ = ("fn", "done", "result", "exc")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn, self.done, self.result, self.exc = fn, threading.Event(), None, None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as e:  # handed to the waiting thread
            self.exc = e
        finally:
            self.fn = None
            self.done.set()


def _reraise(job: _Job) -> None:
    """Raises the exception the worker's job raised (KeyboardInterrupt for a
    cancelled call) without a reference cycle: the exception's traceback
    holds the job's frames, so neither the job nor this frame may hold the
    exception, or the arrays lent to a failed call would stay alive until
    the cyclic garbage collector ran."""
    exc, job.exc = job.exc, None
    try:
        if isinstance(exc, _lib.Cancelled):
            raise KeyboardInterrupt from None
        raise exc
    finally:
        del exc


def _work(q: queue.SimpleQueue) -> None:
    while True:
        job = q.get()
        if job is None:
            return
        job.run()
        del job


# How often the waiting thread wakes to let Python run signal handlers
# (Ctrl-C), and how long it waits for a cancelled call to stop before it
# raises KeyboardInterrupt anyway.
_POLL_S = 0.05
_CANCEL_GRACE_S = 1.5
# Calls on arrays of at most this many bytes in all (besides _LONG_OPS) run
# on the calling thread, the GIL released: they take milliseconds at most,
# so a Ctrl-C raises as soon as they return, and they save the two thread
# switches of the worker (~50 µs).
_INLINE_BYTES = 1 << 20
# Operations that may run long whatever their arrays' size: always on the
# session's thread, where Ctrl-C cancels them.
_LONG_OPS = frozenset({"verify", "paco"})


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


class Session:
    """A device kept open across calls: its Vulkan device, compiled
    pipelines and caches stay until :meth:`close` (or the end of a ``with``
    block).

    Parameters
    ----------
    device : str or int, optional
        ``"auto"`` (the best GPU, else the CPU path; the default), ``"cpu"``
        (the native Go CPU path, no Vulkan), ``"gpu"``, ``"lavapipe"``, a
        device index from :func:`devices`, or part of a device's name.
    validate : bool, optional
        Turn the Vulkan validation layer on: any message it reports makes
        the call raise :class:`DeviceError`. ``VKSTAT_VALIDATE=1`` does the
        same.
    memory : str or int, optional
        Cap on the device memory vkstat allocates, e.g. ``"2GiB"``; work is
        split to stay under it.
    disable : str or iterable of str, optional
        Features to treat as absent (``float64``, ``float16``,
        ``subgroup``): the pipelines take the kernels written for devices
        without them.

    Raises
    ------
    DeviceError
        When the device cannot be opened, or Vulkan is unusable and the
        device was named explicitly.
    ValueError
        When ``device`` names no device.

    Warns
    -----
    RuntimeWarning
        When ``"auto"`` falls back to the CPU path because Vulkan is
        unusable.

    Notes
    -----
    Calls on one session run one at a time, with the GIL released. Calls on
    more than 1 MiB of arrays, verify and paco, run on a thread of the
    session's own while the calling thread waits, responsive to Ctrl-C,
    which cancels the call; smaller calls (milliseconds at most) run on the
    calling thread. Sessions are independent: calls on two sessions run
    concurrently.
    """

    def __init__(self, device: str | int = "auto", *, validate: bool = False,
                 memory: str | int | None = None, disable: str | Iterable[str] | None = None) -> None:
        self._handle = 0
        self._q: queue.SimpleQueue | None = None
        self._tokens: set[int] = set()
        self._lock = threading.Lock()
        self._last_copied: tuple[str, ...] = ()
        self.last_timing: dict[str, Any] | None = None
        """Where the library's time went in the last call, as ``vkstat
        --time`` reports it: ``upload_ms``, ``kernel_ms`` (GPU timestamps
        when ``gpu_timed``; the compute on the CPU path), ``download_ms``,
        ``wall_ms`` (the pipeline's), ``up_bytes``, ``down_bytes``. None
        after verify."""
        handle, info = _lib.open_session(str(device), _options(validate, memory, disable))
        self._handle = handle
        _open_sessions.add(self)
        self.device: dict[str, Any] = info["device"]
        """Where the session runs: the record :func:`devices` lists, and
        for ``"auto"`` why it was chosen (``"reason"``)."""
        if info.get("note"):
            warnings.warn(f"vkstat: {info['note']}", RuntimeWarning, stacklevel=2)

    # -- life --------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once the session is closed."""
        return self._handle == 0

    def close(self) -> None:
        """Release the device. A call still running (one abandoned by
        Ctrl-C) is cancelled first and waited for.

        Raises
        ------
        DeviceError
            When closing reports validation messages (leaks).
        """
        with self._lock:
            h, self._handle = self._handle, 0
            q, self._q = self._q, None
            tokens = list(self._tokens)
        if not h:
            return
        _open_sessions.discard(self)
        for t in tokens:
            _lib.lib.vks_token_cancel(t)
        if q is None:
            _lib.close_session(h)
            return
        if sys.is_finalizing():
            # The worker thread cannot run Python any more: leave the
            # device to the process's end.
            return
        job = _Job(lambda: _lib.close_session(h))
        q.put(job)
        q.put(None)
        while not job.done.wait(_POLL_S):
            pass
        if job.exc is not None:
            _reraise(job)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if self._handle:
                self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.device.get("name")
        return f"<vkstat.Session {state}>"

    # -- the call ----------------------------------------------------------

    def _run(self, op: str, params: Mapping[str, Any], arrays: Mapping[str, Lent],
             outs: Mapping[str, np.ndarray] | None = None, *, reads_files: bool = False
             ) -> tuple[dict[str, np.ndarray], Any, list[str]]:
        """Runs op, on the session's thread (waiting for it there, so that
        Ctrl-C cancels it) unless its arrays are small and it reads no
        files. Returns the outputs by name, the Info and the warnings."""
        nbytes = sum(a.array.nbytes for a in arrays.values())
        inline = op not in _LONG_OPS and not reads_files and nbytes <= _INLINE_BYTES
        with self._lock:
            if not self._handle:
                raise InputError("the session is closed")
            handle = self._handle
            if inline:
                token = 0  # never cancelled: the call is short
            else:
                if self._q is None:
                    self._q = queue.SimpleQueue()
                    threading.Thread(target=_work, args=(self._q,), name="vkstat", daemon=True).start()
                q = self._q
                token = _lib.lib.vks_token_new()
                self._tokens.add(token)
        names = list(arrays)
        specs = {n: arrays[n].spec(i) for i, n in enumerate(names)}
        ptrs = [arrays[n].array.ctypes.data for n in names]
        request = json.dumps({"params": params, "arrays": specs}).encode()
        keep = (arrays, outs)  # the lent memory lives as long as the job
        self._last_copied = tuple(n for n in names if arrays[n].copied)

        def job_fn() -> tuple[dict[str, np.ndarray], Any, list[str], dict[str, Any] | None]:
            try:
                res, desc = _lib.call(handle, token, op, request, ptrs)
            finally:
                if token:
                    _lib.lib.vks_token_end(token)
                    with self._lock:
                        self._tokens.discard(token)
            got: dict[str, np.ndarray] = {}
            try:
                for i, o in enumerate(desc.get("outputs") or []):
                    if o["written"]:
                        got[o["name"]] = keep[1][o["name"]] if keep[1] else None
                        continue
                    a = np.empty(o["shape"], dtype=np.dtype(o["dtype"]))
                    _lib.copy_output(res, i, a.ctypes.data, a.nbytes)
                    got[o["name"]] = a
            finally:
                if res:
                    _lib.lib.vks_result_free(res)
            return got, desc.get("info"), desc.get("warnings") or [], desc.get("timing")

        if inline:
            try:
                result = job_fn()
            except _lib.Cancelled:
                raise KeyboardInterrupt from None
            return self._finish(result)
        job = _Job(job_fn)
        q.put(job)
        try:
            while not job.done.wait(_POLL_S):
                pass
        except KeyboardInterrupt:
            _lib.lib.vks_token_cancel(token)
            job.done.wait(_CANCEL_GRACE_S)
            raise
        if job.exc is not None:
            _reraise(job)
        return self._finish(job.result)

    def _finish(self, result: tuple[dict[str, np.ndarray], Any, list[str], dict[str, Any] | None]
                ) -> tuple[dict[str, np.ndarray], Any, list[str]]:
        got, info, warns, self.last_timing = result
        for w in warns:
            warnings.warn(w, RuntimeWarning, stacklevel=4)
        return got, info, warns

    # -- operations --------------------------------------------------------

    def map(self, x: npt.ArrayLike, y: npt.ArrayLike, a: float = 1.0, b: float = 1.0, c: float = 0.0, *,
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
            dtype = _float_result(xs, ys)
        lx, ly = lend(xs, "x", dtype=dtype), lend(ys, "y", dtype=dtype)
        arrays = {"x": lx, "y": ly}
        zo = None
        if lx.array.shape == ly.array.shape:  # else the library words the mismatch
            shape, dt = lx.array.shape, lx.array.dtype
            zo = np.empty(shape, dt) if out is None else out_array(out, shape, dt)
            arrays["out"] = Lent(zo, dt.name, False)
        got, _, _ = self._run("map", {"a": float(a), "b": float(b), "c": float(c)}, arrays, {"z": zo})
        return got["z"]

    def reduce(self, a: npt.ArrayLike, stat: str | Sequence[str] = "mean", axis: Axis = None, *,
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

    def cov(self, x: npt.ArrayLike, estimator: str = "none", *, ddof: int = 0, radius: int | None = None,
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
        estimator : {"none", "paco", "ledoit-wolf", "oas"}, optional
            ``none``: the sample covariance S = (1/T) Σ (r−m)(r−m)ᵀ;
            ``paco``: (1−ρ) S + ρ diag(S) (Flasseur et al. 2018);
            ``ledoit-wolf`` and ``oas``: (1−ρ) S + ρ (tr S / P) I with
            scikit-learn's ρ.
        ddof : {0, 1}, optional
            1 rescales the covariance by T/(T−1) (``numpy.cov``'s default
            for the estimator none); ρ is always from the 1/T statistics.
        radius : int, optional
            Makes x a cube and the sample sets its patches.
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
        params: dict[str, Any] = {"estimator": str(estimator), "ddof": int(ddof)}
        if radius is not None:
            params["radius"] = int(radius)
        lx = lend(x, "x", dtype=dtype, half=radius is None)
        got, _, _ = self._run("cov", params, {"x": lx})
        return CovResult(got["cov"], got["mean"], got["rho"], got.get("locations"))

    def chol(self, a: npt.ArrayLike, b: npt.ArrayLike | None = None, *, l: bool = True,  # noqa: E741
             inverse: bool = False, logdet: bool = False, quad: bool = False, dtype: DTypeLike = None) -> CholResult:
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
        peeked = [as_numpy(a, "a")] + ([as_numpy(b, "b")] if b is not None else [])
        if dtype is None:
            dtype = _float_result(*peeked)
        arrays = {name: lend(p, name, dtype=dtype) for name, p in zip("ab", peeked)}
        got, _, _ = self._run("chol", {"l": bool(l), "inverse": bool(inverse), "logdet": bool(logdet), "quad": bool(quad)}, arrays)
        return CholResult(got.get("l"), got.get("x"), got.get("inverse"), got.get("logdet"), got.get("quad"), got["info"])

    def latent(self, x: npt.ArrayLike, stat: str | Sequence[str] = ("moments", "corr"), *, axes: Sequence[int] | int = (-2, -1),
               lags: int | None = None, nan: str = "propagate", ddof: int = 0, precision: DTypeLike = None,
               batch: int = 0) -> LatentResult:
        """Statistics of an ML latent tensor (N samples, C channels, F
        frames, H, W), batched over every sample, channel and frame: what
        ``vkstat latent`` computes, on an array in memory.

        Parameters
        ----------
        x : array_like
            (N, C, F, H, W), or (N, C, H, W) read as one frame (any shape for
            moments alone). float16, bfloat16 (ml_dtypes, or a PyTorch
            tensor), float32 and float64 are read where they lie, without a
            copy; integers become float64 (one copy).
        stat : str or sequence of str, optional
            What to compute, as ``--stat``: ``"moments"`` (mean, var, std,
            min, max, skew, kurt over ``axes``), ``"corr"`` (the C×C channel
            correlation of each sample), ``"corr-frames"`` (the same per
            frame), ``"lagcorr"`` (the F×F frame correlation of each sample
            and channel and its lags), ``"pca"`` (each sample's PCA, channels
            as features), ``"spectra"`` (spatial and temporal power spectra),
            or ``"all"``. Default: moments and corr. A comma-separated string
            is split.
        axes : int or sequence of int, optional
            The axes the moments reduce, NumPy's numbering (default the
            spatial axes, -2 and -1).
        lags : int, optional
            lagcorr's lags 1..L (L ≤ F − 1); default min(3, F − 1).
        nan : {"propagate", "skip"}, optional
            ``propagate``: a NaN or ±Inf makes the moments of its slice NaN,
            and its channel's (or frame's) row and column of a correlation
            matrix, and its sample's PCA. ``skip``: moments leave such values
            out (as :func:`numpy.nanmean`), correlations and the PCA use the
            pixels at which no variable of the set is NaN or ±Inf.
        ddof : int, optional
            Delta degrees of freedom of var and std.
        precision : {None, "auto", "float16", "bfloat16", "float32", "float64"}, optional
            How the tensor is stored for the work, as ``--precision``
            (``f16``, ``bf16``, ``f32``, ``f64`` too): by default the
            input's own type. Other types are converted a batch at a time.
        batch : int, optional
            Samples per batch; 0 (the default) takes as many as fit the
            device's memory budget (on the CPU path: all of them).

        Returns
        -------
        LatentResult
            The arrays (float64), named as the command's files:
            ``mean``, ``var``, ``std``, ``min``, ``max``, ``skew``, ``kurt``,
            ``corr``, ``corr_frames``, ``frame_corr``, ``lagcorr``,
            ``pca_values``, ``pca_ratio``, ``pca_vectors``,
            ``spatial_spectrum``, ... (None for what was not asked;
            ``arrays()`` lists those computed), and the summary: ``nans``,
            ``infs``, ``notes``, ``mean_corr``, ``lag_means``,
            ``pca_mean_ratio``, ``pca_mean_cumulative``,
            ``radial_bin_radius``, ``axes``, ``lags``, ``batches``.

        Warns
        -----
        RuntimeWarning
            When ``ddof`` is at least the number of values reduced.

        Examples
        --------
        >>> import numpy as np, vkstat
        >>> x = np.random.default_rng(0).standard_normal((2, 3, 4, 8, 8), dtype=np.float32)
        >>> r = vkstat.latent(x, ["moments", "corr"], axes=(3, 4))
        >>> r.mean.shape, r.corr.shape
        ((2, 3, 4), (2, 3, 3))
        >>> np.allclose(r.std, x.std(axis=(3, 4), dtype=np.float64))
        True
        """
        stats = _names(stat)
        ax = [int(axes)] if isinstance(axes, (int, np.integer)) else [int(a) for a in axes]
        params = {"stats": stats, "axes": ax, "ddof": int(ddof), "lags": 0 if lags is None else int(lags),
                  "nan": str(nan), "precision": _precision(precision), "batch": int(batch)}
        got, info, _ = self._run("latent", params, {"x": lend(x, "x", half=True)})
        return fill(LatentResult, got, info, names=info["arrays"])

    def stack(self, dates: Any, *, looks: int | str | Sequence[int] = 1, crop: Sequence[int] | None = None,
              filter: str | None = None, filter_size: int | None = None, enl: float | None = None,  # noqa: A002
              stat: str | Sequence[str] = "all", quantity: str = "intensity", ddof: int = 0,
              nodata: float | None = None, band: int = 1) -> StackResult:
        """Per-pixel temporal statistics of a stack of SAR images, one per
        date: what ``vkstat stack`` computes, on arrays in memory or on
        raster files.

        Each date's intensity (|S|² of complex SLC samples; real samples are
        taken as intensity) is averaged over a multilook box, cropped,
        optionally speckle-filtered, and added to the statistics over the
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
        crop : (int, int, int, int), optional
            The window of the multilooked image kept: first row, first
            column, rows, columns (rows or columns 0: to the edge).
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
            ``min``, ``max``, ``count`` (valid dates), or ``"all"`` (the
            default).
        quantity : {"intensity", "amplitude"}, optional
            ``amplitude`` takes the square root of the multilooked, filtered
            intensity before the statistics.
        ddof : int, optional
            Delta degrees of freedom of std and cv (0: population, 1:
            sample).
        nodata : float, optional
            For arrays: the value that marks missing samples (a complex
            sample: both parts), left out of the multilook like NaN. Files
            say their own.
        band : int, optional
            The raster band read from each file (from 1).

        Returns
        -------
        StackResult
            The statistics, float32 arrays of the multilooked, cropped grid
            (None for those not asked; ``arrays()`` lists those asked), the
            number of dates, and for files the outputs' ``geotransform``
            (the first date's, moved to the crop and scaled by the looks)
            and ``projection`` (WKT).

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
        looks_ar = _looks(looks)
        params: dict[str, Any] = {"looks": looks_ar, "crop": [int(v) for v in crop] if crop is not None else [],
                                  "quantity": str(quantity), "filter": str(filter or "none"),
                                  "filter_size": int(filter_size or 0), "enl": float(enl or 0), "ddof": int(ddof),
                                  "stats": _names(stat)}
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
                params["band"] = int(band)
                for p in params["paths"]:
                    if not os.path.exists(p):
                        raise FileNotFoundError(2, "no such date file", p)
            elif any(paths):
                raise ValueError("dates: give paths or arrays, not both")
            else:
                arrays = {f"date{i}": lend_date(d, f"dates[{i}]") for i, d in enumerate(dates)}
                if band != 1:
                    raise ValueError("band is for dates read from files")
        if nodata is not None:
            if "paths" in params:
                raise ValueError("nodata is for arrays; files say their own")
            params["nodata"] = float(nodata)
        got, info, _ = self._run("stack", params, arrays, reads_files="paths" in params)
        return fill(StackResult, got, info)

    def paco(self, cube: npt.ArrayLike, angles: npt.ArrayLike, psf: npt.ArrayLike | None = None,
             fwhm: float | None = None, *, radius: int = 4, threshold: float = 5.0, min_sep: float | None = None,
             center: str | Sequence[float] | None = None, unbiased: bool = False, contrast_check: bool = False,
             star_flux: float | None = None, pixel_scale: float | None = None, north_offset: float = 0.0,
             psf_norm: str = "sum", placement: str = "nearest", compat: str = "none",
             precision: DTypeLike = None) -> PacoResult:
        """PACO (Flasseur et al. 2018): faint companions in an angular
        differential imaging sequence, what ``vkstat paco`` does, on arrays
        in memory.

        A Gaussian model of every patch's background is learnt from all
        frames (its mean, and its covariance shrunk towards the diagonal);
        then every sky pixel gets the SNR and flux of a PSF-shaped source
        following the field rotation (Algorithm 2). Local maxima above
        ``threshold`` are detections; the contrast curve is threshold × the
        median σ_flux in 1-px annuli.

        Parameters
        ----------
        cube : array_like
            The ADI cube (T, H, W), centred on the star. float32 and float64
            are read where they lie when C-contiguous; other dtypes are
            converted once (integers to float64, float16 to float32).
        angles : array_like
            T parallactic angles in degrees.
        psf : array_like, optional
            The off-axis PSF stamp: odd-sized, square, centred on its middle
            pixel; normalised by ``psf_norm``.
        fwhm : float, optional
            Instead of ``psf``: a Gaussian PSF of this FWHM in pixels (the
            one ``vkstat synth paco`` injects). Give one of psf and fwhm.
        radius : int, optional
            The patch radius in pixels (4: 49-pixel patches).
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
            Algorithm 2's flux underestimates).
        contrast_check : bool, optional
            Check the contrast curve by injecting fake companions at its
            limit and finding them again (three more runs of the maps).
        star_flux : float, optional
            The star's flux in the flux map's units, for the contrast
            curve's contrast and delta_mag.
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
        params: dict[str, Any] = {"fwhm": 0.0 if fwhm is None else float(fwhm), "psf_norm": str(psf_norm),
                                  "radius": int(radius), "threshold": float(threshold),
                                  "min_sep": 0.0 if min_sep is None else float(min_sep), "compat": str(compat),
                                  "placement": str(placement), "precision": _precision(precision),
                                  "unbiased": bool(unbiased), "contrast_check": bool(contrast_check),
                                  "star_flux": 0.0 if star_flux is None else float(star_flux),
                                  "pixel_scale": None if pixel_scale is None else float(pixel_scale),
                                  "north_offset": float(north_offset)}
        if center is None:
            params["center"] = ""
        elif isinstance(center, str):
            params["center"] = center.strip().lower()
        else:
            yx = [float(v) for v in center]
            if len(yx) != 2:
                raise ValueError(f"center: want (y, x) in pixels, 0-based, or 'auto'; got {center!r}")
            params["center"], params["center_yx"] = "given", yx
        arrays = {"cube": lend(cube, "cube"), "angles": lend(angles, "angles", dtype=np.float64)}
        if psf is not None:
            arrays["psf"] = lend(psf, "psf")
        got, info, warns = self._run("paco", params, arrays)
        return fill(PacoResult, got, info, detections=table(got, "detections"), contrast=table(got, "contrast"),
                    contrast_check=table(got, "contrast_check"), warnings=warns)

    def verify(self, ops: str | Sequence[str] | None = None, precisions: str | Sequence[str] | None = None) -> VerifyReport:
        """Check every operation on this session's device against the
        float64 reference, as ``vkstat verify`` does.

        Parameters
        ----------
        ops : str or sequence of str, optional
            Operations or suites (``map``, ``reduce``, ``cov``, ``chol``,
            ``paco``, ...); by default every one.
        precisions : str or sequence of str, optional
            ``float32`` and/or ``float64``; by default both.

        Returns
        -------
        VerifyReport
            The rows (op, case, precision, status, max_err, nmse, tol,
            detail), the counts and ``ok``. A failed row does not raise.
        """
        if isinstance(ops, str):
            ops = [o for o in ops.split(",") if o.strip()]
        if isinstance(precisions, str):
            precisions = [p for p in precisions.split(",") if p.strip()]
        _, info, _ = self._run("verify", {"ops": list(ops or []), "precisions": list(precisions or [])}, {})
        return VerifyReport(device=self.device, results=info.get("results") or [], passed=info["passed"],
                            failed=info["failed"], skipped=info["skipped"], seconds=info["seconds"],
                            version=info.get("vkstat_version", ""), info=info)


def _float_result(*arrays: Peeked) -> np.dtype:
    """The dtype inputs compute in together: float64 when any is float64
    or an integer, else float32."""
    out = np.dtype(np.float32)
    for p in arrays:
        d, tag = p.array.dtype, p.tag
        if tag is None and (d.kind in "biu" or (d.kind == "f" and d.itemsize == 8)):
            out = np.dtype(np.float64)
    return out


def _names(v: str | Sequence[str]) -> list[str]:
    """A list of names from a sequence or a comma-separated string."""
    if isinstance(v, str):
        return [n.strip() for n in v.split(",") if n.strip()]
    return [str(n).strip() for n in v]


def _looks(v: int | str | Sequence[int]) -> list[int]:
    """A multilook box [rows, columns] from 4, (2, 8) or "2x8"."""
    if isinstance(v, str):
        parts = v.lower().replace("×", "x").replace(",", "x").split("x")
        try:
            vals = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"looks {v!r}: want rows×columns, e.g. 4x4") from None
    elif isinstance(v, (int, np.integer)):
        vals = [int(v)]
    else:
        vals = [int(p) for p in v]
    if len(vals) == 1:
        vals *= 2
    if len(vals) != 2:
        raise ValueError(f"looks {v!r}: want rows×columns, e.g. 4x4")
    return vals


def _precision(p: DTypeLike) -> str:
    """A storage type's name for the library: "" (the input's own), or
    NumPy's or the command line's name of a float type."""
    if p is None:
        return ""
    if isinstance(p, str):
        return p
    return np.dtype(p).name


def open(device: str | int = "auto", *, validate: bool = False, memory: str | int | None = None,  # noqa: A001
         disable: str | Iterable[str] | None = None) -> Session:
    """Open a session on a device; see :class:`Session`.

    Examples
    --------
    >>> import vkstat
    >>> with vkstat.open("cpu") as dev:
    ...     dev.device["path"]
    'cpu'
    """
    return Session(device, validate=validate, memory=memory, disable=disable)


# ---- the default session -------------------------------------------------------

_default: Session | None = None
_default_lock = threading.Lock()


def default_session() -> Session:
    """The session the module-level functions use, opened on first use on
    ``$VKSTAT_DEVICE`` (default ``"auto"``)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Session(os.environ.get("VKSTAT_DEVICE", "auto"))
        return _default


def set_default(device: str | int = "auto", **options: Any) -> Session:
    """Close the default session and open another on ``device``
    (options as :class:`Session`'s); returns it."""
    global _default
    with _default_lock:
        old, _default = _default, None
    if old is not None:
        old.close()
    s = Session(device, **options)
    with _default_lock:
        _default = s
    return s


# Sessions still open when the interpreter exits are closed by an atexit
# hook, while their worker threads can still run.
_open_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


def _forget_all() -> None:
    """In a forked child: the parent's sessions (their devices, their
    worker threads) are not the child's; mark them closed without touching
    the library, and let the default session open afresh."""
    global _default
    for s in list(_open_sessions):
        s._handle, s._q, s._tokens = 0, None, set()
    _open_sessions.clear()
    _default = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_all)


@atexit.register
def _close_all() -> None:
    for s in list(_open_sessions):
        try:
            s.close()
        except Exception:
            pass


def map(x: npt.ArrayLike, y: npt.ArrayLike, a: float = 1.0, b: float = 1.0, c: float = 0.0, *,  # noqa: A001
        out: np.ndarray | None = None, dtype: DTypeLike = None) -> np.ndarray:
    """:meth:`Session.map` on the default session."""
    return default_session().map(x, y, a, b, c, out=out, dtype=dtype)


def reduce(a: npt.ArrayLike, stat: str | Sequence[str] = "mean", axis: Axis = None, *, ddof: int = 0,
           skipnan: bool = False, dtype: DTypeLike = None) -> np.ndarray | dict[str, np.ndarray]:
    """:meth:`Session.reduce` on the default session."""
    return default_session().reduce(a, stat, axis, ddof=ddof, skipnan=skipnan, dtype=dtype)


def cov(x: npt.ArrayLike, estimator: str = "none", *, ddof: int = 0, radius: int | None = None,
        dtype: DTypeLike = None) -> CovResult:
    """:meth:`Session.cov` on the default session."""
    return default_session().cov(x, estimator, ddof=ddof, radius=radius, dtype=dtype)


def chol(a: npt.ArrayLike, b: npt.ArrayLike | None = None, *, l: bool = True, inverse: bool = False,  # noqa: E741
         logdet: bool = False, quad: bool = False, dtype: DTypeLike = None) -> CholResult:
    """:meth:`Session.chol` on the default session."""
    return default_session().chol(a, b, l=l, inverse=inverse, logdet=logdet, quad=quad, dtype=dtype)


def verify(ops: str | Sequence[str] | None = None, precisions: str | Sequence[str] | None = None) -> VerifyReport:
    """:meth:`Session.verify` on the default session."""
    return default_session().verify(ops, precisions)


def latent(x: npt.ArrayLike, stat: str | Sequence[str] = ("moments", "corr"), *, axes: Sequence[int] | int = (-2, -1),
           lags: int | None = None, nan: str = "propagate", ddof: int = 0, precision: DTypeLike = None,
           batch: int = 0) -> LatentResult:
    """:meth:`Session.latent` on the default session."""
    return default_session().latent(x, stat, axes=axes, lags=lags, nan=nan, ddof=ddof, precision=precision, batch=batch)


def stack(dates: Any, *, looks: int | str | Sequence[int] = 1, crop: Sequence[int] | None = None,
          filter: str | None = None, filter_size: int | None = None, enl: float | None = None,  # noqa: A002
          stat: str | Sequence[str] = "all", quantity: str = "intensity", ddof: int = 0,
          nodata: float | None = None, band: int = 1) -> StackResult:
    """:meth:`Session.stack` on the default session."""
    return default_session().stack(dates, looks=looks, crop=crop, filter=filter, filter_size=filter_size, enl=enl,
                                   stat=stat, quantity=quantity, ddof=ddof, nodata=nodata, band=band)


def paco(cube: npt.ArrayLike, angles: npt.ArrayLike, psf: npt.ArrayLike | None = None, fwhm: float | None = None, *,
         radius: int = 4, threshold: float = 5.0, min_sep: float | None = None,
         center: str | Sequence[float] | None = None, unbiased: bool = False, contrast_check: bool = False,
         star_flux: float | None = None, pixel_scale: float | None = None, north_offset: float = 0.0,
         psf_norm: str = "sum", placement: str = "nearest", compat: str = "none",
         precision: DTypeLike = None) -> PacoResult:
    """:meth:`Session.paco` on the default session."""
    return default_session().paco(cube, angles, psf, fwhm, radius=radius, threshold=threshold, min_sep=min_sep,
                                  center=center, unbiased=unbiased, contrast_check=contrast_check, star_flux=star_flux,
                                  pixel_scale=pixel_scale, north_offset=north_offset, psf_norm=psf_norm,
                                  placement=placement, compat=compat, precision=precision)
