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

from . import _lib
from ._lib import AxisError, DeviceError, Error, InputError
from ._session import Session, default_session, defaults, devices, on_default, open, set_default
from ._shader import ShaderResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._results import CholResult, CovResult, LatentResult, PacoResult, StackResult, VerifyReport

# The result classes load at first use (vkstat.CovResult, or the first call
# that makes one): their module's dataclasses and typing cost an import of
# 8-15 ms, which a program that only maps and reduces need not pay.
_RESULTS = ("CholResult", "CovResult", "LatentResult", "PacoResult", "StackResult", "VerifyReport")

# What ``from vkstat import *`` takes: not open and map, which would shadow
# the builtins (use vkstat.open and vkstat.map).
__all__ = [
    "devices", "defaults", "Session", "reduce", "quantile", "cov", "chol", "cho_solve", "verify",
    "latent", "stack", "paco", "shader", "default_session", "set_default", "CovResult", "CholResult", "VerifyReport",
    "LatentResult", "StackResult", "PacoResult", "ShaderResult",
    "Error", "DeviceError", "InputError", "AxisError", "__version__",
]



def __getattr__(name: str) -> object:
    """``vkstat.__version__``: the library's, which loads it (importing
    vkstat loads nothing: a process forked from one that only imported it
    can use it, see docs/python.md); and the result classes."""
    if name == "__version__":
        return _lib.version()
    if name in _RESULTS:
        from . import _results
        return getattr(_results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_RESULTS) | {"__version__"})

# The module-level functions: each Session method on the default session.
map = on_default(Session.map)  # noqa: A001
reduce = on_default(Session.reduce)
quantile = on_default(Session.quantile)
cov = on_default(Session.cov)
chol = on_default(Session.chol)
cho_solve = on_default(Session.cho_solve)
latent = on_default(Session.latent)
stack = on_default(Session.stack)
paco = on_default(Session.paco)
verify = on_default(Session.verify)
shader = on_default(Session.shader)
