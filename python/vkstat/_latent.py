"""Statistics of ML latent tensors: :meth:`Session.latent`, what ``vkstat
latent`` computes."""

from __future__ import annotations

import numpy as np

from ._arrays import lend
from ._params import _ddof, _names, _precision

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

    import numpy.typing as npt

    from ._params import DTypeLike
    from ._results import LatentResult

    from ._session import Session


def latent(self: Session, x: npt.ArrayLike, stat: str | Sequence[str] = ("moments", "corr"), *,
           axes: Sequence[int] | int = (-2, -1), lags: int | None = None, nan: str = "propagate", ddof: int = 0,
           bias: bool = True, precision: DTypeLike = None, batch: int = 0, out: Mapping[str, np.ndarray] | None = None) -> LatentResult:
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
    bias : bool, optional
        False corrects skew and kurt for bias as
        :func:`scipy.stats.skew` and :func:`scipy.stats.kurtosis` with
        ``bias=False`` do: G1 = g1·√(n(n−1))/(n−2) where n > 2, G2 =
        ((n²−1)·m4/m2² − 3(n−1)²)/((n−2)(n−3)) where n > 3 (n the values
        of the slice), the others left as they are (as SciPy does).
    precision : {None, "auto", "float16", "bfloat16", "float32", "float64"}, optional
        How the tensor is stored for the work, as ``--precision``
        (``f16``, ``bf16``, ``f32``, ``f64`` too): by default the
        input's own type. Other types are converted a batch at a time.
    batch : int, optional
        Samples per batch; 0 (the default) takes as many as fit the
        device's memory budget (on the CPU path: all of them).
    out : dict of str to ndarray, optional
        Where to write arrays, by name, each as NumPy's ``out`` (of the
        array's shape; cast into it through a temporary when it is not
        C-contiguous and of the array's dtype).

    Returns
    -------
    LatentResult
        The arrays, named as the command's files (float64, but the
        moments float32 when computed in float32 or 16-bit, as NumPy's
        ``mean`` and SciPy's ``skew`` of float32 are):
        ``mean``, ``var``, ``std``, ``min``, ``max``, ``skew``, ``kurt``,
        ``corr``, ``corr_frames``, ``frame_corr``, ``lagcorr``,
        ``pca_values``, ``pca_ratio``, ``pca_components`` (the components
        as rows, scikit-learn's ``components_``: ``pca_vectors.npy``
        transposed), ``spatial_spectrum``, ... (None for what was not asked;
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
    params = {"stats": _names(stat), "axes": [axes] if isinstance(axes, (int, np.integer)) else axes, "ddof": _ddof(ddof),
              "lags": lags, "nan": nan, "bias": _bias(bias), "precision": _precision(precision), "batch": batch}
    got, info, _ = self._run("latent", params, {"x": lend(x, "x", half=True)}, out)
    from ._results import LatentResult, fill  # at the first call: its dataclasses cost an import 8 ms
    return fill(LatentResult, got, info, names=info["arrays"])


def _bias(bias: Any) -> bool:
    """bias as a bool: True, False or NumPy's bools."""
    if not isinstance(bias, (bool, np.bool_)):
        raise TypeError(f"bias: True or False, got {type(bias).__name__}")
    return bool(bias)
